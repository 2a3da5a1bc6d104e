package dev.tandem.trace;

import dev.tandem.row.Row;
import java.util.ArrayList;
import java.util.List;

/** A cursor's updates as text, in the cursor's order, for tests that compare what two batches hold. */
public final class CursorText {

    private CursorText() {
    }

    /** Every {@code key val @time diff} of {@code batch}, in key, value, time order. */
    public static List<String> updates(Batch batch) {
        List<String> out = new ArrayList<>();
        Cursor c = batch.cursor();
        while (c.keyValid()) {
            Row key = c.key();
            c.forEachUpdate((val, time, diff) -> out.add(key + " " + val + " @" + time + " " + diff));
            c.stepKey();
        }
        return out;
    }
}
