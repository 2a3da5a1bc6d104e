package dev.tandem.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Calcite stays off the read path: a statement is planned once and then found by its text, a prepared
 * statement runs with new parameters without planning again, the objects it names (what authorization
 * asks) are found by its text too, and a catalog change to what it reads plans it once more; a change
 * to other objects plans nothing.
 */
class SqlPlanCacheTest {

    @TempDir
    Path dir;

    @Test
    void aStatementIsPlannedOnceAndRunManyTimes() {
        try (SqlStack stack = new SqlStack(dir)) {
            SqlSession session = new SqlSession(true);
            stack.run("CREATE TABLE p (id bigint NOT NULL, name text)", session);
            stack.run("INSERT INTO p VALUES (1, 'one'), (2, 'two'), (3, 'three')", session);
            String lookup = "SELECT name FROM p WHERE id = $1";

            long before = CalcitePlanner.PLANS.get();
            SqlStatement prepared = stack.sql.prepare(lookup);
            assertThat(CalcitePlanner.PLANS.get() - before).as("planned once").isEqualTo(1);
            assertThat(stack.sql.prepare(lookup)).as("the same text is found in the cache").isSameAs(prepared);
            for (int i = 0; i < 30; i++) {
                long id = 1 + i % 3;
                SqlResult r = stack.sql.execute(prepared, List.of(id), session).block(Duration.ofSeconds(30));
                assertThat(r.rows()).hasSize(1);
                assertThat(r.rows().get(0)[0]).isEqualTo(List.of("one", "two", "three").get((int) id - 1));
                // a statement run by its text is found in the cache too
                assertThat(stack.run(lookup, session, id).rows()).hasSize(1);
            }
            assertThat(CalcitePlanner.PLANS.get() - before).as("no planning on the read path").isEqualTo(1);
            // what an authorization asks (the objects a statement names) is planned once too
            long classified = CalcitePlanner.PLANS.get();
            for (int i = 0; i < 10; i++) {
                assertThat(stack.sql.objects(lookup)).containsExactly("p");
            }
            assertThat(CalcitePlanner.PLANS.get() - classified).as("the objects a statement names, planned once").isEqualTo(1);
            assertThat(stack.run("EXPLAIN " + lookup, session, 1L).rows().get(0)[0]).isEqualTo("slow path: a transient dataflow reading p");

            // a catalog change: the prepared statement is planned again, once, and now reads the new index by key
            stack.run("CREATE INDEX p_by_id ON p (id)", session);
            long afterIndex = CalcitePlanner.PLANS.get();
            for (int i = 0; i < 10; i++) {
                assertThat(stack.sql.execute(prepared, List.of(2L), session).block(Duration.ofSeconds(30)).read().path()).isEqualTo("fast");
            }
            assertThat(CalcitePlanner.PLANS.get() - afterIndex).as("planned again once after the catalog changed").isEqualTo(1);
            session.close();
        }
    }

    @Test
    void sessionsPreparingTheSameNewTextAtOncePlanItOnce() throws Exception {
        try (SqlStack stack = new SqlStack(dir)) {
            SqlSession session = new SqlSession(true);
            stack.run("CREATE TABLE p (id bigint NOT NULL, name text)", session);
            stack.run("CREATE INDEX p_by_id ON p (id)", session);
            int sessions = 8;
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(sessions);
            try {
                for (int round = 0; round < 5; round++) {
                    String lookup = "SELECT name FROM p WHERE id = $1 AND " + round + " = " + round;
                    java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(sessions);
                    long before = CalcitePlanner.PLANS.get();
                    List<java.util.concurrent.Future<SqlStatement>> prepared = new java.util.ArrayList<>();
                    for (int i = 0; i < sessions; i++) {
                        prepared.add(pool.submit(() -> {
                            start.await(30, java.util.concurrent.TimeUnit.SECONDS);
                            return stack.sql.prepare(lookup);
                        }));
                    }
                    SqlStatement first = prepared.get(0).get(60, java.util.concurrent.TimeUnit.SECONDS);
                    for (java.util.concurrent.Future<SqlStatement> f : prepared) {
                        assertThat(f.get(60, java.util.concurrent.TimeUnit.SECONDS)).as("one plan, shared").isSameAs(first);
                    }
                    assertThat(CalcitePlanner.PLANS.get() - before).as("round %d: planned once for %d sessions", round, sessions).isEqualTo(1);
                }
            } finally {
                pool.shutdownNow();
            }
            session.close();
        }
    }

    @Test
    void aChangeToOtherObjectsPlansNothing() {
        try (SqlStack stack = new SqlStack(dir)) {
            SqlSession session = new SqlSession(true);
            stack.run("CREATE TABLE p (id bigint NOT NULL, name text)", session);
            stack.run("CREATE TABLE other (id bigint NOT NULL, g bigint)", session);
            stack.run("INSERT INTO p VALUES (1, 'one'), (2, 'two')", session);
            stack.run("CREATE INDEX p_by_id ON p (id)", session);
            String lookup = "SELECT name FROM p WHERE id = $1";
            SqlStatement prepared = stack.sql.prepare(lookup);

            // views and indexes over another table come and go, as a churn of maintained views does
            long before = CalcitePlanner.PLANS.get();
            for (int i = 0; i < 3; i++) {
                stack.run("CREATE VIEW churn AS SELECT g, count(*) AS c FROM other GROUP BY g", session);
                stack.run("CREATE INDEX churn_by_g ON churn (g)", session);
                stack.run("DROP INDEX churn_by_g", session);
                stack.run("DROP VIEW churn", session);
            }
            long churned = CalcitePlanner.PLANS.get();
            for (int i = 0; i < 10; i++) {
                SqlResult r = stack.sql.execute(prepared, List.of(2L), session).block(Duration.ofSeconds(30));
                assertThat(r.rows()).hasSize(1);
                assertThat(r.read().path()).isEqualTo("fast");
                assertThat(stack.run(lookup, session, 1L).rows().get(0)[0]).isEqualTo("one");
            }
            assertThat(CalcitePlanner.PLANS.get() - churned).as("nothing planned again for changes to other objects").isZero();
            assertThat(churned - before).as("the churn's own statements were planned").isPositive();

            // a change to what it reads: p dropped and made again with other columns
            stack.run("DROP INDEX p_by_id", session);
            stack.run("DROP TABLE p", session);
            stack.run("CREATE TABLE p (id bigint NOT NULL, name bigint)", session);
            stack.run("INSERT INTO p VALUES (2, 20)", session);
            long recreated = CalcitePlanner.PLANS.get();
            assertThat(stack.run(lookup, session, 2L).rows().get(0)[0]).as("planned against the new table").isEqualTo(20L);
            assertThat(CalcitePlanner.PLANS.get() - recreated).as("planned again once").isEqualTo(1);
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> stack.sql.execute(prepared, List.of(2L), session).block(Duration.ofSeconds(30)))
                    .isInstanceOf(SqlException.class).hasMessageContaining("cached plan must not change result type");
            session.close();
        }
    }

    @Test
    void literalQueriesOfOneShapeArePlannedOnce() {
        try (SqlStack stack = new SqlStack(dir)) {
            SqlSession session = new SqlSession(true);
            stack.run("CREATE TABLE s (id bigint NOT NULL, name text, x double precision)", session);
            stack.run("INSERT INTO s VALUES (1, 'one', 1.5), (2, 'two', 2.5), (3, 'three', 3.5)", session);
            stack.run("CREATE INDEX s_by_id ON s (id)", session);
            stack.run("SELECT name FROM s WHERE id = 1", session);
            long before = CalcitePlanner.PLANS.get();
            for (long id = 1; id <= 3; id++) {
                SqlResult r = stack.run("SELECT name FROM s WHERE id = " + id, session);
                assertThat(r.rows().get(0)[0]).isEqualTo(List.of("one", "two", "three").get((int) id - 1));
                assertThat(r.read().path()).isEqualTo("fast");
                assertThat(stack.run("SELECT id FROM s WHERE name = 'th''ree' OR id = " + id + " ORDER BY 1 LIMIT 1", session).rows().get(0)[0])
                        .isEqualTo(id == 3 ? 3L : id);
            }
            assertThat(CalcitePlanner.PLANS.get() - before).as("the second shape planned once, the first not again").isEqualTo(1);

            // literals whose parameter would mean otherwise are planned as written: a double column compared
            // with an integer, a quoted number compared with an integer, a column ordinal
            assertThat(stack.run("SELECT id FROM s WHERE x > 2", session).rows()).hasSize(2);
            assertThat(stack.run("SELECT name FROM s WHERE id = '2'", session).rows().get(0)[0]).isEqualTo("two");
            assertThat(stack.run("SELECT name, id FROM s ORDER BY 2 DESC LIMIT 1", session).rows().get(0)[0]).isEqualTo("three");
            // a shape that does not plan leaves the statement's own error
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> stack.run("SELECT name FROM s WHERE nope = 1", session))
                    .isInstanceOf(SqlException.class).hasMessageContaining("nope");
            session.close();
        }
    }
}
