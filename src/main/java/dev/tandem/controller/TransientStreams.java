package dev.tandem.controller;

import dev.tandem.expr.Mfp;
import dev.tandem.plan.DataflowDescription;
import dev.tandem.plan.Plan;
import dev.tandem.protocol.ComputeCommand;
import dev.tandem.protocol.Finishing;
import dev.tandem.row.Column;
import dev.tandem.row.DatumType;
import dev.tandem.row.Schema;
import dev.tandem.time.Frontier;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;
import reactor.core.scheduler.Scheduler;

/**
 * The transient dataflows change streams own, for streams of collections without an index and of
 * queries: starting one (maintained like an index from the stream's start time, importing the indexes it
 * can, never in the catalog), releasing its inputs' holds once it has hydrated, and dropping it when its
 * stream ends, it fails, or one of the catalog objects it reads is dropped.
 *
 * <p>Thread-safe: the dataflows live in a concurrent map and each is dropped once (whoever removes it
 * from the map). A start chooses its time, holds it and registers the dataflow under {@link ReadPolicy}'s
 * lock; drops run on the controller's timer, never on the interactive runtime's threads.
 */
final class TransientStreams {

    private final ReadPlanner planner;
    private final ReadPolicy policy;
    private final IndexTracker indexes;
    private final PeekDispatch dispatch;
    private final Supplier<String> transientIds;
    private final Scheduler timer;
    private final Map<String, StreamDataflow> dataflows = new ConcurrentHashMap<>();

    TransientStreams(ReadPlanner planner, ReadPolicy policy, IndexTracker indexes, PeekDispatch dispatch, Supplier<String> transientIds,
            Scheduler timer) {
        this.planner = planner;
        this.policy = policy;
        this.indexes = indexes;
        this.dispatch = dispatch;
        this.transientIds = transientIds;
        this.timer = timer;
    }

    /** A transient dataflow a change stream owns: the catalog names it reads (a drop of one ends it), and holds to release once it hydrates. */
    private static final class StreamDataflow {
        final String label;
        final Set<String> inputs;
        final List<Runnable> inputHolds;
        volatile String endReason;

        StreamDataflow(String label, Set<String> inputs, List<Runnable> inputHolds) {
            this.label = label;
            this.inputs = inputs;
            this.inputHolds = inputHolds;
        }

        synchronized void releaseInputs() {
            inputHolds.forEach(Runnable::run);
            inputHolds.clear();
        }
    }

    /**
     * A change stream of a plan by names through a transient, unbounded dataflow of its own (an index of
     * the shaped result, keyed by every column, never in the catalog): maintained like an index from
     * {@code as_of} on (importing the indexes it can), published like one, compacted right behind the
     * stream's own hold, and dropped when the stream ends or one of its inputs is dropped.
     */
    ChangeStreamStart start(Plan byName, List<String> names, String label, Mfp mfp, Long asOf) {
        ReadPlanner.Expansion x = planner.expand(byName, true, "plan");
        Schema schema = planner.resultSchema(x, names);
        ReadPlanner.Shaping shape = ReadPlanner.shaping(mfp, Finishing.NONE, schema);
        Plan shaped = shape.mfp().isIdentity() ? x.plan : new Plan.MapFilterProject(x.plan, shape.mfp());
        List<DatumType> outTypes = shape.mfp().isIdentity() ? schema.types() : shape.mfp().outputTypes(schema.types(), "");
        List<Column> outCols = new ArrayList<>();
        for (int i = 0; i < outTypes.size(); i++) {
            outCols.add(new Column(shape.columns().get(i), outTypes.get(i), true));
        }
        Schema out = ReadPlanner.dedupe(outCols);
        String tid = transientIds.get();
        CatalogEntry.Index entry = new CatalogEntry.Index(tid, label, label, List.of(), out, 0);
        StreamDataflow df = new StreamDataflow(label, Set.copyOf(x.names), new ArrayList<>());
        IndexState[] state = new IndexState[1];
        long[] startHold = new long[1];
        long t = policy.hold(false, asOf, x.importedStates(), List.copyOf(x.sources.keySet()), df.inputHolds, time -> {
            state[0] = new IndexState(entry, time);
            startHold[0] = state[0].reads.holds.add(time);
            dataflows.put(tid, df);
            indexes.track(state[0]);
        });
        DataflowDescription desc = x.dataflow(tid, shaped, ReadPlanner.allColumns(outTypes.size()), t, null);
        dispatch.send(new ComputeCommand.CreateDataflow(desc));
        dispatch.send(new ComputeCommand.Schedule(tid));
        IndexState own = state[0];
        long hold = startHold[0];
        return new ChangeStreamStart(tid, label, out, List.of(), null, Mfp.identity(), shape.columns(), t,
                () -> own.reads.holds.remove(hold), () -> endLater(tid),
                () -> df.endReason != null ? df.endReason : "the change stream of " + label + " ended: its dataflow went away");
    }

    /**
     * Compute reported dataflow {@code id} at {@code s}: if a stream owns it, it reads its inputs itself
     * once hydrated, so their holds go; returns whether a stream owns it.
     */
    boolean reported(String id, IndexState s) {
        StreamDataflow stream = dataflows.get(id);
        if (stream == null) {
            return false;
        }
        if (s.hydrated) {
            stream.releaseInputs();
        }
        return true;
    }

    /** Compute refused or abandoned dataflow {@code id}: a stream owning it ends, saying why. */
    void failed(String id, String detail) {
        StreamDataflow df = id == null ? null : dataflows.get(id);
        if (df != null) {
            df.endReason = "the change stream of " + df.label + " failed: " + detail;
            endLater(id);
        }
    }

    /** Catalog object {@code name} (a {@code kind}) is being dropped: the streams reading it end first, saying why. */
    void inputDropped(String name, String kind) {
        for (Map.Entry<String, StreamDataflow> s : List.copyOf(dataflows.entrySet())) {
            if (s.getValue().inputs.contains(name)) {
                end(s.getKey(), kind + " '" + name + "' was dropped; the change stream of " + s.getValue().label + " ends here");
            }
        }
    }

    /**
     * Drops a change stream's transient dataflow off the caller's thread (a stream ends on the interactive
     * runtime's threads, which must not wait for the command lock); at shutdown, when the timer is gone,
     * the dataflow goes with the process.
     */
    private void endLater(String tid) {
        try {
            timer.schedule(() -> end(tid, null));
        } catch (RejectedExecutionException e) {
            dataflows.remove(tid);
        }
    }

    /**
     * Drops a change stream's transient dataflow (once): its stream, if still running, ends with
     * {@code reason}.
     */
    private void end(String tid, String reason) {
        StreamDataflow df = dataflows.remove(tid);
        if (df == null) {
            return;
        }
        if (reason != null) {
            df.endReason = reason;
        }
        df.releaseInputs();
        policy.untrack(tid);
        dispatch.send(new ComputeCommand.AllowCompaction(tid, Frontier.EMPTY));
    }

    /** The transient dataflows of change streams now running. */
    int count() {
        return dataflows.size();
    }
}
