package dev.tandem.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tandem.row.Row;
import dev.tandem.time.Frontier;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * A builder given its rows as borrowed columns ({@link BatchBuilder#addAllKeyedBy}) builds exactly the
 * batch that copying them update by update builds, whatever the duplicates, zero diffs, key prefixes
 * that tie, key columns and times advanced to {@code since}; and it leaves the borrowed columns as
 * they were.
 */
class BatchBuilderBorrowedProperties {

    record Upd(String a, long b, String c, long time, long diff) {
        Row row() {
            return Row.of(a, b, c);
        }
    }

    /** Encoded rows back to back with end offsets, times and diffs, as an update buffer holds them. */
    record Columns(byte[] rows, int[] ends, long[] times, long[] diffs, int n) {
        static Columns of(List<Upd> ups) {
            int length = 0;
            for (Upd u : ups) {
                length += u.row().byteSize();
            }
            // spare room after the rows, as a growable buffer has
            byte[] rows = new byte[length + 7];
            int[] ends = new int[ups.size() + 3];
            long[] times = new long[ups.size() + 3];
            long[] diffs = new long[ups.size() + 3];
            int at = 0;
            for (int i = 0; i < ups.size(); i++) {
                Upd u = ups.get(i);
                Row r = u.row();
                r.copyTo(rows, at);
                at += r.byteSize();
                ends[i] = at;
                times[i] = u.time();
                diffs[i] = u.diff();
            }
            return new Columns(rows, ends, times, diffs, ups.size());
        }

        Columns copy() {
            return new Columns(rows.clone(), ends.clone(), times.clone(), diffs.clone(), n);
        }

        void assertSameAs(Columns other) {
            assertThat(rows).isEqualTo(other.rows);
            assertThat(ends).isEqualTo(other.ends);
            assertThat(times).isEqualTo(other.times);
            assertThat(diffs).isEqualTo(other.diffs);
        }
    }

    @Provide
    Arbitrary<List<Upd>> updates() {
        // strings sharing a long prefix tie on their order prefix and must be compared in full
        Arbitrary<String> text = Arbitraries.oneOf(Arbitraries.strings().withChars("ab").ofMaxLength(3),
                Arbitraries.strings().withChars("ab").ofMaxLength(3).map(t -> "shared-prefix/" + t));
        return Combinators.combine(text, Arbitraries.longs().between(-2, 300), text,
                Arbitraries.longs().between(0, 5), Arbitraries.longs().between(-2, 2))
                .as(Upd::new).list().ofMaxSize(80)
                // repeats, so that consolidation sums and cancels
                .map(l -> {
                    List<Upd> out = new ArrayList<>(l);
                    for (int i = 0; i < l.size(); i += 3) {
                        Upd u = l.get(i);
                        out.add(new Upd(u.a(), u.b(), u.c(), u.time(), -u.diff()));
                        out.add(new Upd(u.a(), u.b(), u.c(), (u.time() + 1) % 6, 1));
                    }
                    return out;
                });
    }

    @Provide
    Arbitrary<int[]> keys() {
        return Arbitraries.of(new int[] {0}, new int[] {1}, new int[] {2, 0}, new int[] {0, 1, 2}, new int[] {});
    }

    @Property(tries = 400)
    void borrowedRowsBuildTheBatchCopiedRowsBuild(@ForAll("updates") List<Upd> ups, @ForAll("keys") int[] key,
            @ForAll("since") long since) {
        Columns cols = Columns.of(ups);
        Columns before = cols.copy();
        Batch copied = copying(ups, key, since);
        BatchBuilder b = new BatchBuilder(new ScratchPool(1 << 20));
        long[] added = {0};
        b.addAllKeyedBy(key, cols.rows(), cols.ends(), cols.times(), cols.diffs(), cols.n(), n -> added[0] += n);
        assertThat(added[0]).isEqualTo(ups.size());
        assertThat(b.size()).isEqualTo(ups.stream().filter(u -> u.diff() != 0).count());
        Batch borrowed = b.build(Frontier.at(0), Frontier.at(6), Frontier.at(since));
        assertSameBatch(borrowed, copied);
        // keys of the leading columns share the values' bytes; the others (a string and an int64 never
        // begin a row (string, int64, string)) are stored apart
        assertThat(borrowed.keys.arePrefixes()).isEqualTo(borrowed.keyCount() == 0 || leading(key));
        cols.assertSameAs(before);
        assertThat(b.size()).isZero();
    }

    @Property(tries = 200)
    void addingAfterOrBeforeBorrowedRowsBuildsWhatCopyingBuilds(@ForAll("updates") List<Upd> first,
            @ForAll("updates") List<Upd> second, @ForAll("keys") int[] key) {
        List<Upd> all = new ArrayList<>(first);
        all.addAll(second);
        Batch copied = copying(all, key, 0);

        // borrowed first, then copied: the borrowed rows are taken into the builder's own storage
        Columns cols = Columns.of(first);
        Columns before = cols.copy();
        BatchBuilder b = new BatchBuilder(new ScratchPool(1 << 20));
        b.addAllKeyedBy(key, cols.rows(), cols.ends(), cols.times(), cols.diffs(), cols.n(), n -> { });
        for (Upd u : second) {
            b.addKeyedBy(key, u.row(), u.time(), u.diff());
        }
        assertSameBatch(b.build(Frontier.at(0), Frontier.at(6), Frontier.at(0)), copied);
        cols.assertSameAs(before);

        // copied first, then given as columns to a builder that is not empty: they are copied too
        for (Upd u : first) {
            b.addKeyedBy(key, u.row(), u.time(), u.diff());
        }
        Columns more = Columns.of(second);
        long[] added = {0};
        b.addAllKeyedBy(key, more.rows(), more.ends(), more.times(), more.diffs(), more.n(), n -> added[0] += n);
        assertThat(added[0]).isEqualTo(second.size());
        assertSameBatch(b.build(Frontier.at(0), Frontier.at(6), Frontier.at(0)), copied);
    }

    @Provide
    Arbitrary<Long> since() {
        return Arbitraries.longs().between(0, 6);
    }

    @Test
    void anUpdateOutsideTheBatchIsRefusedUnlessItsDiffIsZero() {
        List<Upd> ups = List.of(new Upd("x", 1, "y", 2, 1), new Upd("x", 2, "y", 9, 0));
        Columns cols = Columns.of(ups);
        BatchBuilder b = new BatchBuilder(new ScratchPool(1 << 20));
        b.addAllKeyedBy(new int[] {0}, cols.rows(), cols.ends(), cols.times(), cols.diffs(), cols.n(), n -> { });
        Batch batch = b.build(Frontier.at(0), Frontier.at(6), Frontier.at(0));
        assertThat(batch.updateCount()).isEqualTo(1);

        List<Upd> outside = List.of(new Upd("x", 1, "y", 2, 1), new Upd("x", 2, "y", 9, 1));
        Columns bad = Columns.of(outside);
        b.addAllKeyedBy(new int[] {0}, bad.rows(), bad.ends(), bad.times(), bad.diffs(), bad.n(), n -> { });
        assertThatThrownBy(() -> b.build(Frontier.at(0), Frontier.at(6), Frontier.at(0)))
                .isInstanceOf(IllegalArgumentException.class);
        // the builder let the refused rows go
        assertThat(b.size()).isZero();
        assertThat(b.build(Frontier.at(0), Frontier.at(6), Frontier.at(0)).isEmpty()).isTrue();
    }

    private static Batch copying(List<Upd> ups, int[] key, long since) {
        BatchBuilder b = new BatchBuilder(new ScratchPool(0));
        for (Upd u : ups) {
            b.addKeyedBy(key, u.row(), u.time(), u.diff());
        }
        return b.build(Frontier.at(0), Frontier.at(6), Frontier.at(since));
    }

    /** Whether {@code key} is the row's first columns in order. */
    private static boolean leading(int[] key) {
        for (int i = 0; i < key.length; i++) {
            if (key[i] != i) {
                return false;
            }
        }
        return true;
    }

    /** The same updates in the same order, in columns of the same sizes and layout. */
    private static void assertSameBatch(Batch actual, Batch expected) {
        assertThat(actual.lower()).isEqualTo(expected.lower());
        assertThat(actual.upper()).isEqualTo(expected.upper());
        assertThat(actual.since()).isEqualTo(expected.since());
        assertThat(actual.keyCount()).isEqualTo(expected.keyCount());
        assertThat(actual.updateCount()).isEqualTo(expected.updateCount());
        assertThat(actual.byteSize()).isEqualTo(expected.byteSize());
        assertThat(actual.keys.arePrefixes()).isEqualTo(expected.keys.arePrefixes());
        assertThat(CursorText.updates(actual)).isEqualTo(CursorText.updates(expected));
    }
}
