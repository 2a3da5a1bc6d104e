/**
 * Durable table storage: the log, group commit, write admission, compaction and recovery.
 *
 * <p>May import: row, time, trace.
 */
package dev.tandem.storage;
