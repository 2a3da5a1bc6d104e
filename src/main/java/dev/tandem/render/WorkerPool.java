package dev.tandem.render;

import reactor.core.publisher.Mono;

/** A fixed set of workers; tasks given to one worker run one at a time, in order, on its thread. */
public interface WorkerPool {

    int size();

    /** Runs {@code task} on worker {@code worker}; an exception from it is fatal to the process. */
    Mono<Void> run(int worker, Runnable task);

    /**
     * Runs {@code task} on worker {@code worker}, on its bulk lane when {@code bulk} (a hydration round,
     * which may run for seconds) if the pool has one, so that the short rounds of hydrated dataflows do
     * not queue behind it; tasks of one lane run one at a time, in order.
     */
    default Mono<Void> run(int worker, Runnable task, boolean bulk) {
        return run(worker, task);
    }
}
