package dev.tandem.runtime;

import dev.tandem.plan.DataflowDescription;
import dev.tandem.plan.Plan;
import dev.tandem.render.Dataflow;
import dev.tandem.render.DataflowListener;
import dev.tandem.row.Row;
import dev.tandem.sharing.ArrangementSharingRegistry;
import dev.tandem.sharing.SharedArrangement;
import dev.tandem.storage.RowDiff;
import dev.tandem.storage.StorageOptions;
import dev.tandem.storage.TableStorage;
import dev.tandem.storage.TableStorages;
import dev.tandem.time.Frontier;
import dev.tandem.trace.ReadHold;
import dev.tandem.trace.Spine;
import dev.tandem.trace.TraceSnapshot;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.scheduler.Scheduler;

/**
 * The maintenance runtime's logging: samples the runtime's state (dataflows, frontiers, arrangement
 * sizes, operator time, read holds, hydration progress) and the sources added to it (subscriptions) every interval, writes each change as
 * updates to internal logging tables, and maintains the introspection indexes from them with ordinary
 * dataflows, published like any index. The logging dataflows run on their own maintenance thread, so
 * they keep advancing while the workers are pinned by a long step; progress counters are read while
 * those steps run. Beside an interactive runtime the sampler and that thread run at the workers' nice
 * value, as maintenance work; its responses leave through maintenance's response thread.
 *
 * <p>The sampler keeps its own cost to a {@value #COST_SHARE}th of the time: the next sample comes an interval
 * after the last, or {@value #COST_SHARE} times the last sample's duration if that is longer. With a thousand
 * change-stream subscriptions (a row each, and a read hold each) a sample every 100 ms cost the machine 6
 * of its 120 CPU seconds a minute in {@code bench subscribe-fanout}; the collections then refresh less
 * often instead.
 */
final class IntrospectionLogger implements AutoCloseable {

    private final ComputeRuntime runtime;
    private final Scheduler timer;
    private final TableStorage log;
    private final SchedulerWorkerPool pool;
    private final Map<String, Map<Row, Long>> previous = new HashMap<>();
    private final Map<List<Object>, LongAdder[]> elapsed = new ConcurrentHashMap<>();
    private final List<Dataflow> dataflows = new ArrayList<>();
    /** The next sample's timer task. */
    private final Disposable.Swap sampling = Disposables.swap();
    private final Duration interval;
    private final LongSupplier ticker;
    private final FatalErrorHandler fatal;
    private volatile boolean closed;
    static final int COST_SHARE = 50;
    /** The nice value of the sampler and the logging dataflows' worker (see {@link ThreadNice}). */
    private volatile int nice;

    IntrospectionLogger(ComputeRuntime runtime, ArrangementSharingRegistry registry, boolean shareWithReader, DataflowListener listener,
            RuntimeResources resources, FatalErrorHandler fatal) {
        this.runtime = runtime;
        LongSupplier clock = resources.clockMillis();
        this.timer = resources.schedulers().newSingle("tandem-maintenance-logging-timer");
        // It retracts only rows it inserted (the previous sample), so its deletes need no check.
        this.log = TableStorages.inMemory(StorageOptions.defaults(timer).withClock(clock).withTicker(resources.tickerNanos())
                .withTickInterval(resources.introspectionTick())
                .withDeleteChecks(false));
        this.pool = new SchedulerWorkerPool("tandem-maintenance-logging", resources.schedulers().newBoundedElastic("tandem-maintenance-logging", 1),
                1, fatal);
        for (Introspection.Collection c : Introspection.ALL) {
            log.createTable(table(c), c.schema());
        }
        long asOf = log.write(table(Introspection.DATAFLOWS), List.of()).block();
        for (Introspection.Collection c : Introspection.ALL) {
            DataflowDescription desc = new DataflowDescription(Map.of(table(c), c.schema()), Map.of(),
                    List.of(new DataflowDescription.BuildDesc("o_" + c.id(), Plan.get(table(c)))),
                    List.of(new DataflowDescription.IndexExport(c.id(), "o_" + c.id(), c.key())), asOf, null);
            Dataflow df = Dataflow.render(c.id(), desc, new Dataflow.Env(pool, log, registry, listener, clock, Dataflow.StepObserver.NONE));
            df.shareWithReader(shareWithReader);
            dataflows.add(df);
            previous.put(c.id(), Map.of());
        }
        this.interval = resources.introspectionInterval();
        this.ticker = resources.tickerNanos();
        this.fatal = fatal;
        scheduleSample(interval.toNanos());
    }

    private void scheduleSample(long delayNanos) {
        if (!closed) {
            sampling.replace(timer.schedule(this::sampleAndReschedule, delayNanos, TimeUnit.NANOSECONDS));
        }
    }

    private void sampleAndReschedule() {
        long start = ticker.getAsLong();
        try {
            sample();
        } catch (RuntimeException e) {
            fatal.fatal("introspection sampler", e);
            return;
        }
        scheduleSample(nextDelay(interval.toNanos(), ticker.getAsLong() - start));
    }

    /** The delay before the next sample: the interval, or {@link #COST_SHARE} times the last sample's cost if longer. */
    static long nextDelay(long intervalNanos, long costNanos) {
        return Math.max(intervalNanos, Math.max(0, costNanos) * COST_SHARE);
    }

    private static String table(Introspection.Collection c) {
        return "log_" + c.id();
    }

    /** The logging dataflows, one per introspection collection. */
    List<Dataflow> dataflows() {
        return dataflows;
    }

    void start() {
        dataflows.forEach(Dataflow::schedule);
    }

    /** Accumulates one operator step's time. */
    void step(String dataflow, String operator, int worker, long nanos) {
        LongAdder[] a = elapsed.computeIfAbsent(List.of(dataflow, operator, worker), k -> new LongAdder[] {new LongAdder(), new LongAdder()});
        a[0].add(nanos);
        a[1].increment();
    }

    /** Lowers the OS priority of the sampler and of the logging dataflows' worker to {@code nice}, from their next task on. */
    void setNice(int nice) {
        this.nice = nice;
        pool.setNice(nice);
    }

    /** Samples every collection and writes the differences to the logging tables. */
    void sample() {
        ThreadNice.ensure(nice);
        Map<String, Map<Row, Long>> now = new HashMap<>();
        for (Introspection.Collection c : Introspection.ALL) {
            now.put(c.id(), new HashMap<>());
        }
        Map<String, Dataflow> hosted = runtime.dataflows();
        java.util.Set<Dataflow> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (Dataflow df : hosted.values()) {
            if (!seen.add(df)) {
                continue;
            }
            for (int w = 0; w < runtime.workers(); w++) {
                add(now, Introspection.DATAFLOWS, df.id(), df.id(), (long) w, df.asOf(), df.hydrated(),
                        df.hydrationMillis() < 0 ? null : df.hydrationMillis(), null);
            }
            add(now, Introspection.HYDRATION_PROGRESS, df.id(), df.processed(), Math.max(df.hydrationTotal(), df.processed()));
            for (SharedArrangement arr : df.exports()) {
                SharedArrangement.Snapshot snap = arr.snapshot();
                add(now, Introspection.FRONTIERS, arr.id(), time(snap.upper()), time(snap.since()));
                for (int s = 0; s < snap.oks().size(); s++) {
                    TraceSnapshot t = snap.oks().get(s);
                    add(now, Introspection.ARRANGEMENT_SIZES, arr.id(), (long) s, t.records(), (long) t.batches().size(), t.byteSize());
                }
                Map<String, Frontier> holds = new HashMap<>();
                for (Spine spine : arr.oks()) {
                    for (ReadHold h : spine.holds()) {
                        holds.merge(h.holder(), h.frontier(), Frontier::meet);
                    }
                }
                holds.forEach((holder, f) -> add(now, Introspection.READ_HOLDS, arr.id(), holder, time(f)));
            }
        }
        for (ComputeRuntime.FailedDataflow f : runtime.failedDataflows()) {
            for (int w = 0; w < runtime.workers(); w++) {
                add(now, Introspection.DATAFLOWS, f.id(), f.id(), (long) w, f.asOf(), false, null, f.error());
            }
        }
        for (Introspection.Collection c : Introspection.ALL) {
            var source = runtime.introspectionSources().get(c.id());
            if (source != null) {
                try {
                    for (List<Object> row : source.get()) {
                        add(now, c, row.toArray());
                    }
                } catch (RuntimeException e) {
                    // A failing source shows nothing this time; the runtime's own collections still sample.
                    now.put(c.id(), new HashMap<>(previous.get(c.id())));
                }
            }
        }
        elapsed.forEach((k, a) -> add(now, Introspection.OPERATOR_ELAPSED, k.get(0), k.get(1), ((Integer) k.get(2)).longValue(), a[0].sum(), a[1].sum()));
        for (Introspection.Collection c : Introspection.ALL) {
            Map<Row, Long> next = now.get(c.id());
            Map<Row, Long> prev = previous.get(c.id());
            List<RowDiff> diffs = new ArrayList<>();
            prev.forEach((r, n) -> {
                long m = next.getOrDefault(r, 0L);
                if (m != n) {
                    diffs.add(new RowDiff(r, m - n));
                }
            });
            next.forEach((r, m) -> {
                if (!prev.containsKey(r)) {
                    diffs.add(new RowDiff(r, m));
                }
            });
            if (!diffs.isEmpty()) {
                log.write(table(c), diffs).subscribe(ts -> { }, e -> { });
                previous.put(c.id(), next);
            }
        }
    }

    private static Long time(Frontier f) {
        return f.isEmpty() ? null : f.time();
    }

    private static void add(Map<String, Map<Row, Long>> now, Introspection.Collection c, Object... values) {
        now.get(c.id()).merge(Row.pack(c.schema().types(), Arrays.asList(values)), 1L, Long::sum);
    }

    @Override
    public void close() {
        closed = true;
        sampling.dispose();
        dataflows.forEach(Dataflow::drop);
        pool.dispose();
        log.close();
        timer.dispose();
    }
}
