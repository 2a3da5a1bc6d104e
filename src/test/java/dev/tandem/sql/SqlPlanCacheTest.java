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
 * asks) are found by its text too, and a catalog change plans it once more.
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
}
