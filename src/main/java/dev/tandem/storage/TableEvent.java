package dev.tandem.storage;

import dev.tandem.time.Frontier;
import java.util.List;
import java.util.Objects;

/** What a table subscription delivers: batches of updates and advances of the table's upper. */
public sealed interface TableEvent {

    /**
     * Updates in timestamp order; every one of them has {@code time} below the next {@link Progress}.
     * The storage delivers them as {@link PackedUpdates} (no object per update).
     */
    record Updates(List<TableUpdate> updates) implements TableEvent {
        public Updates {
            updates = updates instanceof PackedUpdates ? updates : List.copyOf(updates);
        }
    }

    /** The table's upper advanced to {@code upper}: every update with a time below it has been delivered. */
    record Progress(Frontier upper) implements TableEvent {
        public Progress {
            Objects.requireNonNull(upper, "upper");
        }
    }
}
