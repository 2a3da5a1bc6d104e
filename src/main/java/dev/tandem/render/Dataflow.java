package dev.tandem.render;

import dev.tandem.plan.DataflowDescription;
import dev.tandem.row.Row;
import dev.tandem.sharing.ArrangementSharingRegistry;
import dev.tandem.sharing.SharedArrangement;
import dev.tandem.storage.TableStorage;
import dev.tandem.time.Frontier;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

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
 *
 * <p>This class is the facade the runtime drives; the work is split by concern: {@link DataflowWiring}
 * (the operators built from the plan, and stepping them), {@link DataflowInputs} (tables and imports
 * feeding it), {@link DataflowPublication} (the exports in the sharing registry) and
 * {@link DataflowRounds} (the round loop). What they share — stopping (drop, budget, failure) and the
 * early answer of a bounded read — stays here.
 */
public final class Dataflow {

    /** How often the frontier of a dataflow whose inputs have no updates advances (and is reported). */
    public static final long IDLE_HEARTBEAT_MILLIS = 1000;

    private final String id;
    private final DataflowDescription desc;
    private final TableStorage tables;
    private final ArrangementSharingRegistry registry;
    private final DataflowListener listener;
    private final MemoryBudget budget;
    private final DataflowWiring wiring;
    private final DataflowInputs inputs;
    private final DataflowPublication publication;
    private final DataflowRounds rounds;

    /** Set when the dataflow stopped because it answered its read early: that is no failure. */
    private volatile boolean answeredEarly;
    private final AtomicBoolean failed = new AtomicBoolean();
    private volatile boolean dropped;
    /** Whether exports are published with a standing hold for the other runtime (two-runtime maintenance). */
    private volatile boolean shareWithReader;

    private Dataflow(String id, DataflowDescription desc, Env env) {
        this.id = id;
        this.desc = desc;
        this.tables = env.tables();
        this.registry = env.registry();
        this.listener = env.listener();
        this.budget = new MemoryBudget(id, env.memoryBudget());
        int workers = env.pool().size();
        // a table is never negative unless recovery found a negative count in it that it could not repair
        this.wiring = new DataflowWiring(id, desc, workers, budget, env.steps(), this::importSnapshot,
                table -> env.tables().errors().stream().noneMatch(e -> e.table().equals(table)), this::abort);
        this.inputs = new DataflowInputs(this, desc, workers, wiring.sources.keySet(), wiring.importIds);
        this.publication = new DataflowPublication(desc, registry, listener, wiring.exports, wiring.errSpines);
        this.rounds = new DataflowRounds(this, desc, env, budget, wiring, inputs, publication);
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

    /** Publishes exports with a standing hold for the reading runtime; call before {@link #schedule()}. */
    public void shareWithReader(boolean share) {
        this.shareWithReader = share;
    }

    /** Renders a validated description; {@code id} names the dataflow (usually its first export). */
    public static Dataflow render(String id, DataflowDescription desc, Env env) {
        return new Dataflow(id, desc, env);
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
        return Frontier.at(rounds.lower());
    }

    /** {@link #upper()} as a time. */
    long lower() {
        return rounds.lower();
    }

    public boolean hydrated() {
        return rounds.lower() > desc.asOf();
    }

    /** Rounds run so far (for tests and introspection of tick work). */
    public long rounds() {
        return rounds.rounds();
    }

    /** The inputs' common frontier: how far the inputs are complete, at or ahead of {@link #upper()}. */
    public Frontier inputFrontier() {
        return inputs.frontier().join(upper());
    }

    /** Milliseconds from schedule to hydration, or -1 while hydrating. */
    public long hydrationMillis() {
        return rounds.hydratedAfterMillis();
    }

    /** Records processed so far by the operators (sampled while a step runs). */
    public long processed() {
        return rounds.processed();
    }

    /** An estimate of the records hydration processes: the input snapshot once per operator, thrice per export. */
    public long hydrationTotal() {
        return rounds.hydrationTotal();
    }

    public List<String> exportIds() {
        return wiring.exports.stream().map(e -> e.exportId).toList();
    }

    /** The published arrangements of this dataflow's exports (empty until scheduled). */
    public List<SharedArrangement> exports() {
        return publication.published();
    }

    /**
     * Starts computation: publishes the exports, subscribes to inputs and runs rounds as they advance.
     */
    public void schedule() {
        if (rounds.started() || dropped) {
            return;
        }
        rounds.start();
        publication.publish(shareWithReader);
        inputs.subscribe(tables, registry);
        rounds.request();
    }

    /** Moves the publisher's hold on export {@code exportId}; the empty frontier drops it. */
    public void allowCompaction(String exportId, Frontier frontier) {
        publication.allowCompaction(exportId, frontier, rounds.lower());
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
    public boolean answerEarly(long readTime, long offset, long limit, Consumer<List<Row>> answer) {
        if (wiring.early == null || limit <= 0) {
            return false;
        }
        return wiring.tap.compareAndSet(null, wiring.early.tap(readTime, offset, limit, wiring::hasErrors, rows -> {
            answeredEarly = true;
            budget.stop("dataflow " + id + " answered its read early");
            answer.accept(rows);
        }));
    }

    /** Stops the dataflow, releases every hold it has and drops its exports from the registry. */
    public void drop() {
        if (dropped) {
            return;
        }
        dropped = true;
        budget.stop("dataflow " + id + " was dropped");
        inputs.close();
        publication.drop();
    }

    public boolean isDropped() {
        return dropped;
    }

    /** Reports a failure to the listener, unless the dataflow was dropped. */
    void fail(String message) {
        if (!dropped) {
            listener.failed(this, message);
        }
    }

    /** Asks for rounds: an input moved (see {@link DataflowRounds#request}). */
    void requestRound() {
        rounds.request();
    }

    /** Ends the dataflow's work after its budget was exceeded or it was stopped; reports a failure once. */
    private void abort(String why) {
        budget.stop(why);
        if (!answeredEarly && failed.compareAndSet(false, true) && !dropped) {
            listener.overBudget(this, why);
        }
    }

    /** Heap bytes the dataflow holds (arrangements as last measured, and buffers). */
    public long memoryUsed() {
        return budget.used();
    }

    private Supplier<SharedArrangement.Snapshot> importSnapshot(String indexId) {
        return () -> inputs.snapshot(indexId);
    }
}
