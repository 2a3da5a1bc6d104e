package dev.tandem.render;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tandem.plan.DataflowDescription;
import dev.tandem.plan.Plan;
import dev.tandem.plan.PlanEvaluator;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.row.Schema;
import dev.tandem.runtime.FatalErrorHandler;
import dev.tandem.runtime.SchedulerWorkerPool;
import dev.tandem.sharing.ArrangementSharingRegistry;
import dev.tandem.sharing.SharedArrangement;
import dev.tandem.storage.RowDiff;
import dev.tandem.storage.StorageOptions;
import dev.tandem.storage.TableStorage;
import dev.tandem.storage.TableStorages;
import dev.tandem.trace.TraceSnapshot;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Runs rendered dataflows over in-memory tables on a real worker pool, and compares their exports with
 * the reference evaluator at every write timestamp. Fatal errors fail the test instead of halting.
 */
final class RenderHarness implements AutoCloseable {

    final Scheduler ticks = Schedulers.newSingle("test-ticks");
    final TableStorage storage = TableStorages.inMemory(StorageOptions.defaults(ticks).withTickInterval(Duration.ofMillis(5)));
    final ArrangementSharingRegistry registry = new ArrangementSharingRegistry();
    final List<Throwable> fatal = new CopyOnWriteArrayList<>();
    final SchedulerWorkerPool pool;
    final Map<String, Schema> schemas = new HashMap<>();
    /** Every write: table, rows, diffs and its timestamp. */
    final List<Object[]> history = new ArrayList<>();

    RenderHarness(int workers) {
        FatalErrorHandler record = (where, error) -> fatal.add(error);
        pool = new SchedulerWorkerPool("test-maintenance", Schedulers.newBoundedElastic(workers, 100_000, "test-maintenance"), workers, record);
    }

    void createTable(String id, List<DatumType> types) {
        Schema s = Schema.ofTypes(types);
        storage.createTable(id, s);
        schemas.put(id, s);
    }

    long write(String table, Map<Row, Long> diffs) {
        List<RowDiff> ups = new ArrayList<>();
        diffs.forEach((r, d) -> ups.add(new RowDiff(r, d)));
        long ts = storage.write(table, ups).block();
        history.add(new Object[] {table, diffs, ts});
        return ts;
    }

    Dataflow start(String exportId, Plan plan, List<Integer> key, long asOf) {
        Map<String, Schema> sources = new HashMap<>();
        for (String dep : plan.dependencies()) {
            sources.put(dep, schemas.get(dep));
        }
        DataflowDescription desc = new DataflowDescription(sources, Map.of(), List.of(new DataflowDescription.BuildDesc("o1", plan)),
                List.of(new DataflowDescription.IndexExport(exportId, "o1", key)), asOf, null);
        desc.validate();
        Dataflow df = Dataflow.render(exportId, desc, new Dataflow.Env(pool, storage, registry, DataflowListener.NONE, System::currentTimeMillis, Dataflow.StepObserver.NONE));
        df.schedule();
        return df;
    }

    /** Waits until the export is sealed past {@code t}. */
    void awaitSealed(Dataflow df, long t) {
        await().atMost(Duration.ofSeconds(30)).until(() -> !fatal.isEmpty() || df.upper().isPast(t));
        if (!fatal.isEmpty()) {
            throw new AssertionError("fatal error in a worker", fatal.get(0));
        }
    }

    /** The export's contents at {@code t}: rows and error messages with multiplicities. */
    static PlanEvaluator.Result read(SharedArrangement arr, long t) {
        Map<Row, Long> rows = new HashMap<>();
        Map<String, Long> errors = new HashMap<>();
        SharedArrangement.Snapshot snap = arr.snapshot();
        for (TraceSnapshot s : snap.oks()) {
            s.scan(t, (k, v, d) -> rows.merge(v, d, (a, b) -> a + b == 0 ? null : a + b));
        }
        for (TraceSnapshot s : snap.errs()) {
            s.scan(t, (k, v, d) -> errors.merge((String) k.get(0), d, (a, b) -> a + b == 0 ? null : a + b));
        }
        return new PlanEvaluator.Result(rows, errors);
    }

    /** The reference answer at {@code t}: the plan evaluated over the tables' contents at {@code t}. */
    PlanEvaluator.Result expected(Plan plan, long t) {
        Map<String, Map<Row, Long>> inputs = new HashMap<>();
        for (Object[] w : history) {
            if ((Long) w[2] <= t) {
                @SuppressWarnings("unchecked")
                Map<Row, Long> diffs = (Map<Row, Long>) w[1];
                Map<Row, Long> table = inputs.computeIfAbsent((String) w[0], x -> new HashMap<>());
                diffs.forEach((r, d) -> table.merge(r, d, (a, b) -> a + b == 0 ? null : a + b));
            }
        }
        return PlanEvaluator.evaluate(plan, id -> schemas.get(id).types(), inputs);
    }

    /**
     * Checks {@code plan}, maintained over table {@code t} of {@code input} on one or two workers and exported keyed by {@code key},
     * equal to the reference at every write: it starts after the first of seven {@link #batch}es of up to {@code most} rows drawn by
     * {@code row}.
     */
    static void checkEveryWrite(SplittableRandom rnd, List<DatumType> input, Plan plan, List<Integer> key, int most,
            Function<SplittableRandom, Row> row) {
        try (RenderHarness h = new RenderHarness(1 + rnd.nextInt(2))) {
            h.createTable("t", input);
            Map<Row, Long> present = new HashMap<>();
            List<Long> times = new ArrayList<>();
            times.add(h.write("t", batch(rnd, present, most, row)));
            Dataflow df = h.start("e", plan, key, times.get(0));
            for (int w = 0; w < 6; w++) {
                times.add(h.write("t", batch(rnd, present, most, row)));
            }
            h.awaitSealed(df, times.getLast());
            for (long t : times) {
                PlanEvaluator.Result expected = h.expected(plan, t);
                assertThat(read(df.exports().get(0), t)).as("at %d of %s", t, times).isEqualTo(expected);
            }
        }
    }

    /**
     * One to {@code most} writes: inserts (one or two copies of a row drawn by {@code row}) and, one time in three, deletes of one or two
     * copies of a row in {@code present} (a table holds no negative multiplicity); never empty. {@code present} follows them.
     */
    static Map<Row, Long> batch(SplittableRandom rnd, Map<Row, Long> present, int most, Function<SplittableRandom, Row> row) {
        Map<Row, Long> diffs = new HashMap<>();
        int n = 1 + rnd.nextInt(most);
        for (int i = 0; i < n; i++) {
            List<Row> rows = new ArrayList<>(present.keySet());
            Row r;
            long d;
            if (!rows.isEmpty() && rnd.nextInt(3) == 0) {
                r = rows.get(rnd.nextInt(rows.size()));
                d = -Math.min(present.get(r), 1 + rnd.nextInt(2));
            } else {
                r = row.apply(rnd);
                d = 1 + rnd.nextInt(2);
            }
            diffs.merge(r, d, (a, b) -> a + b == 0 ? null : a + b);
            present.merge(r, d, (a, b) -> a + b == 0 ? null : a + b);
        }
        if (diffs.isEmpty()) {
            Row r = row.apply(rnd);
            diffs.put(r, 1L);
            present.merge(r, 1L, (a, b) -> a + b == 0 ? null : a + b);
        }
        return diffs;
    }

    @Override
    public void close() {
        pool.dispose();
        storage.close();
        ticks.dispose();
    }
}
