package dev.tandem.render;

import reactor.core.publisher.Mono;

/** A fixed set of workers; tasks given to one worker run one at a time, in order, on its thread. */
public interface WorkerPool {

    /**
     * The queues of one worker, each a thread of its own where the pool has lanes: a dataflow's rounds run
     * one at a time, so whichever lane runs a round has the dataflow's shard to itself.
     */
    enum Lane {
        /** Rounds of hydrated dataflows that take many updates (or read other indexes). */
        STEADY,
        /** Small, cheap rounds of hydrated dataflows (a few writes' worth): what keeps indexes fresh. */
        FRESH,
        /** A dataflow's first round, over its whole snapshot, which may run for seconds. */
        BULK
    }

    int size();

    /** Runs {@code task} on worker {@code worker}'s steady lane; an exception from it is fatal to the process. */
    Mono<Void> run(int worker, Runnable task);

    /**
     * Runs {@code task} on worker {@code worker}'s {@code lane} if the pool has one, else on its one queue;
     * tasks of one lane run one at a time, in order.
     */
    default Mono<Void> run(int worker, Runnable task, Lane lane) {
        return run(worker, task);
    }

    /**
     * The lane of a round: {@code first} (a hydration), taking {@code updates} table updates, whether the
     * dataflow also reads other indexes (whose updates a round cannot count before it runs), and what the
     * dataflow's previous round cost, in nanoseconds of its steps.
     */
    default Lane laneFor(boolean first, long updates, boolean readsIndexes, long previousRoundNanos) {
        return first ? Lane.BULK : Lane.STEADY;
    }
}
