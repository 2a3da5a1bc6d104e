package dev.tandem.storage;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * The tables as applied from the log: each table's rows, the catalog, the timestamp oracle and the
 * one upper all tables share. Under {@link #lock}, the oracle stamps writes at or beyond the upper,
 * and the upper only advances after the writes stamped below it are applied; the clock moves it only
 * when no stamped write is still on its way to disk ({@link #committing}). Hence a write's timestamp
 * is never below an upper already reported.
 *
 * <p>Threading: every field is guarded by {@link #lock}. Only the commit thread changes them (and
 * recovery, before that thread starts); any thread reads them under the lock.
 */
final class AppliedTables {

    final Object lock = new Object();
    final TimestampOracle oracle;
    final Map<String, StoredTable> tables = new HashMap<>();
    final TreeMap<String, String> catalog = new TreeMap<>();
    /** Every write below it is applied. */
    long upper;
    /** A stamped write is on its way to disk, so the clock must not move the upper. */
    boolean committing;
    boolean closed;
    long lastApplied = -1;
    /** Updates held by all tables: a measure of memory and of how much compaction could save. */
    long historySize;
    /** What recovery found wrong in the stored data (rows of negative count); set once, before the commit thread starts. */
    volatile List<StorageError> errors = List.of();
    /** The rows of negative count recovery found, for a storage that repairs them. */
    List<NegativeCounts.Found> negatives = List.of();

    AppliedTables(TimestampOracle oracle) {
        this.oracle = oracle;
    }

    /**
     * Replays {@code journal} into the tables, sets the upper past its last write and finds the rows
     * whose count the log leaves negative ({@link #errors}); before any other use.
     */
    void recover(Journal journal, Consumer<StoredTable> dropped) {
        synchronized (lock) {
            NegativeCounts negatives = new NegativeCounts();
            journal.recover((record, offset) -> {
                apply(record, null, dropped);
                negatives.replayed(record, offset);
            });
            tables.values().forEach(t -> {
                t.startKeys();
                t.flush(-1);
            });
            upper = oracle.last() + 1;
            this.negatives = negatives.find(tables);
            errors = this.negatives.stream().map(f -> f.error(NegativeCounts.ERROR)).toList();
        }
    }

    /**
     * Applies one record to the tables, under {@link #lock}; {@code fresh} collects new updates for
     * subscribers (null in recovery), and {@code dropped} ends a dropped table's subscriptions.
     */
    void apply(LogRecord record, Map<StoredTable, PackedUpdates.Builder> fresh, Consumer<StoredTable> dropped) {
        switch (record) {
            case LogRecord.CreateTable c -> {
                if (tables.containsKey(c.id())) {
                    throw new IllegalStateException("log creates table '" + c.id() + "' twice");
                }
                tables.put(c.id(), new StoredTable(c.id(), c.schema(), c.keys()));
            }
            case LogRecord.DropTable d -> {
                StoredTable t = tables.remove(d.id());
                if (t == null) {
                    throw new IllegalStateException("log drops unknown table '" + d.id() + "'");
                }
                historySize -= t.size();
                dropped.accept(t);
                if (fresh != null) {
                    fresh.remove(t);
                }
            }
            case LogRecord.AddKey a -> {
                table(a.id()).addKey(a.key(), fresh == null);
                swap(a.swap());
            }
            case LogRecord.DropKey d -> {
                table(d.id()).dropKey(d.name());
                swap(d.swap());
            }
            case LogRecord.Write w -> applyWrite(w, fresh);
            case LogRecord.WriteTables w -> {
                for (LogRecord.Write part : w.parts()) {
                    applyWrite(part, fresh);
                }
                if (w.swap() != null) {
                    catalog.putAll(w.swap().puts());
                    w.swap().removes().forEach(catalog::remove);
                }
                oracle.observe(w.time());
                lastApplied = Math.max(lastApplied, w.time());
            }
            case LogRecord.CatalogPut p -> catalog.put(p.key(), p.json());
            case LogRecord.CatalogRemove r -> catalog.remove(r.key());
            case LogRecord.CatalogChange c -> {
                catalog.putAll(c.swap().puts());
                c.swap().removes().forEach(catalog::remove);
            }
            case LogRecord.Since s -> {
                StoredTable t = tables.get(s.id());
                if (t == null) {
                    throw new IllegalStateException("log sets the compaction frontier of unknown table '" + s.id() + "'");
                }
                t.advanceSince(s.since());
            }
            case LogRecord.Clock c -> {
                oracle.observe(c.lastTime());
                lastApplied = Math.max(lastApplied, c.lastTime());
            }
        }
    }

    private void applyWrite(LogRecord.Write w, Map<StoredTable, PackedUpdates.Builder> fresh) {
        StoredTable t = tables.get(w.id());
        if (t == null) {
            throw new IllegalStateException("log writes to unknown table '" + w.id() + "'");
        }
        PackedUpdates.Builder out = fresh == null || t.subscribers.isEmpty() ? null
                : fresh.computeIfAbsent(t, k -> new PackedUpdates.Builder());
        for (RowDiff u : w.updates()) {
            t.stage(u.row(), w.time(), u.diff());
            if (out != null) {
                out.add(u.row(), w.time(), u.diff());
            }
        }
        historySize += w.updates().size();
        if (w.swap() != null) {
            catalog.putAll(w.swap().puts());
            w.swap().removes().forEach(catalog::remove);
        }
        oracle.observe(w.time());
        lastApplied = Math.max(lastApplied, w.time());
    }

    /** Makes the catalog changes of {@code swap} (null: none). */
    private void swap(CatalogSwap swap) {
        if (swap != null) {
            catalog.putAll(swap.puts());
            swap.removes().forEach(catalog::remove);
        }
    }

    /** The table {@code id}, under {@link #lock}; unknown ids throw. */
    StoredTable table(String id) {
        StoredTable t = tables.get(id);
        if (t == null) {
            throw LogTableStorage.unknownTable(id);
        }
        return t;
    }
}
