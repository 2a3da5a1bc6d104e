package dev.tandem.pgwire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.sql.SqlTesting;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;

/** What the differential tests against PostgreSQL compare: a statement's answer as text, or its SQLSTATE. */
final class PgAnswers {

    private PgAnswers() {
    }

    /** The address of the PostgreSQL oracle ({@code POSTGRES_ORACLE_ADDRESS}); a test that asks for it is skipped without it. */
    static String oracleAddress() {
        String address = System.getenv("POSTGRES_ORACLE_ADDRESS");
        Assumptions.assumeTrue(address != null && !address.isBlank(), "POSTGRES_ORACLE_ADDRESS is not set");
        return address;
    }

    /** Checks that {@code mismatches}, found in {@code compared} comparisons, is empty, listing them where it is not. */
    static void assertNone(List<String> mismatches, int compared) {
        assertThat(mismatches).as("%d differences from PostgreSQL in %d comparisons:\n%s", mismatches.size(), compared,
                String.join("\n", mismatches)).isEmpty();
    }

    static void compare(String q, String expected, String got, String format, List<String> mismatches) {
        if (!expected.equals(got)) {
            mismatches.add("[" + format + "] " + q + "\n  PostgreSQL: " + expected + "\n  Tandem:     " + got);
        }
    }

    static String update(Connection c, String q) {
        try (Statement s = c.createStatement()) {
            s.execute(q);
            return "OK " + s.getUpdateCount();
        } catch (SQLException e) {
            return "ERROR " + e.getSQLState();
        }
    }

    /** The column type names and every row's values as text (in the query's order), or the error's SQLSTATE. */
    static String answer(Connection c, String q, boolean prepared) {
        try {
            if (prepared) {
                try (PreparedStatement ps = c.prepareStatement(q); ResultSet rs = ps.executeQuery()) {
                    return rows(rs, !q.contains("ORDER BY"));
                }
            }
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(q)) {
                return rows(rs, !q.contains("ORDER BY"));
            }
        } catch (SQLException e) {
            return "ERROR " + e.getSQLState();
        }
    }

    static String rows(ResultSet rs, boolean sort) throws SQLException {
        ResultSetMetaData md = rs.getMetaData();
        List<String> types = new ArrayList<>();
        for (int i = 1; i <= md.getColumnCount(); i++) {
            types.add(md.getColumnTypeName(i));
        }
        List<String> out = new ArrayList<>();
        while (rs.next()) {
            List<String> row = new ArrayList<>();
            for (int i = 1; i <= md.getColumnCount(); i++) {
                Object o = rs.getObject(i);
                row.add(o == null ? "NULL" : o instanceof java.math.BigDecimal n ? n.toPlainString()
                        : o instanceof byte[] b ? "\\x" + java.util.HexFormat.of().formatHex(b) : rs.getString(i));
            }
            out.add(String.join("|", row));
        }
        if (sort) {
            out.sort(null);
        }
        return types + " " + out;
    }

    /**
     * A PostgreSQL (at {@code address}) and a Tandem (on {@code port}), each reached twice: by simple statements
     * in the text format, and by prepared statements with binary transfer of {@code binary} (pgjdbc's
     * {@code binaryTransferEnable}).
     */
    record Systems(Connection pg, Connection td, Connection pgBinary, Connection tdBinary) implements AutoCloseable {

        static Systems open(String address, int port, String binary) throws SQLException {
            String suffix = "&prepareThreshold=-1&binaryTransfer=true&binaryTransferEnable=" + binary;
            String pgUrl = "jdbc:postgresql://" + address + "/postgres?user=postgres&sslmode=disable";
            String tdUrl = "jdbc:postgresql://127.0.0.1:" + port + "/tandem?user=test&sslmode=disable";
            return new Systems(DriverManager.getConnection(pgUrl), DriverManager.getConnection(tdUrl), DriverManager.getConnection(pgUrl + suffix),
                    DriverManager.getConnection(tdUrl + suffix));
        }

        /** Drops {@code tables} from PostgreSQL (left by an earlier run) and runs each statement of {@code setup} on both systems. */
        void setUp(List<String> tables, List<String> setup) throws SQLException {
            try (java.sql.Statement p = pg.createStatement(); java.sql.Statement t = td.createStatement()) {
                for (String table : tables) {
                    p.execute("DROP TABLE IF EXISTS " + table);
                }
                for (String sql : setup) {
                    p.execute(sql);
                    t.execute(sql);
                }
            }
        }

        /**
         * Each of {@code refused} refused by Tandem with {@code 0A000}, and answered by PostgreSQL (else it is no example of a refusal);
         * returns how many.
         */
        int checkRefusals(List<String> refused, List<String> mismatches) {
            for (String q : refused) {
                String got = answer(td, q, false);
                if (!got.equals("ERROR 0A000")) {
                    mismatches.add(q + ": expected a refusal (0A000), Tandem: " + got);
                }
                if (answer(pg, q, false).startsWith("ERROR")) {
                    mismatches.add(q + ": PostgreSQL refuses it too; it is no example of what Tandem refuses");
                }
            }
            return refused.size();
        }

        /** Runs {@code statement} (a setting, say) on each of the four connections. */
        void executeOnAll(String statement) throws SQLException {
            for (Connection c : List.of(pg, pgBinary, td, tdBinary)) {
                try (Statement s = c.createStatement()) {
                    s.execute(statement);
                }
            }
        }

        /** Copies {@code data} in by {@code copy} (a {@code COPY ... FROM STDIN}) on both systems, in the text format. */
        void copyIn(String copy, String data) throws SQLException {
            for (Connection c : List.of(pg, td)) {
                try {
                    new org.postgresql.copy.CopyManager(c.unwrap(org.postgresql.core.BaseConnection.class)).copyIn(copy, new java.io.StringReader(data));
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }
        }

        /** Drops {@code objects} ({@code "VIEW v"}, {@code "TABLE t"}), in order, from PostgreSQL, where an earlier run left them. */
        void dropFromPostgres(String... objects) throws SQLException {
            try (Statement p = pg.createStatement()) {
                for (String object : objects) {
                    p.execute("DROP " + object.replaceFirst(" ", " IF EXISTS "));
                }
            }
        }

        /** Each of {@code writes} run on both systems in the text format, its outcome (a count or a SQLSTATE) compared; returns how many. */
        int compareWrites(List<String> writes, List<String> mismatches) {
            for (String sql : writes) {
                compare(sql, update(pg, sql), update(td, sql), "write", mismatches);
            }
            return writes.size();
        }

        /**
         * Each catalog query's rows compared by value, without the column types (the catalog's own columns are typed text where
         * PostgreSQL's are name, oid, sql_identifier...); returns how many.
         */
        int compareCatalog(List<String> queries, List<String> mismatches) {
            for (String q : queries) {
                String expected = answer(pg, q, false);
                String got = answer(td, q, false);
                compare(q, expected.substring(expected.indexOf("] ") + 2), got.substring(got.indexOf("] ") + 2), "catalog", mismatches);
            }
            return queries.size();
        }

        /**
         * {@code how}'s answers over each system's connection in the text format, and over each one's in binary, compared (a statement
         * prepared with parameters, say); returns how many comparisons.
         */
        int compareInBothFormats(String what, java.util.function.Function<Connection, String> how, List<String> mismatches) {
            compare(what, how.apply(pg), how.apply(td), "text", mismatches);
            compare(what, how.apply(pgBinary), how.apply(tdBinary), "binary", mismatches);
            return 2;
        }

        /** Each query's answers from both systems, in the text format and in binary, compared; returns how many comparisons. */
        int compareAll(List<String> queries, List<String> mismatches) {
            for (String q : queries) {
                compare(q, answer(pg, q, false), answer(td, q, false), "text", mismatches);
                compare(q, answer(pgBinary, q, true), answer(tdBinary, q, true), "binary", mismatches);
            }
            return 2 * queries.size();
        }

        @Override
        public void close() throws SQLException {
            for (Connection c : List.of(pg, td, pgBinary, tdBinary)) {
                c.close();
            }
        }
    }

    /**
     * The writes of a maintained-view comparison over {@code table}, whose first column {@code key} counts up from
     * 0: the first four insert; then, at random, an insert of one to three rows (their other columns from
     * {@code values}), a delete at a random key or where one of {@code deletes} holds, or an update of one of
     * {@code sets} (drawn anew for each update) at a random key or where one of {@code wheres} holds.
     */
    static java.util.function.IntFunction<String> randomWrites(java.util.Random random, String table, String key,
            java.util.function.Supplier<String> values, List<String> deletes, java.util.function.Supplier<List<String>> sets, List<String> wheres) {
        int[] counter = {0};
        return w -> {
            int next = counter[0];
            return switch (w < 4 ? 0 : random.nextInt(3)) {
                case 0 -> {
                    List<String> rows = new ArrayList<>();
                    for (int r = 0, n = 1 + random.nextInt(3); r < n; r++) {
                        rows.add("(" + counter[0]++ + ", " + values.get() + ")");
                    }
                    yield "INSERT INTO " + table + " VALUES " + String.join(", ", rows);
                }
                case 1 -> "DELETE FROM " + table + " WHERE " + pick(random, key + " = " + random.nextInt(Math.max(1, next)), deletes);
                default -> "UPDATE " + table + " SET " + pick(random, sets.get()) + " WHERE "
                        + pick(random, key + " = " + random.nextInt(Math.max(1, next)), wheres);
            };
        };
    }

    private static String pick(java.util.Random random, String first, List<String> rest) {
        List<String> all = new ArrayList<>(List.of(first));
        all.addAll(rest);
        return pick(random, all);
    }

    private static String pick(java.util.Random random, List<String> options) {
        return options.get(random.nextInt(options.size()));
    }

    /** Comparisons of Tandem's answers with PostgreSQL's: each difference added to {@code mismatches}; returns how many comparisons. */
    @FunctionalInterface
    interface Comparisons {
        int run(Systems systems, List<String> mismatches) throws SQLException;
    }

    /**
     * {@code comparisons} of a fresh Tandem over {@code dir} with the PostgreSQL oracle (skipped without it), both reached as
     * {@link Systems#open} reaches them (binary transfer of {@code binary}), checked: no differences.
     */
    static void check(Path dir, String binary, Comparisons comparisons) throws SQLException {
        String address = oracleAddress();
        List<String> mismatches = new ArrayList<>();
        int compared;
        try (SqlTesting.Stack stack = SqlTesting.stack(dir);
                PgWireServer server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0);
                Systems systems = Systems.open(address, server.port(), binary)) {
            compared = comparisons.run(systems, mismatches);
        }
        assertNone(mismatches, compared);
    }

    /**
     * {@link #maintainedViews} of a fresh Tandem over {@code dir} and the PostgreSQL oracle (skipped without it), checked: no
     * differences, and more than {@code leastWithRows} of PostgreSQL's view answers with rows.
     */
    static void checkMaintainedViews(Path dir, String table, List<String> views, java.util.function.UnaryOperator<String> indexKey, int writes,
            java.util.function.IntFunction<String> write, int leastWithRows) throws SQLException {
        checkMaintainedViews(dir, leastWithRows, (pg, td, mismatches) -> maintainedViews(pg, td, table, views, indexKey, writes, write, mismatches));
    }

    /** Comparisons of maintained views over PostgreSQL ({@code pg}) and Tandem ({@code td}); returns how many of PostgreSQL's view answers had rows. */
    @FunctionalInterface
    interface ViewComparisons {
        int run(Connection pg, Connection td, List<String> mismatches) throws SQLException;
    }

    /**
     * {@code comparisons} of a fresh Tandem over {@code dir} with the PostgreSQL oracle (skipped without it), checked: no differences,
     * and more than {@code leastWithRows} of PostgreSQL's view answers with rows.
     */
    static void checkMaintainedViews(Path dir, int leastWithRows, ViewComparisons comparisons) throws SQLException {
        String address = oracleAddress();
        List<String> mismatches = new ArrayList<>();
        int withRows;
        try (SqlTesting.Stack stack = SqlTesting.stack(dir);
                PgWireServer server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0);
                Connection pg = DriverManager.getConnection("jdbc:postgresql://" + address + "/postgres?user=postgres&sslmode=disable");
                Connection td = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/tandem?user=test&sslmode=disable")) {
            withRows = comparisons.run(pg, td, mismatches);
        }
        assertThat(mismatches).as("%d differences from PostgreSQL:\n%s", mismatches.size(), String.join("\n", mismatches)).isEmpty();
        assertThat(withRows).isGreaterThan(leastWithRows);
    }

    /**
     * A table and indexed views over it, made alike in PostgreSQL ({@code pg}) and Tandem ({@code td}; each view
     * indexed on {@code indexKey} of its name), then {@code writes} writes ({@code write} makes the {@code w}th),
     * each applied to both and followed by a comparison of every view; returns how many of PostgreSQL's view answers
     * had rows, so that a test can tell it compared something. {@code table} is {@code name (columns)}, a view
     * {@code name AS query}.
     */
    static int maintainedViews(Connection pg, Connection td, String table, List<String> views, java.util.function.UnaryOperator<String> indexKey,
            int writes, java.util.function.IntFunction<String> write, List<String> mismatches) throws SQLException {
        String name = table.substring(0, table.indexOf(' '));
        try (Statement p = pg.createStatement(); Statement t = td.createStatement()) {
            for (String v : views) {
                p.execute("DROP VIEW IF EXISTS " + v.substring(0, v.indexOf(' ')));
            }
            p.execute("DROP TABLE IF EXISTS " + name);
            for (Statement s : List.of(p, t)) {
                s.execute("CREATE TABLE " + table);
                for (String v : views) {
                    s.execute("CREATE VIEW " + v);
                }
            }
            for (String v : views) {
                String view = v.substring(0, v.indexOf(' '));
                t.execute("CREATE INDEX " + view + "_idx ON " + view + " (" + indexKey.apply(view) + ")");
            }
        }
        int withRows = 0;
        for (int w = 0; w < writes; w++) {
            String statement = write.apply(w);
            try (Statement p = pg.createStatement(); Statement t = td.createStatement()) {
                int expected = p.executeUpdate(statement);
                int got = t.executeUpdate(statement);
                if (expected != got) {
                    mismatches.add(statement + ": PostgreSQL changed " + expected + " rows, Tandem " + got);
                }
            }
            for (String v : views) {
                String q = "SELECT * FROM " + v.substring(0, v.indexOf(' '));
                String expected = answer(pg, q, false);
                withRows += expected.endsWith("[]") ? 0 : 1;
                compare("after " + statement + ": " + q, expected, answer(td, q, false), "view", mismatches);
            }
        }
        return withRows;
    }
}
