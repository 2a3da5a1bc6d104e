package dev.tandem.pgwire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.sql.SqlTesting;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SQL's {@code [NOT] SIMILAR TO ... [ESCAPE e]} as PostgreSQL 15 matches it (its translation to a regular expression:
 * {@code % _ | * + ? {m,n} ( ) [...]}, anchored at both ends) and its NULLs, in one-shot reads, with parameters and in
 * indexed views maintained through writes, answered by Tandem and by a real PostgreSQL alike. Skipped without
 * {@code POSTGRES_ORACLE_ADDRESS}, as {@link PostgresDifferentialTest} is.
 */
class PostgresSimilarToTest {

    private static final List<String> SETUP = List.of(
            "CREATE TABLE st (k bigint, s text, p text)",
            "INSERT INTO st VALUES (1, 'abc', 'a%'), (2, 'abcabc', '(abc)+'), (3, 'xyz', '%y_'), (4, '', '%'), (5, NULL, 'a'),"
                    + " (6, 'a%b', 'a#%b'), (7, 'a.b', 'a.b'), (8, 'A1', '[A-Z][0-9]'), (9, 'ab\nc', 'ab_c'), (10, 'b', NULL),"
                    + " (11, 'aaa', 'a{2,3}'), (12, 'ac', 'ab?c'), (13, 'a|b', 'a|b'), (14, '(x)', '#(x#)'), (15, 'a\\b', 'a\\\\b')");

    static final List<String> QUERIES = List.of(
            "SELECT k, s SIMILAR TO 'abc', s SIMILAR TO 'a%', s SIMILAR TO '%c', s SIMILAR TO '_b_', s NOT SIMILAR TO '%b%' FROM st",
            "SELECT k, s SIMILAR TO '(abc)+', s SIMILAR TO 'a|xyz', s SIMILAR TO '(a|x)%', s SIMILAR TO 'a*b*c*', s SIMILAR TO '[a-c]+' FROM st",
            "SELECT k, s SIMILAR TO 'a{2,3}', s SIMILAR TO 'a{2}', s SIMILAR TO 'ab?c', s SIMILAR TO 'x+y?z', s SIMILAR TO '[^a]%' FROM st",
            "SELECT k, s SIMILAR TO 'a.b', s SIMILAR TO 'a^b', s SIMILAR TO 'a$b', s SIMILAR TO '%\\%%', s SIMILAR TO 'a\\\\b' FROM st",
            "SELECT k, s SIMILAR TO 'a#%b' ESCAPE '#', s SIMILAR TO '#(x#)' ESCAPE '#', s SIMILAR TO 'a\\%b' ESCAPE '', s SIMILAR TO 'a|b' ESCAPE '' FROM st",
            "SELECT k, s SIMILAR TO p, s NOT SIMILAR TO p, s SIMILAR TO p ESCAPE '#' FROM st",
            "SELECT k FROM st WHERE s SIMILAR TO '%(b|y)%' ORDER BY k",
            "SELECT k FROM st WHERE s NOT SIMILAR TO '[a-z]*' ORDER BY k",
            "SELECT k, s SIMILAR TO NULL::text, NULL::text SIMILAR TO s, s SIMILAR TO 'a' ESCAPE NULL::text, s SIMILAR TO p ESCAPE NULL::text FROM st",
            "SELECT 'abc' SIMILAR TO 'abc', 'abc' SIMILAR TO 'a', 'abc' SIMILAR TO '%(b|d)%', 'abd' NOT SIMILAR TO '%(b|d)%'",
            "SELECT 'A' SIMILAR TO 'a', 'ab' SIMILAR TO 'a\\d', 'a1' SIMILAR TO 'a\\d', 'a b' SIMILAR TO 'a\\sb'",
            "SELECT 'abc' SIMILAR TO 'a#\"b#\"c' ESCAPE '#', 'xbc' SIMILAR TO 'a#\"b#\"c' ESCAPE '#'",
            "SELECT 'abc' SIMILAR TO 'a' ESCAPE 'xy'",
            "SELECT 'abc' SIMILAR TO '(a'",
            "SELECT count(*) FROM st WHERE s SIMILAR TO '%a%' AND k > 1",
            "SELECT s SIMILAR TO 'a%' AS m, count(*) FROM st GROUP BY s SIMILAR TO 'a%'");

    private static final List<String> VIEWS = List.of(
            "sv_rows AS SELECT k, s, s SIMILAR TO '(a|b)%' AS ab, s NOT SIMILAR TO '%[0-9]' AS nodigit FROM sm WHERE s SIMILAR TO '%(a|b|1)%'",
            "sv_by AS SELECT s SIMILAR TO '[a-c]+' AS abc, count(*) AS n FROM sm GROUP BY s SIMILAR TO '[a-c]+'",
            "sv_pattern AS SELECT k, s SIMILAR TO p AS m FROM sm");

    @TempDir
    Path dir;

    @Test
    void similarToAnswersAsPostgresDoes() throws SQLException {
        String address = System.getenv("POSTGRES_ORACLE_ADDRESS");
        Assumptions.assumeTrue(address != null && !address.isBlank(), "POSTGRES_ORACLE_ADDRESS is not set");
        List<String> mismatches = new ArrayList<>();
        try (SqlTesting.Stack stack = SqlTesting.stack(dir);
                PgWireServer server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0);
                PgAnswers.Systems systems = PgAnswers.Systems.open(address, server.port(), "")) {
            systems.setUp(List.of("st"), SETUP);
            systems.compareAll(QUERIES, mismatches);
            for (String[] q : List.of(new String[] {"SELECT k FROM st WHERE s SIMILAR TO ? ORDER BY k", "(a|x)%"},
                    new String[] {"SELECT k, s NOT SIMILAR TO ? FROM st ORDER BY k", "%c"})) {
                PgAnswers.compare(q[0], prepared(systems.pg(), q[0], q[1]), prepared(systems.td(), q[0], q[1]), "parameter", mismatches);
            }
            for (String q : List.of("SELECT 'x' SIMILAR TO '[[:alpha:]]'", "SELECT 'x' SIMILAR TO 'x\\y'",
                    "SELECT 'a' SIMILAR TO 'a\\b'")) {
                String got = PgAnswers.answer(systems.td(), q, false);
                if (!got.equals("ERROR 0A000")) {
                    mismatches.add(q + ": expected a refusal (0A000), Tandem: " + got);
                }
            }
        }
        assertThat(mismatches).as("%d differences from PostgreSQL:\n%s", mismatches.size(), String.join("\n", mismatches)).isEmpty();
    }

    /** Indexed views using SIMILAR TO, maintained through random writes, equal to PostgreSQL's answers after each. */
    @Test
    void maintainedViewsWithSimilarToAnswerAsPostgresDoes() throws SQLException {
        java.util.Random random = new java.util.Random(41);
        List<String> texts = List.of("'abc'", "'bca'", "'x1'", "'ab1'", "''", "'cab'", "'zz'", "NULL");
        List<String> patterns = List.of("'a%'", "'%1'", "'(ab|bc)%'", "'[a-c]*'", "NULL", "'_b%'");
        PgAnswers.checkMaintainedViews(dir, "sm (k bigint, s text, p text)", VIEWS, name -> name.equals("sv_by") ? "abc" : "k", 30,
                PgAnswers.randomWrites(random, "sm", "k", () -> texts.get(random.nextInt(texts.size())) + ", " + patterns.get(random.nextInt(patterns.size())),
                        List.of("s SIMILAR TO 'a%'", "s NOT SIMILAR TO '%1'"), () -> List.of("s = s || '1'", "s = 'b' || s", "p = '%c'"),
                        List.of("s SIMILAR TO '(b|c)%'")), 40);
    }

    private static String prepared(Connection c, String q, String param) {
        try (java.sql.PreparedStatement ps = c.prepareStatement(q)) {
            ps.setString(1, param);
            try (java.sql.ResultSet rs = ps.executeQuery()) {
                return PgAnswers.rows(rs, false);
            }
        } catch (SQLException e) {
            return "ERROR " + e.getSQLState();
        }
    }
}
