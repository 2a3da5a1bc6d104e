package dev.tandem.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.config.SqlConfiguration;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Grants hold in the catalog: over the wire protocol of a secured server, a reader granted only
 * {@code orders} and {@code orders_by_id} finds only those in {@code pg_catalog}, {@code information_schema}
 * and pgjdbc's DatabaseMetaData (the others are in no relation, as Materialize hides them), and
 * {@code has_table_privilege} answers from its grants and roles; {@code tandem_internal}'s relations and the
 * size functions show only the granted objects too; {@code SHOW}, the REST lists of tables,
 * views and indexes and SQL over HTTP list only those too.
 */
class CatalogGrantsTest {

    @TempDir
    Path dir;

    @Test
    void aReaderSeesInTheCatalogOnlyTheObjectsItIsGranted() throws Exception {
        try (SecuredServer s = new SecuredServer(dir, Map.of("tandem.pgwire.port", 0, "tandem.pgwire.host", "127.0.0.1"))) {
            int pg = s.server.bean(SqlConfiguration.PgWireHolder.class).port();
            try (Connection admin = SqlAccessMatrixTest.connect("127.0.0.1", pg, "admin", s.secrets.get("admin"), "");
                    Statement st = admin.createStatement()) {
                st.execute("CREATE TABLE orders (id bigint NOT NULL PRIMARY KEY)");
                st.execute("CREATE TABLE secrets (id bigint NOT NULL)");
                st.execute("CREATE INDEX orders_by_id ON orders (id)");
                st.execute("CREATE VIEW all_secrets AS SELECT id FROM secrets");
            }
            String relations = "SELECT c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
                    + "WHERE n.nspname = 'public' ORDER BY 1";
            try (Connection scoped = SqlAccessMatrixTest.connect("127.0.0.1", pg, "scoped", s.secrets.get("scoped"), "");
                    Statement st = scoped.createStatement()) {
                assertThat(column(st, relations)).containsExactly("orders", "orders_by_id");
                assertThat(column(st, "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'")).containsExactly("orders");
                assertThat(column(st, "SELECT column_name FROM information_schema.columns WHERE table_name = 'secrets'")).isEmpty();
                assertThat(column(st, "SELECT has_table_privilege('orders', 'SELECT')::text || ' ' || has_table_privilege('orders', 'INSERT')::text"))
                        .containsExactly("true false");
                assertThat(error(st, "SELECT has_table_privilege('secrets', 'SELECT')")).isEqualTo("42P01");
                List<String> tables = new ArrayList<>();
                try (ResultSet rs = scoped.getMetaData().getTables(null, "public", "%", new String[] {"TABLE", "VIEW"})) {
                    while (rs.next()) {
                        tables.add(rs.getString("TABLE_NAME"));
                    }
                }
                assertThat(tables).containsExactly("orders");
                // SHOW lists what the catalog shows
                assertThat(column(st, "SHOW TABLES")).containsExactly("orders");
                assertThat(column(st, "SHOW VIEWS")).isEmpty();
                assertThat(column(st, "SHOW INDEXES")).containsExactly("orders_by_id");
                assertThat(error(st, "SHOW COLUMNS FROM secrets")).isEqualTo("42501");
                // Tandem's introspection too: only the granted index, joined with pg_class; no other object's rows
                assertThat(column(st, "SELECT c.relname FROM tandem_internal.indexes i JOIN pg_catalog.pg_class c ON c.oid = i.oid ORDER BY 1"))
                        .containsExactly("orders_by_id");
                String sized = "SELECT DISTINCT coalesce(i.name, a.collection_id) FROM tandem_internal.arrangement_sizes a"
                        + " LEFT JOIN tandem_internal.indexes i ON i.id = a.collection_id ORDER BY 1";
                List<String> seen = column(st, sized);
                for (long deadline = System.nanoTime() + 30_000_000_000L; seen.isEmpty() && System.nanoTime() < deadline; seen = column(st, sized)) {
                    Thread.sleep(100); // the sizes are sampled: bounded wait for the first sample
                }
                assertThat(seen).containsExactly("orders_by_id");
                assertThat(column(st, "SELECT count(*) FROM tandem_internal.frontiers f WHERE f.collection_id NOT IN"
                        + " (SELECT id FROM tandem_internal.indexes)")).containsExactly("0");
                assertThat(error(st, "SELECT pg_relation_size('orders_pkey')")).isEqualTo("42P01");
                assertThat(column(st, "SELECT (pg_relation_size('orders_by_id') >= 0)::text")).containsExactly("true");
                assertThat(column(st, "SHOW COLUMNS FROM orders")).containsExactly("id");
            }
            // and so do the REST lists and SQL over HTTP
            for (String[] list : new String[][] {{"/v1/tables", "[\"orders\"]"}, {"/v1/views", "[]"}, {"/v1/indexes", "[\"orders_by_id\"]"}}) {
                String body = s.as("scoped").get().uri(list[0]).retrieve().bodyToMono(String.class).block(java.time.Duration.ofSeconds(30));
                List<String> names = new ArrayList<>();
                TandemServer.json(body).forEach(n -> names.add(n.path("name").asString()));
                assertThat(names.toString().replace(" ", "")).as(list[0]).isEqualTo(list[1].replace("\"", ""));
            }
            String shown = s.as("scoped").post().uri("/v1/sql").contentType(org.springframework.http.MediaType.APPLICATION_JSON)
                    .bodyValue("{\"sql\":\"SHOW TABLES\"}").retrieve().bodyToMono(String.class).block(java.time.Duration.ofSeconds(30));
            assertThat(shown).contains("orders").doesNotContain("secrets");
            String all = s.as("reader").get().uri("/v1/views").retrieve().bodyToMono(String.class).block(java.time.Duration.ofSeconds(30));
            assertThat(all).as("a reader without an allow-list sees every view").contains("all_secrets");
            try (Connection reader = SqlAccessMatrixTest.connect("127.0.0.1", pg, "reader", s.secrets.get("reader"), "");
                    Statement st = reader.createStatement()) {
                assertThat(column(st, relations)).containsExactly("all_secrets", "orders", "orders_by_id", "orders_pkey", "secrets");
                assertThat(column(st, "SELECT name FROM tandem_internal.indexes ORDER BY 1")).containsExactly("orders_by_id", "orders_pkey");
                assertThat(column(st, "SELECT has_table_privilege('secrets', 'SELECT')::text || ' ' || has_table_privilege('secrets', 'INSERT')::text"))
                        .containsExactly("true false");
            }
            try (Connection writer = SqlAccessMatrixTest.connect("127.0.0.1", pg, "writer", s.secrets.get("writer"), "");
                    Statement st = writer.createStatement()) {
                assertThat(column(st, "SELECT has_table_privilege('secrets', 'INSERT')::text || ' ' || has_table_privilege('all_secrets', 'INSERT')::text"))
                        .containsExactly("true false");
            }
        }
    }

    private static List<String> column(Statement st, String sql) throws SQLException {
        List<String> out = new ArrayList<>();
        try (ResultSet rs = st.executeQuery(sql)) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    private static String error(Statement st, String sql) {
        try {
            st.executeQuery(sql).close();
            return "no error";
        } catch (SQLException e) {
            return e.getSQLState();
        }
    }
}
