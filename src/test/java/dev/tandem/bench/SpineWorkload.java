package dev.tandem.bench;

import dev.tandem.row.Row;
import dev.tandem.time.Frontier;
import dev.tandem.trace.BatchBuilder;
import dev.tandem.trace.ReadHold;
import dev.tandem.trace.Spine;
import java.util.SplittableRandom;

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
        return build(stream, 0);
    }

    /**
     * As {@link #build(UpdateStream)}, but every batch after the first also overwrites {@code upserts}
     * random earlier keys, as a table updated in place feeds its index: each a retraction of the key's
     * value and an insertion of a new one, among {@code BATCH - 2 * upserts} new keys of the stream.
     */
    static Spine build(UpdateStream stream, int upserts) {
        Spine spine = new Spine("bench", Frontier.at(1));
        ReadHold hold = spine.acquireHold("reader", Frontier.at(1));
        BatchBuilder builder = new BatchBuilder();
        SplittableRandom random = new SplittableRandom(7);
        // each key's value once overwritten (null while it is the stream's)
        Row[] overwritten = new Row[upserts == 0 ? 0 : stream.size()];
        long nextValue = stream.size();
        int fresh = BATCH - 2 * upserts;
        int n = stream.size();
        long time = 1;
        for (int start = 0; start < n; start += fresh, time++) {
            int end = Math.min(n, start + fresh);
            for (int i = start; i < end; i++) {
                builder.add(stream.key(i), stream.val(i), time, 1);
            }
            for (int u = 0; start > 0 && u < upserts; u++) {
                int i = random.nextInt(start);
                builder.add(stream.key(i), overwritten[i] == null ? stream.val(i) : overwritten[i], time, -1);
                overwritten[i] = Row.of(nextValue++);
                builder.add(stream.key(i), overwritten[i], time, 1);
            }
            spine.insert(builder.build(Frontier.at(time), Frontier.at(time + 1), spine.since()));
            hold.downgrade(Frontier.at(Math.max(1, time + 1 - HOLD_LAG)));
        }
        hold.release();
        return spine;
    }
}
