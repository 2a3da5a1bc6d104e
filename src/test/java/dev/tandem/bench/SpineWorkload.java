package dev.tandem.bench;

import dev.tandem.time.Frontier;
import dev.tandem.trace.BatchBuilder;
import dev.tandem.trace.ReadHold;
import dev.tandem.trace.Spine;

/**
 * Builds a spine from an {@link UpdateStream} the way a dataflow feeds one: batches of
 * {@link #BATCH} updates at increasing times (batch {@code b} at time {@code b + 1}), added to a
 * {@link BatchBuilder} in arrival order, with a reader's hold lagging {@link #HOLD_LAG} times behind
 * the write frontier so that logical compaction runs as it would under live readers.
 */
final class SpineWorkload {

    static final int BATCH = 10_000;
    static final int HOLD_LAG = 16;

    private SpineWorkload() {
    }

    /** Inserts the whole stream into a new spine; returns the spine with the lagging hold released. */
    static Spine build(UpdateStream stream) {
        Spine spine = new Spine("bench", Frontier.at(1));
        ReadHold hold = spine.acquireHold("reader", Frontier.at(1));
        BatchBuilder builder = new BatchBuilder();
        int n = stream.size();
        long time = 1;
        for (int start = 0; start < n; start += BATCH, time++) {
            int end = Math.min(n, start + BATCH);
            for (int i = start; i < end; i++) {
                builder.add(stream.key(i), stream.val(i), time, 1);
            }
            spine.insert(builder.build(Frontier.at(time), Frontier.at(time + 1), spine.since()));
            hold.downgrade(Frontier.at(Math.max(1, time + 1 - HOLD_LAG)));
        }
        hold.release();
        return spine;
    }
}
