package dev.tandem.trace;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.row.Row;
import dev.tandem.time.Frontier;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * Point lookups on snapshots of many batches (up to more than twice the 64 whose filters one round probes,
 * batches large enough for a key filter among small ones without, a key held by several batches) report
 * what a naive model of the same updates does: for each value, its diffs at times {@code <= t} summed over
 * every batch, zero sums left out, in value order.
 */
class TraceSnapshotLookupProperties {

    private static final int KEYS = 200;
    /** Keys from {@code KEYS} on are never written: lookups of them find nothing. */
    private static final int ABSENT = 20;
    private static final int VALUES = 4;
    /** Each batch spans two times, so that reads also cut through a batch. */
    private static final int SPAN = 2;

    record Update(long key, long val, long time, long diff) {
    }

    @Property(tries = 25)
    void lookupsMatchANaiveModel(@ForAll @IntRange(min = 1, max = 150) int batchCount, @ForAll long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        List<Batch> batches = new ArrayList<>();
        List<Update> updates = new ArrayList<>();
        BatchBuilder builder = new BatchBuilder();
        for (int b = 0; b < batchCount; b++) {
            // about one batch in eight holds enough keys for a key filter, the others are too small for one
            int size = random.nextInt(8) == 0 ? KeyFilter.MIN_KEYS + random.nextInt(400) : random.nextInt(20);
            for (int i = 0; i < size; i++) {
                Update u = new Update(random.nextLong(KEYS), random.nextLong(VALUES), (long) b * SPAN + random.nextInt(SPAN),
                        random.nextBoolean() ? 1 : -1 - random.nextInt(2));
                builder.add(Row.of(u.key), Row.of(u.val), u.time, u.diff);
                updates.add(u);
            }
            batches.add(builder.build(Frontier.at((long) b * SPAN), Frontier.at((long) (b + 1) * SPAN), Frontier.at(0)));
        }
        TraceSnapshot snapshot = new TraceSnapshot(batches, Frontier.at((long) batchCount * SPAN), Frontier.at(0));

        updates.sort(Comparator.comparingLong(Update::time));
        Map<Long, TreeMap<Long, Long>> model = new HashMap<>();
        int applied = 0;
        for (long t = 0; t < (long) batchCount * SPAN; t++) {
            for (; applied < updates.size() && updates.get(applied).time <= t; applied++) {
                Update u = updates.get(applied);
                model.computeIfAbsent(u.key, k -> new TreeMap<>()).merge(u.val, u.diff, Long::sum);
            }
            for (long key = 0; key < KEYS + ABSENT; key++) {
                List<List<Long>> expected = new ArrayList<>();
                model.getOrDefault(key, new TreeMap<>()).forEach((val, sum) -> {
                    if (sum != 0) {
                        expected.add(List.of(val, sum));
                    }
                });
                List<List<Long>> found = new ArrayList<>();
                snapshot.lookup(Row.of(key), t, (val, diff) -> found.add(List.of((Long) val.get(0), diff)));
                assertThat(found).as("key %d at %d", key, t).isEqualTo(expected);
            }
        }
    }
}
