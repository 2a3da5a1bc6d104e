package dev.tandem.storage;

/**
 * A problem found in stored data that reads work around rather than fail on: today a row whose count
 * in the log is negative (written before deletes were checked against the table's counts), which
 * reads skip. {@code row} is the row as text, {@code multiplicity} its count, {@code logOffset} the
 * offset in the log of the record that made the count negative (-1 where the journal has no offsets).
 */
public record StorageError(String table, String row, long multiplicity, long logOffset, String error) {
}
