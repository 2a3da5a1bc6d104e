package dev.tandem.pgwire;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * PostgreSQL's {@code bytea}: its hex and escape input forms and their errors, hex output, comparisons and order (bytes
 * unsigned, a prefix first), grouping, distinct, joins, casts with text, parameters and a view maintained through
 * writes, answered by Tandem and by a real PostgreSQL 15 alike over the text and binary formats. Skipped without
 * {@code POSTGRES_ORACLE_ADDRESS}, as {@link PostgresDifferentialTest} is.
 */
class PostgresByteaTest {

    private static final List<String> SETUP = List.of(
            "CREATE TABLE bx (k bigint, b bytea)",
            "INSERT INTO bx VALUES (1, '\\x0a0b'), (2, '\\xFF'), (3, 'abc'), (4, NULL), (5, '\\x'), (6, '\\x00'),"
                    + " (7, 'a\\000b\\\\'), (8, '\\x0A 0b'), (9, '\\x80'), (10, '\\x0a0b00')",
            "UPDATE bx SET b = '\\x7f' WHERE k = 4",
            "INSERT INTO bx VALUES (11, NULL)",
            "CREATE TABLE bj (b bytea, label text)",
            "INSERT INTO bj VALUES ('\\x0a0b', 'a'), ('\\xff', 'b'), ('\\x01', 'c')");

    static final List<String> QUERIES = List.of(
            "SELECT k, b FROM bx",
            "SELECT k, b FROM bx ORDER BY b, k",
            "SELECT k, b FROM bx ORDER BY b DESC NULLS LAST, k",
            "SELECT '\\x0A0b'::bytea, CAST('\\xdead BEEF' AS bytea), 'abc\\000\\\\'::bytea, ''::bytea, '\\x'::bytea",
            "SELECT 'a\\\\b\\101'::bytea",
            "SELECT '\\x0a0'::bytea",
            "SELECT '\\xzz'::bytea",
            "SELECT 'a\\b'::bytea",
            "SELECT 'a\\1'::bytea",
            "SELECT 'a\\400'::bytea",
            "SELECT k FROM bx WHERE b = '\\x0a0b' ORDER BY k",
            "SELECT k FROM bx WHERE b = '\\x0a0b'::bytea ORDER BY k",
            "SELECT k FROM bx WHERE b <> '\\x0a0b'::bytea ORDER BY k",
            "SELECT k FROM bx WHERE b < '\\x0a0b'::bytea ORDER BY k",
            "SELECT k FROM bx WHERE b <= '\\x0a0b'::bytea ORDER BY k",
            "SELECT k FROM bx WHERE b > '\\x7f'::bytea ORDER BY k",
            "SELECT k FROM bx WHERE b >= '\\x7f'::bytea ORDER BY k",
            "SELECT k FROM bx WHERE b IS NULL",
            "SELECT b, count(*) FROM bx GROUP BY b",
            "SELECT count(DISTINCT b), count(b) FROM bx",
            "SELECT DISTINCT b FROM bx ORDER BY b",
            "SELECT bx.k, bj.label FROM bx JOIN bj ON bx.b = bj.b",
            "SELECT b FROM bx UNION SELECT b FROM bj ORDER BY b",
            "SELECT k, b::text FROM bx",
            "SELECT k FROM bx WHERE b::text = '\\x0a0b' ORDER BY k",
            "SELECT 'abc'::text::bytea",
            "SELECT min(b) FROM bx",
            "SELECT k, CASE WHEN k < 3 THEN b ELSE '\\x01'::bytea END, coalesce(b, '\\xee'::bytea) FROM bx",
            "SELECT k FROM bx WHERE b IN ('\\x0a0b'::bytea, '\\xff'::bytea) ORDER BY k",
            "SELECT k, b FROM bx ORDER BY b DESC LIMIT 3",
            "SELECT b::bigint FROM bx",
            "SELECT column_name::text, data_type::text, udt_name::text FROM information_schema.columns WHERE table_name = 'bx' ORDER BY ordinal_position",
            "SELECT a.attname::text, format_type(a.atttypid, a.atttypmod), a.atttypid::bigint FROM pg_attribute a JOIN pg_class c ON a.attrelid = c.oid"
                    + " WHERE c.relname = 'bx' AND a.attnum > 0 ORDER BY a.attnum",
            "SELECT oid::bigint, typname::text, typlen::bigint, typcategory::text, typarray::bigint FROM pg_type WHERE typname IN ('bytea', '_bytea') ORDER BY oid",
            "SELECT max(b) FROM bj");

    @TempDir
    Path dir;

    @Test
    void byteasAnswerAsPostgresDoes() throws SQLException {
        PgAnswers.check(dir, "BYTEA", (systems, mismatches) -> {
            Connection pg = systems.pg();
            Connection td = systems.td();
            systems.setUp(List.of("bx", "bj"), SETUP);
            int compared = systems.compareAll(QUERIES, mismatches);
            String q = "SELECT k, b FROM bx WHERE b = ? ORDER BY k";
            compared += systems.compareInBothFormats(q, c -> parameterized(c, q), mismatches);
            for (String w : List.of("INSERT INTO bj VALUES ('\\x0', 'x')", "UPDATE bx SET b = 'a\\q' WHERE k = 1",
                    "INSERT INTO bj VALUES ('\\x0c', 'd')", "UPDATE bj SET b = '\\x0c0d' WHERE label = 'a'", "DELETE FROM bj WHERE b = '\\xff'")) {
                compared += systems.compareWrites(List.of(w), mismatches);
                compared += systems.compareAll(List.of("SELECT bx.k, bj.label, bj.b FROM bj LEFT JOIN bx ON bx.b = bj.b"), mismatches);
            }
            PgAnswers.compare("COPY in", copyIn(pg), copyIn(td), "copy", mismatches);
            PgAnswers.compare("COPY out", copyOut(pg), copyOut(td), "copy", mismatches);
            PgAnswers.compare("after writes", PgAnswers.answer(pg, "SELECT * FROM bj", false),
                    PgAnswers.answer(td, "SELECT * FROM bj", false), "text", mismatches);
            return compared + 3;
        });
    }

    private static String copyIn(Connection c) {
        try {
            org.postgresql.copy.CopyManager copy = new org.postgresql.copy.CopyManager(c.unwrap(org.postgresql.core.BaseConnection.class));
            return "OK " + copy.copyIn("COPY bj FROM STDIN", new java.io.StringReader("\\\\x0d0E\tcopied\nab\\\\000\tescaped\n\\N\tnull\n"));
        } catch (SQLException | java.io.IOException e) {
            return "ERROR " + (e instanceof SQLException s ? s.getSQLState() : e.getMessage());
        }
    }

    private static String copyOut(Connection c) {
        try {
            org.postgresql.copy.CopyManager copy = new org.postgresql.copy.CopyManager(c.unwrap(org.postgresql.core.BaseConnection.class));
            java.io.StringWriter out = new java.io.StringWriter();
            copy.copyOut("COPY (SELECT b, label FROM bj ORDER BY b, label) TO STDOUT", out);
            return out.toString();
        } catch (SQLException | java.io.IOException e) {
            return "ERROR " + (e instanceof SQLException s ? s.getSQLState() : e.getMessage());
        }
    }

    private static String parameterized(Connection c, String q) {
        List<String> out = new ArrayList<>();
        for (byte[] value : List.of(HexFormat.of().parseHex("0a0b"), new byte[0], HexFormat.of().parseHex("ff"))) {
            try (PreparedStatement ps = c.prepareStatement(q)) {
                ps.setBytes(1, value);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(rs.getString(1) + "|" + HexFormat.of().formatHex(rs.getBytes(2)));
                    }
                }
            } catch (SQLException e) {
                out.add("ERROR " + e.getSQLState());
            }
        }
        return out.toString();
    }
}
