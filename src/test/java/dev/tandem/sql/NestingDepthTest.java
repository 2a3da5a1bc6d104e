package dev.tandem.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Statements nested deeper than Tandem can plan or store are refused with PostgreSQL's {@code 54001}
 * (stack depth limit exceeded) and change nothing — never an internal error or a dropped session: deep
 * parentheses, long chains of CTEs, and a view whose expression nests deeper than the catalog stores.
 */
class NestingDepthTest {

    @TempDir
    Path dir;

    private static String nested(int levels) {
        String e = "c";
        for (int i = 0; i < levels; i++) {
            e = "(" + e + " + 1)";
        }
        return e;
    }

    private static void assertTooDeep(SqlStack s, String sql) {
        assertThatThrownBy(() -> s.run(sql, new SqlSession())).isInstanceOfSatisfying(SqlException.class, e -> {
            assertThat(e.sqlState()).isEqualTo("54001");
            assertThat(e.getMessage()).startsWith("stack depth limit exceeded");
        });
    }

    @Test
    void statementsNestedTooDeeplyAreRefusedWith54001AndChangeNothing() {
        try (SqlStack s = new SqlStack(dir)) {
            s.run("CREATE TABLE d (c bigint)", new SqlSession());
            s.run("CREATE VIEW shallow AS SELECT " + nested(100) + " AS y FROM d", new SqlSession());
            for (int levels : new int[] {300, 600}) {
                assertTooDeep(s, "CREATE VIEW deep AS SELECT " + nested(levels) + " AS y FROM d");
            }
            assertTooDeep(s, "SELECT " + "(".repeat(3000) + "1" + ")".repeat(3000));
            StringBuilder ctes = new StringBuilder("WITH c0 AS (SELECT 1 AS x)");
            for (int i = 1; i < 1000; i++) {
                ctes.append(", c").append(i).append(" AS (SELECT x + 1 AS x FROM c").append(i - 1).append(')');
            }
            assertTooDeep(s, ctes + " SELECT x FROM c999");
            assertThat(s.run("SHOW VIEWS", new SqlSession()).rows()).extracting(r -> r[0]).containsExactly("shallow");
            s.run("INSERT INTO d VALUES (1)", new SqlSession());
            SqlSession reader = new SqlSession();
            reader.strict(true);
            assertThat(s.run("SELECT y FROM shallow", reader).rows()).extracting(r -> r[0]).containsExactly(101L);
        }
    }
}
