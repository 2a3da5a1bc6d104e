package dev.tandem.pgwire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.sql.SqlTesting;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tandem's own introspection in the catalog, over the wire: {@code tandem_internal.indexes} (state,
 * frontiers, records, bytes) joined with {@code pg_class} by OID, the other {@code tandem_internal}
 * relations over the introspection collections, and {@code pg_relation_size} and its friends answered
 * from the arrangements' bytes, with {@code 42P01} for a relation that does not exist; psql's
 * {@code \dt+} and {@code \di+} show the sizes.
 */
class TandemInternalCatalogTest {

    @TempDir
    Path dir;

    @Test
    void indexesJoinPgClassAndSizesComeFromTheArrangements() throws Exception {
        try (SqlTesting.Stack stack = SqlTesting.stack(Files.createDirectory(dir.resolve("data")));
                PgWireServer server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0);
                Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/tandem", "tandem", "");
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE points (id bigint PRIMARY KEY, x bigint NOT NULL)");
            s.execute("CREATE INDEX points_by_x ON points (x)");
            StringBuilder insert = new StringBuilder("INSERT INTO points VALUES ");
            for (int i = 0; i < 500; i++) {
                insert.append(i == 0 ? "" : ", ").append('(').append(i).append(", ").append(i % 7).append(')');
            }
            s.execute(insert.toString());

            // the index hydrates and its arrangement's bytes are reported (bounded wait: introspection is sampled)
            String status = "SELECT i.state || ' ' || i.records::text || ' ' || (i.bytes > 0)::text || ' ' || c.relname || ' ' || i.on_relation"
                    + " FROM tandem_internal.indexes i JOIN pg_catalog.pg_class c ON c.oid = i.oid WHERE c.relname = 'points_by_x'";
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            List<String> seen = List.of();
            while (System.nanoTime() < deadline) {
                seen = column(s, status);
                if (seen.equals(List.of("hydrated 500 true points_by_x points"))) {
                    break;
                }
                Thread.sleep(100);
            }
            assertThat(seen).as("tandem_internal.indexes joined with pg_class").containsExactly("hydrated 500 true points_by_x points");
            assertThat(column(s, "SELECT i.name FROM tandem_internal.indexes i JOIN pg_class c ON c.relname = i.name"
                    + " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' ORDER BY 1"))
                    .containsExactly("points_by_x", "points_pkey");
            assertThat(column(s, "SELECT (write_frontier > since)::text FROM tandem_internal.indexes WHERE name = 'points_by_x'"))
                    .containsExactly("true");

            // the size functions answer from the same bytes, in one query's snapshot
            assertThat(column(s, "SELECT (pg_relation_size('points_by_x') = i.bytes)::text"
                    + " || ' ' || (pg_relation_size(i.oid) = i.bytes)::text"
                    + " || ' ' || (pg_indexes_size('points') = (SELECT sum(bytes) FROM tandem_internal.indexes WHERE on_relation = 'points'))::text"
                    + " || ' ' || (pg_total_relation_size('points') = pg_relation_size('points') + pg_indexes_size('points'))::text"
                    + " || ' ' || (pg_table_size('points') = pg_relation_size('points'))::text"
                    + " || ' ' || (pg_indexes_size('points_by_x') = 0)::text"
                    + " || ' ' || (pg_relation_size('pg_class') = 0)::text"
                    + " || ' ' || (pg_relation_size('points_by_x'::regclass, 'fsm') = 0)::text"
                    + " FROM tandem_internal.indexes i WHERE i.name = 'points_by_x'"))
                    .containsExactly("true true true true true true true true");
            assertThat(column(s, "SELECT pg_size_pretty(pg_relation_size('points_by_x'))").get(0)).matches("\\d+ (bytes|kB|MB)");
            assertThat(column(s, "SELECT coalesce(pg_relation_size(987654321), -1)::text")).containsExactly("-1");
            assertThat(error(s, "SELECT pg_relation_size('nosuch')")).isEqualTo("42P01");
            try (java.sql.PreparedStatement ps = c.prepareStatement(
                    "SELECT (pg_total_relation_size(?) >= pg_relation_size(?))::text FROM tandem_internal.indexes WHERE name = ?")) {
                for (int i = 1; i <= 3; i++) {
                    ps.setString(i, "points_by_x");
                }
                try (ResultSet rs = ps.executeQuery()) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getString(1)).isEqualTo("true");
                }
                ps.setString(1, "nosuch");
                ps.setString(2, "nosuch");
                assertThat(org.junit.jupiter.api.Assertions.assertThrows(SQLException.class, () -> ps.executeQuery().close()).getSQLState())
                        .isEqualTo("42P01");
            }
            assertThat(error(s, "SELECT pg_total_relation_size('nosuch'::regclass)")).isEqualTo("42P01");
            // Tandem's own schema has no relations but its own; pg_catalog's unknown ones may be PostgreSQL's, refused
            assertThat(error(s, "SELECT * FROM tandem_internal.nosuch")).isEqualTo("42P01");
            assertThat(error(s, "SELECT * FROM pg_catalog.pg_stat_nosuch")).isEqualTo("0A000");
            // the catalog is read by queries of the catalog alone: in a view, a SUBSCRIBE, a write or beside a table it is refused
            for (String q : List.of("CREATE VIEW v AS SELECT relname FROM pg_class", "SUBSCRIBE (SELECT relname FROM pg_catalog.pg_class)",
                    "CREATE VIEW v AS SELECT table_name FROM information_schema.tables", "INSERT INTO points SELECT oid, oid FROM pg_class",
                    "SELECT c.relname FROM pg_class c JOIN points p ON c.oid = p.x")) {
                assertThat(error(s, q)).as(q).isEqualTo("0A000");
            }
            assertThat(error(s, "CREATE VIEW v AS SELECT * FROM nosuch")).isEqualTo("42P01");

            // the introspection collections, by the objects they are about
            assertThat(column(s, "SELECT DISTINCT c.relname || ' ' || d.hydrated::text FROM tandem_internal.dataflows d"
                    + " JOIN tandem_internal.indexes i ON i.id = d.id JOIN pg_class c ON c.oid = i.oid WHERE c.relname = 'points_by_x'"))
                    .containsExactly("points_by_x true");
            assertThat(column(s, "SELECT count(*) > 0 FROM tandem_internal.arrangement_sizes a JOIN tandem_internal.indexes i"
                    + " ON i.id = a.collection_id WHERE i.name = 'points_by_x'")).containsExactly("t");
            assertThat(column(s, "SELECT count(*) > 0 FROM tandem_internal.frontiers f JOIN tandem_internal.indexes i"
                    + " ON i.id = f.collection_id WHERE i.name = 'points_by_x'")).containsExactly("t");
            assertThat(column(s, "SELECT count(*)::text FROM tandem_internal.sources")).containsExactly("0");
            assertThat(column(s, "SELECT count(*)::text FROM tandem_internal.subscriptions")).containsExactly("0");
            assertThat(column(s, "SELECT nspname FROM pg_namespace WHERE nspname = 'tandem_internal'")).containsExactly("tandem_internal");
            assertThat(column(s, "SELECT table_name FROM information_schema.tables WHERE table_schema = 'tandem_internal' AND table_name = 'indexes'"))
                    .containsExactly("indexes");

            String psql = PgWireTesting.psql();
            if (psql == null) {
                org.junit.jupiter.api.Assertions.assertFalse("true".equalsIgnoreCase(System.getenv("CI")), "no psql on the PATH on CI");
                System.err.println("!!! TandemInternalCatalogTest: psql's \\dt+ and \\di+ not checked: no psql on the PATH");
                return;
            }
            long indexBytes = Long.parseLong(column(s, "SELECT pg_relation_size('points_by_x')::text").get(0));
            String pretty = column(s, "SELECT pg_size_pretty(" + indexBytes + ")").get(0);
            Path script = dir.resolve("sizes.sql");
            Files.writeString(script, "\\dt+ points\n\\di+ points_by_x\n");
            Process p = new ProcessBuilder(psql, "-h", "127.0.0.1", "-p", Integer.toString(server.port()), "-U", "tandem", "-d", "tandem", "-X",
                    "-A", "-f", script.toString()).redirectErrorStream(true).start();
            p.getOutputStream().close();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("psql finished").isTrue();
            assertThat(out).as(out)
                    .contains("Schema|Name|Type|Owner|Persistence|Access method|Size|Description\npublic|points|table|tandem|permanent|heap|")
                    .containsPattern("public\\|points_by_x\\|index\\|tandem\\|points\\|permanent\\|btree\\|" + java.util.regex.Pattern.quote(pretty)
                            + "\\|")
                    .doesNotContain("ERROR");
        }
    }

    static List<String> column(Statement st, String sql) throws SQLException {
        List<String> out = new ArrayList<>();
        try (ResultSet rs = st.executeQuery(sql)) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    static String error(Statement st, String sql) {
        try {
            st.executeQuery(sql).close();
            return "no error";
        } catch (SQLException e) {
            return e.getSQLState();
        }
    }
}
