package dev.tandem.pgwire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.sql.SqlTesting;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Differential test against a real PostgreSQL 15: random schemas, rows (with NULLs and duplicates)
 * and queries (filters, inner and outer joins, group-bys with having, distinct, order/limit/offset,
 * union/except/intersect, subqueries in FROM, CASE/COALESCE), each answered by Tandem through the wire
 * protocol over JDBC and by PostgreSQL, compared as multisets (as lists where ORDER BY fixes the order).
 *
 * <p>PostgreSQL's address comes from {@code POSTGRES_ORACLE_ADDRESS} ({@code host:port}, user
 * {@code postgres}, trust authentication); {@code bin/dev test} and {@code .ci/run} start one. Without
 * it the test is skipped, loudly.
 */
class PostgresDifferentialTest {

    static final int SCHEMAS = 4;
    static final int QUERIES_PER_SCHEMA = 40;

    @TempDir
    Path dir;

    /** A generated table: its name and columns, each int ("bigint") or text. */
    record Table(String name, List<String> ints, List<String> texts) {
        List<String> columns() {
            List<String> all = new ArrayList<>(ints);
            all.addAll(texts);
            return all;
        }
    }

    @Test
    void tandemAnswersAsPostgresDoes() throws SQLException {
        String address = System.getenv("POSTGRES_ORACLE_ADDRESS");
        if (address == null || address.isBlank()) {
            System.err.println("!!! PostgresDifferentialTest SKIPPED: POSTGRES_ORACLE_ADDRESS is not set (bin/dev test and .ci/run start a PostgreSQL)");
        }
        Assumptions.assumeTrue(address != null && !address.isBlank(), "POSTGRES_ORACLE_ADDRESS is not set");
        List<String> mismatches = new ArrayList<>();
        int compared = 0;
        int[] outcome = new int[2];
        try (SqlTesting.Stack stack = SqlTesting.stack(dir);
                PgWireServer server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0);
                Connection pg = DriverManager.getConnection("jdbc:postgresql://" + address + "/postgres?user=postgres&sslmode=disable");
                Connection td = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/tandem?user=test&sslmode=disable")) {
            for (int schema = 0; schema < SCHEMAS; schema++) {
                Random random = new Random(1000 + schema);
                String prefix = "d" + schema + "_" + Long.toHexString(System.nanoTime() & 0xffffff) + "_";
                List<Table> tables = new ArrayList<>();
                for (int t = 0; t < 3; t++) {
                    Table table = table(prefix + "t" + t, random);
                    tables.add(table);
                    String ddl = "CREATE TABLE " + table.name() + " (" + String.join(", ", table.columns().stream()
                            .map(c -> c + (c.startsWith("i") ? " bigint" : " text")).toList()) + ")";
                    String insert = insert(table, random);
                    for (Connection c : List.of(pg, td)) {
                        try (Statement s = c.createStatement()) {
                            s.execute(ddl);
                            if (insert != null) {
                                s.execute(insert);
                            }
                        }
                    }
                }
                if (random.nextBoolean()) {
                    try (Statement s = td.createStatement()) {
                        s.execute("CREATE INDEX " + prefix + "idx ON " + tables.get(0).name() + " (" + tables.get(0).ints().get(0) + ")");
                    }
                }
                QueryGenerator gen = new QueryGenerator(random, tables);
                for (int q = 0; q < QUERIES_PER_SCHEMA; q++) {
                    QueryGenerator.Query query = gen.query();
                    compared++;
                    String result = compare(pg, td, query, outcome);
                    if (result != null) {
                        mismatches.add(result);
                    }
                }
            }
        }
        System.out.println("PostgresDifferentialTest: " + compared + " queries compared with PostgreSQL, " + mismatches.size() + " mismatches, "
                + outcome[0] + " with rows, " + outcome[1] + " refused by both");
        assertThat(mismatches).as("%d of %d queries differ from PostgreSQL", mismatches.size(), compared).isEmpty();
        // the comparison has teeth: most queries answer rows, few are refused by both
        assertThat(outcome[0]).isGreaterThan(compared / 2);
        assertThat(outcome[1]).isLessThan(compared / 10);
    }

    private static Table table(String name, Random random) {
        List<String> ints = new ArrayList<>();
        List<String> texts = new ArrayList<>();
        int ni = 1 + random.nextInt(3);
        for (int i = 0; i < ni; i++) {
            ints.add("i" + i);
        }
        int nt = random.nextInt(2);
        for (int i = 0; i < nt; i++) {
            texts.add("s" + i);
        }
        return new Table(name, ints, texts);
    }

    /** An INSERT of 0 to 14 rows, with duplicates and NULLs, or null for an empty table. */
    private static String insert(Table t, Random random) {
        int n = random.nextInt(15);
        if (n == 0) {
            return null;
        }
        List<String> rows = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            if (r > 0 && random.nextInt(5) == 0) {
                rows.add(rows.get(random.nextInt(rows.size())));
                continue;
            }
            List<String> vals = new ArrayList<>();
            for (String c : t.columns()) {
                if (random.nextInt(6) == 0) {
                    vals.add("NULL");
                } else if (c.startsWith("i")) {
                    vals.add(Integer.toString(random.nextInt(7) - 2));
                } else {
                    vals.add("'" + "abcab".substring(random.nextInt(3), 3 + random.nextInt(3)) + "'");
                }
            }
            rows.add("(" + String.join(", ", vals) + ")");
        }
        return "INSERT INTO " + t.name() + " VALUES " + String.join(", ", rows);
    }

    /** Null when both agree (the same rows, or both refuse), else a description of the difference. */
    private static String compare(Connection pg, Connection td, QueryGenerator.Query q, int[] outcome) {
        List<String> expected;
        try {
            expected = rows(pg, q.sql());
        } catch (SQLException e) {
            // PostgreSQL refuses it (e.g. a type error): Tandem must refuse it too
            try {
                List<String> got = rows(td, q.sql());
                return q.sql() + "\n  PostgreSQL refused: " + e.getMessage() + "\n  Tandem answered " + got;
            } catch (SQLException x) {
                outcome[1]++;
                return null;
            }
        }
        List<String> got;
        try {
            got = rows(td, q.sql());
        } catch (SQLException e) {
            return q.sql() + "\n  Tandem refused: " + e.getSQLState() + " " + e.getMessage() + "\n  PostgreSQL answered " + expected;
        }
        if (!expected.isEmpty()) {
            outcome[0]++;
        }
        if (!q.ordered()) {
            expected.sort(null);
            got.sort(null);
        }
        return expected.equals(got) ? null : q.sql() + "\n  PostgreSQL: " + expected + "\n  Tandem:     " + got;
    }

    private static List<String> rows(Connection c, String sql) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                List<String> row = new ArrayList<>();
                for (int i = 1; i <= n; i++) {
                    row.add(normalize(rs.getObject(i)));
                }
                out.add(String.join("|", row));
            }
        }
        return out;
    }

    /** A value in a form both databases agree on: integral numbers as integers, others to 9 significant digits. */
    static String normalize(Object v) {
        if (v == null) {
            return "NULL";
        }
        if (v instanceof Number n) {
            BigDecimal d = n instanceof BigDecimal b ? b : new BigDecimal(n.toString());
            if (d.signum() == 0 || d.stripTrailingZeros().scale() <= 0) {
                return d.toBigInteger().toString();
            }
            return String.format("%.9g", d.doubleValue());
        }
        if (v instanceof Boolean b) {
            return b ? "t" : "f";
        }
        return "'" + v + "'";
    }
}
