package dev.tandem.storage;

import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A constraint of a table that no two rows share the values of {@code columns} (positions in the
 * table's schema): a primary key (whose columns are NOT NULL) or a unique key, under which rows with
 * a NULL in a key column are never duplicates (NULLs are distinct, as in PostgreSQL). Named as the
 * user sees the constraint (for example {@code orders_pkey}).
 */
public record UniqueKey(String name, List<Integer> columns, boolean primary) {

    public UniqueKey {
        Objects.requireNonNull(name, "name");
        columns = List.copyOf(columns);
        if (name.isEmpty()) {
            throw new IllegalArgumentException("a key needs a name");
        }
        if (columns.isEmpty()) {
            throw new IllegalArgumentException("key '" + name + "' needs at least one column");
        }
        Set<Integer> seen = new HashSet<>();
        for (int c : columns) {
            if (c < 0 || !seen.add(c)) {
                throw new IllegalArgumentException("key '" + name + "': column " + c + " is negative or repeated");
            }
        }
    }

    /** The key columns' positions, for projecting a row onto its key. */
    int[] positions() {
        return columns.stream().mapToInt(Integer::intValue).toArray();
    }
}
