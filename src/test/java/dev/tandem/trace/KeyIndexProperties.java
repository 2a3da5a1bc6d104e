package dev.tandem.trace;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.row.Row;
import dev.tandem.time.Frontier;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeSet;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * A batch's seeks (through its {@link KeyIndex}) land where a linear walk of its sorted keys does, for
 * keys that differ early, keys that share their leading bytes, keys whose first eight bytes after those
 * are equal over long runs, and probes of any bytes, including ones that do not start with the bytes the
 * batch's keys share; whether the keys are stored apart or as the leading columns of the batch's values.
 */
class KeyIndexProperties {

    enum Shape {
        /** Random int64s of both signs: keys share no leading byte. */
        SPREAD_INT64,
        /** A dense range of small int64s: keys share their tag. */
        DENSE_INT64,
        /** Strings after a long common prefix, some with a further eight-byte run in common. */
        PREFIXED_STRINGS,
        /** Two columns, the first taking few values. */
        PAIRS
    }

    @Property(tries = 200)
    void seeksLandWhereALinearWalkDoes(@ForAll Shape shape, @ForAll @IntRange(max = 3_000) int keys, @ForAll long seed,
            @ForAll boolean keysLeadValues) {
        SplittableRandom random = new SplittableRandom(seed);
        TreeSet<Row> sorted = new TreeSet<>();
        while (sorted.size() < keys) {
            sorted.add(keyOf(shape, random));
        }
        BatchBuilder builder = new BatchBuilder();
        for (Row key : sorted) {
            // no key begins the row ("v"), as every key begins the row (key, "v")
            builder.add(key, keysLeadValues ? key.concat(Row.of("v")) : Row.of("v"), 0, 1);
        }
        Batch batch = builder.build(Frontier.at(0), Frontier.at(1), Frontier.at(0));
        assertThat(batch.keys.arePrefixes()).isEqualTo(keysLeadValues || keys == 0);
        List<Row> ordered = new ArrayList<>(sorted);

        List<Row> probes = new ArrayList<>(ordered);
        for (int i = 0; i < 300; i++) {
            probes.add(keyOf(shape, random));
        }
        for (int i = 0; i < 100 && !ordered.isEmpty(); i++) {
            probes.addAll(nearBytes(ordered.get(random.nextInt(ordered.size())), random));
        }
        probes.addAll(List.of(Row.EMPTY, Row.of(Long.MIN_VALUE), Row.of(Long.MAX_VALUE), Row.of(""), Row.of("\uffff")));

        for (Row probe : probes) {
            int expected = 0;
            while (expected < ordered.size() && ordered.get(expected).compareTo(probe) < 0) {
                expected++;
            }
            boolean held = expected < ordered.size() && ordered.get(expected).equals(probe);
            assertThat(batch.seekKey(probe)).as("seek %s", probe).isEqualTo(expected);
            assertThat(batch.findKey(probe)).as("find %s", probe).isEqualTo(held ? expected : -1);
        }
    }

    private static Row keyOf(Shape shape, SplittableRandom random) {
        return switch (shape) {
            case SPREAD_INT64 -> Row.of(random.nextLong());
            case DENSE_INT64 -> Row.of(random.nextLong(1_000, 9_000));
            case PREFIXED_STRINGS -> Row.of("customer/" + (random.nextInt(3) == 0 ? "" : "region-west/") + random.nextInt(5_000));
            case PAIRS -> Row.of((long) random.nextInt(3), "k" + random.nextInt(2_000));
        };
    }

    /** Rows of the bytes of {@code key} cut short, extended by a byte, or with one byte moved up or down. */
    private static List<Row> nearBytes(Row key, SplittableRandom random) {
        int n = key.byteSize();
        List<Row> near = new ArrayList<>();
        byte[] cut = new byte[n];
        key.copyTo(cut, 0);
        near.add(Row.wrap(cut, 0, random.nextInt(n + 1)));
        byte[] longer = new byte[n + 1];
        key.copyTo(longer, 0);
        longer[n] = (byte) random.nextInt(256);
        near.add(Row.wrap(longer, 0, n + 1));
        for (int delta = -1; n > 0 && delta <= 1; delta += 2) {
            byte[] changed = new byte[n];
            key.copyTo(changed, 0);
            changed[random.nextInt(n)] += (byte) delta;
            near.add(Row.wrap(changed, 0, n));
        }
        return near;
    }
}
