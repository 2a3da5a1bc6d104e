package dev.tandem.pgwire;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * PostgreSQL's {@code uuid}: its input forms, output, comparisons and order (by bytes, unsigned), grouping, joins,
 * index lookups, casts with text, parameters and invalid input, answered by Tandem and by a real PostgreSQL 15 alike
 * over the text and binary formats. Skipped without {@code POSTGRES_ORACLE_ADDRESS}, as {@link PostgresDifferentialTest} is.
 */
class PostgresUuidTest {

    private static final List<String> SETUP = List.of(
            "CREATE TABLE ux (k bigint, u uuid)",
            "INSERT INTO ux VALUES (1, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'), (2, '{A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A12}'),"
                    + " (3, 'ffffffff9c0b4ef8bb6d6bb9bd380a11'), (4, NULL), (5, '00000000-0000-0000-0000-000000000000'),"
                    + " (6, '7fffffff-ffff-ffff-8000-000000000000'), (7, 'a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11')",
            "UPDATE ux SET u = '80000000-0000-0000-0000-000000000001' WHERE k = 4",
            "INSERT INTO ux VALUES (8, NULL)",
            "CREATE INDEX ux_u ON ux (u)",
            "CREATE TABLE uj (u uuid, label text)",
            "INSERT INTO uj VALUES ('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 'a'), ('ffffffff-9c0b-4ef8-bb6d-6bb9bd380a11', 'b')");

    static final List<String> QUERIES = List.of(
            "SELECT k, u FROM ux",
            "SELECT k, u FROM ux ORDER BY u, k",
            "SELECT k, u FROM ux ORDER BY u DESC NULLS LAST, k",
            "SELECT 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'::uuid, CAST('{a0eebc999c0b4ef8bb6d6bb9bd380a11}' AS uuid)",
            "SELECT 'x'::uuid",
            "SELECT 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1'::uuid",
            "SELECT 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11-'::uuid",
            "SELECT 'a0eebc99--9c0b-4ef8-bb6d-6bb9bd380a11'::uuid",
            "SELECT k FROM ux WHERE u = 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11' ORDER BY k",
            "SELECT k FROM ux WHERE u <> 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11' ORDER BY k",
            "SELECT k FROM ux WHERE u > '80000000-0000-0000-0000-000000000000' ORDER BY k",
            "SELECT k FROM ux WHERE u IS NULL",
            "SELECT u, count(*) FROM ux GROUP BY u",
            "SELECT count(DISTINCT u), count(u) FROM ux",
            "SELECT ux.k, uj.label FROM ux JOIN uj ON ux.u = uj.u",
            "SELECT k, u::text, upper(u::text) FROM ux",
            "SELECT DISTINCT u FROM ux ORDER BY u",
            "SELECT u FROM ux UNION SELECT u FROM uj ORDER BY u",
            "SELECT min(u) FROM ux");

    @TempDir
    Path dir;

    @Test
    void uuidsAnswerAsPostgresDoes() throws SQLException {
        PgAnswers.check(dir, "UUID", (systems, mismatches) -> {
            systems.setUp(List.of("ux", "uj"), SETUP);
            int compared = systems.compareAll(QUERIES, mismatches);
            String q = "SELECT k, u FROM ux WHERE u = ?";
            compared += systems.compareInBothFormats(q, c -> parameterized(c, q), mismatches);
            compared += systems.compareWrites(List.of("INSERT INTO uj VALUES ('zz', 'x')", "UPDATE ux SET u = 'not-a-uuid' WHERE k = 1"), mismatches);
            PgAnswers.compare("after refused writes", PgAnswers.answer(systems.pg(), "SELECT * FROM ux", false),
                    PgAnswers.answer(systems.td(), "SELECT * FROM ux", false), "text", mismatches);
            return compared + 1;
        });
    }

    private static String parameterized(Connection c, String q) {
        try (PreparedStatement ps = c.prepareStatement(q)) {
            ps.setObject(1, java.util.UUID.fromString("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"));
            try (ResultSet rs = ps.executeQuery()) {
                List<String> out = new ArrayList<>();
                while (rs.next()) {
                    out.add(rs.getString(1) + "|" + rs.getString(2));
                }
                return out.toString();
            }
        } catch (SQLException e) {
            return "ERROR " + e.getSQLState();
        }
    }
}
