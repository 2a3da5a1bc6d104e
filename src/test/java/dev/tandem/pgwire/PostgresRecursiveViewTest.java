package dev.tandem.pgwire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.sql.SqlTesting;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Indexed views over {@code WITH RECURSIVE} queries — a transitive closure, the nodes reachable from one, paths
 * counted by hops up to a depth, an org chart with levels and a bill of materials multiplying quantities — kept
 * up to date under random inserts, deletes and updates of the tables they read (cycles and self-loops
 * included), each compared after every write with PostgreSQL 15's answer to the view's query (skipped without
 * {@code POSTGRES_ORACLE_ADDRESS}); a subscription to a recursive query; {@code CREATE TABLE AS} and {@code COPY}
 * of one; and a view whose recursion does not end, whose reads answer an error while the server goes on.
 */
class PostgresRecursiveViewTest {

    static final List<String> GRAPH_VIEWS = List.of(
            "rv_tc AS WITH RECURSIVE tc(a, b) AS (SELECT src, dst FROM rg UNION SELECT tc.a, e.dst FROM tc JOIN rg e ON tc.b = e.src)"
                    + " SELECT a, b FROM tc",
            "rv_reach AS WITH RECURSIVE r(n) AS (SELECT 0::bigint UNION SELECT e.dst FROM r JOIN rg e ON e.src = r.n) SELECT n FROM r",
            "rv_paths AS WITH RECURSIVE p(n, d) AS (SELECT 0::bigint, 0 UNION ALL SELECT e.dst, p.d + 1 FROM p JOIN rg e ON e.src = p.n"
                    + " WHERE p.d < 3) SELECT n, d FROM p",
            "rv_depth AS WITH RECURSIVE s(a, b, d) AS (SELECT src, dst, 1 FROM rg UNION SELECT s.a, e.dst, s.d + 1 FROM s JOIN rg e"
                    + " ON e.src = s.b WHERE s.d < 4) SELECT a, b, min(d) AS d FROM s GROUP BY a, b",
            "rv_both AS WITH RECURSIVE fwd(n) AS (SELECT 1::bigint UNION SELECT e.dst FROM fwd JOIN rg e ON e.src = fwd.n),"
                    + " back(n) AS (SELECT 1::bigint UNION SELECT e.src FROM back JOIN rg e ON e.dst = back.n)"
                    + " SELECT fwd.n FROM fwd JOIN back ON fwd.n = back.n",
            "rv_nested AS WITH RECURSIVE a(n) AS (SELECT 0::bigint UNION SELECT e.dst FROM a JOIN rg e ON e.src = a.n),"
                    + " b(n, d) AS (SELECT n, 0 FROM a UNION ALL SELECT e.dst, b.d + 1 FROM b JOIN rg e ON e.src = b.n JOIN a ON a.n = e.dst"
                    + " WHERE b.d < 2) SELECT n, d, count(*) AS c FROM b GROUP BY n, d");

    static final List<String> ORG_VIEWS = List.of(
            "rv_org AS WITH RECURSIVE chain(id, lvl) AS (SELECT id, 0 FROM ro WHERE boss IS NULL UNION ALL SELECT e.id, c.lvl + 1"
                    + " FROM ro e JOIN chain c ON e.boss = c.id WHERE c.lvl < 8) SELECT id, lvl FROM chain",
            "rv_bom AS WITH RECURSIVE need(part, qty) AS (SELECT id, qty FROM ro WHERE boss IS NULL UNION ALL SELECT p.id, n.qty * p.qty"
                    + " FROM need n JOIN ro p ON p.boss = n.part) SELECT part, sum(qty)::bigint AS total FROM need GROUP BY part");

    @TempDir
    Path dir;

    @Test
    void maintainedRecursiveViewsAnswerAsPostgresDoes() throws SQLException {
        Random random = new Random(36);
        PgAnswers.checkMaintainedViews(dir, 300, (pg, td, mismatches) -> {
            int withRows = PgAnswers.maintainedViews(pg, td, "rg (id bigint, src bigint, dst bigint)", GRAPH_VIEWS,
                    name -> List.of("rv_reach", "rv_paths", "rv_both", "rv_nested").contains(name) ? "n" : "a", 60,
                    PgAnswers.randomWrites(random, "rg", "id", () -> random.nextInt(6) + ", " + random.nextInt(6), List.of("src = dst", "src = 0"),
                            () -> List.of("dst = " + random.nextInt(6), "src = " + random.nextInt(6)), List.of("dst = 1")), mismatches);
            withRows += PgAnswers.maintainedViews(pg, td, "ro (id bigint, boss bigint, qty bigint)", ORG_VIEWS,
                    name -> name.equals("rv_org") ? "id" : "part", 60,
                    PgAnswers.randomWrites(random, "ro", "id", () -> (random.nextInt(4) == 0 ? "NULL" : String.valueOf(random.nextInt(10)))
                            + ", " + (1 + random.nextInt(3)), List.of("boss IS NULL", "qty = 2"),
                            () -> List.of("boss = " + random.nextInt(10), "qty = qty + 1", "boss = NULL"), List.of("boss = 1")), mismatches);
            return withRows;
        });
    }

    /** A subscription to a recursive query streams its changes: an edge added extends it, an edge deleted takes back a cycle. */
    @Test
    void aSubscriptionToARecursiveQueryStreamsItsChanges() throws SQLException {
        try (SqlTesting.Stack stack = SqlTesting.stack(dir);
                PgWireServer server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0);
                Connection writer = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/tandem?user=test&sslmode=disable");
                Connection reader = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/tandem?user=test&sslmode=disable");
                Statement w = writer.createStatement()) {
            w.execute("CREATE TABLE g (src bigint, dst bigint)");
            w.execute("INSERT INTO g VALUES (0, 1), (1, 2), (2, 1)");
            reader.setAutoCommit(false);
            try (Statement r = reader.createStatement()) {
                r.execute("DECLARE c CURSOR FOR SUBSCRIBE (WITH RECURSIVE r(n) AS (SELECT 0::bigint UNION SELECT g.dst FROM r JOIN g"
                        + " ON g.src = r.n) SELECT n FROM r)");
            }
            try (java.sql.PreparedStatement fetch = reader.prepareStatement("FETCH ALL FROM c WITH (timeout = '1s')")) {
                fetch.setQueryTimeout(30);
                assertThat(changes(fetch, 3)).containsExactlyInAnyOrder("1 0", "1 1", "1 2");
                w.execute("INSERT INTO g VALUES (2, 3)");
                assertThat(changes(fetch, 1)).containsExactly("1 3");
                w.execute("DELETE FROM g WHERE src = 0");
                assertThat(changes(fetch, 3)).containsExactlyInAnyOrder("-1 1", "-1 2", "-1 3");
            }
            reader.commit();
        }
    }

    /** CREATE TABLE AS and COPY (query) TO STDOUT take a recursive query's rows. */
    @Test
    void createTableAsAndCopyReadARecursiveQuery() throws Exception {
        String query = "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 4) SELECT n FROM c";
        try (SqlTesting.Stack stack = SqlTesting.stack(dir);
                PgWireServer server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0);
                Connection td = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/tandem?user=test&sslmode=disable");
                Statement t = td.createStatement()) {
            t.execute("CREATE TABLE four AS " + query);
            try (ResultSet rs = t.executeQuery("SELECT count(*), sum(n) FROM four")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getLong(1)).isEqualTo(4);
                assertThat(rs.getLong(2)).isEqualTo(10);
            }
            java.io.StringWriter out = new java.io.StringWriter();
            new org.postgresql.copy.CopyManager(td.unwrap(org.postgresql.core.BaseConnection.class)).copyOut("COPY (" + query + ") TO STDOUT", out);
            assertThat(out.toString().lines().sorted().toList()).containsExactly("1", "2", "3", "4");
        }
    }

    /** The next {@code n} change rows of a subscription as {@code "diff n"}, fetched in at most 30 tries. */
    private static List<String> changes(java.sql.PreparedStatement fetch, int n) throws SQLException {
        List<String> out = new ArrayList<>();
        for (int tries = 0; out.size() < n && tries < 30; tries++) {
            try (ResultSet rs = fetch.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(2) + " " + rs.getString(3));
                }
            }
        }
        return out;
    }

    @Test
    void aRecursiveViewThatDoesNotEndAnswersAnError() throws SQLException {
        try (SqlTesting.Stack stack = SqlTesting.stack(dir);
                PgWireServer server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0);
                Connection td = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/tandem?user=test&sslmode=disable");
                Statement t = td.createStatement()) {
            t.execute("CREATE VIEW endless AS WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t) SELECT n FROM t");
            t.execute("CREATE INDEX endless_idx ON endless (n)");
            try (ResultSet rs = t.executeQuery("SELECT count(*) FROM endless")) {
                rs.next();
                throw new AssertionError("a recursion that does not end answered " + rs.getLong(1));
            } catch (SQLException e) {
                assertThat(e.getSQLState()).isEqualTo("54000");
                assertThat(e.getMessage()).contains("did not reach a fixed point within 10000 iterations");
            }
            t.execute("CREATE VIEW bounded AS WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 50) SELECT n FROM t");
            try (ResultSet rs = t.executeQuery("SELECT count(*), sum(n) FROM bounded")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getLong(1)).isEqualTo(50);
                assertThat(rs.getLong(2)).isEqualTo(1275);
            }
        }
    }
}
