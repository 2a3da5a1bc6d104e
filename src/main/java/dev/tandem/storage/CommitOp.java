package dev.tandem.storage;

import dev.tandem.row.Row;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * A change or a control operation on its way from admission to the commit thread, with the future its
 * caller waits on. Admission fills in its admission-time fields under the admission lock; the commit
 * thread stamps it ({@link #time}, {@link #record}) and completes it.
 */
final class CommitOp {
    enum Kind { LOG, WRITE, COMPACT, PROBE, STOP }

    final Kind kind;
    final String table;
    final List<RowDiff> updates;
    /** Catalog changes made with a write, or null. */
    final CatalogSwap swap;
    /** The rows this write deletes (net), while it is admitted and not yet applied; null if none. */
    Map<Row, Long> deletes;
    /** Per unique key of {@link #keys}, the key values this write adds rows with (net), while admitted and not yet applied; null if none. */
    List<Map<Row, Long>> keyInserts;
    /** The table's unique keys as this write was admitted under them, in the order of {@link #keyInserts}. */
    List<UniqueKey> keys;
    /** A write to several tables at once: one op per table (each tracked as a write in flight), else null. */
    final List<CommitOp> parts;
    /** A write's place in admission order (= application order); -1 for other operations. */
    long seq = -1;
    final CompletableFuture<Long> done = new CompletableFuture<>();
    LogRecord record;
    long time = -1;

    private CommitOp(Kind kind, LogRecord record, String table, List<RowDiff> updates, CatalogSwap swap) {
        this(kind, record, table, updates, swap, null);
    }

    private CommitOp(Kind kind, LogRecord record, String table, List<RowDiff> updates, CatalogSwap swap, List<CommitOp> parts) {
        this.parts = parts;
        this.kind = kind;
        this.record = record;
        this.table = table;
        this.updates = updates;
        this.swap = swap;
    }

    /** Whether this goes into the log (a write or another log record), as opposed to a control operation. */
    boolean logged() {
        return kind == Kind.LOG || kind == Kind.WRITE;
    }

    static CommitOp log(LogRecord record) {
        return new CommitOp(Kind.LOG, record, null, null, null);
    }

    static CommitOp write(String table, List<RowDiff> updates, CatalogSwap swap) {
        return new CommitOp(Kind.WRITE, null, table, updates, swap);
    }

    /** A write of {@code parts} (each made by {@link #write} without a swap) at one timestamp, with {@code swap}. */
    static CommitOp writeTables(List<CommitOp> parts, CatalogSwap swap) {
        return new CommitOp(Kind.WRITE, null, null, null, swap, List.copyOf(parts));
    }

    /** The single-table writes this write is made of: its parts, or itself. */
    List<CommitOp> tableWrites() {
        return parts == null ? List.of(this) : parts;
    }

    static CommitOp control(Kind kind) {
        return new CommitOp(kind, null, null, null, null);
    }
}
