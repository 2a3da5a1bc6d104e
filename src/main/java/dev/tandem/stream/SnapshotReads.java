package dev.tandem.stream;

import dev.tandem.row.Row;
import dev.tandem.sharing.SharedArrangement;
import dev.tandem.time.Frontier;
import dev.tandem.trace.Batch;
import dev.tandem.trace.Cursor;
import dev.tandem.trace.TraceSnapshot;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One snapshot of an index, taken once for a publication and read by every change stream of that
 * index. Streams that have produced up to the same time ask for the same updates, so the updates of a
 * watched key (or of the whole index) at the times in {@code (after, before)} are read from the batches
 * once and then shared: a thousand streams watching a hundred hot keys cost a hundred seeks a
 * publication, not three thousand.
 *
 * <p>Confined to the thread that processes the publication; the rows it hands out are immutable.
 */
final class SnapshotReads {

    /** One update of a key. */
    record Update(Row key, Row val, long time, long diff) {
    }

    private record Range(long after, long before) {
    }

    private final SharedArrangement arrangement;
    private SharedArrangement.Snapshot snapshot;
    private final Map<Range, Map<Row, List<Update>>> byKey = new HashMap<>();
    private final Map<Range, List<Update>> all = new HashMap<>();
    private final Map<Long, List<TraceSnapshot>> recent = new HashMap<>();

    SnapshotReads(SharedArrangement arrangement) {
        this.arrangement = arrangement;
    }

    SharedArrangement arrangement() {
        return arrangement;
    }

    /** The snapshot, taken on first use (after the caller's hold exists, so it is exact from there). */
    SharedArrangement.Snapshot snapshot() {
        if (snapshot == null) {
            snapshot = arrangement.snapshot();
        }
        return snapshot;
    }

    /** The updates of {@code key} at the times in {@code (after, before)}. */
    List<Update> updates(Row key, long after, long before) {
        return byKey.computeIfAbsent(new Range(after, before), r -> new HashMap<>())
                .computeIfAbsent(key, k -> {
                    List<Update> out = new ArrayList<>(2);
                    Cursor c = recentShards(after).get(SharedArrangement.shardOf(k, snapshot().oks().size())).cursor();
                    c.seekKey(k);
                    if (c.keyValid() && c.key().equals(k)) {
                        collect(c, k, after, before, out);
                    }
                    return out;
                });
    }

    /** Every update of the index at the times in {@code (after, before)}. */
    List<Update> updates(long after, long before) {
        return all.computeIfAbsent(new Range(after, before), r -> {
            List<Update> out = new ArrayList<>();
            for (TraceSnapshot shard : recentShards(after)) {
                Cursor c = shard.cursor();
                while (c.keyValid()) {
                    collect(c, c.key(), after, before, out);
                    c.stepKey();
                }
            }
            return out;
        });
    }

    private static void collect(Cursor c, Row key, long after, long before, List<Update> out) {
        c.forEachUpdate((val, time, diff) -> {
            if (time > after && time < before) {
                out.add(new Update(key, val, time, diff));
            }
        });
    }

    /** Per shard, the batches that may hold an update after {@code after} (a batch holds times below its upper). */
    private List<TraceSnapshot> recentShards(long after) {
        return recent.computeIfAbsent(after, a -> {
            Frontier from = Frontier.at(a + 1);
            List<TraceSnapshot> shards = new ArrayList<>();
            for (TraceSnapshot shard : snapshot().oks()) {
                List<Batch> batches = new ArrayList<>();
                for (Batch b : shard.batches()) {
                    if (b.upper().compareTo(from) > 0) {
                        batches.add(b);
                    }
                }
                shards.add(new TraceSnapshot(batches, shard.upper(), shard.since()));
            }
            return shards;
        });
    }
}
