package dev.tandem.storage;

/**
 * Counters of a storage's commit path since it was opened.
 *
 * @param records log records appended (writes, table and catalog changes)
 * @param commits group commits: batches of records written together
 * @param syncs fsyncs performed (0 when fsync is off or the storage is in memory)
 * @param logBytes the current size of the log on disk (0 in memory)
 * @param compactions log compactions performed
 * @param emitFailures subscription events that could not be delivered (cancelled subscribers)
 */
public record StorageStats(long records, long commits, long syncs, long logBytes, long compactions, long emitFailures) {
}
