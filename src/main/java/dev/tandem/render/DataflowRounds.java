package dev.tandem.render;

import dev.tandem.plan.DataflowDescription;
import dev.tandem.storage.TableStorage;
import dev.tandem.time.Frontier;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The round loop of a {@link Dataflow}: run-to-completion scheduling. Its one job is to run rounds while
 * the inputs are ahead of the dataflow: a round takes every input update before the target (the inputs'
 * common frontier, capped at {@code until}), runs each operator's shards on the pool's workers to
 * completion in topological order, then lets each worker seal its errors, and finally moves the import
 * holds, seals the exports and reports hydration after the first round. An idle dataflow's round (only
 * clock ticks to cross) runs at most once per {@link Dataflow#IDLE_HEARTBEAT_MILLIS}.
 *
 * <p>Threading: {@link #request} may be called from any thread (input events, schedule); a
 * work-in-progress counter lets exactly one caller drain, so rounds run one at a time and a request
 * during a round runs another after it. The loop's own state is written by the one draining round and
 * read, through volatile fields and adders, by any thread.
 */
final class DataflowRounds {

    private final Dataflow dataflow;
    private final DataflowDescription desc;
    private final WorkerPool pool;
    private final TableStorage tables;
    private final DataflowListener listener;
    private final LongSupplier clock;
    private final MemoryBudget budget;
    private final DataflowWiring wiring;
    private final DataflowInputs inputs;
    private final DataflowPublication publication;
    private final int workers;

    private final AtomicInteger wip = new AtomicInteger();
    private final LongAdder processed = new LongAdder();
    private final LongAdder rounds = new LongAdder();
    private volatile long lower;
    private volatile long hydrationTotal;
    private volatile long hydratedAfterMillis = -1;
    private volatile long lastRoundMillis;
    private volatile boolean started;
    private long startedAt;

    DataflowRounds(Dataflow dataflow, DataflowDescription desc, Dataflow.Env env, MemoryBudget budget,
            DataflowWiring wiring, DataflowInputs inputs, DataflowPublication publication) {
        this.dataflow = dataflow;
        this.desc = desc;
        this.pool = env.pool();
        this.tables = env.tables();
        this.listener = env.listener();
        this.clock = env.clock();
        this.budget = budget;
        this.wiring = wiring;
        this.inputs = inputs;
        this.publication = publication;
        this.workers = pool.size();
        this.lower = desc.asOf();
    }

    /** Lets rounds run from now on; hydration is timed from here. */
    void start() {
        started = true;
        startedAt = clock.getAsLong();
    }

    boolean started() {
        return started;
    }

    /** The exports' common write frontier, as a time: every round so far ended there. */
    long lower() {
        return lower;
    }

    long rounds() {
        return rounds.sum();
    }

    long processed() {
        return processed.sum();
    }

    long hydrationTotal() {
        return hydrationTotal;
    }

    long hydratedAfterMillis() {
        return hydratedAfterMillis;
    }

    /** Runs rounds while the inputs are ahead of the dataflow; one round at a time. */
    void request() {
        if (!started || dataflow.isDropped() || wip.getAndIncrement() != 0) {
            return;
        }
        drain();
    }

    private void drain() {
        long from = lower;
        long to = target();
        if (dataflow.isDropped() || budget.isStopped() || to <= from || (to == Long.MAX_VALUE && !inputs.isEmpty())
                || idleAndRecent(from, to)) {
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

    private long target() {
        Frontier f = inputs.frontier();
        long t = f.isEmpty() ? Long.MAX_VALUE : f.time();
        if (desc.until() != null) {
            t = Math.min(t, desc.until());
        }
        if (f.isEmpty() && desc.until() == null && inputs.isEmpty()) {
            // Only constants: one round makes the output complete at every time from as_of on.
            t = Long.MAX_VALUE;
        }
        return t;
    }

    /**
     * Whether a round from {@code from} to {@code to} would only move the frontier over clock ticks and
     * one ran less than a heartbeat ago: a hydrated, unbounded dataflow over tables only, none of which
     * has pending updates, whose frontier would not cross a write (of any table) it has not yet passed.
     * Crossing a write runs at once, so a read at a write's timestamp (read-your-writes, strict) never
     * waits for the heartbeat; so does crossing the time of an update a temporal filter holds, so a row
     * leaves (or enters) a sliding window as soon as the inputs pass its time.
     */
    private boolean idleAndRecent(long from, long to) {
        if (from == desc.asOf() || desc.until() != null || inputs.hasImports()
                || clock.getAsLong() - lastRoundMillis >= Dataflow.IDLE_HEARTBEAT_MILLIS || wiring.nextRelease() < to) {
            return false;
        }
        long lastWrite = tables.lastWriteTime();
        if (lastWrite >= from && to > lastWrite) {
            return false;
        }
        return !inputs.tablesPending();
    }

    private Mono<Void> round(long from, long to) {
        boolean first = from == desc.asOf();
        rounds.increment();
        lastRoundMillis = clock.getAsLong();
        long moved = inputs.drainInto(wiring.sources, to);
        if (first) {
            // Every operator consumes the snapshot once; an export also reports arranging and consolidating it.
            hydrationTotal = Math.max(1, moved) * (wiring.order.size() + 2L * wiring.exports.size());
        }
        Operator.Round round = new Operator.Round(from, to, first, processed);
        // What the previous round's steps cost: an arrangement's merges (an idle round grants them work) or a
        // join's fan-out make a round of few updates expensive, and such a round is not a fresh one.
        long previousNanos = wiring.stepNanos.sumThenReset();
        WorkerPool.Lane lane = pool.laneFor(first, moved, inputs.hasImports(), previousNanos);
        return Flux.range(0, wiring.order.size())
                .concatMap(o -> Flux.range(0, workers).flatMap(w -> pool.run(w, () -> wiring.step(o, w, round), lane)).then())
                .thenMany(Flux.range(0, workers).flatMap(w -> pool.run(w, () -> wiring.finish(w, round), lane)))
                .then(Mono.fromRunnable(() -> completeRound(round)));
    }

    private void completeRound(Operator.Round round) {
        lower = round.upper();
        Frontier upper = Frontier.at(round.upper());
        inputs.downgradeHolds(Frontier.at(round.upper() - 1));
        if (dataflow.isDropped() || budget.isStopped()) {
            return;
        }
        publication.seal(upper);
        if (round.first()) {
            hydratedAfterMillis = Math.max(0, clock.getAsLong() - startedAt);
            listener.hydrated(dataflow, hydratedAfterMillis);
        }
    }
}
