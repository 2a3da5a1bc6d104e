package dev.tandem.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tandem.security.PrincipalLimits;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.test.scheduler.VirtualTimeScheduler;
import reactor.util.context.Context;

/**
 * What one statement may cost before it runs: over its text's length, its literals or its planning time
 * it is refused with {@code 54000} naming the bound's property, and nothing changes (no table made, no
 * row written, nothing cached); a principal's planning counts against its limit ({@code 53400}) while
 * cached statements still answer, and statements of a shape being planned wait for that planning instead;
 * the plan cache holds no more than its bytes.
 */
class SqlStatementBoundsTest {

    @TempDir
    Path dir;

    private static SqlException sqlError(Throwable t) {
        Throwable e = t instanceof ExecutionException ? t.getCause() : t;
        assertThat(e).isInstanceOf(SqlException.class);
        return (SqlException) e;
    }

    private static long count(SqlStack stack, String table) {
        return (Long) stack.run("SELECT count(*) FROM " + table, new SqlSession()).rows().get(0)[0];
    }

    @Test
    void aStatementOverItsTextOrLiteralsIsRefusedAndChangesNothing() {
        Scheduler timer = Schedulers.newSingle("bounds-timer");
        SqlLimits limits = new SqlLimits(4096, 100, Duration.ofSeconds(30), 1 << 20);
        try (SqlStack stack = new SqlStack(dir, new SqlTesting.Lanes(limits, Schedulers.boundedElastic(), Schedulers.boundedElastic(), timer))) {
            SqlSession session = new SqlSession();
            stack.run("CREATE TABLE t (id bigint NOT NULL, s text)", session);
            stack.run("INSERT INTO t VALUES (1, 'a')", session);

            String longName = "CREATE TABLE t2 (id bigint, c text)" + " ".repeat(4096);
            assertThatThrownBy(() -> stack.run(longName, session)).satisfies(t -> {
                SqlException e = sqlError(t);
                assertThat(e.sqlState()).isEqualTo("54000");
                assertThat(e.getMessage()).contains("statement too complex", "tandem.sql.max-statement-bytes");
            });
            assertThat(stack.controller.catalog().stream().noneMatch(e -> e.name().equals("t2"))).as("no table made").isTrue();

            StringBuilder insert = new StringBuilder("INSERT INTO t VALUES ");
            for (int i = 0; i < 51; i++) {
                insert.append(i == 0 ? "" : ", ").append("(").append(i + 10).append(", 'x')");
            }
            assertThatThrownBy(() -> stack.run(insert.toString(), session)).satisfies(t -> {
                SqlException e = sqlError(t);
                assertThat(e.sqlState()).isEqualTo("54000");
                assertThat(e.getMessage()).contains("more than 100 literals", "tandem.sql.max-literals");
            });
            assertThat(count(stack, "t")).as("no row written").isEqualTo(1);
            // the objects a statement names (what authorization asks) are bounded the same way
            assertThatThrownBy(() -> stack.sql.objects("SELECT id FROM t WHERE id IN (" + "1, ".repeat(200) + "1)"))
                    .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.getMessage()).contains("tandem.sql.max-literals"));
            assertThat(stack.run("SELECT s FROM t WHERE id = 1", session).rows()).hasSize(1);
        } finally {
            timer.dispose();
        }
    }

    @Test
    void planningPastItsTimeoutIsRefusedAndWhatItPlannedIsNotKept() throws Exception {
        VirtualTimeScheduler clock = VirtualTimeScheduler.create();
        SqlTesting.Gate gate = new SqlTesting.Gate(Runnable::run);
        gate.open();
        SqlLimits limits = new SqlLimits(1 << 20, 10_000, Duration.ofSeconds(5), 1 << 20);
        PrincipalLimits principals = new PrincipalLimits(0, 0, 0, 4, (p, k) -> { });
        try (SqlStack stack = new SqlStack(dir, new SqlTesting.Lanes(limits, gate.scheduler(), gate.scheduler(), clock))) {
            SqlSession session = new SqlSession();
            stack.run("CREATE TABLE t (id bigint NOT NULL, s text)", session);
            stack.run("INSERT INTO t VALUES (1, 'a')", session);
            gate.close();

            long plans = CalcitePlanner.PLANS.get();
            String query = "SELECT s FROM t WHERE id = 1";
            CompletableFuture<SqlResult> late = stack.sql.execute(query, List.of(), session)
                    .contextWrite(Context.of(PlanningAdmission.class, principals.planning("ada"))).toFuture();
            CompletableFuture<SqlResult> lateTable = stack.sql.execute("CREATE TABLE late (id bigint)", List.of(), session)
                    .contextWrite(Context.of(PlanningAdmission.class, principals.planning("ada"))).toFuture();
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> gate.held() == 2);
            assertThat(principals.held("ada", PrincipalLimits.Kind.PLANS)).as("planning admitted").isEqualTo(2);

            clock.advanceTimeBy(Duration.ofSeconds(6));
            for (CompletableFuture<SqlResult> f : List.of(late, lateTable)) {
                assertThatThrownBy(() -> f.get(30, TimeUnit.SECONDS)).satisfies(t -> {
                    SqlException e = sqlError(t);
                    assertThat(e.sqlState()).isEqualTo("54000");
                    assertThat(e.getMessage()).contains("statement too complex", "5000 ms of planning", "tandem.sql.planning-timeout");
                });
            }
            assertThat(principals.held("ada", PrincipalLimits.Kind.PLANS)).as("admission given back").isZero();

            // the planning that waited past its deadline never runs; nothing was planned, made or cached
            gate.open();
            assertThat(CalcitePlanner.PLANS.get()).isEqualTo(plans);
            assertThat(stack.controller.catalog().stream().noneMatch(e -> e.name().equals("late"))).isTrue();
            assertThat(stack.run(query, session).rows()).hasSize(1);
            assertThat(CalcitePlanner.PLANS.get()).as("planned when asked again: nothing was cached").isEqualTo(plans + 1);
        }
    }

    @Test
    void aPrincipalAtItsLimitOfPlanningIsRefusedWhileItsCachedStatementsAnswer() throws Exception {
        Scheduler timer = Schedulers.newSingle("bounds-timer");
        SqlTesting.Gate gate = new SqlTesting.Gate(Runnable::run);
        gate.open();
        PrincipalLimits principals = new PrincipalLimits(0, 0, 0, 1, (p, k) -> { });
        Context ada = Context.of(PlanningAdmission.class, principals.planning("ada"));
        Context bob = Context.of(PlanningAdmission.class, principals.planning("bob"));
        try (SqlStack stack = new SqlStack(dir, new SqlTesting.Lanes(SqlLimits.DEFAULTS, gate.scheduler(), gate.scheduler(), timer))) {
            SqlSession session = new SqlSession();
            stack.run("CREATE TABLE t (id bigint NOT NULL, s text)", session);
            stack.run("INSERT INTO t VALUES (1, 'a')", session);
            String cached = "SELECT s FROM t WHERE id = $1";
            stack.run(cached, session, 1L);
            gate.close();

            CompletableFuture<SqlResult> first = stack.sql.execute("SELECT id FROM t WHERE s = 'a'", List.of(), session).contextWrite(ada).toFuture();
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> gate.held() == 1);
            assertThatThrownBy(() -> stack.sql.execute("SELECT count(*) FROM t WHERE s = 'b'", List.of(), session).contextWrite(ada)
                    .block(Duration.ofSeconds(30))).isInstanceOfSatisfying(SqlException.class, e -> {
                        assertThat(e.sqlState()).isEqualTo("53400");
                        assertThat(e.getMessage()).contains("'ada' has 1 statements being planned", "tandem.security.limits.max-concurrent-plans");
                    });
            assertThat(stack.sql.execute(cached, List.of(1L), session).contextWrite(ada).block(Duration.ofSeconds(30)).rows())
                    .as("a cached statement plans nothing").hasSize(1);
            CompletableFuture<SqlResult> other = stack.sql.execute("SELECT s, id FROM t WHERE s = 'c'", List.of(), session).contextWrite(bob).toFuture();
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> gate.held() == 2);
            assertThat(principals.held("bob", PrincipalLimits.Kind.PLANS)).as("another principal's planning is admitted").isEqualTo(1);
            // the first statement's shape, with another literal: it waits for that planning instead of planning (or being refused)
            CompletableFuture<SqlResult> sameShape = stack.sql.execute("SELECT id FROM t WHERE s = 'z'", List.of(), new SqlSession()).contextWrite(ada)
                    .toFuture();
            assertThat(sameShape).as("not refused at the principal's limit").isNotDone();
            assertThat(gate.held()).as("nothing more sent to a planning lane").isEqualTo(2);
            assertThat(principals.held("ada", PrincipalLimits.Kind.PLANS)).isEqualTo(1);

            gate.open();
            assertThat(first.get(30, TimeUnit.SECONDS).rows()).hasSize(1);
            assertThat(other.get(30, TimeUnit.SECONDS).rows()).isEmpty();
            assertThat(sameShape.get(30, TimeUnit.SECONDS).rows()).as("answered from the shape the first planned").isEmpty();
            assertThat(principals.held("ada", PrincipalLimits.Kind.PLANS)).isZero();
            assertThat(principals.holders()).isZero();
        } finally {
            timer.dispose();
        }
    }

    @Test
    void thePlanCacheHoldsNoMoreThanItsBytes() {
        Scheduler timer = Schedulers.newSingle("bounds-timer");
        long budget = 4L << 20;
        SqlLimits limits = new SqlLimits(1 << 20, 10_000, Duration.ofSeconds(30), budget);
        try (SqlStack stack = new SqlStack(dir, new SqlTesting.Lanes(limits, Schedulers.boundedElastic(), Schedulers.boundedElastic(), timer))) {
            SqlSession session = new SqlSession();
            stack.run("CREATE TABLE t (id bigint NOT NULL, s text)", session);
            String big = "x".repeat(100_000);
            for (int i = 0; i < 30; i++) {
                // thirty distinct statements, each with a literal of 100,000 characters
                assertThat(stack.run("SELECT id FROM t WHERE s = '" + big + i + "'", session).rows()).isEmpty();
                stack.sql.objects("SELECT id FROM t WHERE s = '" + big + i + "'");
                assertThat(stack.sql.cachedBytes()).as("bytes cached after %d statements", i + 1).isLessThanOrEqualTo(2 * budget);
            }
            String small = "SELECT s FROM t WHERE id = $1";
            SqlStatement p = stack.sql.prepare(small);
            assertThat(stack.sql.prepare(small)).as("a small statement is still cached").isSameAs(p);
        } finally {
            timer.dispose();
        }
    }
}
