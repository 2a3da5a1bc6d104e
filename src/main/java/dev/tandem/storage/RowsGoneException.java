package dev.tandem.storage;

/**
 * A write refused because it deletes more copies of a row than the table holds where the write takes
 * its place in the log: the rows it read to change were deleted by another write since. Nothing of the
 * write was kept.
 */
public final class RowsGoneException extends IllegalArgumentException {

    RowsGoneException(String message) {
        super(message);
    }

    /** The same refusal with its message reworded (a table's id replaced by its name). */
    public RowsGoneException reworded(String message) {
        return new RowsGoneException(message);
    }
}
