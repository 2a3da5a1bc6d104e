package dev.tandem.render;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.row.Row;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** {@link RowSlots} against a {@link HashMap} under random adds and removals, through growth and compaction. */
class RowSlotsTest {

    @Test
    void behavesAsAMapFromRowsToDistinctSlots() {
        RowSlots slots = new RowSlots();
        Map<Row, Integer> model = new HashMap<>();
        Map<Row, Row> views = new HashMap<>();
        Set<Integer> used = new HashSet<>();
        SplittableRandom rnd = new SplittableRandom(12);
        List<Row> universe = new ArrayList<>();
        for (int i = 0; i < 3_000; i++) {
            universe.add(i % 7 == 0 ? Row.EMPTY.concat(Row.of("s" + "x".repeat(i % 40), (long) i)) : Row.of((long) i));
        }
        for (int step = 0; step < 200_000; step++) {
            // Phases of mostly adding and mostly removing, so the slab both grows and compacts.
            boolean adding = (step / 20_000) % 2 == 0 ? rnd.nextInt(4) != 0 : rnd.nextInt(4) == 0;
            Row row = universe.get(rnd.nextInt(universe.size()));
            Integer expected = model.get(row);
            int found = slots.find(row);
            assertThat(found).isEqualTo(expected == null ? -1 : expected);
            if (expected == null && adding) {
                int s = slots.add(row);
                assertThat(s).isBetween(0, slots.capacity() - 1);
                assertThat(used.add(s)).as("slot %d handed out twice", s).isTrue();
                model.put(row, s);
                views.put(row, slots.key(s));
            } else if (expected != null && !adding) {
                Row view = slots.key(expected);
                slots.remove(expected);
                model.remove(row);
                used.remove(expected);
                assertThat(view).isEqualTo(row);
            }
            assertThat(slots.size()).isEqualTo(model.size());
        }
        Set<Integer> seen = new HashSet<>();
        for (Map.Entry<Row, Integer> e : model.entrySet()) {
            assertThat(slots.find(e.getKey())).isEqualTo(e.getValue());
            assertThat(slots.key(e.getValue())).isEqualTo(e.getKey());
            assertThat(seen.add(e.getValue())).isTrue();
        }
        views.forEach((row, view) -> assertThat(view).isEqualTo(row));
    }
}
