package dev.tandem.trace;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.row.Row;
import dev.tandem.time.Frontier;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.IntPredicate;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/**
 * Packed rows in every layout (one stride, one-byte lengths with block starts, {@code int} offsets from the
 * first row or switched to midway when a row longer than a byte can count arrives, and keys that are
 * prefixes of values in any of these) locate, read back and compare exactly as a naive list of their rows,
 * at row counts on either side of the lengths layout's block boundaries, and their batches' key filters hold
 * every key; and batches split from them and merged read back the same rows.
 *
 * <p>Row {@code i} of a case is {@code (key, i, pad)}, or {@code (i, pad)} with a key of its own, where the
 * int64s have four-byte payloads and {@code pad} is a string of the case's length for that row: the row is
 * {@value #FIXED_BYTES} bytes plus the pad's length.
 */
class BatchRowsProperties {

    /** Bytes of a row {@code (key, i, pad)} besides its pad: two five-byte int64s, the string's tag and terminator. */
    static final int FIXED_BYTES = 13;
    /** The longest pad of a row the lengths layout holds. */
    static final int SHORT_PAD = Batch.Rows.MAX_SHORT_LENGTH - FIXED_BYTES;
    /** The shortest pad of a long row, too long for the lengths layout with or without the key datum. */
    static final int LONG_PAD = SHORT_PAD + 6;
    private static final long BASE = 1_000_000_000L;
    private static final List<Integer> BOUNDARIES = List.of(0, 1, 2, 15, 16, 17, 31, 32, 33, 47, 48, 49, 63, 64, 65,
            255, 256, 257);

    /** Which row lengths a case has. */
    enum Shape {
        /** Every row of one length, short or long. */
        SAME,
        /** Short rows of several lengths. */
        SHORT,
        /** Short rows, then from row {@code switchAt} on long rows among short ones. */
        LONG_MIDWAY
    }

    /**
     * {@code count} rows of the given shape, in keys of {@code perKey} rows each; with {@code keysLead}, each
     * key is its rows' first datum, else a row of its own; {@code sized} writers are told the counts.
     */
    record Case(Shape shape, int count, int switchAt, int perKey, boolean keysLead, boolean sized, long seed) {

        /** The pad length of each row. */
        List<Integer> pads() {
            SplittableRandom random = new SplittableRandom(seed);
            int same = random.nextInt(2) == 0 ? random.nextInt(SHORT_PAD + 1) : LONG_PAD + random.nextInt(60);
            List<Integer> pads = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                pads.add(switch (shape) {
                    case SAME -> same;
                    case SHORT -> random.nextInt(SHORT_PAD + 1);
                    case LONG_MIDWAY -> i < switchAt || (i > switchAt && random.nextInt(3) > 0)
                            ? random.nextInt(SHORT_PAD + 1) : LONG_PAD + random.nextInt(60);
                });
            }
            return pads;
        }
    }

    @Provide
    Arbitrary<Case> cases() {
        Arbitrary<Integer> count = Arbitraries.oneOf(Arbitraries.of(BOUNDARIES),
                Arbitraries.integers().between(0, 300));
        Arbitrary<Integer> switchAt = Arbitraries.oneOf(Arbitraries.of(BOUNDARIES),
                Arbitraries.integers().between(0, 300));
        return Combinators.combine(Arbitraries.of(Shape.class), count, switchAt, Arbitraries.integers().between(1, 3),
                Arbitraries.of(true, false), Arbitraries.of(true, false), Arbitraries.longs())
                .as(Case::new);
    }

    @Property(tries = 400)
    void rowsOfEveryLayoutMatchTheModel(@ForAll("cases") Case c) {
        Batch batch = check(c);
        Statistics.label("values").collect(batch.vals.layout());
        Statistics.label("keys").collect(batch.keys.layout());
        Statistics.label("values").coverage(check -> {
            check.check("stride").count(n -> n > 0);
            check.check("lengths").count(n -> n > 0);
            check.check("offsets").count(n -> n > 0);
        });
        Statistics.label("keys").coverage(check -> {
            check.check("prefixes").count(n -> n > 0);
            check.check("lengths").count(n -> n > 0);
            check.check("offsets").count(n -> n > 0);
        });
    }

    /** Every count to past the fourth block and around 256, each shape switching at each block boundary. */
    @Example
    void everyCountAroundTheBlocks() {
        List<Integer> counts = new ArrayList<>();
        for (int n = 0; n <= 4 * Batch.Rows.BLOCK + 2; n++) {
            counts.add(n);
        }
        counts.addAll(List.of(255, 256, 257));
        int seed = 0;
        for (int n : counts) {
            for (Shape shape : Shape.values()) {
                for (int switchAt : new int[] {0, 1, Batch.Rows.BLOCK - 1, Batch.Rows.BLOCK, Batch.Rows.BLOCK + 1,
                        n / 2}) {
                    for (boolean keysLead : new boolean[] {true, false}) {
                        check(new Case(shape, n, switchAt, 1 + seed % 3, keysLead, seed % 2 == 0, seed++));
                    }
                }
            }
        }
    }

    /** A batch switches to offsets at the first long row, wherever it comes, from lengths or a stride. */
    @Example
    void switchesToOffsetsMidway() {
        for (int switchAt : new int[] {1, 2, 15, 16, 17, 31, 32, 33, 100}) {
            List<Integer> pads = new ArrayList<>();
            for (int i = 0; i < 2 * switchAt + 20; i++) {
                pads.add(i == switchAt ? LONG_PAD : i < switchAt ? i % 5 : SHORT_PAD - i % 7);
            }
            List<Integer> same = new ArrayList<>();
            for (int i = 0; i < pads.size(); i++) {
                same.add(i == switchAt ? LONG_PAD : 7);
            }
            assertThat(check(pads, 1, true, true).vals.layout()).isEqualTo("offsets");
            assertThat(check(same, 1, false, false).vals.layout()).isEqualTo("offsets");
            assertThat(check(same.subList(0, switchAt), 2, true, true).vals.layout()).isEqualTo("stride");
            assertThat(check(pads.subList(0, switchAt), 2, false, true).vals.layout())
                    .isEqualTo(switchAt == 1 ? "stride" : "lengths");
        }
    }

    /**
     * Rows of the longest length the lengths layout holds, whole blocks of them summing to the most it
     * adds, and then one byte longer.
     */
    @Example
    void rowsOfTheLongestShortLength() {
        for (int n : new int[] {2, 16, 17, 33, 40}) {
            List<Integer> pads = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                pads.add(i == n - 1 ? 0 : SHORT_PAD);
            }
            Batch batch = check(pads, 1, true, n % 2 == 0);
            assertThat(batch.vals.layout()).isEqualTo("lengths");
            assertThat(batch.vals.row(n - 2).byteSize()).isEqualTo(Batch.Rows.MAX_SHORT_LENGTH);
            pads.set(n / 2, SHORT_PAD + 1);
            assertThat(check(pads, 1, true, n % 2 == 1).vals.layout()).isEqualTo("offsets");
        }
    }

    private static Batch check(Case c) {
        return check(c.pads(), c.perKey(), c.keysLead(), c.sized());
    }

    /** Writes rows of these pads and checks the batch, its halves and their merge against the model. */
    private static Batch check(List<Integer> pads, int perKey, boolean keysLead, boolean sized) {
        List<Row> keys = new ArrayList<>();
        List<Row> vals = new ArrayList<>();
        List<Integer> firstVal = new ArrayList<>();
        for (int i = 0; i < pads.size(); i++) {
            long key = BASE + i / perKey;
            String pad = "p".repeat(pads.get(i));
            if (i % perKey == 0) {
                firstVal.add(i);
                keys.add(keysLead ? Row.of(key) : Row.of(key, pad + "k"));
            }
            vals.add(keysLead ? Row.of(key, BASE + i, pad) : Row.of(BASE + i, pad));
            assertThat(vals.getLast().byteSize()).isEqualTo(FIXED_BYTES + pads.get(i) - (keysLead ? 0 : 5));
        }
        Batch batch = write(keys, vals, firstVal, i -> true, sized);
        assertRows(batch.vals, vals);
        if (keysLead || keys.isEmpty()) {
            // no keys at all are taken for prefixes too
            assertThat(batch.keys.layout()).isEqualTo("prefixes");
            for (int k = 0; k < keys.size(); k++) {
                assertThat(batch.keys.start(k)).isEqualTo(batch.vals.start(firstVal.get(k)));
            }
            assertReads(batch.keys, keys);
        } else {
            assertRows(batch.keys, keys);
        }
        for (int k = 0; k < keys.size(); k++) {
            assertThat(batch.findKey(keys.get(k))).isEqualTo(k);
            assertThat(batch.mayHoldKey(keys.get(k).hash64())).as("key filter holds key %d", k).isTrue();
        }

        Batch even = write(keys, vals, firstVal, k -> k % 2 == 0, sized);
        Batch odd = write(keys, vals, firstVal, k -> k % 2 == 1, sized);
        BatchMerger merger = new BatchMerger(even, odd, Frontier.at(0));
        merger.work(Long.MAX_VALUE);
        Batch merged = merger.finish();
        assertRows(merged.vals, vals);
        assertReads(merged.keys, keys);
        return batch;
    }

    /** Writes the rows of the keys {@code take} accepts into a batch, one update each. */
    private static Batch write(List<Row> keys, List<Row> vals, List<Integer> firstVal,
            IntPredicate take, boolean sized) {
        BatchWriter w = sized
                ? new BatchWriter(bytes(keys), keys.size(), bytes(vals), vals.size(), vals.size(), true)
                : new BatchWriter();
        for (int k = 0; k < keys.size(); k++) {
            if (take.test(k)) {
                int end = k + 1 < keys.size() ? firstVal.get(k + 1) : vals.size();
                for (int v = firstVal.get(k); v < end; v++) {
                    w.push(keys.get(k), vals.get(v), 0, 1);
                }
            }
        }
        return w.finish(Frontier.at(0), Frontier.at(1), Frontier.at(0));
    }

    private static long bytes(List<Row> rows) {
        return rows.stream().mapToLong(Row::byteSize).sum();
    }

    /**
     * Checks {@code rows}, which have bytes of their own, against the model: packed one after the other in
     * the layout their lengths call for, of the size that layout takes.
     */
    private static void assertRows(Batch.Rows rows, List<Row> model) {
        boolean same = model.stream().mapToInt(Row::byteSize).distinct().count() <= 1;
        boolean short_ = model.stream().allMatch(r -> r.byteSize() <= Batch.Rows.MAX_SHORT_LENGTH);
        String layout = same ? "stride" : short_ ? "lengths" : "offsets";
        assertThat(rows.layout()).isEqualTo(layout);
        int at = 0;
        for (int i = 0; i < model.size(); i++) {
            assertThat(rows.start(i)).as("start of row %d of %d", i, model.size()).isEqualTo(at);
            at += model.get(i).byteSize();
            assertThat(rows.end(i)).as("end of row %d of %d", i, model.size()).isEqualTo(at);
        }
        assertThat(rows.rowBytes()).isEqualTo(at);
        assertReads(rows, model);
        int n = model.size();
        long blocks = Math.ceilDiv(n, Batch.Rows.BLOCK);
        long size = 16 + at + 16 + switch (layout) {
            case "stride" -> 0;
            case "lengths" -> 16 + blocks * Batch.Rows.BLOCK + 16 + 4 * blocks;
            default -> 16 + 4L * (n + 1);
        };
        assertThat(rows.byteSize()).isEqualTo(size);
    }

    /** Checks that {@code rows} read back and compare as the model's rows. */
    private static void assertReads(Batch.Rows rows, List<Row> model) {
        assertThat(rows.count()).isEqualTo(model.size());
        for (int i = 0; i < model.size(); i++) {
            assertThat(rows.row(i)).as("row %d of %d", i, model.size()).isEqualTo(model.get(i));
            for (int j = Math.max(0, i - 1); j <= Math.min(model.size() - 1, i + 1); j++) {
                int expected = Integer.signum(model.get(i).compareTo(model.get(j)));
                assertThat(Integer.signum(rows.compare(i, model.get(j)))).isEqualTo(expected);
                assertThat(Integer.signum(rows.compare(i, rows, j))).isEqualTo(expected);
            }
        }
    }
}
