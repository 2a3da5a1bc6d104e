package dev.tandem.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * {@code WITH RECURSIVE} in one-shot reads: answered by iteration (a counter, a closure over a cycle), stopped by
 * its bounds of iterations and rows with {@code 54000} naming the bound's property (the session answering
 * afterwards), maintained in a view, and refused ({@code 0A000}) where a result would be written.
 */
class RecursiveQueryTest {

    @TempDir
    Path dir;

    private static SqlException sqlError(Throwable t) {
        Throwable e = t instanceof ExecutionException ? t.getCause() : t;
        assertThat(e).isInstanceOf(SqlException.class);
        return (SqlException) e;
    }

    private static List<List<Object>> rows(SqlResult r) {
        List<List<Object>> out = new ArrayList<>();
        for (Object[] row : r.rows()) {
            out.add(java.util.Arrays.asList(row));
        }
        return out;
    }

    @Test
    void recursionIsAnsweredByIterationAndStoppedByItsBounds() {
        Scheduler timer = Schedulers.newSingle("recursion-timer");
        SqlLimits limits = new SqlLimits(1 << 20, 10_000, Duration.ofSeconds(30), 1 << 20, 50, 1000);
        try (SqlStack stack = new SqlStack(dir, new SqlTesting.Lanes(limits, Schedulers.boundedElastic(), Schedulers.boundedElastic(), timer))) {
            SqlSession session = new SqlSession();
            stack.run("CREATE TABLE e (a bigint, b bigint)", session);
            stack.run("INSERT INTO e VALUES (1, 2), (2, 3), (3, 1), (3, 3), (7, 8)", session);

            assertThat(rows(stack.run("WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 40)"
                    + " SELECT sum(n), count(*), max(n) FROM c", session))).containsExactly(List.of(820L, 40L, 40L));
            assertThat(rows(stack.run("WITH RECURSIVE r(n) AS (SELECT 1::bigint UNION SELECT e.b FROM r JOIN e ON e.a = r.n)"
                    + " SELECT n FROM r ORDER BY n", session))).containsExactly(List.of(1L), List.of(2L), List.of(3L));

            assertThatThrownBy(() -> stack.run("WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT count(*) FROM c",
                    session)).satisfies(t -> {
                        SqlException e = sqlError(t);
                        assertThat(e.sqlState()).isEqualTo("54000");
                        assertThat(e.getMessage()).contains("more than 50 iterations", "tandem.sql.max-recursion-iterations");
                    });
            assertThatThrownBy(() -> stack.run("WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n FROM c, (VALUES (1), (2)) v(x))"
                    + " SELECT count(*) FROM c", session)).satisfies(t -> {
                        SqlException e = sqlError(t);
                        assertThat(e.sqlState()).isEqualTo("54000");
                        assertThat(e.getMessage()).contains("more than 1000 rows", "tandem.sql.max-recursion-rows");
                    });
            // a cycle under UNION ALL without a bound of its own is stopped too
            assertThatThrownBy(() -> stack.run("WITH RECURSIVE r(n) AS (SELECT 1::bigint UNION ALL SELECT e.b FROM r JOIN e ON e.a = r.n)"
                    + " SELECT count(*) FROM r", session)).satisfies(t -> assertThat(sqlError(t).sqlState()).isEqualTo("54000"));
            assertThat(rows(stack.run("SELECT count(*) FROM e", session))).containsExactly(List.of(5L));
            assertThat(stack.sql.objects("WITH RECURSIVE r(n) AS (SELECT 1::bigint UNION SELECT e.b FROM r JOIN e ON e.a = r.n) SELECT n FROM r"))
                    .as("what authorization checks: the tables read, not the recursive item").containsExactly("e");
        } finally {
            timer.dispose();
        }
    }

    @Test
    void recursionInATransactionBlockSeesTheBlocksWrites() {
        try (SqlStack stack = new SqlStack(dir)) {
            SqlSession session = new SqlSession();
            stack.run("CREATE TABLE e (a bigint, b bigint)", session);
            stack.run("INSERT INTO e VALUES (1, 2)", session);
            String reach = "WITH RECURSIVE r(n) AS (SELECT 1::bigint UNION SELECT e.b FROM r JOIN e ON e.a = r.n) SELECT n FROM r ORDER BY n";
            session = new SqlSession(true);
            stack.run("BEGIN", session);
            stack.run("INSERT INTO e VALUES (2, 3), (3, 1)", session);
            assertThat(rows(stack.run(reach, session))).containsExactly(List.of(1L), List.of(2L), List.of(3L));
            assertThat(rows(stack.run(reach, new SqlSession()))).as("another session sees the committed rows only")
                    .containsExactly(List.of(1L), List.of(2L));
            stack.run("ROLLBACK", session);
            assertThat(rows(stack.run(reach, session))).containsExactly(List.of(1L), List.of(2L));
        }
    }

    @Test
    void recursionIsMaintainedInViewsAndRefusedWhereItWouldBeWritten() {
        try (SqlStack stack = new SqlStack(dir)) {
            SqlSession session = new SqlSession();
            stack.run("CREATE TABLE e (a bigint, b bigint)", session);
            stack.run("INSERT INTO e VALUES (1, 2)", session);
            String recursive = "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 5) SELECT n FROM c";
            for (String refused : List.of("INSERT INTO e (a) " + recursive,
                    "SELECT * FROM (" + recursive + ") s")) {
                assertThatThrownBy(() -> stack.run(refused, session)).as(refused).satisfies(t -> {
                    SqlException e = sqlError(t);
                    assertThat(e.sqlState()).isEqualTo("0A000");
                    assertThat(e.getMessage()).contains("RECURSIVE");
                });
            }
            assertThat(rows(stack.run("EXPLAIN " + recursive, session)).toString()).contains("\"op\":\"iterate\"");
            stack.run("CREATE VIEW v AS " + recursive, session);
            assertThat(rows(stack.run("SELECT count(*), sum(n) FROM v", session))).containsExactly(List.of(5L, 15L));
            assertThat(rows(stack.run("SELECT count(*) FROM e", session))).containsExactly(List.of(1L));
            assertThat(rows(stack.run(recursive + " ORDER BY n DESC LIMIT 2", session))).containsExactly(List.of(5L), List.of(4L));
        }
    }
}
