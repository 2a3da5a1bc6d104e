package dev.tandem.pgwire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.sql.SqlLimits;
import dev.tandem.sql.SqlTesting;
import java.nio.file.Path;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * {@code WITH RECURSIVE} as PostgreSQL 15 answers it — {@code UNION} ending on cycles, {@code UNION ALL} with a
 * depth bound, several items, the items used in joins and aggregates, PostgreSQL's errors for the forms it
 * refuses — over random graphs (cycles, self-loops, disconnected parts), an org chart and a bill of materials,
 * answered by Tandem and by a real PostgreSQL alike; and a recursion that does not end, which Tandem stops at
 * its bound while the session goes on answering. Skipped without {@code POSTGRES_ORACLE_ADDRESS}, as
 * {@link PostgresDifferentialTest} is.
 */
class PostgresRecursiveTest {

    private static final String CLOSURE = "WITH RECURSIVE tc(a, b) AS (SELECT src, dst FROM edges UNION SELECT tc.a, e.dst FROM tc JOIN edges e"
            + " ON tc.b = e.src) ";

    static final List<String> GRAPH_QUERIES = List.of(
            CLOSURE + "SELECT a, b FROM tc",
            CLOSURE + "SELECT a, count(*) FROM tc GROUP BY a",
            CLOSURE + "SELECT a FROM tc WHERE a = b ORDER BY a",
            CLOSURE + "SELECT e.src, count(DISTINCT tc.b) FROM edges e JOIN tc ON tc.a = e.dst GROUP BY e.src",
            CLOSURE + "SELECT n.id FROM nodes n WHERE NOT EXISTS (SELECT 1 FROM tc WHERE tc.a = n.id) ORDER BY n.id",
            "WITH RECURSIVE r(n) AS (SELECT 0::bigint UNION SELECT e.dst FROM r JOIN edges e ON e.src = r.n) SELECT n FROM r ORDER BY n",
            "WITH RECURSIVE r(n) AS (SELECT id FROM nodes WHERE id % 7 = 3 UNION SELECT e.dst FROM edges e JOIN r ON e.src = r.n) SELECT count(*) FROM r",
            "WITH RECURSIVE p(n, d) AS (SELECT 0::bigint, 0 UNION ALL SELECT e.dst, p.d + 1 FROM p JOIN edges e ON e.src = p.n WHERE p.d < 4)"
                    + " SELECT n, min(d), max(d), count(*) FROM p GROUP BY n",
            "WITH RECURSIVE s(a, b, d) AS (SELECT src, dst, 1 FROM edges UNION SELECT s.a, e.dst, s.d + 1 FROM s JOIN edges e ON e.src = s.b"
                    + " WHERE s.d < 5) SELECT a, b, min(d) FROM s GROUP BY a, b",
            "WITH RECURSIVE s(a, b, d) AS (SELECT src, dst, 1 FROM edges UNION ALL SELECT s.a, e.dst, s.d + 1 FROM s JOIN edges e ON e.src = s.b"
                    + " WHERE s.d < 3) SELECT d, count(*) FROM s GROUP BY d",
            "WITH RECURSIVE starts AS (SELECT DISTINCT src AS n FROM edges WHERE src < 5), r(s, n) AS (SELECT n, n FROM starts"
                    + " UNION SELECT r.s, e.dst FROM r JOIN edges e ON e.src = r.n), counts AS (SELECT s, count(*) AS k FROM r GROUP BY s)"
                    + " SELECT s, k FROM counts ORDER BY s",
            "WITH RECURSIVE fwd(n) AS (SELECT 1::bigint UNION SELECT e.dst FROM fwd JOIN edges e ON e.src = fwd.n),"
                    + " back(n) AS (SELECT 1::bigint UNION SELECT e.src FROM back JOIN edges e ON e.dst = back.n)"
                    + " SELECT fwd.n FROM fwd JOIN back ON fwd.n = back.n ORDER BY fwd.n",
            "WITH RECURSIVE r(n) AS (SELECT 0::bigint UNION SELECT e.dst FROM r, edges e WHERE e.src = r.n AND e.dst <> r.n)"
                    + " SELECT n FROM r ORDER BY n DESC LIMIT 5");

    static final List<String> QUERIES = List.of(
            "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 100) SELECT sum(n), count(*), max(n) FROM c",
            "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 100) SELECT n FROM c ORDER BY n",
            "WITH RECURSIVE c(n) AS (VALUES (1) UNION ALL SELECT n + 2 FROM c WHERE n < 9) SELECT n FROM c",
            "WITH RECURSIVE c(n, s) AS (SELECT 1, 'x'::text UNION ALL SELECT n + 1, s || 'y' FROM c WHERE n < 5) SELECT n, s FROM c ORDER BY n",
            "WITH RECURSIVE c(n) AS (SELECT 1 UNION SELECT n % 5 + 1 FROM c) SELECT n FROM c ORDER BY n",
            "WITH RECURSIVE a(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM a WHERE n < 10), b(n) AS (SELECT n FROM a WHERE n % 3 = 0"
                    + " UNION ALL SELECT n * 2 FROM b WHERE n < 50) SELECT n FROM b ORDER BY n",
            "WITH RECURSIVE fib(i, a, b) AS (SELECT 1, 0::bigint, 1::bigint UNION ALL SELECT i + 1, b, a + b FROM fib WHERE i < 60) SELECT i, a FROM fib",
            "WITH RECURSIVE x AS (SELECT 1 AS n) SELECT n FROM x",
            "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + (SELECT max(id) FROM emp WHERE boss IS NULL)::integer FROM c WHERE n < 40)"
                    + " SELECT n FROM c",
            "WITH RECURSIVE chain(id, name, lvl, path) AS (SELECT id, name, 0, name FROM emp WHERE boss IS NULL UNION ALL"
                    + " SELECT e.id, e.name, c.lvl + 1, c.path || '/' || e.name FROM emp e JOIN chain c ON e.boss = c.id)"
                    + " SELECT id, name, lvl, path FROM chain ORDER BY id",
            "WITH RECURSIVE under(root, id) AS (SELECT id, id FROM emp UNION ALL SELECT u.root, e.id FROM under u JOIN emp e ON e.boss = u.id)"
                    + " SELECT u.root, sum(e.salary)::bigint, count(*) FROM under u JOIN emp e ON e.id = u.id GROUP BY u.root",
            "WITH RECURSIVE up(id, boss) AS (SELECT id, boss FROM emp WHERE name = 'Hana' UNION ALL SELECT e.id, e.boss FROM emp e"
                    + " JOIN up ON e.id = up.boss) SELECT e.name FROM up JOIN emp e ON e.id = up.id ORDER BY e.name",
            "WITH RECURSIVE need(part, qty) AS (SELECT part, qty FROM parts WHERE assembly = 'bike' UNION ALL SELECT p.part, n.qty * p.qty"
                    + " FROM need n JOIN parts p ON p.assembly = n.part) SELECT part, sum(qty)::bigint FROM need GROUP BY part",
            "WITH RECURSIVE need(part, qty) AS (SELECT part, qty FROM parts WHERE assembly = 'bike' UNION ALL SELECT p.part, n.qty * p.qty"
                    + " FROM need n JOIN parts p ON p.assembly = n.part) SELECT sum(n.qty * c.price) FROM need n JOIN cost c ON c.part = n.part",
            "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT c.n + 1 FROM c JOIN c c2 ON true WHERE c.n < 3) SELECT n FROM c",
            "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT count(*) FROM c) SELECT n FROM c",
            "WITH RECURSIVE c(n) AS (SELECT n FROM c UNION ALL SELECT 1) SELECT n FROM c",
            "WITH RECURSIVE r(n) AS (SELECT 0 UNION SELECT e.dst FROM r JOIN edges e ON e.src = r.n) SELECT n FROM r",
            "WITH RECURSIVE r(n) AS (SELECT 0::bigint UNION SELECT e.dst FROM edges e LEFT JOIN r ON e.src = r.n) SELECT n FROM r",
            "WITH RECURSIVE r(n) AS (SELECT 0::bigint UNION SELECT e.dst FROM edges e WHERE e.src IN (SELECT n FROM r)) SELECT n FROM r");

    @TempDir
    Path dir;

    @Test
    void recursiveQueriesAnswerAsPostgresDoes() throws SQLException {
        String address = System.getenv("POSTGRES_ORACLE_ADDRESS");
        Assumptions.assumeTrue(address != null && !address.isBlank(), "POSTGRES_ORACLE_ADDRESS is not set");
        Scheduler timer = Schedulers.newSingle("recursive-timer");
        SqlLimits limits = new SqlLimits(1 << 20, 200_000, Duration.ofSeconds(30), 1 << 20, 300, 50_000);
        List<String> mismatches = new ArrayList<>();
        int compared = 0;
        try (SqlTesting.Stack stack = SqlTesting.stack(dir, new SqlTesting.Lanes(limits, Schedulers.boundedElastic(), Schedulers.boundedElastic(), timer));
                PgWireServer server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0);
                PgAnswers.Systems systems = PgAnswers.Systems.open(address, server.port(), "")) {
            try (Statement p = systems.pg().createStatement(); Statement t = systems.td().createStatement()) {
                p.execute("DROP TABLE IF EXISTS edges, nodes, emp, parts, cost");
                for (String sql : setup()) {
                    p.execute(sql);
                    t.execute(sql);
                }
            }
            systems.compareAll(QUERIES, mismatches);
            compared += QUERIES.size();
            Random random = new Random(17);
            for (int graph = 0; graph < 4; graph++) {
                List<String> writes = graph(random, 12 + 8 * graph);
                try (Statement p = systems.pg().createStatement(); Statement t = systems.td().createStatement()) {
                    for (String sql : writes) {
                        p.execute(sql);
                        t.execute(sql);
                    }
                }
                systems.compareAll(GRAPH_QUERIES, mismatches);
                compared += GRAPH_QUERIES.size();
            }

            String endless = "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT count(*) FROM c";
            try (Statement t = systems.td().createStatement()) {
                t.executeQuery(endless);
                mismatches.add(endless + ": Tandem answered a recursion that does not end");
            } catch (SQLException e) {
                if (!"54000".equals(e.getSQLState()) || !e.getMessage().contains("tandem.sql.max-recursion-iterations")) {
                    mismatches.add(endless + ": expected 54000 naming tandem.sql.max-recursion-iterations, Tandem: " + e.getSQLState() + " "
                            + e.getMessage());
                }
            }
            PgAnswers.compare("after the bound", PgAnswers.answer(systems.pg(), QUERIES.get(0), false), PgAnswers.answer(systems.td(),
                    QUERIES.get(0), false), "text", mismatches);

            String query = "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 5) SELECT n FROM c";
            String got = PgAnswers.update(systems.td(), "CREATE VIEW rv AS " + query);
            if (got.startsWith("ERROR")) {
                mismatches.add("CREATE VIEW rv AS " + query + ": Tandem: " + got);
            }
            PgAnswers.compare("a view over a recursive query", PgAnswers.answer(systems.pg(), query, false),
                    PgAnswers.answer(systems.td(), "SELECT n FROM rv", false), "text", mismatches);
        } finally {
            timer.dispose();
        }
        assertThat(compared).isEqualTo(QUERIES.size() + 4 * GRAPH_QUERIES.size());
        assertThat(mismatches).as("%d differences from PostgreSQL:\n%s", mismatches.size(), String.join("\n", mismatches)).isEmpty();
    }

    /** A recursion far from its bounds is stopped by a CancelRequest (57014), and the connection goes on serving. */
    @Test
    void cancelStopsARecursion() throws Exception {
        Scheduler timer = Schedulers.newSingle("recursive-cancel-timer");
        SqlLimits limits = new SqlLimits(1 << 20, 200_000, Duration.ofSeconds(30), 1 << 20, Integer.MAX_VALUE, Long.MAX_VALUE);
        try (SqlTesting.Stack stack = SqlTesting.stack(dir, new SqlTesting.Lanes(limits, Schedulers.boundedElastic(), Schedulers.boundedElastic(), timer));
                PgWireServer server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0);
                java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/tandem?user=u&sslmode=disable");
                Statement s = c.createStatement()) {
            java.util.concurrent.CompletableFuture<Object> query = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                try (java.sql.ResultSet rs = s.executeQuery("WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT count(*) FROM c")) {
                    return rs.next();
                } catch (SQLException e) {
                    return e;
                }
            });
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> stack.pendingReads() > 0);
            s.cancel();
            assertThat(query.get(20, java.util.concurrent.TimeUnit.SECONDS)).isInstanceOfSatisfying(SQLException.class,
                    e -> assertThat(e.getSQLState()).isEqualTo("57014"));
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> stack.pendingReads() == 0);
            try (java.sql.ResultSet rs = s.executeQuery("WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 3) SELECT sum(n) FROM c")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getLong(1)).isEqualTo(6);
            }
        } finally {
            timer.dispose();
        }
    }

    private static List<String> setup() {
        return List.of(
                "CREATE TABLE edges (src bigint, dst bigint)",
                "CREATE TABLE nodes (id bigint)",
                "CREATE TABLE emp (id bigint, name text, boss bigint, salary bigint)",
                "INSERT INTO emp VALUES (1, 'Ada', NULL, 300), (2, 'Bo', 1, 200), (3, 'Cy', 1, 210), (4, 'Di', 2, 120), (5, 'Ed', 2, 110),"
                        + " (6, 'Fay', 3, 130), (7, 'Gus', 6, 90), (8, 'Hana', 7, 80), (9, 'Ivo', 7, 85), (10, 'Jo', 5, 70), (11, 'Kim', NULL, 250),"
                        + " (12, 'Lu', 11, 100)",
                "CREATE TABLE parts (assembly text, part text, qty bigint)",
                "INSERT INTO parts VALUES ('bike', 'frame', 1), ('bike', 'wheel', 2), ('bike', 'brake', 2), ('wheel', 'spoke', 32),"
                        + " ('wheel', 'rim', 1), ('wheel', 'hub', 1), ('hub', 'bearing', 2), ('brake', 'pad', 2), ('brake', 'cable', 1),"
                        + " ('frame', 'tube', 3), ('car', 'wheel', 4)",
                "CREATE TABLE cost (part text, price numeric)",
                "INSERT INTO cost VALUES ('frame', 120.50), ('spoke', 0.25), ('rim', 20), ('hub', 15.75), ('bearing', 2.10), ('pad', 3),"
                        + " ('cable', 4.99), ('tube', 10)");
    }

    /** The writes that replace the graph with a random one of {@code n} nodes: cycles, self-loops, duplicate edges, isolated nodes. */
    private static List<String> graph(Random random, int n) {
        List<String> writes = new ArrayList<>(List.of("DELETE FROM edges", "DELETE FROM nodes"));
        List<String> nodes = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            nodes.add("(" + i + ")");
        }
        writes.add("INSERT INTO nodes VALUES " + String.join(", ", nodes));
        List<String> edges = new ArrayList<>();
        for (int i = 0, m = n + random.nextInt(n); i < m; i++) {
            // the last quarter of the nodes only point among themselves: a part disconnected from node 0
            int part = n * 3 / 4;
            int src = random.nextInt(n);
            int dst = src < part ? random.nextInt(part) : part + random.nextInt(n - part);
            edges.add("(" + src + ", " + (random.nextInt(8) == 0 ? src : dst) + ")");
        }
        edges.add("(0, 1)");
        edges.add("(0, 1)");
        writes.add("INSERT INTO edges VALUES " + String.join(", ", edges));
        return writes;
    }
}
