package dev.tandem.storage;

import dev.tandem.time.Frontier;
import dev.tandem.trace.TraceSnapshot;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Rewrites the log as the consolidated image of the tables: each table's history is consolidated at
 * its compaction frontier (capped at the upper, so later writes still append in time order), and the
 * journal replaces the whole log with that image atomically. Asked for explicitly, or scheduled once
 * the history or the log has grown to twice its size after the last compaction (plus a floor). A
 * rewrite that fails for space keeps the old log and makes the storage unavailable until a write or
 * probe succeeds.
 *
 * <p>Threading: {@link #compactIfGrown} runs on the storage's scheduler and only enqueues;
 * {@link #compactNow} runs on the commit thread between batches, so no write is applied meanwhile; it
 * takes the applied tables' lock only in short steps.
 */
final class LogCompaction {

    private static final long COMPACTION_MIN_BYTES = 4L << 20;
    private static final long COMPACTION_MIN_UPDATES = 100_000;
    /** Merge work per hold of the lock while merging tables down (a few milliseconds). */
    private static final long FUEL_PER_STEP = 1 << 16;
    /** The pause between two such holds, in which threads waiting for the lock take it. */
    private static final long STEP_PAUSE_NANOS = 1_000_000;

    private final AppliedTables applied;
    private final Journal journal;
    private final StorageHealth health;
    private final WriteAdmission admission;
    private final AtomicBoolean queued = new AtomicBoolean();
    private final AtomicLong compactions = new AtomicLong();
    /** The history's size after the last compaction; guarded by the applied tables' lock. */
    private long historySizeAfter;
    /** The log's size after the last compaction; written by the commit thread. */
    private volatile long logSizeAfter;

    LogCompaction(AppliedTables applied, Journal journal, StorageHealth health, WriteAdmission admission) {
        this.applied = applied;
        this.journal = journal;
        this.health = health;
        this.admission = admission;
        synchronized (applied.lock) {
            historySizeAfter = applied.historySize;
        }
        logSizeAfter = journal.size();
    }

    /** Log rewrites done. */
    long compactions() {
        return compactions.get();
    }

    /** Enqueues a compaction when the history or the log has doubled since the last one (and none is queued). */
    void compactIfGrown() {
        boolean grown;
        synchronized (applied.lock) {
            grown = applied.historySize > 2 * historySizeAfter + COMPACTION_MIN_UPDATES
                    || journal.size() > 2 * logSizeAfter + COMPACTION_MIN_BYTES;
        }
        if (grown && queued.compareAndSet(false, true)) {
            admission.controlIfOpen(CommitOp.Kind.COMPACT);
        }
    }

    /** Consolidates every table at its compaction frontier and rewrites the log as that image; completes {@code op}. */
    void compactNow(CommitOp op) {
        queued.set(false);
        if (health.failure() != null) {
            op.done.completeExceptionally(health.failure());
            return;
        }
        // Merge each table down in bounded steps, each under the lock and none longer than a few
        // milliseconds, so frontiers, subscriptions and catalog reads go on in between (a 2 M-row table
        // takes over a second to merge whole). Then capture the histories under the lock and read them
        // into the image outside it. This runs on the commit thread, so meanwhile no write is applied and
        // no table is created or dropped.
        record Captured(StoredTable table, TraceSnapshot history, long frontier, long since) {
        }
        Map<StoredTable, Frontier> targets = new LinkedHashMap<>();
        synchronized (applied.lock) {
            applied.tables.values().forEach(t -> targets.put(t, t.compactionTarget()));
        }
        for (Map.Entry<StoredTable, Frontier> e : targets.entrySet()) {
            boolean more = true;
            while (more) {
                synchronized (applied.lock) {
                    more = e.getKey().compactStep(FUEL_PER_STEP, e.getValue());
                }
                // A monitor is not fair: re-entering at once would keep it from a thread woken to take it
                // (the storage tick waited 809 ms so). Pausing lets it in.
                LockSupport.parkNanos(STEP_PAUSE_NANOS);
            }
        }
        List<Captured> captured = new ArrayList<>();
        List<LogRecord> image = new ArrayList<>();
        Map<String, String> catalogNow;
        synchronized (applied.lock) {
            image.add(new LogRecord.Clock(applied.oracle.last()));
            applied.historySize = 0;
            for (StoredTable t : applied.tables.values()) {
                captured.add(new Captured(t, t.history(), Math.min(t.since, applied.upper), t.since));
                applied.historySize += t.size();
            }
            catalogNow = new TreeMap<>(applied.catalog);
            historySizeAfter = applied.historySize;
        }
        for (Captured c : captured) {
            List<UniqueKey> keys = c.table().keys;
            image.add(new LogRecord.CreateTable(c.table().id, c.table().schema, keys.subList(0, c.table().declared)));
            if (c.since() > 0) {
                image.add(new LogRecord.Since(c.table().id, c.since()));
            }
            image.addAll(StoredTable.consolidated(c.table().id, c.history(), c.frontier(), c.table().keyed()));
            // keys added later are added after the rows, which their histories are made from
            for (UniqueKey added : keys.subList(c.table().declared, keys.size())) {
                image.add(new LogRecord.AddKey(c.table().id, added, null));
            }
        }
        catalogNow.forEach((k, v) -> image.add(new LogRecord.CatalogPut(k, v)));
        try {
            journal.rewrite(image);
        } catch (StorageException e) {
            health.fail(e);
            op.done.completeExceptionally(e);
            return;
        } catch (IOException | RuntimeException e) {
            // The old log stays in place and complete; the storage is unavailable until a write or probe succeeds.
            StorageFullException full = new StorageFullException("the log could not be rewritten (" + e.getMessage()
                    + "); the old log is kept. The storage retries once it can write (free space on the data directory's file system)", e);
            health.writeFailed(full);
            op.done.completeExceptionally(full);
            return;
        }
        logSizeAfter = journal.size();
        compactions.incrementAndGet();
        op.done.complete(0L);
    }
}
