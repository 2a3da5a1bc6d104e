package dev.tandem.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * The PostgreSQL source through the REST sources API of a real server, against a real PostgreSQL
 * ({@code POSTGRES_ORACLE_ADDRESS}): created with {@code "postgres"}, shown with {@code "kind": "postgres"},
 * its table read through SQL, a bad request refused with nothing created, and dropped with its slot.
 */
class PostgresSourceApiTest {

    @TempDir
    Path dir;

    private String host;
    private int port;
    private String db;

    @BeforeEach
    void database() throws SQLException {
        String address = System.getenv("POSTGRES_ORACLE_ADDRESS");
        Assumptions.assumeTrue(address != null && !address.isBlank(), "POSTGRES_ORACLE_ADDRESS is not set");
        host = address.substring(0, address.lastIndexOf(':'));
        port = Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
        db = "api_" + Long.toHexString(System.nanoTime());
        try (Connection c = connect("postgres"); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + db);
        }
    }

    @AfterEach
    void drop() throws SQLException {
        if (db == null) {
            return;
        }
        try (Connection c = connect("postgres"); Statement s = c.createStatement()) {
            s.execute("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE database = '" + db + "'");
            s.execute("DROP DATABASE " + db + " WITH (FORCE)");
        }
    }

    private Connection connect(String database) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://" + host + ":" + port + "/" + database, "postgres", "");
    }

    private int slots() throws SQLException {
        try (Connection c = connect(db); Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT count(*) FROM pg_replication_slots WHERE database = current_database()")) {
            r.next();
            return r.getInt(1);
        }
    }

    private static void waitFor(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(20);
        }
    }

    @Test
    void createShowReadAndDropThroughTheSourcesApi() throws Exception {
        try (Connection c = connect(db); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE items (id int PRIMARY KEY, name text)");
            s.execute("INSERT INTO items VALUES (1, 'pen'), (2, 'ink')");
            s.execute("CREATE PUBLICATION pub FOR TABLE items");
        }
        String conninfo = "host=" + host + " port=" + port + " dbname=" + db + " user=postgres";
        try (TandemServer server = new TandemServer(dir, Map.of("tandem.secrets.up", "Pa55-word-here"))) {
            TandemServer.Response bad = server.post("/v1/sources", "{\"name\":\"shop\",\"postgres\":{\"connection\":\"" + conninfo
                    + "\",\"publication\":\"missing\"}}");
            assertThat(bad.status()).isEqualTo(422);
            assertThat(bad.isProblem()).isTrue();
            assertThat(bad.json().get("detail").asString()).contains("publication 'missing' does not exist");
            assertThat(slots()).isZero();

            TandemServer.Response created = server.post("/v1/sources", "{\"name\":\"shop\",\"postgres\":{\"connection\":\"" + conninfo
                    + "\",\"password_secret\":\"up\",\"publication\":\"pub\",\"tables\":[{\"upstream\":\"items\",\"name\":\"goods\"}]}}");
            assertThat(created.status()).as(created.text()).isEqualTo(201);
            assertThat(created.json().get("kind").asString()).isEqualTo("postgres");
            waitFor("streaming", () -> "streaming".equals(server.get("/v1/sources/shop").json().get("state").asString()));
            JsonNode status = server.get("/v1/sources/shop").json();
            assertThat(status.get("rows_copied").asLong()).isEqualTo(2);
            assertThat(status.get("postgres").get("publication").asString()).isEqualTo("pub");
            assertThat(server.get("/v1/sources").text()).contains("\"kind\":\"postgres\"").doesNotContain("Pa55-word-here");

            try (Connection c = connect(db); Statement s = c.createStatement()) {
                s.execute("UPDATE items SET name = 'quill' WHERE id = 1");
            }
            waitFor("the update", () -> server.post("/v1/sql", "{\"sql\":\"SELECT name FROM goods WHERE id = 1\"}").text().contains("quill"));
            TandemServer.Response write = server.post("/v1/sql", "{\"sql\":\"INSERT INTO goods VALUES (3, 'no')\"}");
            assertThat(write.status()).isEqualTo(409);
            assertThat(write.text()).contains("replicated from PostgreSQL table public.items");

            String metrics = server.get("/actuator/prometheus").text();
            assertThat(metrics).contains("tandem_source_lag_seconds{", "tandem_source_wal_bytes_behind{", "tandem_source_transactions_total{",
                    "tandem_source_table_errors{").contains("source=\"shop\"");
            // the update's stages: its arrival after the upstream commit, and its write (at least one each)
            assertThat(metrics).containsPattern("tandem_source_receive_seconds_count\\{[^}]*source=\"shop\"[^}]*} [1-9]")
                    .containsPattern("tandem_source_write_seconds_count\\{[^}]*source=\"shop\"[^}]*} [1-9]")
                    .containsPattern("tandem_source_receive_seconds\\{[^}]*quantile=\"0.99\"")
                    .containsPattern("tandem_source_write_seconds\\{[^}]*quantile=\"0.5\"");

            assertThat(server.delete("/v1/sources/shop").status()).isEqualTo(204);
            assertThat(server.get("/v1/sources/shop").status()).isEqualTo(404);
            assertThat(slots()).isZero();
        }
    }
}
