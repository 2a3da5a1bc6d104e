package dev.tandem.render;

import reactor.core.publisher.Mono;

/** A fixed set of workers; tasks given to one worker run one at a time, in order, on its thread. */
public interface WorkerPool {

    int size();

    /** Runs {@code task} on worker {@code worker}; an exception from it is fatal to the process. */
    Mono<Void> run(int worker, Runnable task);
}
