package dev.tandem.storage;

import dev.tandem.row.Row;
import java.util.Objects;

/** One update of a table: {@code row} changes multiplicity by {@code diff} at {@code time}. */
public record TableUpdate(Row row, long time, long diff) {
    public TableUpdate {
        Objects.requireNonNull(row, "row");
    }
}
