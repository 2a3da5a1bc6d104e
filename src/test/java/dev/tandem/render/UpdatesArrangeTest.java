package dev.tandem.render;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.row.Row;
import dev.tandem.time.Frontier;
import dev.tandem.trace.Batch;
import dev.tandem.trace.BatchBuilder;
import dev.tandem.trace.CursorText;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Arranging an update buffer (as an index export does) builds the batch that adding its updates one by
 * one builds, duplicates, cancelling and zero diffs included, leaves the buffer's updates as they were,
 * and serves buffer after buffer through one builder.
 */
class UpdatesArrangeTest {

    private static final int[] KEY = {1, 0};

    @Test
    void arrangingABufferBuildsWhatAddingItsUpdatesBuilds() {
        Random random = new Random(7);
        BatchBuilder arranging = new BatchBuilder();
        for (int round = 0; round < 30; round++) {
            Updates u = new Updates();
            int n = random.nextInt(round % 5 == 0 ? 40_000 : 300);
            for (int i = 0; i < n; i++) {
                Row row = Row.of((long) random.nextInt(50), "k" + random.nextInt(round + 2), (long) random.nextInt(3));
                u.add(row, random.nextInt(4), random.nextInt(5) - 2);
            }
            List<String> before = contents(u);

            BatchBuilder adding = new BatchBuilder();
            for (int i = 0; i < u.size; i++) {
                adding.addKeyedBy(KEY, u.row(i), u.times[i], u.diffs[i]);
            }
            Batch expected = adding.build(Frontier.at(0), Frontier.at(4), Frontier.at(2));

            long[] added = {0};
            u.arrangeInto(arranging, KEY, k -> added[0] += k);
            Batch actual = arranging.build(Frontier.at(0), Frontier.at(4), Frontier.at(2));

            assertThat(added[0]).isEqualTo(n);
            assertThat(actual.byteSize()).isEqualTo(expected.byteSize());
            assertThat(CursorText.updates(actual)).isEqualTo(CursorText.updates(expected));
            assertThat(contents(u)).isEqualTo(before);
            u.clear();
        }
    }

    private static List<String> contents(Updates u) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < u.size; i++) {
            out.add(u.row(i) + " @" + u.times[i] + " " + u.diffs[i]);
        }
        return out;
    }
}
