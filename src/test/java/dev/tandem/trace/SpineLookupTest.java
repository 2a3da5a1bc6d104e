package dev.tandem.trace;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.row.Row;
import dev.tandem.time.Frontier;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * Point lookups on a live spine (many batches, each with its key filter, merges in progress) read
 * exactly what a full scan of the same snapshot reads, and what lookups read once the spine is compacted
 * to one batch, for held and absent keys at every readable time.
 */
class SpineLookupTest {

    /** Keys are drawn from {@code [0, KEY_RANGE)}; lookups also probe absent keys beyond it. */
    private static final int KEY_RANGE = 3_000;
    private static final int ABSENT_PROBES = 200;
    private static final int INSERTS = 60;
    private static final int UPDATES_PER_INSERT = 150;
    private static final int VALUES = 3;
    /** How far the reader's hold trails the write frontier, so that several times stay readable. */
    private static final int HOLD_LAG = 4;
    private static final int WORK_FUEL = 50;

    @Property(tries = 20)
    void liveLookupsEqualScansAndLookupsAfterCompactFully(@ForAll long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        Spine spine = new Spine("lookup", Frontier.at(0));
        ReadHold hold = spine.acquireHold("reader", Frontier.at(0));
        BatchBuilder builder = new BatchBuilder();
        List<long[]> inserted = new ArrayList<>();
        for (long time = 0; time < INSERTS; time++) {
            for (int i = 0; i < UPDATES_PER_INSERT; i++) {
                if (!inserted.isEmpty() && random.nextInt(4) == 0) {
                    // retract an earlier update, so that keys cancel as batches merge
                    long[] kv = inserted.remove(random.nextInt(inserted.size()));
                    builder.add(Row.of(kv[0]), Row.of(kv[1]), time, -1);
                } else {
                    long[] kv = {random.nextInt(KEY_RANGE), random.nextInt(VALUES)};
                    inserted.add(kv);
                    builder.add(Row.of(kv[0]), Row.of(kv[1]), time, 1);
                }
            }
            spine.insert(builder.build(Frontier.at(time), Frontier.at(time + 1), spine.since()));
            spine.work(WORK_FUEL);
            hold.downgrade(Frontier.at(Math.max(0, time + 1 - HOLD_LAG)));
        }
        TraceSnapshot live = spine.snapshot();
        assertThat(live.batches()).as("a live spine of several batches").hasSizeGreaterThan(1);
        assertThat(live.batches()).as("some of them filtered").anyMatch(b -> b.keyCount() >= KeyFilter.MIN_KEYS);
        spine.compactFully();
        TraceSnapshot compacted = spine.snapshot();
        assertThat(compacted.batches()).hasSize(1);

        // compactFully may catch up with the hold's last downgrade: read where both are exact
        for (long t = compacted.since().time(); t < live.upper().time(); t++) {
            Map<Long, Map<Long, Long>> scanned = new HashMap<>();
            long at = t;
            live.scan(t, (k, v, d) -> scanned.computeIfAbsent((Long) k.get(0), x -> new HashMap<>()).put((Long) v.get(0), d));
            for (long key = 0; key < KEY_RANGE + ABSENT_PROBES; key++) {
                Map<Long, Long> expected = scanned.getOrDefault(key, Map.of());
                assertThat(lookup(live, key, t)).as("live lookup of %d at %d", key, at).isEqualTo(expected);
                assertThat(lookup(compacted, key, t)).as("compacted lookup of %d at %d", key, at).isEqualTo(expected);
            }
        }
    }

    /** The values of {@code key} at {@code t} with their multiplicities, looked up as a request would. */
    private static Map<Long, Long> lookup(TraceSnapshot snapshot, long key, long t) {
        Map<Long, Long> found = new HashMap<>();
        snapshot.lookup(Row.of(key), t, (v, d) -> assertThat(found.put((Long) v.get(0), d)).as("each value once").isNull());
        return found;
    }
}
