package dev.tandem.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tandem.source.postgres.PgSourceManager;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The PostgreSQL source against a real PostgreSQL ({@code POSTGRES_ORACLE_ADDRESS}, started with
 * {@code wal_level=logical} by bin/test-postgres.sh), which is also the oracle: after the upstream's
 * writes stop and Tandem caught up, every replicated table equals PostgreSQL's own, read back by SQL.
 * Each test works in a database of its own.
 */
class PostgresSourceTest {

    private static final long WAIT_MILLIS = 60_000;

    @TempDir
    Path dir;

    private String host;
    private int port;
    private String db;
    private SqlStack stack;
    private PgSourceManager sources;
    private final Map<String, String> secrets = new java.util.concurrent.ConcurrentHashMap<>();

    @BeforeEach
    void start() throws SQLException {
        String address = System.getenv("POSTGRES_ORACLE_ADDRESS");
        Assumptions.assumeTrue(address != null && !address.isBlank(), "POSTGRES_ORACLE_ADDRESS is not set");
        host = address.substring(0, address.lastIndexOf(':'));
        port = Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
        db = "src_" + Long.toHexString(System.nanoTime());
        try (Connection c = connect("postgres"); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + db);
        }
        open();
    }

    private void open() {
        stack = new SqlStack(dir);
        sources = new PgSourceManager(stack.controller, stack.storage, secrets::get);
        stack.sql.sources(sources);
    }

    private void closeTandem() {
        sources.close();
        stack.close();
    }

    @AfterEach
    void stop() throws SQLException {
        if (stack == null) {
            return;
        }
        closeTandem();
        try (Connection c = connect("postgres"); Statement s = c.createStatement()) {
            try (ResultSet r = s.executeQuery("SELECT slot_name FROM pg_replication_slots WHERE database = '" + db + "'")) {
                List<String> slots = new ArrayList<>();
                while (r.next()) {
                    slots.add(r.getString(1));
                }
                for (String slot : slots) {
                    s.execute("SELECT pg_drop_replication_slot('" + slot + "')");
                }
            }
            s.execute("DROP DATABASE " + db + " WITH (FORCE)");
        }
    }

    private Connection connect(String database) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://" + host + ":" + port + "/" + database, "postgres", "");
    }

    private Connection upstream() throws SQLException {
        return connect(db);
    }

    private void up(String... statements) throws SQLException {
        try (Connection c = upstream(); Statement s = c.createStatement()) {
            for (String sql : statements) {
                s.execute(sql);
            }
        }
    }

    private String conninfo() {
        return "host=" + host + " port=" + port + " dbname=" + db + " user=postgres";
    }

    private SqlResult tandem(String sql) {
        return stack.run(sql, new SqlSession());
    }

    /** A table's rows as sorted text lines, with their multiplicity. */
    private Map<String, Integer> tandemRows(String table, String columns) {
        Map<String, Integer> out = new TreeMap<>();
        for (Object[] row : tandem("SELECT " + columns + " FROM " + table).rows()) {
            out.merge(line(row), 1, Integer::sum);
        }
        return out;
    }

    private Map<String, Integer> upstreamRows(String table, String columns) throws SQLException {
        Map<String, Integer> out = new TreeMap<>();
        try (Connection c = upstream(); Statement s = c.createStatement(); ResultSet r = s.executeQuery("SELECT " + columns + " FROM " + table)) {
            int n = r.getMetaData().getColumnCount();
            while (r.next()) {
                Object[] row = new Object[n];
                for (int i = 0; i < n; i++) {
                    Object v = r.getObject(i + 1);
                    row[i] = v instanceof Integer x ? Long.valueOf(x) : v instanceof Short x ? Long.valueOf(x) : v;
                }
                out.merge(line(row), 1, Integer::sum);
            }
        }
        return out;
    }

    private static String line(Object[] row) {
        StringBuilder b = new StringBuilder();
        for (Object v : row) {
            b.append(v == null ? "NULL" : v instanceof String s && s.length() > 40 ? s.length() + ":" + s.hashCode() : v.toString()).append('|');
        }
        return b.toString();
    }

    private static void waitFor(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    /** Waits until Tandem's copy of each table equals the upstream's; then asserts it. */
    private void assertCaughtUp(String columns, String... tables) throws SQLException {
        for (String t : tables) {
            Map<String, Integer> want = upstreamRows(t, columns);
            AtomicReference<Map<String, Integer>> got = new AtomicReference<>();
            try {
                waitFor(t + " to catch up", () -> {
                    got.set(tandemRows(t, columns));
                    return got.get().equals(want);
                });
            } catch (AssertionError e) {
                assertThat(got.get()).as("table " + t + "; source " + sources.list()).isEqualTo(want);
            }
        }
    }

    private String state(String source) {
        PgSourceManager.Status s = sources.statusOrNull(source);
        return s == null ? null : s.state();
    }

    @Test
    void walkthroughCopiesThenStreamsInsertsUpdatesDeletesAndTruncates() throws SQLException {
        up("CREATE TABLE items (id int PRIMARY KEY, name text NOT NULL, price float8, stock bigint, active bool, small int2, ts timestamp,"
                        + " code varchar(10), flag char(3))",
                "INSERT INTO items SELECT g, 'item ' || g, g * 1.5, g * 10, g % 2 = 0, g, timestamp '2024-01-02 03:04:05.123456' + g * interval '1 hour',"
                        + " 'c' || g, 'x' FROM generate_series(1, 25000) g",
                "CREATE PUBLICATION pub FOR TABLE items");
        tandem("CREATE SOURCE shop FROM POSTGRES CONNECTION '" + conninfo() + "' PUBLICATION 'pub'");
        waitFor("the copy", () -> "streaming".equals(state("shop")));
        String cols = "id, name, price, stock, active, small, code, flag";
        assertCaughtUp(cols, "items");
        assertThat(sources.statusOrNull("shop").rowsCopied()).isEqualTo(25000);

        tandem("CREATE INDEX items_by_name ON items (name)");
        up("INSERT INTO items VALUES (0, 'zero', NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
                "UPDATE items SET name = 'renamed', price = 2.25 WHERE id = 1",
                "UPDATE items SET id = 100000 WHERE id = 2",
                "DELETE FROM items WHERE id BETWEEN 10 AND 20");
        assertCaughtUp(cols, "items");
        assertThat(tandem("SELECT id FROM items WHERE name = 'renamed'").rows()).hasSize(1);
        // timestamps compared as the upstream formats them
        assertThat(tandem("SELECT ts FROM items WHERE id = 3").rows().get(0)[0].toString()).startsWith("2024-01-02T06:04:05.123456");

        // read-only to Tandem's own writes
        assertThatThrownBy(() -> tandem("INSERT INTO items (id, name) VALUES (-1, 'no')")).hasMessageContaining("replicated from PostgreSQL");
        assertThatThrownBy(() -> tandem("DELETE FROM items")).hasMessageContaining("replicated from PostgreSQL");

        up("TRUNCATE items", "INSERT INTO items (id, name) VALUES (7, 'after truncate')");
        assertCaughtUp(cols, "items");
        assertThat(sources.statusOrNull("shop").tableErrors()).isEmpty();
    }
}
