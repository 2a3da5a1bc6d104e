package dev.tandem.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tandem.row.Row;
import dev.tandem.time.Frontier;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The lifetime of batch memory: a reader holding an old snapshot keeps reading exactly what was there
 * at its time while the spine merges its batches away, compacts and is dropped; once every reader lets
 * go, the retired batches are collectable, and after churn stops the spine's memory returns to what
 * its live rows need.
 */
class BatchLifetimeTest {

    static final int KEYS = 200;

    @Test
    void oldSnapshotsStayExactAcrossMergesAndDropsThenMemoryReturnsToBaseline() {
        Random random = new Random(42);
        Spine spine = new Spine("churn", Frontier.at(0));
        // The model: key -> value -> multiplicity, after each time.
        Map<Long, Map<Long, Long>> model = new TreeMap<>();
        List<Reader> readers = new ArrayList<>();
        long t = 0;
        for (int round = 0; round < 400; round++) {
            BatchBuilder b = new BatchBuilder();
            for (int i = 0; i < 50; i++) {
                long key = random.nextInt(KEYS);
                long val = random.nextInt(3);
                long have = model.getOrDefault(key, Map.of()).getOrDefault(val, 0L);
                long diff = have > 0 && random.nextBoolean() ? -1 : 1;
                b.add(Row.of(key), Row.of(key, val), t, diff);
                model.computeIfAbsent(key, k -> new TreeMap<>()).merge(val, diff, Long::sum);
            }
            spine.insert(b.build(Frontier.at(t), Frontier.at(t + 1), spine.since()));
            if (round % 40 == 0) {
                readers.add(new Reader(t, spine.snapshot(), spine.acquireHold("reader " + round, Frontier.at(t)), copy(model)));
            }
            if (round % 40 == 20 && readers.size() > 2) {
                // a reader lets go of its hold but keeps reading its snapshot
                readers.get(readers.size() - 2).hold.release();
            }
            t++;
        }
        for (Reader r : readers) {
            assertThat(read(r.snapshot, r.time)).as("snapshot at %d after merges", r.time).isEqualTo(live(r.model));
        }

        // Every hold goes; the spine compacts to its live rows and retires the old batches.
        List<WeakReference<Batch>> retired = new ArrayList<>();
        for (Reader r : readers) {
            r.hold.release();
            r.snapshot.batches().forEach(batch -> retired.add(new WeakReference<>(batch)));
        }
        spine.insert(Batch.empty(spine.upper(), Frontier.at(t + 1), spine.since()));
        spine.compactFully();
        TraceSnapshot now = spine.snapshot();
        assertThat(read(now, now.since().time())).isEqualTo(live(model));
        for (Reader r : readers) {
            // still exact for the reader that kept its snapshot beyond its hold
            assertThat(read(r.snapshot, r.time)).isEqualTo(live(r.model));
        }

        // Baseline: the same live rows built from scratch take the same memory.
        Spine fresh = new Spine("fresh", Frontier.at(0));
        BatchBuilder b = new BatchBuilder();
        for (Map.Entry<Long, Map<Long, Long>> k : model.entrySet()) {
            for (Map.Entry<Long, Long> v : k.getValue().entrySet()) {
                if (v.getValue() != 0) {
                    b.add(Row.of(k.getKey()), Row.of(k.getKey(), v.getKey()), t, v.getValue());
                }
            }
        }
        fresh.insert(b.build(Frontier.at(0), Frontier.at(t + 1), Frontier.at(t)));
        fresh.compactFully();
        assertThat(now.records()).isEqualTo(fresh.snapshot().records());
        // The same bytes but for the key filters: a merge's is sized for the keys its inputs had (at most
        // twice those that survived), a fresh batch's for those written.
        assertThat(now.byteSize() - filterBytes(now)).isEqualTo(fresh.snapshot().byteSize() - filterBytes(fresh.snapshot()));
        assertThat(filterBytes(now)).isBetween(filterBytes(fresh.snapshot()), 2 * filterBytes(fresh.snapshot()) + 8L * KeyFilter.BLOCK_WORDS);

        // Once nobody holds the old snapshots, their batches are unreachable.
        readers.clear();
        now = null;
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50)).until(() -> {
            System.gc();
            return retired.stream().filter(w -> w.get() != null)
                    .allMatch(w -> spine.snapshot().batches().contains(w.get()));
        });
    }

    private record Reader(long time, TraceSnapshot snapshot, ReadHold hold, Map<Long, Map<Long, Long>> model) {
    }

    private static Map<Long, Map<Long, Long>> copy(Map<Long, Map<Long, Long>> model) {
        Map<Long, Map<Long, Long>> c = new TreeMap<>();
        model.forEach((k, vs) -> c.put(k, new TreeMap<>(vs)));
        return c;
    }

    /** The model without zero multiplicities, as "key/val" -> multiplicity. */
    private static Map<String, Long> live(Map<Long, Map<Long, Long>> model) {
        Map<String, Long> out = new TreeMap<>();
        model.forEach((k, vs) -> vs.forEach((v, d) -> {
            if (d != 0) {
                out.put(k + "/" + v, d);
            }
        }));
        return out;
    }

    private static Map<String, Long> read(TraceSnapshot snap, long time) {
        Map<String, Long> out = new TreeMap<>();
        snap.scan(time, (key, val, diff) -> out.merge(key.get(0) + "/" + val.get(1), diff, Long::sum));
        return out;
    }

    private static long filterBytes(TraceSnapshot snap) {
        return snap.batches().stream().mapToLong(Batch::keyFilterBytes).sum();
    }
}
