package dev.tandem.trace;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.row.Row;
import dev.tandem.time.Frontier;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongFunction;
import org.junit.jupiter.api.Test;

/**
 * Point lookups in large batches find exactly the keys they hold, for keys whose leading bytes differ
 * (int64) and for keys that share long prefixes (strings), and a snapshot reads a key held by one batch.
 */
class BatchLookupTest {

    static final int KEYS = 5_000;

    @Test
    void int64KeysAreFoundExactlyWhenPresent() {
        checkLookups(i -> Row.of(i * 7 - 9_000));
    }

    @Test
    void stringKeysWithSharedPrefixesAreFoundExactlyWhenPresent() {
        checkLookups(i -> Row.of("customer/" + (i % 3 == 0 ? "" : "region-" + (i % 5) + "/") + i));
    }

    private static void checkLookups(LongFunction<Row> keyOf) {
        BatchBuilder builder = new BatchBuilder();
        for (long i = 0; i < 2 * KEYS; i += 2) {
            builder.add(keyOf.apply(i), Row.of(i), 1, 1);
        }
        Batch batch = builder.build(Frontier.at(0), Frontier.at(2), Frontier.at(0));
        List<Row> present = new ArrayList<>();
        Cursor c = batch.cursor();
        while (c.keyValid()) {
            present.add(c.key());
            c.stepKey();
        }
        assertThat(present).hasSize(KEYS);
        for (int k = 0; k < present.size(); k++) {
            assertThat(batch.findKey(present.get(k))).as("index of %s", present.get(k)).isEqualTo(k);
        }
        for (long i = 1; i < 2 * KEYS; i += 2) {
            assertThat(batch.findKey(keyOf.apply(i))).as("absent %s", keyOf.apply(i)).isEqualTo(-1);
        }
        assertThat(batch.findKey(Row.EMPTY)).isEqualTo(-1);

        Spine spine = new Spine("lookup", Frontier.at(0));
        spine.insert(batch);
        long[] seen = new long[1];
        spine.snapshot().lookup(keyOf.apply(42), 1, (val, diff) -> seen[0] += (Long) val.get(0) * diff);
        assertThat(seen[0]).isEqualTo(42);
    }
}
