package dev.tandem.render;

import dev.tandem.row.Row;

/**
 * One node of a rendered dataflow: a description plus {@code W} shards of state, one per worker.
 * Shard {@code w} only ever runs on worker {@code w}, so shard state needs no synchronization.
 */
abstract class Operator {

    /** Routes an input update to the shard that must process it. */
    interface Partitioner {
        int shard(Row row, int shards);
    }

    final String name;
    final Operator[] inputs;

    Operator(String name, Operator... inputs) {
        this.name = name;
        this.inputs = inputs;
    }

    /**
     * How updates arriving on input {@code port} are routed: null keeps each update on the sender's
     * shard (no exchange); otherwise the partitioner picks the shard, which is an exchange.
     */
    Partitioner partitioner(int port) {
        return null;
    }

    /** Creates the state of shard {@code w}. */
    abstract Shard shard(int w);

    /** The state and step function of one shard. */
    interface Shard {
        /**
         * Consumes every input update of the round {@code [lower, upper)} (run to completion), writing
         * output updates to {@code out} and evaluation errors to {@code errs}.
         */
        void step(Updates[] in, Round round, Updates out, Updates errs);

        /** Heap bytes of the state this shard keeps between rounds (its arrangements). */
        default long residentBytes() {
            return 0;
        }
    }

    /**
     * The frontiers of one round (updates have times in {@code [lower, upper)}) and the counter of
     * records processed, which other threads sample while a long step runs.
     */
    record Round(long lower, long upper, boolean first, java.util.concurrent.atomic.LongAdder processed) {
    }
}
