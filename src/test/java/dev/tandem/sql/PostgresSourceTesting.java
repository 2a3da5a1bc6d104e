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
 * What the PostgreSQL source tests share: a database of their own on the real PostgreSQL of
 * {@code POSTGRES_ORACLE_ADDRESS} (started with {@code wal_level=logical} by bin/test-postgres.sh), which
 * is also the oracle, an in-process Tandem stack with its PostgreSQL sources, and the random upstream
 * load of the model tests.
 */
abstract class PostgresSourceTesting {

    static final long WAIT_MILLIS = 60_000;

    @TempDir
    Path dir;

    String host;
    int port;
    String db;
    SqlStack stack;
    PgSourceManager sources;
    final Map<String, String> secrets = new java.util.concurrent.ConcurrentHashMap<>();

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

    void open() {
        stack = new SqlStack(dir);
        sources = new PgSourceManager(stack.controller, stack.storage, secrets::get);
        stack.sql.sources(sources);
    }

    void closeTandem() {
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

    Connection connect(String database) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://" + host + ":" + port + "/" + database, "postgres", "");
    }

    Connection upstream() throws SQLException {
        return connect(db);
    }

    void up(String... statements) throws SQLException {
        try (Connection c = upstream(); Statement s = c.createStatement()) {
            for (String sql : statements) {
                s.execute(sql);
            }
        }
    }

    String conninfo() {
        return "host=" + host + " port=" + port + " dbname=" + db + " user=postgres";
    }

    SqlResult tandem(String sql) {
        return stack.run(sql, new SqlSession());
    }

    /** A table's rows as sorted text lines, with their multiplicity. */
    Map<String, Integer> tandemRows(String table, String columns) {
        Map<String, Integer> out = new TreeMap<>();
        for (Object[] row : tandem("SELECT " + columns + " FROM " + table).rows()) {
            out.merge(line(row), 1, Integer::sum);
        }
        return out;
    }

    Map<String, Integer> upstreamRows(String table, String columns) throws SQLException {
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

    static String line(Object[] row) {
        StringBuilder b = new StringBuilder();
        for (Object v : row) {
            b.append(v == null ? "NULL" : v instanceof String s && s.length() > 40 ? s.length() + ":" + s.hashCode() : v.toString()).append('|');
        }
        return b.toString();
    }

    static void waitFor(String what, BooleanSupplier condition) {
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
    void assertCaughtUp(String columns, String... tables) throws SQLException {
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

    String state(String source) {
        PgSourceManager.Status s = sources.statusOrNull(source);
        return s == null ? null : s.state();
    }


    static String bigText(Random random) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < 6000; i++) {
            b.append((char) ('a' + random.nextInt(26)));
        }
        return b.toString();
    }

    /** One random upstream transaction of 1-5 statements over the three tables. */
    /**
     * A thread committing {@link #randomTransaction}s upstream (seeded with {@code seed}) while {@code writing}
     * holds; the first failure is kept in {@code failed}.
     */
    Thread upstreamWriter(long seed, java.util.concurrent.atomic.AtomicBoolean writing,
            java.util.concurrent.atomic.AtomicReference<Throwable> failed) {
        return new Thread(() -> {
            Random random = new Random(seed);
            try (Connection c = upstream()) {
                c.setAutoCommit(false);
                while (writing.get()) {
                    randomTransaction(c, random);
                }
            } catch (Throwable e) {
                failed.set(e);
            }
        });
    }

    static void randomTransaction(Connection c, Random random) throws SQLException {
        try (Statement s = c.createStatement()) {
            int n = 1 + random.nextInt(5);
            for (int i = 0; i < n; i++) {
                int k = random.nextInt(60);
                switch (random.nextInt(9)) {
                    case 0 -> s.execute("INSERT INTO a VALUES (" + k + ", 'v" + random.nextInt(1000) + "', " + random.nextInt(100) + ") ON CONFLICT (id) DO UPDATE SET n = a.n + 1");
                    case 1 -> s.execute("UPDATE a SET v = 'u" + random.nextInt(1000) + "' WHERE id % 7 = " + random.nextInt(7));
                    case 2 -> s.execute("DELETE FROM a WHERE id = " + k);
                    case 3 -> s.execute("INSERT INTO b VALUES (" + k + ", '" + bigText(random) + "', 0) ON CONFLICT (id) DO NOTHING");
                    // only the small column: the TOASTed one is not sent, and comes from Tandem's copy of the row
                    case 4 -> s.execute("UPDATE b SET hits = hits + 1 WHERE id % 5 = " + random.nextInt(5));
                    case 5 -> s.execute("DELETE FROM b WHERE id = " + k);
                    case 6 -> s.execute("INSERT INTO c VALUES (" + random.nextInt(10) + ", " + random.nextInt(3) + ")");
                    case 7 -> s.execute("UPDATE c SET x = x + 1 WHERE ctid IN (SELECT ctid FROM c WHERE k = " + random.nextInt(10) + " LIMIT 1)");
                    default -> s.execute("DELETE FROM c WHERE ctid IN (SELECT ctid FROM c WHERE k = " + random.nextInt(10) + " LIMIT 1)");
                }
            }
        }
        c.commit();
    }

    void createModelTables() throws SQLException {
        up("CREATE TABLE a (id int PRIMARY KEY, v text, n bigint)",
                "CREATE TABLE b (id bigint PRIMARY KEY, big text NOT NULL, hits int NOT NULL)",
                "CREATE TABLE c (k int NOT NULL, x int)",
                "ALTER TABLE c REPLICA IDENTITY FULL",
                "INSERT INTO a SELECT g, 'v' || g, g FROM generate_series(1, 30) g",
                "INSERT INTO c SELECT g % 10, g % 3 FROM generate_series(1, 30) g",
                "CREATE PUBLICATION pub FOR TABLE a, b, c");
    }

    int slots() throws SQLException {
        try (Connection c = upstream(); Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT count(*) FROM pg_replication_slots WHERE database = current_database()")) {
            r.next();
            return r.getInt(1);
        }
    }
}
