package dev.tandem.stream;

import dev.tandem.row.Row;
import java.util.List;

/**
 * One message of a change stream: every change at one timestamp ({@link Updates}; the snapshot is the
 * first, at the stream's {@code as_of}), or {@link Progress}: no change at a time before
 * {@code frontier} will follow.
 */
public sealed interface ChangeMessage {

    /** The last timestamp the receiver of this message has seen completely. */
    long complete();

    /** Every change at {@code timestamp}, in row (or key) order. */
    record Updates(long timestamp, List<Change> changes) implements ChangeMessage {
        public Updates {
            changes = List.copyOf(changes);
        }

        @Override
        public long complete() {
            return timestamp;
        }
    }

    /** No change at a time before {@code frontier} will follow. */
    record Progress(long frontier) implements ChangeMessage {
        @Override
        public long complete() {
            return frontier - 1;
        }
    }

    /** One change: a row and its multiplicity change ({@code diffs}), or a key's new value ({@code upsert}). */
    sealed interface Change {
    }

    /** {@code row} gained {@code diff} copies (lost, when negative). */
    record Diff(Row row, long diff) implements Change {
    }

    /** {@code key} now has {@code value}; a null value is a delete. */
    record Upsert(Row key, Row value) implements Change {
    }
}
