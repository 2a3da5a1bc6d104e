package dev.tandem.pgwire;

import static dev.tandem.pgwire.PgAnswers.answer;
import static dev.tandem.pgwire.PgAnswers.compare;
import static dev.tandem.pgwire.PgAnswers.rows;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.sql.SqlTesting;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * PostgreSQL's {@code numeric}: hand-written queries over a table of numerics (literals, arithmetic, division's
 * result scale, casts, comparisons, ordering, grouping, {@code sum}/{@code avg}/{@code min}/{@code max},
 * {@code round}/{@code trunc}), answered by Tandem and by a real PostgreSQL 15 with the same text of every
 * value, the same column type names and the same SQLSTATE for errors, over the simple protocol (text format)
 * and over prepared statements with binary transfer. Skipped without {@code POSTGRES_ORACLE_ADDRESS}, as
 * {@link PostgresDifferentialTest} is.
 */
class PostgresNumericTest {

    private static final String TABLE = "CREATE TABLE nx (k bigint, a numeric, b decimal, i bigint, d double precision)";
    private static final String ROWS = "INSERT INTO nx VALUES (1, 1.50, 2, 3, 0.5), (2, -0.125, 3.000, -7, 2.25), (3, NULL, 7, NULL, NULL),"
            + " (4, 123456789012345678901234567890.123, 0.1, 10, -1.5), (5, 0, -1.10, 0, 100), (6, 1.5, 1.5, 2, 3),"
            + " (7, '42', '-0.000', 9223372036854775807, 1e10)";

    static final List<String> QUERIES = List.of(
            // casts of expressions to numeric(p, s): rounded to the scale, 22003 when the integer digits do not fit
            "SELECT k, a::numeric(12, 2), d::numeric(12, 1), CAST(i AS numeric(25, 3)), (a * 3)::numeric(30, 0), b::numeric(3, 2) FROM nx"
                    + " WHERE k <> 4 ORDER BY k",
            "SELECT k, a::numeric(3, 1) FROM nx ORDER BY k",
            "SELECT avg(d)::numeric(20, 3), sum(a)::numeric(40, 5) FROM nx",
            "SELECT 'n=' || a, k || '/' || i, b || '' FROM nx",
            "SELECT 1.50, -0.5, 0.1 + 0.2, 1.5 * 2, 10.0 / 4, 1 / 3.0, 2.5 - 3",
            "SELECT 12345678901234567890123, 12345678901234567890123 * 10",
            "SELECT CAST(1e3 AS numeric), CAST(1.5e-3 AS numeric) * 2",
            "SELECT CAST(1.5 * 3 AS numeric), CAST(0.5::float8 * 3 AS numeric), CAST(1 + 2 AS numeric) / 4",
            "SELECT '1.2300'::numeric, CAST('-7.5' AS numeric), CAST(2 AS decimal), 1.25::numeric, -1.250::decimal, CAST(' 12 ' AS numeric)",
            "SELECT 1.255::numeric(4, 2), '-1.255'::numeric(5, 1), CAST(99.5 AS numeric(3, 1)), 3::numeric(5, 2)",
            "SELECT 99.95::numeric(3, 1)",
            "SELECT 'x1'::numeric",
            "SELECT CASE WHEN k > 1 THEN 1.0 ELSE 0.0 END, coalesce(a, 0), coalesce(b, 2.5) FROM nx",
            "SELECT k, a, b FROM nx",
            "SELECT k, a + b, a - b, a * b, b * 0.1, i * 0.1, i + 0.5, d * 1.5, a * i FROM nx",
            "SELECT k, a / b, b / 3, i / 4.0, a / 7, 1 / b FROM nx WHERE b <> 0",
            "SELECT k, a / b FROM nx",
            "SELECT k, a % b, b % 2, -a, abs(b) FROM nx WHERE b <> 0",
            "SELECT k, a::bigint, b::bigint, a::float8, d::numeric, i::numeric, a::text, b::text FROM nx WHERE k <> 4",
            "SELECT k, a::bigint FROM nx",
            "SELECT 'abc'::numeric",
            "SELECT k FROM nx WHERE a = 1.5",
            "SELECT k FROM nx WHERE a > b ORDER BY k",
            "SELECT k, a FROM nx ORDER BY a, k",
            "SELECT k, b FROM nx ORDER BY b DESC, k",
            "SELECT k FROM nx WHERE b BETWEEN -1 AND 2.5 ORDER BY k",
            "SELECT k FROM nx WHERE a IN (1.5, 0, 42) ORDER BY k",
            "SELECT k FROM nx WHERE i < 2.5 AND a IS NOT NULL ORDER BY k",
            "SELECT sum(a), sum(b), avg(a), avg(b), min(a), max(b), count(a) FROM nx",
            "SELECT avg(i), avg(k), sum(k)::numeric FROM nx WHERE k < 7",
            "SELECT avg(x) FROM (VALUES (1), (2), (3)) AS v(x)",
            "SELECT a > 0, sum(b), avg(b), max(a) FROM nx GROUP BY a > 0",
            "SELECT round(a), round(b, 1), round(a, 2), trunc(b), trunc(a, 1), round(-2.5), round(2.5), trunc(-2.567, 2), round(1234.5, -2) FROM nx"
                    + " WHERE k IN (1, 2, 5, 6)",
            "SELECT floor(a), ceil(a), sign(b), abs(a) FROM nx WHERE k IN (1, 2, 5)",
            "SELECT greatest(a, b), least(a, 1.25), coalesce(a, b), nullif(b, 7), CASE WHEN k > 3 THEN a ELSE b END FROM nx",
            "SELECT DISTINCT b FROM nx ORDER BY b",
            "SELECT k, a * 0 FROM nx WHERE k < 3",
            "SELECT 1.5 = 1.50, 1.0 < 1.01, 2 > 1.9, 0.1 + 0.2 = 0.3",
            "SELECT 1 / 0.0",
            "SELECT 5.5 % 0",
            "SELECT 9223372036854775807::numeric + 1",
            "SELECT (9223372036854775807::numeric + 1)::bigint",
            "SELECT avg(a) * 2, sum(a) / 2 FROM nx",
            "SELECT k, i::numeric / 3 FROM nx WHERE i IS NOT NULL");

    @TempDir
    Path dir;

    @Test
    void numericsAnswerAsPostgresDoes() throws SQLException {
        String address = System.getenv("POSTGRES_ORACLE_ADDRESS");
        Assumptions.assumeTrue(address != null && !address.isBlank(), "POSTGRES_ORACLE_ADDRESS is not set");
        List<String> mismatches = new ArrayList<>();
        try (SqlTesting.Stack stack = SqlTesting.stack(dir);
                PgWireServer server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0);
                Connection pg = DriverManager.getConnection("jdbc:postgresql://" + address + "/postgres?user=postgres&sslmode=disable");
                Connection td = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/tandem?user=test&sslmode=disable");
                Connection pgBinary = DriverManager.getConnection("jdbc:postgresql://" + address
                        + "/postgres?user=postgres&sslmode=disable&prepareThreshold=-1&binaryTransfer=true&binaryTransferEnable=NUMERIC");
                Connection tdBinary = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port()
                        + "/tandem?user=test&sslmode=disable&prepareThreshold=-1&binaryTransfer=true&binaryTransferEnable=NUMERIC")) {
            try (Statement p = pg.createStatement(); Statement t = td.createStatement()) {
                p.execute("DROP TABLE IF EXISTS nx");
                for (Statement s : List.of(p, t)) {
                    s.execute(TABLE);
                    s.execute(ROWS);
                }
            }
            for (String q : QUERIES) {
                compare(q, answer(pg, q, false), answer(td, q, false), "text", mismatches);
                compare(q, answer(pgBinary, q, true), answer(tdBinary, q, true), "binary", mismatches);
            }
            for (String q : List.of("SELECT CASE WHEN k > 1 THEN 1 ELSE 2.5 END FROM nx", "VALUES (1.5), (2.25)", "SELECT 1 UNION ALL SELECT 2.5",
                    "SELECT CASE WHEN k > 1 THEN 2.25 * 1 ELSE 1.5 END FROM nx")) {
                // PostgreSQL keeps each literal's scale; Calcite would pad them to one
                String got = answer(td, q, false);
                if (!got.equals("ERROR 0A000")) {
                    mismatches.add(q + ": expected a refusal (0A000), Tandem: " + got);
                }
            }
            // integer columns are stored as bigint, so a sum of one is a bigint where PostgreSQL's of a bigint is a numeric
            String refused = answer(td, "SELECT sum(i) / count(*) FROM nx", false);
            if (!refused.equals("ERROR 0A000")) {
                mismatches.add("SELECT sum(i) / count(*) FROM nx: expected a refusal (0A000), Tandem: " + refused);
            }
            // a numeric parameter, sent as text and in binary, and written into a numeric column
            for (Connection[] pair : List.of(new Connection[] {pg, td}, new Connection[] {pgBinary, tdBinary})) {
                String q = "SELECT k, a + ?, b * ? FROM nx WHERE a IS NOT NULL AND k <> 4";
                compare(q, parameterized(pair[0], q), parameterized(pair[1], q), pair[0] == pg ? "text" : "binary", mismatches);
            }
        }
        assertThat(mismatches).as("%d differences from PostgreSQL:\n%s", mismatches.size(), String.join("\n", mismatches)).isEmpty();
    }

    private static final List<String> VIEWS = List.of(
            "nv_sums AS SELECT g, sum(a) AS s, avg(a) AS av, avg(i) AS ai, min(a) AS lo, max(a) AS hi, count(a) AS n FROM nm GROUP BY g",
            "nv_rows AS SELECT k, a * 0.1 AS tenth, a + i AS total, i / 4.0 AS q, round(a, 1) AS r FROM nm WHERE a > -1",
            "nv_all AS SELECT count(*) AS c, sum(a * i) AS si, avg(a) AS av FROM nm");

    /** Indexed views over numerics, maintained through random inserts, deletes and updates, equal to PostgreSQL's answers after each write. */
    @Test
    void maintainedViewsOfNumericsAnswerAsPostgresDoes() throws SQLException {
        java.util.Random random = new java.util.Random(7);
        List<String> values = List.of("1.5", "-0.25", "2.125", "10", "0.001", "123456789012345678901.5", "NULL");
        int[] counter = {0};
        PgAnswers.checkMaintainedViews(dir, "nm (k bigint, g text, a numeric, i bigint)", VIEWS, name -> (name.equals("nv_rows") ? "k" : name.equals("nv_all") ? "c" : "g"), 40, w -> {
            int next = counter[0];
            return switch (w < 4 ? 0 : random.nextInt(3)) {
                case 0 -> {
                    List<String> rows = new ArrayList<>();
                    for (int r = 0, n = 1 + random.nextInt(3); r < n; r++) {
                        rows.add("(" + counter[0]++ + ", " + List.of("'x'", "'y'", "NULL").get(random.nextInt(3)) + ", "
                                + values.get(random.nextInt(values.size())) + ", " + (random.nextInt(7) - 3) + ")");
                    }
                    yield "INSERT INTO nm VALUES " + String.join(", ", rows);
                }
                case 1 -> "DELETE FROM nm WHERE " + List.of("k = " + random.nextInt(Math.max(1, next)), "a = 1.50", "a < 0", "i = 2")
                        .get(random.nextInt(4));
                default -> "UPDATE nm SET " + List.of("a = a * 2", "a = a / 3", "i = i + 1", "a = 0.5").get(random.nextInt(4))
                        + " WHERE " + List.of("k = " + random.nextInt(Math.max(1, next)), "g = 'x'", "a > 2").get(random.nextInt(3));
            };
        }, 60);
    }

    private static String parameterized(Connection c, String q) {
        try (PreparedStatement ps = c.prepareStatement(q)) {
            ps.setBigDecimal(1, new java.math.BigDecimal("0.250"));
            ps.setBigDecimal(2, new java.math.BigDecimal("-12345678901234567890.5"));
            try (ResultSet rs = ps.executeQuery()) {
                return rows(rs, true);
            }
        } catch (SQLException e) {
            return "ERROR " + e.getSQLState();
        }
    }

}
