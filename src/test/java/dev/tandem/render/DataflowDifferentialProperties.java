package dev.tandem.render;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.plan.PlanEvaluator;
import dev.tandem.plan.PlanJson;
import dev.tandem.plan.RandomPlans;
import dev.tandem.row.DatumType;
import dev.tandem.runtime.FatalErrorHandler;
import dev.tandem.runtime.SchedulerWorkerPool;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import net.jqwik.api.statistics.Statistics;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Random plans over random update streams (inserts, duplicates, retractions, NULLs), rendered with one
 * and with two workers at an {@code as_of} after part of the data: at {@code as_of} and at every later
 * write, each export equals the naive evaluator (rows and errors), and so the two renderings agree.
 * The tables are read either directly or through imported indexes.
 */
class DataflowDifferentialProperties {

    private static final List<Throwable> FATAL = new CopyOnWriteArrayList<>();
    private static Scheduler ticks;
    private static SchedulerWorkerPool one;
    private static SchedulerWorkerPool two;

    @BeforeContainer
    static void start() {
        ticks = Schedulers.newSingle("differential-ticks");
        FatalErrorHandler record = (where, error) -> FATAL.add(error);
        one = new SchedulerWorkerPool("differential-1", Schedulers.newBoundedElastic(1, 100_000, "differential-1"), 1, record);
        two = new SchedulerWorkerPool("differential-2", Schedulers.newBoundedElastic(2, 100_000, "differential-2"), 2, record);
    }

    @AfterContainer
    static void stop() {
        one.dispose();
        two.dispose();
        ticks.dispose();
    }

    @Property(tries = 300, shrinking = ShrinkingMode.OFF)
    void exportsEqualTheNaiveEvaluatorAtEveryTime(@ForAll long seed) {
        check(seed, false);
    }

    /** The same, with the tables read through index imports that other dataflows publish (some compacted to {@code as_of}). */
    @Property(tries = 300, shrinking = ShrinkingMode.OFF)
    void exportsOverImportedIndexesEqualTheNaiveEvaluatorAtEveryTime(@ForAll long seed) {
        check(seed, true);
    }

    private static void check(long seed, boolean viaIndexes) {
        try (StreamedScenario s = new StreamedScenario(seed, false, viaIndexes, List.of(one, two), ticks, () -> !FATAL.isEmpty())) {
            assertThat(FATAL).as("fatal errors in workers").isEmpty();
            String plan = PlanJson.write(s.scenario.plan()).toString();
            Statistics.label("root").collect(s.scenario.plan().getClass().getSimpleName());
            boolean anyRows = false;
            boolean anyErrors = false;
            for (long t : s.checkedTimes()) {
                PlanEvaluator.Result expected = s.expected(t);
                PlanEvaluator.Result w1 = s.actual(0, t);
                PlanEvaluator.Result w2 = s.actual(1, t);
                assertThat(w1).as("W=1 at %d (as_of %d), writes at %s, plan %s", t, s.asOf, s.times, plan).isEqualTo(expected);
                assertThat(w2).as("W=2 at %d (as_of %d), writes at %s, plan %s", t, s.asOf, s.times, plan).isEqualTo(w1);
                anyRows |= !expected.rows().isEmpty();
                anyErrors |= !expected.errors().isEmpty();
            }
            Statistics.label("output").collect(anyErrors ? "errors" : anyRows ? "rows" : "empty");
            Statistics.label("retractions").collect(s.retracted());
            Statistics.label("nulls").collect(s.wroteNull());
            Statistics.label("timestamp input").collect(RandomPlans.uses(s.scenario, DatumType.TIMESTAMP));
        }
        Statistics.label("output").coverage(c -> {
            c.check("rows").percentage(p -> p >= 30);
            c.check("errors").percentage(p -> p >= 1);
        });
        Statistics.label("retractions").coverage(c -> c.check(true).percentage(p -> p >= 50));
        Statistics.label("nulls").coverage(c -> c.check(true).percentage(p -> p >= 50));
        Statistics.label("timestamp input").coverage(c -> c.check(true).percentage(p -> p >= 20));
    }
}
