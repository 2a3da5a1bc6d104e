package dev.tandem.trace;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.row.Row;
import dev.tandem.time.Frontier;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A written batch reads back every update's time and diff whether they are all the same (stored once,
 * or not at all for diffs of 1) or start to vary after any number of equal ones, in a writer sized for
 * the updates or for fewer.
 */
class BatchWriterTimesTest {

    @Test
    void timesAndDiffsReadBackWhereverTheyStartToVary() {
        for (int n : new int[] {0, 1, 2, 17, 300}) {
            for (int varyAt : new int[] {0, 1, n / 2, n - 1, n}) {
                for (int sized : new int[] {n, 3}) {
                    check(n, varyAt, true, false, sized);
                    check(n, varyAt, false, true, sized);
                    check(n, varyAt, true, true, sized);
                }
            }
        }
    }

    @Test
    void aSnapshotAtOneTimeWithDiffsOfOneStoresOneTimeAndNoDiffs() {
        int n = 1_000;
        Batch b = write(n, n, true, true, n);
        Batch varied = write(n, 0, true, true, n);
        assertThat(varied.byteSize() - b.byteSize()).isEqualTo(2L * 8 * n - 8);
    }

    private static void check(int n, int varyAt, boolean varyTimes, boolean varyDiffs, int sized) {
        Batch batch = write(n, varyAt, varyTimes, varyDiffs, sized);
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            expected.add(i + " @" + time(i, varyAt, varyTimes) + " " + diff(i, varyAt, varyDiffs));
        }
        List<String> actual = new ArrayList<>();
        Cursor c = batch.cursor();
        while (c.keyValid()) {
            long key = (Long) c.key().get(0);
            c.forEachUpdate((val, time, diff) -> actual.add(key + " @" + time + " " + diff));
            c.stepKey();
        }
        assertThat(actual).as("n=%d varyAt=%d times=%s diffs=%s", n, varyAt, varyTimes, varyDiffs)
                .isEqualTo(expected);
        assertThat(batch.updateCount()).isEqualTo(n);
    }

    private static Batch write(int n, int varyAt, boolean varyTimes, boolean varyDiffs, int sized) {
        BatchWriter w = new BatchWriter(8L * sized, sized, 8L * sized, sized, sized, false);
        for (int i = 0; i < n; i++) {
            w.push(Row.of((long) i), Row.of(1L), time(i, varyAt, varyTimes), diff(i, varyAt, varyDiffs));
        }
        return w.finish(Frontier.at(0), Frontier.at(1_000), Frontier.at(0));
    }

    private static long time(int i, int varyAt, boolean vary) {
        return vary && i >= varyAt ? 5 + i % 3 : 5;
    }

    private static long diff(int i, int varyAt, boolean vary) {
        return vary && i >= varyAt ? (i % 2 == 0 ? 2 : -1) : 1;
    }
}
