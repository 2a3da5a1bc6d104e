package dev.tandem.storage;

import dev.tandem.row.Row;
import java.util.Objects;

/** A row and a signed multiplicity change, as submitted by a writer: +1 inserts, -1 deletes. */
public record RowDiff(Row row, long diff) {
    public RowDiff {
        Objects.requireNonNull(row, "row");
    }

    public static RowDiff insert(Row row) {
        return new RowDiff(row, 1);
    }

    public static RowDiff delete(Row row) {
        return new RowDiff(row, -1);
    }
}
