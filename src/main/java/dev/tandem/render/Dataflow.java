package dev.tandem.render;

import dev.tandem.plan.DataflowDescription;
import dev.tandem.row.Row;
import dev.tandem.sharing.ArrangementSharingRegistry;
import dev.tandem.sharing.Publication;
import dev.tandem.sharing.SharedArrangement;
import dev.tandem.storage.PackedUpdates;
import dev.tandem.storage.TableEvent;
import dev.tandem.storage.TableStorage;
import dev.tandem.storage.TableUpdate;
import dev.tandem.time.Frontier;
import dev.tandem.trace.BatchBuilder;
import dev.tandem.trace.ReadHold;
import dev.tandem.trace.Spine;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A rendered dataflow running on a {@link WorkerPool}: its operators, sharded over the pool's
 * workers, advance in rounds. A round takes every input update before the inputs' common frontier
 * {@code F} and runs each operator's shards to completion, in topological order, exchanging updates
 * between shards where an operator re-keys; then exports are sealed at {@code F}. A stage therefore
 * only starts once all its senders finished, so its input frontier is the minimum over them.
 *
 * <p>Table inputs arrive from {@link TableStorage} subscriptions; index imports are read from the
 * {@link ArrangementSharingRegistry}, and nothing runs until every import is published (deferral).
 * Exports are published at {@link #schedule()} and sealed after every round. Only the pool's workers
 * touch operator state; the coordinator logic runs between rounds, one round at a time.
 *
 * <p>Idle: a round only moves the frontier when no input has pending updates, so a dataflow whose
 * table inputs are idle runs such a round at most once per {@link #IDLE_HEARTBEAT_MILLIS}; any update
 * runs a round at once. Tick work is thus proportional to changes, plus a coarse heartbeat.
 */
public final class Dataflow {

    /** How often the frontier of a dataflow whose inputs have no updates advances (and is reported). */
    public static final long IDLE_HEARTBEAT_MILLIS = 1000;

    private final String id;
    private final DataflowDescription desc;
    private final WorkerPool pool;
    private final TableStorage tables;
    private final ArrangementSharingRegistry registry;
    private final DataflowListener listener;
    private final LongSupplier clock;
    private final StepObserver steps;
    private final int workers;

    private final List<Operator> order = new ArrayList<>();
    private final Map<Operator, Integer> index = new HashMap<>();
    private final List<List<int[]>> consumers = new ArrayList<>();
    private Operator.Shard[][] shards;
    /** inbox[op][dest][port][src]. */
    private Updates[][][][] inbox;
    private final Updates[] outs;
    private final Updates[] errs;
    /** errSpines[export][shard]: each export's errors. */
    private final Spine[][] errSpines;
    /** errorWeights[op][export]: how many paths lead from the operator to the export (its errors count once per path). */
    private long[][] errorWeights;
    /** exportErrs[export][shard]: the round's error updates of each export. */
    private final Updates[][] exportErrs;
    private final List<ExportOperator> exports;
    private final Map<String, SourceOperator> sources;
    private final Map<String, TableInput> tableInputs = new LinkedHashMap<>();
    private final Map<String, ImportInput> importInputs = new LinkedHashMap<>();
    private final Map<String, ReadHold> publisherHolds = new HashMap<>();
    private final List<SharedArrangement> published = new ArrayList<>();

    private final MemoryBudget budget;
    /** How this dataflow may answer a read early, or null when it may not (see {@link EarlyAnswer}). */
    private final EarlyAnswer early;
    /** The tap of the read it answers early, once one asked. */
    private final AtomicReference<EarlyAnswer.Tap> tap = new AtomicReference<>();
    /** Set when the dataflow stopped because it answered its read early: that is no failure. */
    private volatile boolean answeredEarly;
    private final java.util.concurrent.atomic.AtomicBoolean failed = new java.util.concurrent.atomic.AtomicBoolean();
    private final AtomicInteger wip = new AtomicInteger();
    private final Disposable.Composite subscriptions = Disposables.composite();
    private final LongAdder processed = new LongAdder();
    private volatile long hydrationTotal;
    private volatile long lower;
    private volatile boolean scheduled;
    private volatile boolean dropped;
    private volatile long hydratedAfterMillis = -1;
    private final LongAdder rounds = new LongAdder();
    private volatile long lastRoundMillis;
    private long scheduledAt;

    private Dataflow(String id, DataflowDescription desc, Env env) {
        this.id = id;
        this.desc = desc;
        this.pool = env.pool();
        this.tables = env.tables();
        this.registry = env.registry();
        this.listener = env.listener();
        this.clock = env.clock();
        this.steps = env.steps();
        this.workers = pool.size();
        this.lower = desc.asOf();
        this.budget = new MemoryBudget(id, env.memoryBudget());
        DataflowRenderer r = new DataflowRenderer(desc, workers, this::importSnapshot);
        r.render();
        this.exports = r.exports;
        this.sources = r.sources;
        for (ExportOperator e : exports) {
            visit(e);
        }
        outs = new Updates[workers];
        errs = new Updates[workers];
        errSpines = new Spine[exports.size()][workers];
        exportErrs = new Updates[exports.size()][workers];
        for (int w = 0; w < workers; w++) {
            outs[w] = new Updates(budget);
            errs[w] = new Updates(budget);
            for (int e = 0; e < exports.size(); e++) {
                errSpines[e][w] = new Spine(exports.get(e).exportId + " errs shard " + w, Frontier.at(desc.asOf()));
                exportErrs[e][w] = new Updates(budget);
            }
        }
        early = desc.until() != null ? EarlyAnswer.of(order) : null;
        errorWeights = new long[order.size()][exports.size()];
        for (int o = order.size() - 1; o >= 0; o--) {
            int e = exports.indexOf(order.get(o));
            if (e >= 0) {
                errorWeights[o][e] = 1;
            }
            for (int[] edge : consumers.get(o)) {
                for (int x = 0; x < exports.size(); x++) {
                    errorWeights[o][x] += errorWeights[edge[0]][x];
                }
            }
        }
        for (String table : r.sources.keySet()) {
            tableInputs.put(table, new TableInput());
        }
        Set<String> importIds = new LinkedHashSet<>(r.imports.keySet());
        importIds.addAll(r.arrangedImports);
        for (String imp : importIds) {
            importInputs.put(imp, new ImportInput(imp));
        }
        shards = new Operator.Shard[order.size()][workers];
        inbox = new Updates[order.size()][workers][][];
        for (int o = 0; o < order.size(); o++) {
            Operator op = order.get(o);
            for (int w = 0; w < workers; w++) {
                shards[o][w] = op.shard(w);
                inbox[o][w] = new Updates[op.inputs.length][workers];
                for (int p = 0; p < op.inputs.length; p++) {
                    for (int s = 0; s < workers; s++) {
                        inbox[o][w][p][s] = new Updates(budget);
                    }
                }
            }
        }
    }

    /** What a dataflow needs from its runtime. */
    public record Env(WorkerPool pool, TableStorage tables, ArrangementSharingRegistry registry, DataflowListener listener,
            LongSupplier clock, StepObserver steps, long memoryBudget) {

        /** An environment without a memory budget. */
        public Env(WorkerPool pool, TableStorage tables, ArrangementSharingRegistry registry, DataflowListener listener,
                LongSupplier clock, StepObserver steps) {
            this(pool, tables, registry, listener, clock, steps, MemoryBudget.UNLIMITED);
        }
    }

    /** Told the duration of every operator step, for metrics and introspection. */
    @FunctionalInterface
    public interface StepObserver {
        void step(String dataflow, String operator, int worker, long nanos);

        StepObserver NONE = (d, o, w, n) -> { };
    }

    /** Whether exports are published with a standing hold for the other runtime (two-runtime maintenance). */
    private volatile boolean shareWithReader;

    /** Publishes exports with a standing hold for the reading runtime; call before {@link #schedule()}. */
    public void shareWithReader(boolean share) {
        this.shareWithReader = share;
    }

    /** Renders a validated description; {@code id} names the dataflow (usually its first export). */
    public static Dataflow render(String id, DataflowDescription desc, Env env) {
        return new Dataflow(id, desc, env);
    }

    private void visit(Operator op) {
        if (index.containsKey(op)) {
            return;
        }
        for (Operator in : op.inputs) {
            visit(in);
        }
        index.put(op, order.size());
        order.add(op);
        consumers.add(new ArrayList<>());
        for (int p = 0; p < op.inputs.length; p++) {
            consumers.get(index.get(op.inputs[p])).add(new int[] {index.get(op), p});
        }
    }

    public String id() {
        return id;
    }

    public DataflowDescription description() {
        return desc;
    }

    public long asOf() {
        return desc.asOf();
    }

    /** The exports' common write frontier. */
    public Frontier upper() {
        return Frontier.at(lower);
    }

    public boolean hydrated() {
        return lower > desc.asOf();
    }

    /** Rounds run so far (for tests and introspection of tick work). */
    public long rounds() {
        return rounds.sum();
    }

    /** The inputs' common frontier: how far the inputs are complete, at or ahead of {@link #upper()}. */
    public Frontier inputFrontier() {
        Frontier f = Frontier.EMPTY;
        for (TableInput t : tableInputs.values()) {
            f = f.meet(t.frontier);
        }
        for (ImportInput i : importInputs.values()) {
            f = f.meet(i.arrangement.get() == null ? Frontier.MIN : i.frontier);
        }
        return f.join(upper());
    }

    /** Milliseconds from schedule to hydration, or -1 while hydrating. */
    public long hydrationMillis() {
        return hydratedAfterMillis;
    }

    /** Records processed so far by the operators (sampled while a step runs). */
    public long processed() {
        return processed.sum();
    }

    /** An estimate of the records hydration processes: the input snapshot once per operator, thrice per export. */
    public long hydrationTotal() {
        return hydrationTotal;
    }

    public List<String> exportIds() {
        return exports.stream().map(e -> e.exportId).toList();
    }

    /** The published arrangements of this dataflow's exports (empty until scheduled). */
    public List<SharedArrangement> exports() {
        synchronized (published) {
            return List.copyOf(published);
        }
    }

    /**
     * Starts computation: publishes the exports, subscribes to inputs and runs rounds as they advance.
     */
    public void schedule() {
        if (scheduled || dropped) {
            return;
        }
        scheduled = true;
        scheduledAt = clock.getAsLong();
        for (int n = 0; n < exports.size(); n++) {
            ExportOperator e = exports.get(n);
            List<Spine> oks = List.of(e.spines);
            SharedArrangement arr = new SharedArrangement(e.exportId, desc.indexExports().stream()
                    .filter(x -> x.id().equals(e.exportId)).findFirst().map(x -> exportSchema(x)).orElseThrow(),
                    intList(e.key), oks, List.of(errSpines[n]));
            publisherHolds.put(e.exportId, arr.acquireHold("compaction policy of " + e.exportId, Frontier.at(desc.asOf())));
            synchronized (published) {
                published.add(arr);
            }
            registry.publish(arr, Frontier.at(desc.asOf()), shareWithReader);
        }
        for (Map.Entry<String, TableInput> t : tableInputs.entrySet()) {
            subscriptions.add(tables.subscribe(t.getKey(), desc.asOf()).subscribe(
                    ev -> t.getValue().accept(ev), err -> fail("input " + t.getKey() + " failed: " + err.getMessage())));
        }
        for (ImportInput imp : importInputs.values()) {
            subscriptions.add(registry.publications(imp.id).subscribe(imp::accept));
        }
        requestRound();
    }

    private dev.tandem.row.Schema exportSchema(DataflowDescription.IndexExport x) {
        return dev.tandem.row.Schema.ofTypes(typesOfObject(x.object()));
    }

    private List<dev.tandem.row.DatumType> typesOfObject(String object) {
        Map<String, List<dev.tandem.row.DatumType>> known = new HashMap<>(desc.importTypes());
        for (DataflowDescription.BuildDesc b : desc.objectsToBuild()) {
            known.put(b.id(), b.plan().types(known::get, ""));
            if (b.id().equals(object)) {
                return known.get(object);
            }
        }
        throw new IllegalStateException("no object " + object);
    }

    private static List<Integer> intList(int[] a) {
        List<Integer> l = new ArrayList<>(a.length);
        for (int x : a) {
            l.add(x);
        }
        return l;
    }

    /** Moves the publisher's hold on export {@code exportId}; the empty frontier drops it. */
    public void allowCompaction(String exportId, Frontier frontier) {
        ReadHold h = publisherHolds.get(exportId);
        if (h != null) {
            h.downgrade(frontier.isEmpty() ? Frontier.at(lower) : frontier);
        }
    }

    /**
     * Asks this bounded dataflow to answer a read at {@code readTime} as soon as {@code offset + limit}
     * output rows (with multiplicity) are certainly in its result there, without waiting for the rest
     * (a read with a limit and no order): {@code answer} then gets the {@code limit} rows after the first
     * {@code offset}, and the dataflow stops at once, as if dropped. Returns false, and does nothing, when
     * its plan may not answer early (see {@link EarlyAnswer}) or another read asked first; the read then
     * waits for the complete output as usual. A call after the producing step began takes effect in no
     * step of this dataflow, which is harmless.
     */
    public boolean answerEarly(long readTime, long offset, long limit, java.util.function.Consumer<List<Row>> answer) {
        if (early == null || limit <= 0) {
            return false;
        }
        return tap.compareAndSet(null, early.tap(readTime, offset, limit, this::hasErrors, rows -> {
            answeredEarly = true;
            budget.stop("dataflow " + id + " answered its read early");
            answer.accept(rows);
        }));
    }

    /** Whether any operator has produced an error so far (read between stages, or by the producer's step). */
    private boolean hasErrors() {
        for (int x = 0; x < exports.size(); x++) {
            for (int w = 0; w < workers; w++) {
                if (exportErrs[x][w].size > 0 || errSpines[x][w].snapshot().records() > 0) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Stops the dataflow, releases every hold it has and drops its exports from the registry. */
    public void drop() {
        if (dropped) {
            return;
        }
        dropped = true;
        budget.stop("dataflow " + id + " was dropped");
        subscriptions.dispose();
        for (ImportInput imp : importInputs.values()) {
            imp.release();
        }
        publisherHolds.values().forEach(ReadHold::release);
        for (ExportOperator e : exports) {
            registry.drop(e.exportId);
        }
    }

    public boolean isDropped() {
        return dropped;
    }

    private void fail(String message) {
        if (!dropped) {
            listener.failed(this, message);
        }
    }

    private Supplier<SharedArrangement.Snapshot> importSnapshot(String indexId) {
        return () -> {
            ImportInput imp = importInputs.get(indexId);
            return imp.arrangement.get().snapshot();
        };
    }

    /** Buffers a table subscription's updates until a round takes them. */
    private final class TableInput {
        private final Updates pending = new Updates();
        private volatile Frontier frontier = Frontier.MIN;

        void accept(TableEvent ev) {
            switch (ev) {
                case TableEvent.Updates u -> {
                    synchronized (this) {
                        if (u.updates() instanceof PackedUpdates p) {
                            byte[] rows = p.rowBytes();
                            for (int i = 0; i < p.size(); i++) {
                                pending.add(rows, p.rowStart(i), p.rowEnd(i), p.time(i), p.diff(i));
                            }
                        } else {
                            for (TableUpdate x : u.updates()) {
                                pending.add(x.row(), x.time(), x.diff());
                            }
                        }
                    }
                }
                case TableEvent.Progress p -> {
                    frontier = p.upper();
                    requestRound();
                }
            }
        }

        synchronized boolean hasPending() {
            return pending.size > 0;
        }

        /** Moves updates before {@code upper} into the source's shards, by row hash. */
        synchronized long drainInto(SourceOperator source, long upper) {
            if (workers == 1 && allBefore(upper)) {
                // the common case (a snapshot, or a tick's writes): hand the buffer over whole
                long moved = pending.size;
                source.pending[0].moveFrom(pending);
                return moved;
            }
            Updates keep = new Updates();
            long moved = 0;
            for (int i = 0; i < pending.size; i++) {
                if (pending.times[i] < upper) {
                    int w = workers == 1 ? 0 : SharedArrangement.shardOf(pending.row(i), workers);
                    source.pending[w].add(pending, i, 1);
                    moved++;
                } else {
                    keep.add(pending, i, 1);
                }
            }
            pending.clear();
            pending.addAll(keep);
            return moved;
        }

        private boolean allBefore(long upper) {
            for (int i = 0; i < pending.size; i++) {
                if (pending.times[i] >= upper) {
                    return false;
                }
            }
            return true;
        }
    }

    /** Follows an imported index's publications: its frontier, its hold and a drop under us. */
    private final class ImportInput {
        final String id;
        final AtomicReference<SharedArrangement> arrangement = new AtomicReference<>();
        volatile Frontier frontier = Frontier.MIN;
        volatile ReadHold hold;

        ImportInput(String id) {
            this.id = id;
        }

        void accept(Publication p) {
            if (p.dropped()) {
                if (lower < (desc.until() == null ? Long.MAX_VALUE : desc.until())) {
                    fail("imported index " + id + " was dropped");
                }
                return;
            }
            if (!p.published()) {
                return;
            }
            if (arrangement.compareAndSet(null, p.arrangement())) {
                ReadHold h = p.arrangement().acquireHold("dataflow " + Dataflow.this.id, Frontier.at(desc.asOf()));
                hold = h;
                if (h.frontier().compareTo(Frontier.at(desc.asOf())) > 0) {
                    fail("imported index " + id + " is compacted to " + h.frontier() + ", beyond as_of " + desc.asOf());
                    return;
                }
            }
            frontier = p.upper();
            requestRound();
        }

        void release() {
            ReadHold h = hold;
            if (h != null) {
                h.release();
            }
        }
    }

    private long target() {
        Frontier f = Frontier.EMPTY;
        for (TableInput t : tableInputs.values()) {
            f = f.meet(t.frontier);
        }
        for (ImportInput i : importInputs.values()) {
            f = f.meet(i.arrangement.get() == null ? Frontier.MIN : i.frontier);
        }
        long t = f.isEmpty() ? Long.MAX_VALUE : f.time();
        if (desc.until() != null) {
            t = Math.min(t, desc.until());
        }
        if (f.isEmpty() && desc.until() == null && constantsOnly()) {
            // Only constants: one round makes the output complete at every time from as_of on.
            t = Long.MAX_VALUE;
        }
        return t;
    }

    private boolean constantsOnly() {
        return tableInputs.isEmpty() && importInputs.isEmpty();
    }

    /** Runs rounds while the inputs are ahead of the dataflow; one round at a time. */
    private void requestRound() {
        if (!scheduled || dropped || wip.getAndIncrement() != 0) {
            return;
        }
        drain();
    }

    private void drain() {
        long from = lower;
        long to = target();
        if (dropped || budget.isStopped() || to <= from || (to == Long.MAX_VALUE && !constantsOnly()) || idleAndRecent(from, to)) {
            if (wip.decrementAndGet() != 0) {
                wip.set(1);
                drain();
            }
            return;
        }
        round(from, to).subscribe(null, err -> {
            // Operator failures are fatal and handled by the pool; nothing to recover here.
        }, () -> {
            if (wip.decrementAndGet() != 0) {
                wip.set(1);
                drain();
            }
        });
    }

    /**
     * Whether a round from {@code from} to {@code to} would only move the frontier over clock ticks and
     * one ran less than a heartbeat ago: a hydrated, unbounded dataflow over tables only, none of which
     * has pending updates, whose frontier would not cross a write (of any table) it has not yet passed.
     * Crossing a write runs at once, so a read at a write's timestamp (read-your-writes, strict) never
     * waits for the heartbeat.
     */
    private boolean idleAndRecent(long from, long to) {
        if (from == desc.asOf() || desc.until() != null || !importInputs.isEmpty()
                || clock.getAsLong() - lastRoundMillis >= IDLE_HEARTBEAT_MILLIS) {
            return false;
        }
        long lastWrite = tables.lastWriteTime();
        if (lastWrite >= from && to > lastWrite) {
            return false;
        }
        for (TableInput t : tableInputs.values()) {
            if (t.hasPending()) {
                return false;
            }
        }
        return true;
    }

    private Mono<Void> round(long from, long to) {
        boolean first = from == desc.asOf();
        rounds.increment();
        lastRoundMillis = clock.getAsLong();
        long moved = 0;
        for (Map.Entry<String, TableInput> t : tableInputs.entrySet()) {
            moved += t.getValue().drainInto(sources.get(t.getKey()), to);
        }
        if (first) {
            // Every operator consumes the snapshot once; an export also reports arranging and consolidating it.
            hydrationTotal = Math.max(1, moved) * (order.size() + 2L * exports.size());
        }
        Operator.Round round = new Operator.Round(from, to, first, processed);
        return Flux.range(0, order.size())
                .concatMap(o -> Flux.range(0, workers).flatMap(w -> pool.run(w, () -> step(o, w, round))).then())
                .thenMany(Flux.range(0, workers).flatMap(w -> pool.run(w, () -> finish(w, round))))
                .then(Mono.fromRunnable(() -> completeRound(round)));
    }

    private void step(int o, int w, Operator.Round round) {
        Operator op = order.get(o);
        Updates[] in = new Updates[op.inputs.length];
        for (int p = 0; p < in.length; p++) {
            in[p] = inbox[o][w][p][0];
        }
        Updates out = outs[w];
        EarlyAnswer.Tap watching = early != null && o == early.producer ? tap.get() : null;
        try {
            budget.check();
            for (int p = 0; p < in.length; p++) {
                Updates[] fromSenders = inbox[o][w][p];
                for (int s = 1; s < workers; s++) {
                    in[p].addAll(fromSenders[s]);
                    fromSenders[s].clear();
                }
            }
            long start = System.nanoTime();
            if (watching != null) {
                int[] seen = {0};
                out.watch(() -> seen[0] = watching.observe(out, seen[0]));
                try {
                    shards[o][w].step(in, round, out, errs[w]);
                } finally {
                    out.watch(null);
                }
                watching.observe(out, seen[0]);
            } else {
                shards[o][w].step(in, round, out, errs[w]);
            }
            steps.step(id, op.name, w, System.nanoTime() - start);
            attributeErrors(o, w);
            for (Updates u : in) {
                round.processed().add(u.size);
                u.clear();
            }
            List<int[]> edges = consumers.get(o);
            for (int n = 0; n < edges.size(); n++) {
                int c = edges.get(n)[0];
                int port = edges.get(n)[1];
                Operator.Partitioner part = order.get(c).partitioner(port);
                if (part == null || workers == 1) {
                    if (n == edges.size() - 1) {
                        inbox[c][w][port][w].moveFrom(out);
                    } else {
                        inbox[c][w][port][w].addAll(out);
                    }
                } else {
                    for (int i = 0; i < out.size; i++) {
                        inbox[c][part.shard(out.row(i), workers)][port][w].add(out, i, 1);
                    }
                }
            }
            out.clear();
            budget.resident(residentBytes());
        } catch (MemoryBudget.DataflowAbort | EarlyAnswer.Reached stop) {
            for (Updates u : in) {
                u.clear();
            }
            out.clear();
            errs[w].clear();
            if (stop instanceof MemoryBudget.DataflowAbort) {
                abort(stop.getMessage());
            }
        }
    }

    /** Heap bytes of the dataflow's arrangements: its exports and its operators' state. */
    private long residentBytes() {
        long bytes = 0;
        for (int e = 0; e < exports.size(); e++) {
            for (int w = 0; w < workers; w++) {
                bytes += exports.get(e).spines[w].snapshot().byteSize() + errSpines[e][w].snapshot().byteSize();
            }
        }
        for (Operator.Shard[] opShards : shards) {
            for (Operator.Shard shard : opShards) {
                bytes += shard.residentBytes();
            }
        }
        return bytes;
    }

    /** Ends the dataflow's work after its budget was exceeded or it was stopped; reports a failure once. */
    private void abort(String why) {
        budget.stop(why);
        if (!answeredEarly && failed.compareAndSet(false, true)) {
            fail(why);
        }
    }

    /** Heap bytes the dataflow holds (arrangements as last measured, and buffers). */
    public long memoryUsed() {
        return budget.used();
    }

    /** Moves operator {@code o}'s errors of this step to the exports downstream of it, once per path. */
    private void attributeErrors(int o, int w) {
        Updates e = errs[w];
        for (int x = 0; x < exports.size(); x++) {
            long weight = errorWeights[o][x];
            for (int i = 0; weight != 0 && i < e.size; i++) {
                exportErrs[x][w].add(e, i, weight);
            }
        }
        e.clear();
    }

    private void finish(int w, Operator.Round round) {
        if (budget.isStopped()) {
            for (Updates[] perExport : exportErrs) {
                perExport[w].clear();
            }
            return;
        }
        BatchBuilder b = new BatchBuilder();
        for (int x = 0; x < exports.size(); x++) {
            Updates e = exportErrs[x][w];
            for (int i = 0; i < e.size; i++) {
                b.add(e.row(i), Row.EMPTY, e.times[i], e.diffs[i]);
            }
            e.clear();
            Spine spine = errSpines[x][w];
            spine.insert(b.build(Frontier.at(round.lower()), Frontier.at(round.upper()), spine.since()));
        }
    }

    private void completeRound(Operator.Round round) {
        lower = round.upper();
        Frontier upper = Frontier.at(round.upper());
        for (ImportInput imp : importInputs.values()) {
            ReadHold h = imp.hold;
            if (h != null) {
                h.downgrade(Frontier.at(round.upper() - 1));
            }
        }
        if (dropped || budget.isStopped()) {
            return;
        }
        for (ExportOperator e : exports) {
            registry.seal(e.exportId, upper);
            listener.frontier(e.exportId, upper);
        }
        if (round.first()) {
            hydratedAfterMillis = Math.max(0, clock.getAsLong() - scheduledAt);
            listener.hydrated(this, hydratedAfterMillis);
        }
    }
}
