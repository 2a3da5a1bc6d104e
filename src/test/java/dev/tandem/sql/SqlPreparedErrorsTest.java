package dev.tandem.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The error paths of the dialect that only a prepared statement reaches (the sqllogictest corpus has
 * the others): its parameters (how many, their values, a NULL where a count or a time is needed) and a
 * catalog change under it.
 */
class SqlPreparedErrorsTest {

    @TempDir
    Path dir;

    @Test
    void parametersAndCatalogChanges() {
        try (SqlStack stack = new SqlStack(dir)) {
            SqlSession session = new SqlSession(true);
            stack.run("CREATE TABLE e (id bigint NOT NULL, name text)", session);
            stack.run("INSERT INTO e VALUES (1, 'one'), (2, 'two')", session);

            SqlStatement byId = stack.sql.prepare("SELECT name FROM e WHERE id = $1");
            assertThat(byId.parameterTypes()).containsExactly(dev.tandem.row.DatumType.INT64);
            assertError(stack, byId, List.of(), session, "08P01", "the statement has 1 parameters, 0 given");
            assertError(stack, byId, List.of("many"), session, "22P02", "parameter $1: invalid input syntax for type bigint");

            SqlStatement limited = stack.sql.prepare("SELECT id FROM e ORDER BY id LIMIT $1");
            assertThat(run(stack, limited, List.of(1L), session).rows()).hasSize(1);
            assertError(stack, limited, List.of(-1L), session, "2201W", "LIMIT must not be negative");
            assertError(stack, limited, Arrays.asList((Object) null), session, "22023", "LIMIT must not be NULL");

            SqlStatement asOf = stack.sql.prepare("SELECT id FROM e AS OF $1");
            assertError(stack, asOf, Arrays.asList((Object) null), session, "22023", "AS OF needs a timestamp, got NULL");

            // the table is made again with other columns: the statement prepared before cannot keep its result's shape
            SqlStatement all = stack.sql.prepare("SELECT * FROM e");
            stack.run("DROP TABLE e", session);
            stack.run("CREATE TABLE e (id bigint NOT NULL)", session);
            assertError(stack, all, List.of(), session, "0A000", "cached plan must not change result type");
            // the same columns again: it is planned again and runs
            SqlStatement ids = stack.sql.prepare("SELECT id FROM e");
            stack.run("DROP TABLE e", session);
            stack.run("CREATE TABLE e (id bigint NOT NULL, other text)", session);
            stack.run("INSERT INTO e VALUES (7, 'x')", session);
            assertThat(run(stack, ids, List.of(), session).rows()).hasSize(1);
            session.close();
        }
    }

    private static SqlResult run(SqlStack stack, SqlStatement s, List<Object> params, SqlSession session) {
        return stack.sql.execute(s, params, session).block(Duration.ofSeconds(30));
    }

    private static void assertError(SqlStack stack, SqlStatement s, List<Object> params, SqlSession session, String state, String message) {
        assertThatThrownBy(() -> run(stack, s, params, session)).isInstanceOfSatisfying(SqlException.class, e -> {
            assertThat(e.sqlState()).as(e.getMessage()).isEqualTo(state);
            assertThat(e.getMessage()).contains(message);
        });
    }
}
