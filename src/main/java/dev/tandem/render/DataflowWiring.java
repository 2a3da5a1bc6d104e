package dev.tandem.render;

import dev.tandem.plan.DataflowDescription;
import dev.tandem.row.Row;
import dev.tandem.sharing.SharedArrangement;
import dev.tandem.time.Frontier;
import dev.tandem.trace.BatchBuilder;
import dev.tandem.trace.Spine;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The operators of a {@link Dataflow}, wired from its plan: {@link DataflowRenderer}'s operators in
 * topological order, each sharded over the pool's workers, the edges between them (with the inboxes that
 * exchange updates where a consumer re-keys), and each export's error trace with how many paths lead to
 * it from every operator. Its one job is to step one shard of one operator and route what it produced
 * along the edges ({@link #step}), and to seal a worker's share of the round's errors ({@link #finish}).
 *
 * <p>Threading: built once by the dataflow's constructor. After that only the pool's workers touch it,
 * worker {@code w} only shard {@code w} of each operator and the sender slot {@code w} of other shards'
 * inboxes, one operator (stage) at a time; a stage starts only once the previous one finished on every
 * worker, so a shard reads its inbox after every sender wrote it. {@link #hasErrors} and
 * {@link #residentBytes} read immutable snapshots and sizes and may run on any thread.
 */
final class DataflowWiring {

    /** Columns of an error before its key columns: {@code (message, code)} ({@link dev.tandem.expr.DataError#row}). */
    private static final int ERROR_ARITY = 2;

    private final String id;
    private final int workers;
    private final MemoryBudget budget;
    private final Dataflow.StepObserver steps;
    private final Consumer<String> abort;

    final List<Operator> order;
    private final List<List<int[]>> consumers;
    private final Operator.Shard[][] shards;
    /** inbox[op][dest][port][src]. */
    private final Updates[][][][] inbox;
    private final Updates[] outs;
    private final Updates[] errs;
    /** errSpines[export][shard]: each export's errors. */
    final Spine[][] errSpines;
    /** errorWeights[op][export]: how many paths lead from the operator to the export (its errors count once per path). */
    private final long[][] errorWeights;
    /** exportErrs[export][shard]: the round's error updates of each export. */
    private final Updates[][] exportErrs;
    final List<ExportOperator> exports;
    final Map<String, SourceOperator> sources;
    /** The ids of the imported indexes, read by import and arranged-import operators. */
    final Set<String> importIds;

    /** How this dataflow may answer a read early, or null when it may not (see {@link EarlyAnswer}). */
    final EarlyAnswer early;
    /** The tap of the read it answers early, once one asked. */
    final AtomicReference<EarlyAnswer.Tap> tap = new AtomicReference<>();
    /** Nanoseconds the operators' steps have run, over every worker (what a round cost, read between rounds). */
    final java.util.concurrent.atomic.LongAdder stepNanos = new java.util.concurrent.atomic.LongAdder();

    /**
     * Renders {@code desc} over {@code workers} shards. {@code abort} is told why a step stopped the
     * dataflow (its budget exceeded, or it was stopped).
     */
    DataflowWiring(String id, DataflowDescription desc, int workers, MemoryBudget budget, Dataflow.StepObserver steps,
            Function<String, Supplier<SharedArrangement.Snapshot>> importSnapshots, java.util.function.Predicate<String> nonNegativeSources,
            Consumer<String> abort) {
        this.id = id;
        this.workers = workers;
        this.budget = budget;
        this.steps = steps;
        this.abort = abort;
        DataflowRenderer r = new DataflowRenderer(desc, workers, importSnapshots, nonNegativeSources);
        r.render();
        this.exports = r.exports;
        this.sources = r.sources;
        OperatorOrder graph = new OperatorOrder(exports);
        this.order = graph.order;
        this.consumers = graph.consumers;
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
        keyDirectErrors();
        Set<String> ids = new LinkedHashSet<>(r.imports.keySet());
        ids.addAll(r.arrangedImports);
        importIds = ids;
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

    /**
     * Keys the errors of each MFP whose one consumer is an export by that export's key, so a read of
     * other keys is not failed by them. Errors from anywhere else fail every read of the exports below.
     */
    private void keyDirectErrors() {
        for (int o = 0; o < order.size(); o++) {
            List<int[]> edges = consumers.get(o);
            if (order.get(o) instanceof MfpOperator m && edges.size() == 1 && order.get(edges.get(0)[0]) instanceof ExportOperator e) {
                m.keyErrorsBy(e.key);
            }
        }
    }

    /** Runs shard {@code w} of operator {@code o} over its inbox and routes its output to its consumers' inboxes. */
    void step(int o, int w, Operator.Round round) {
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
            long ran = System.nanoTime() - start;
            stepNanos.add(ran);
            steps.step(id, op.name, w, ran);
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
                abort.accept(stop.getMessage());
            }
        }
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

    /** Inserts worker {@code w}'s share of the round's export errors into the error traces (drops it once stopped). */
    void finish(int w, Operator.Round round) {
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
                // An error is (message, code) or, keyed by the export's key, (message, code, key...): stored as
                // (message, code) -> key.
                Row error = e.row(i);
                if (error.arity() == ERROR_ARITY) {
                    b.add(error, Row.EMPTY, e.times[i], e.diffs[i]);
                } else {
                    int[] key = java.util.stream.IntStream.range(ERROR_ARITY, error.arity()).toArray();
                    b.add(error.project(new int[] {0, 1}), error.project(key), e.times[i], e.diffs[i]);
                }
            }
            e.clear();
            Spine spine = errSpines[x][w];
            spine.insert(b.build(Frontier.at(round.lower()), Frontier.at(round.upper()), spine.since()));
        }
    }

    /** Whether any operator has produced an error so far (read between stages, or by the producer's step). */
    boolean hasErrors() {
        for (int x = 0; x < exports.size(); x++) {
            for (int w = 0; w < workers; w++) {
                if (exportErrs[x][w].size > 0 || errSpines[x][w].snapshot().records() > 0) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The earliest time of an update a temporal filter holds (read between rounds), {@link Long#MAX_VALUE} when none. */
    long nextRelease() {
        long min = Long.MAX_VALUE;
        for (Operator op : order) {
            if (op instanceof TemporalFilterOperator f) {
                min = Math.min(min, f.nextRelease());
            }
        }
        return min;
    }

    /** Heap bytes of the dataflow's arrangements: its exports and its operators' state. */
    long residentBytes() {
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
}
