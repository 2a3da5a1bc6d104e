package dev.tandem.storage;

import dev.tandem.row.Row;
import dev.tandem.row.Schema;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import reactor.core.publisher.Mono;

/**
 * Admission of changes into the commit queue. A change is checked against the tables as they will be
 * once everything already admitted has been applied, and enqueued in the same step, so the log order
 * is the admission order and every record is valid against the records before it: a table created
 * twice, a write that does not fit its schema, a delete that would make a row's count negative (a
 * table is a multiset), a write that would leave two rows with the same value of one of the table's
 * {@link UniqueKey unique keys} or a catalog swap whose guard no longer holds is refused and changes
 * nothing.
 *
 * <p>Keys are checked as deletes are, against the same published history plus the writes in flight:
 * a write's net change per key value (its inserts less its deletes of rows with that value, so a
 * delete and an insert of one key in one write is a replacement) must leave at most one row with it.
 * First cheaply (the published count plus the inserts in flight, an upper bound); only when that is
 * not enough, exactly, by scanning the writes in flight. Of two concurrent inserts of one key, the one
 * admitted first is counted by the second, which is refused.
 *
 * <p>A key added to a table ({@link #addKey}) is checked against the rows as admitted so far (the
 * published history and the writes in flight, counted under the admission lock) and takes effect for
 * every write admitted after it; until the commit thread has applied it, those writes count its values
 * from the counts its check made, which the writes in flight before it leave exact.
 *
 * <p>Threading: callers admit from any thread under the admission lock; the commit thread takes from
 * {@link #queue()} and, under the same lock, {@linkplain #applied forgets} what it has applied or
 * {@linkplain #restart restarts} admission after a failed log write. The admission lock may be held
 * while taking the applied tables' lock, never the other way round.
 */
final class WriteAdmission {

    private final AppliedTables applied;
    private final StorageHealth health;
    /** Whether deletes are checked against the rows there (see {@link StorageOptions#checkDeletes}). */
    private final boolean checkDeletes;
    private final BlockingQueue<CommitOp> queue = new LinkedBlockingQueue<>();
    private final Object admitLock = new Object();
    /** Tables as they will be once every admitted change is applied; guarded by {@code admitLock}. */
    private final Map<String, Schema> admitted = new HashMap<>();
    /** The unique keys of the tables in {@link #admitted}; guarded by {@code admitLock}. */
    private final Map<String, List<UniqueKey>> admittedKeys = new HashMap<>();
    /** How many of each table's admitted keys it was created with (the later ones were added); guarded by {@code admitLock}. */
    private final Map<String, Integer> declaredKeys = new HashMap<>();
    /** The key values admitted writes not yet applied insert, and the keys being added; guarded by {@code admitLock}. */
    private final KeysInFlight keysInFlight = new KeysInFlight();
    /** Admitted writes not yet applied, by table; guarded by {@code admitLock}. */
    private final Map<String, Map<Row, Long>> pendingDeletes = new HashMap<>();
    /** Admitted writes not yet applied, by table, in admission (= application) order; guarded by {@code admitLock}. */
    private final Map<String, ArrayDeque<CommitOp>> inflight = new HashMap<>();
    /**
     * Catalog entries as they will be once every admitted change is applied, for the entries admitted
     * changes touched (a null value: removed); others are as applied. Guarded by {@code admitLock}.
     */
    private final Map<String, String> admittedCatalog = new HashMap<>();
    /** The sequence number of the next admitted write; guarded by {@code admitLock}. */
    private long nextSeq;
    private boolean closing;

    WriteAdmission(AppliedTables applied, StorageHealth health, boolean checkDeletes) {
        this.applied = applied;
        this.health = health;
        this.checkDeletes = checkDeletes;
        restartFromApplied();
    }

    /** The admitted changes in order, for the commit thread. */
    BlockingQueue<CommitOp> queue() {
        return queue;
    }

    CommitOp createTable(String id, Schema schema, List<UniqueKey> keys) {
        LogTableStorage.requireId(id);
        Objects.requireNonNull(schema, "schema");
        WriteChecks.checkKeys(schema, keys);
        synchronized (admitLock) {
            ensureOpen();
            if (admitted.containsKey(id)) {
                throw new WriteRefusal(WriteRefusal.Reason.TABLE_EXISTS, "table '" + id + "' already exists");
            }
            admitted.put(id, schema);
            admittedKeys.put(id, List.copyOf(keys));
            declaredKeys.put(id, keys.size());
            return enqueue(CommitOp.log(new LogRecord.CreateTable(id, schema, keys)));
        }
    }

    CommitOp dropTable(String id) {
        LogTableStorage.requireId(id);
        synchronized (admitLock) {
            ensureOpen();
            if (admitted.remove(id) == null) {
                throw LogTableStorage.unknownTable(id);
            }
            keysInFlight.tableDropped(id, admittedKeys.remove(id));
            declaredKeys.remove(id);
            pendingDeletes.remove(id);
            inflight.remove(id);
            return enqueue(CommitOp.log(new LogRecord.DropTable(id)));
        }
    }

    /**
     * Admits unique key {@code key} (not a primary key) for table {@code id}, with the catalog changes of
     * {@code swap} (null: none): refused with a {@link UniqueViolationException} if rows the table holds as
     * admitted share a value of it (the smallest such value is named), with a {@link WriteRefusal} if it
     * does not fit the table or the swap's guard moved.
     */
    CommitOp addKey(String id, UniqueKey key, CatalogSwap swap) {
        LogTableStorage.requireId(id);
        Objects.requireNonNull(key, "key");
        if (key.primary()) {
            throw new WriteRefusal(WriteRefusal.Reason.INVALID_KEYS, "key '" + key.name() + "': a key added to a table is not its primary key");
        }
        synchronized (admitLock) {
            ensureOpen();
            Schema schema = admitted.get(id);
            if (schema == null) {
                throw LogTableStorage.unknownTable(id);
            }
            List<UniqueKey> keys = new ArrayList<>(admittedKeys.getOrDefault(id, List.of()));
            keys.add(key);
            WriteChecks.checkKeys(schema, keys);
            requireGuard(swap, "adding key '" + key.name() + "'");
            Map<Row, Long> counts = KeysInFlight.counts(key, publishedView(id), inflight.getOrDefault(id, new ArrayDeque<>()));
            Row duplicated = counts.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey).min(Row::compareTo).orElse(null);
            if (duplicated != null) {
                throw UniqueViolationException.duplicated(key.name(), key.columns().stream().map(c -> schema.column(c).name()).toList(), duplicated);
            }
            admittedKeys.put(id, List.copyOf(keys));
            keysInFlight.adding(key, counts, nextSeq);
            admitSwap(swap);
            return enqueue(CommitOp.log(new LogRecord.AddKey(id, key, swap)));
        }
    }

    /**
     * Admits the drop of the key named {@code name} of table {@code id}, one added after the table was
     * created, with the catalog changes of {@code swap} (null: none); writes admitted after it are not
     * checked against it.
     */
    CommitOp dropKey(String id, String name, CatalogSwap swap) {
        LogTableStorage.requireId(id);
        Objects.requireNonNull(name, "name");
        synchronized (admitLock) {
            ensureOpen();
            if (!admitted.containsKey(id)) {
                throw LogTableStorage.unknownTable(id);
            }
            List<UniqueKey> keys = new ArrayList<>(admittedKeys.getOrDefault(id, List.of()));
            int at = -1;
            for (int k = declaredKeys.getOrDefault(id, 0); k < keys.size(); k++) {
                if (keys.get(k).name().equals(name)) {
                    at = k;
                }
            }
            if (at < 0) {
                throw new WriteRefusal(WriteRefusal.Reason.INVALID_KEYS, "table '" + id + "' has no key named '" + name + "' added after its creation");
            }
            requireGuard(swap, "dropping key '" + name + "'");
            UniqueKey gone = keys.remove(at);
            admittedKeys.put(id, List.copyOf(keys));
            keysInFlight.dropped(id, gone);
            admitSwap(swap);
            return enqueue(CommitOp.log(new LogRecord.DropKey(id, name, swap)));
        }
    }

    /** The published history of table {@code id}, or null if the table is not applied yet. */
    private StoredTable.Applied publishedView(String id) {
        StoredTable table;
        synchronized (applied.lock) {
            table = applied.tables.get(id);
        }
        return table == null ? null : table.applied();
    }

    /** Refuses ({@link WriteRefusal.Reason#GUARD_MOVED}) a change whose swap's guard does not hold as admitted; under {@code admitLock}. */
    private void requireGuard(CatalogSwap swap, String what) {
        if (swap != null && !guardHolds(swap)) {
            throw new WriteRefusal(WriteRefusal.Reason.GUARD_MOVED, what + " rejected: catalog entry '" + swap.guardKey()
                    + "' does not hold the value the change expects (another writer moved it); nothing was changed");
        }
    }

    private boolean guardHolds(CatalogSwap swap) {
        String current = admittedCatalog.containsKey(swap.guardKey()) ? admittedCatalog.get(swap.guardKey()) : appliedCatalogEntry(swap.guardKey());
        return Objects.equals(current, swap.guardValue());
    }

    /** Notes the catalog changes of an admitted {@code swap} (null: none); under {@code admitLock}. */
    private void admitSwap(CatalogSwap swap) {
        if (swap != null) {
            admittedCatalog.putAll(swap.puts());
            swap.removes().forEach(k -> admittedCatalog.put(k, null));
        }
    }

    CommitOp putCatalogEntry(String key, String json) {
        LogTableStorage.requireId(key);
        Objects.requireNonNull(json, "json");
        synchronized (admitLock) {
            ensureOpen();
            admittedCatalog.put(key, json);
            return enqueue(CommitOp.log(new LogRecord.CatalogPut(key, json)));
        }
    }

    CommitOp removeCatalogEntry(String key) {
        LogTableStorage.requireId(key);
        synchronized (admitLock) {
            ensureOpen();
            admittedCatalog.put(key, null);
            return enqueue(CommitOp.log(new LogRecord.CatalogRemove(key)));
        }
    }

    /** Admits catalog changes made together, refused (nothing changes) unless the swap's guard holds. */
    CommitOp changeCatalog(CatalogSwap swap) {
        Objects.requireNonNull(swap, "swap");
        synchronized (admitLock) {
            ensureOpen();
            requireGuard(swap, "catalog change");
            admitSwap(swap);
            return enqueue(CommitOp.log(new LogRecord.CatalogChange(swap)));
        }
    }

    /** Enqueues a control operation for a caller that waits for it; refused once closing or failed. */
    CommitOp control(CommitOp.Kind kind) {
        synchronized (admitLock) {
            ensureOpen();
            return enqueue(CommitOp.control(kind));
        }
    }

    /** Enqueues a control operation the storage schedules itself, unless closing; returns whether it did. */
    boolean controlIfOpen(CommitOp.Kind kind) {
        synchronized (admitLock) {
            if (closing) {
                return false;
            }
            enqueue(CommitOp.control(kind));
            return true;
        }
    }

    /** Stops admitting and enqueues the commit thread's stop; false if already closing. */
    boolean close() {
        synchronized (admitLock) {
            if (closing) {
                return false;
            }
            closing = true;
            enqueue(CommitOp.control(CommitOp.Kind.STOP));
            return true;
        }
    }

    /** Admits a write; its result completes with the write's timestamp once it is durable and applied. */
    Mono<Long> write(String id, List<RowDiff> updates, CatalogSwap swap) {
        Objects.requireNonNull(updates, "updates");
        return admit(Map.of(id, updates), swap, false, true);
    }

    /**
     * Admits a write to several tables at one timestamp, in one log record: all of it or (a table's
     * check failing) none of it. Its result completes with the timestamp once it is durable and applied.
     * Without {@code checkKeys} the rows' unique keys are taken as guaranteed by their writer, the tables'
     * only one ({@link TableStorage#writeTablesKeysGuaranteed}), and neither checked nor counted in flight.
     */
    Mono<Long> writeTables(Map<String, List<RowDiff>> updates, CatalogSwap swap, boolean checkKeys) {
        Objects.requireNonNull(updates, "updates");
        if (updates.isEmpty()) {
            return Mono.error(new WriteRefusal(WriteRefusal.Reason.NO_TABLES, "a write to several tables names at least one table"));
        }
        return admit(updates, swap, true, checkKeys);
    }

    /** One table's share of a write being admitted: its schema and keys as admitted, and the key values it inserts. */
    private record Part(String id, List<RowDiff> updates, Schema schema, List<UniqueKey> keys, List<Map<Row, Long>> keyInserts) {
    }

    private Mono<Long> admit(Map<String, List<RowDiff>> updates, CatalogSwap swap, boolean multi, boolean checkKeys) {
        List<Part> parts = new ArrayList<>(updates.size());
        for (Map.Entry<String, List<RowDiff>> e : new java.util.TreeMap<>(updates).entrySet()) {
            String id = e.getKey();
            List<RowDiff> rows = Objects.requireNonNull(e.getValue(), "updates");
            Schema schema;
            List<UniqueKey> keys;
            synchronized (admitLock) {
                if (closing) {
                    return Mono.error(LogTableStorage.closedError());
                }
                schema = admitted.get(id);
                keys = admittedKeys.getOrDefault(id, List.of());
            }
            if (schema == null) {
                return Mono.error(LogTableStorage.unknownTable(id));
            }
            WriteRefusal violation = WriteChecks.violation(id, schema, rows);
            if (violation != null) {
                return Mono.error(violation);
            }
            // the key values the write adds rows with, projected outside the lock
            parts.add(new Part(id, List.copyOf(rows), schema, keys, keys.isEmpty() || !checkKeys ? null : WriteChecks.keyInserts(keys, rows)));
        }
        List<CommitOp> ops = new ArrayList<>(parts.size());
        for (Part p : parts) {
            ops.add(CommitOp.write(p.id(), p.updates(), multi ? null : swap));
        }
        CommitOp op = multi ? CommitOp.writeTables(ops, swap) : ops.get(0);
        synchronized (admitLock) {
            if (closing) {
                return Mono.error(LogTableStorage.closedError());
            }
            if (health.failure() != null) {
                return Mono.error(health.failure());
            }
            for (int i = 0; i < parts.size(); i++) {
                Part p = parts.get(i);
                if (admitted.get(p.id()) != p.schema()) {
                    return Mono.error(LogTableStorage.unknownTable(p.id()));
                }
                List<UniqueKey> keys = admittedKeys.getOrDefault(p.id(), List.of());
                if (keys != p.keys()) {
                    // a key was added or dropped meanwhile: the write is checked against the keys as they are now
                    parts.set(i, new Part(p.id(), p.updates(), p.schema(), keys, keys.isEmpty() || !checkKeys ? null : WriteChecks.keyInserts(keys, p.updates())));
                }
            }
            String what = multi ? "write to tables " + updates.keySet().stream().sorted().toList() : "write to table '" + parts.get(0).id() + "'";
            if (swap != null) {
                if (!guardHolds(swap)) {
                    return Mono.error(new WriteRefusal(WriteRefusal.Reason.GUARD_MOVED, what + " rejected: catalog entry '" + swap.guardKey()
                            + "' does not hold the value the write expects (another writer moved it); nothing was written"));
                }
            }
            // Every table's checks first, so that a refusal leaves nothing counted in flight.
            List<Map<Row, Long>> deletesByPart = new ArrayList<>(parts.size());
            for (Part p : parts) {
                Map<Row, Long> deletes = checkDeletes ? WriteChecks.netDeletes(p.updates()) : null;
                if (deletes != null) {
                    String negative = negativeCount(p.id(), deletes);
                    if (negative != null) {
                        return Mono.error(new RowsGoneException("write to table '" + p.id() + "' rejected: " + negative));
                    }
                }
                deletesByPart.add(deletes);
                if (p.keyInserts() != null) {
                    UniqueViolationException duplicate = keysInFlight.duplicate(p.id(), p.schema(), p.keys(), p.keyInserts(), publishedView(p.id()),
                            inflight.getOrDefault(p.id(), new ArrayDeque<>()));
                    if (duplicate != null) {
                        return Mono.error(duplicate);
                    }
                }
            }
            long seq = nextSeq++;
            for (int i = 0; i < parts.size(); i++) {
                Part p = parts.get(i);
                CommitOp part = ops.get(i);
                String id = p.id();
                if (p.keyInserts() != null) {
                    keysInFlight.admitted(id, p.keys(), p.keyInserts());
                    part.keyInserts = p.keyInserts();
                    part.keys = p.keys();
                }
                Map<Row, Long> deletes = deletesByPart.get(i);
                if (deletes != null) {
                    Map<Row, Long> pending = pendingDeletes.computeIfAbsent(id, k -> new HashMap<>());
                    deletes.forEach((row, n) -> pending.merge(row, n, Long::sum));
                    part.deletes = deletes;
                }
                part.seq = seq;
                inflight.computeIfAbsent(id, k -> new ArrayDeque<>()).addLast(part);
            }
            admitSwap(swap);
            op.seq = seq;
            enqueue(op);
        }
        return Mono.fromFuture(op.done, true);
    }

    /**
     * Forgets the writes of {@code segment} as in flight, once the commit thread has published them:
     * admission counts a row in the published history, which carries the sequence number of the last
     * write applied to it, and in the writes in flight after that number, exactly once.
     */
    void applied(List<CommitOp> segment) {
        synchronized (admitLock) {
            for (CommitOp op : segment.stream().flatMap(o -> o.kind == CommitOp.Kind.WRITE ? o.tableWrites().stream() : java.util.stream.Stream.of(o)).toList()) {
                ArrayDeque<CommitOp> queued = op.kind == CommitOp.Kind.WRITE ? inflight.get(op.table) : null;
                if (queued != null) {
                    queued.remove(op);
                    if (queued.isEmpty()) {
                        inflight.remove(op.table);
                    }
                }
                Map<Row, Long> pending = op.deletes == null ? null : pendingDeletes.get(op.table);
                if (pending != null) {
                    op.deletes.forEach((row, n) -> pending.computeIfPresent(row, (r, m) -> m - n == 0 ? null : m - n));
                    if (pending.isEmpty()) {
                        pendingDeletes.remove(op.table);
                    }
                }
                keysInFlight.applied(op);
            }
        }
    }

    /**
     * After a segment could not be logged: fails every change admitted after it with {@code error} (they
     * were checked against it), keeps queued control operations, and restarts admission from the applied tables.
     */
    void restart(StorageFullException error) {
        synchronized (admitLock) {
            List<CommitOp> queued = new ArrayList<>();
            queue.drainTo(queued);
            for (CommitOp op : queued) {
                if (op.logged()) {
                    op.done.completeExceptionally(error);
                } else {
                    queue.add(op);
                }
            }
            restartFromApplied();
        }
    }

    private void restartFromApplied() {
        synchronized (admitLock) {
            pendingDeletes.clear();
            keysInFlight.clear();
            inflight.clear();
            admittedCatalog.clear();
            synchronized (applied.lock) {
                admitted.clear();
                admittedKeys.clear();
                declaredKeys.clear();
                for (StoredTable t : applied.tables.values()) {
                    admitted.put(t.id, t.schema);
                    admittedKeys.put(t.id, t.keys);
                    declaredKeys.put(t.id, t.declared);
                }
            }
        }
    }

    private String appliedCatalogEntry(String key) {
        synchronized (applied.lock) {
            return applied.catalog.get(key);
        }
    }

    /**
     * Why deleting {@code deletes} (row → copies) would make a row's multiplicity negative (a table is a
     * multiset), or null. Checked under {@code admitLock} against the applied rows and the writes
     * admitted and not yet applied, which the commit thread moves from one to the other under the same
     * lock: first cheaply (applied less the deletes in flight, a lower bound); only when that is not
     * enough, exactly, by scanning the writes in flight for the row.
     */
    private String negativeCount(String id, Map<Row, Long> deletes) {
        StoredTable table;
        synchronized (applied.lock) {
            table = applied.tables.get(id);
        }
        StoredTable.Applied view = table == null ? null : table.applied();
        long viewSeq = view == null ? -1 : view.seq();
        Map<Row, Long> pending = pendingDeletes.getOrDefault(id, Map.of());
        Map<Row, long[]> unsure = null;
        for (Map.Entry<Row, Long> e : deletes.entrySet()) {
            long count = view == null ? 0 : view.count(e.getKey());
            if (count - pending.getOrDefault(e.getKey(), 0L) < e.getValue()) {
                // Not enough without the inserts in flight (a client that does not wait for acknowledgements):
                // these rows are counted exactly below.
                if (unsure == null) {
                    unsure = new HashMap<>();
                }
                unsure.put(e.getKey(), new long[] {count});
            }
        }
        if (unsure == null) {
            return null;
        }
        // One pass over the writes in flight that the published history does not yet hold.
        for (CommitOp op : inflight.getOrDefault(id, new ArrayDeque<>())) {
            if (op.seq <= viewSeq) {
                continue;
            }
            for (RowDiff u : op.updates) {
                long[] have = unsure.get(u.row());
                if (have != null) {
                    have[0] += u.diff();
                }
            }
        }
        for (Map.Entry<Row, long[]> e : unsure.entrySet()) {
            long want = deletes.get(e.getKey());
            long have = e.getValue()[0];
            if (have < want) {
                return "it deletes " + want + " cop" + (want == 1 ? "y" : "ies") + " of row " + e.getKey()
                        + " but the table holds " + Math.max(0, have) + "; nothing was written";
            }
        }
        return null;
    }

    private CommitOp enqueue(CommitOp op) {
        queue.add(op);
        return op;
    }

    private void ensureOpen() {
        if (closing) {
            throw LogTableStorage.closedError();
        }
        if (health.failure() != null) {
            throw health.failure();
        }
    }
}
