package dev.tandem.trace;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.row.Row;
import dev.tandem.time.Frontier;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.LongFunction;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * A batch's key filter never rejects a key the batch holds, whether the batch was built by a
 * {@link BatchBuilder} or by a fuelled {@link BatchMerger} (with keys shared, cancelled or spread over
 * many values and times), is empty or is too small to be filtered; and it rejects most absent keys.
 */
class KeyFilterTest {

    /** Merge work per step, small so that merges stop and resume between keys and values. */
    private static final int FUEL_STEP = 7;
    /** The largest false-positive rate accepted: a working filter sits near one percent. */
    private static final double MAX_FALSE_POSITIVES = 0.03;

    @Provide
    Arbitrary<List<Long>> keys() {
        // sizes straddle KeyFilter.MIN_KEYS, so filtered and unfiltered batches both occur
        return Arbitraries.longs().between(-1_000_000, 1_000_000).list().ofMaxSize(4 * KeyFilter.MIN_KEYS * 10);
    }

    @Property(tries = 200)
    void aBuiltBatchAdmitsEveryKeyItHolds(@ForAll("keys") List<Long> keys, @ForAll @IntRange(min = 1, max = 5) int valsPerKey,
            @ForAll boolean stringKeys) {
        LongFunction<Row> keyOf = keyRows(stringKeys);
        BatchBuilder builder = new BatchBuilder();
        for (long k : keys) {
            for (int v = 0; v < valsPerKey; v++) {
                builder.add(keyOf.apply(k), Row.of((long) v), v % 2, 1);
            }
        }
        Batch batch = builder.build(Frontier.at(0), Frontier.at(2), Frontier.at(0));
        assertAdmitsEveryKeyItHolds(batch, keys, keyOf);
        assertThat(batch.keyCount()).isEqualTo(new LinkedHashSet<>(keys).size());
    }

    @Property(tries = 200)
    void aMergedBatchAdmitsEveryKeyItHolds(@ForAll("keys") List<Long> older, @ForAll("keys") List<Long> newer,
            @ForAll @IntRange(min = 1, max = 3) int valsPerKey, @ForAll @IntRange(min = 0, max = 4) int retractEvery,
            @ForAll boolean stringKeys) {
        LongFunction<Row> keyOf = keyRows(stringKeys);
        BatchBuilder builder = new BatchBuilder();
        for (long k : older) {
            for (int v = 0; v < valsPerKey; v++) {
                builder.add(keyOf.apply(k), Row.of((long) v), 0, 1);
            }
        }
        Batch a = builder.build(Frontier.at(0), Frontier.at(1), Frontier.at(0));
        for (long k : newer) {
            builder.add(keyOf.apply(k), Row.of(0L), 1, 1);
        }
        // retract some of the older updates, so that keys cancel in the merge
        for (int i = 0; retractEvery > 0 && i < older.size(); i += retractEvery) {
            for (int v = 0; v < valsPerKey; v++) {
                builder.add(keyOf.apply(older.get(i)), Row.of((long) v), 1, -1);
            }
        }
        Batch b = builder.build(Frontier.at(1), Frontier.at(2), Frontier.at(1));
        BatchMerger merger = new BatchMerger(a, b, Frontier.at(2));
        while (!merger.done()) {
            merger.work(FUEL_STEP);
        }
        Batch merged = merger.finish();
        Set<Long> all = new LinkedHashSet<>(older);
        all.addAll(newer);
        assertAdmitsEveryKeyItHolds(merged, List.copyOf(all), keyOf);
    }

    @Example
    void emptyAndSmallBatchesAdmitEveryKey() {
        Batch empty = Batch.empty(Frontier.at(0), Frontier.at(1), Frontier.at(0));
        BatchBuilder builder = new BatchBuilder();
        for (long k = 0; k < 10 * KeyFilter.MIN_KEYS; k++) {
            builder.add(Row.of(k), Row.of(k), 0, 1).add(Row.of(k), Row.of(k), 0, -1);
        }
        Batch cancelled = builder.build(Frontier.at(0), Frontier.at(1), Frontier.at(0));
        for (long k = 0; k < KeyFilter.MIN_KEYS - 1; k++) {
            builder.add(Row.of(k), Row.of(k), 0, 1);
        }
        Batch small = builder.build(Frontier.at(0), Frontier.at(1), Frontier.at(0));
        assertThat(cancelled.isEmpty()).isTrue();
        for (long k = -100; k < 100; k++) {
            long hash = Row.of(k).hash64();
            assertThat(empty.mayHoldKey(hash)).isTrue();
            assertThat(cancelled.mayHoldKey(hash)).isTrue();
            assertThat(small.mayHoldKey(hash)).isTrue();
        }
    }

    @Example
    void aFilterRejectsMostAbsentKeysInTenBitsPerKey() {
        for (int n : new int[] {KeyFilter.MIN_KEYS, 777, 20_000}) {
            KeyFilter.Builder builder = new KeyFilter.Builder(n);
            for (long k = 0; k < n; k++) {
                byte[] key = bytesOf(Row.of(2 * k));
                builder.add(key, 0, key.length);
            }
            KeyFilter filter = builder.build();
            int falsePositives = 0;
            for (long k = 0; k < n; k++) {
                assertThat(filter.mayContain(Row.of(2 * k).hash64())).isTrue();
                if (filter.mayContain(Row.of(2 * k + 1).hash64())) {
                    falsePositives++;
                }
            }
            assertThat((double) falsePositives / n).as("false-positive rate for %d keys", n).isLessThan(MAX_FALSE_POSITIVES);
            long blocks = Math.ceilDiv((long) n * KeyFilter.BITS_PER_KEY, KeyFilter.BLOCK_WORDS * Long.SIZE);
            assertThat(filter.byteSize()).isEqualTo(blocks * KeyFilter.BLOCK_WORDS * Long.BYTES);
        }
    }

    /** Keys as int64 rows, or as strings of varied lengths sharing long prefixes. */
    private static LongFunction<Row> keyRows(boolean strings) {
        return strings ? k -> Row.of("key/" + (k % 3 == 0 ? "" : "shared-prefix/") + k) : Row::of;
    }

    /** Every key the batch holds, probed as a fresh row as a request brings it, passes its filter. */
    private static void assertAdmitsEveryKeyItHolds(Batch batch, List<Long> candidates, LongFunction<Row> keyOf) {
        int held = 0;
        for (long k : new LinkedHashSet<>(candidates)) {
            Row key = keyOf.apply(k);
            if (batch.findKey(key) >= 0) {
                held++;
                assertThat(batch.mayHoldKey(key.hash64())).as("filter admits held key %s", key).isTrue();
            }
        }
        assertThat(held).isEqualTo(batch.keyCount());
        for (Cursor c = batch.cursor(); c.keyValid(); c.stepKey()) {
            assertThat(batch.mayHoldKey(c.key().hash64())).as("filter admits stored key %s", c.key()).isTrue();
        }
    }

    private static byte[] bytesOf(Row row) {
        byte[] bytes = new byte[row.byteSize()];
        row.copyTo(bytes, 0);
        return bytes;
    }
}
