package dev.tandem.storage;

import dev.tandem.row.Row;
import dev.tandem.row.Schema;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@link WriteAdmission} knows of the unique keys beyond the published histories: per table and key
 * (by identity: a key dropped and added again is another), the key values admitted writes not yet applied
 * add rows with (net), and the keys whose addition is admitted and not yet applied, with the counts their
 * check made. Not thread-safe: its owner calls it under its admission lock.
 */
final class KeysInFlight {

    /**
     * A key being added: how many rows hold each of its values as admitted before it, and the sequence
     * number of the first write admitted after it (the writes in flight from there on count beside them).
     */
    private record AddedKey(Map<Row, Long> counts, long firstSeq) {
    }

    private final Map<String, Map<UniqueKey, Map<Row, Long>>> inserts = new HashMap<>();
    private final Map<UniqueKey, AddedKey> adding = new IdentityHashMap<>();

    /**
     * How many rows hold each value of {@code key} in the table whose published history is {@code view}
     * (null: none yet) and whose writes in flight are {@code inflight}; values with a NULL left out.
     */
    static Map<Row, Long> counts(UniqueKey key, StoredTable.Applied view, Collection<CommitOp> inflight) {
        int[] cols = key.positions();
        Map<Row, Long> counts = view == null ? new HashMap<>() : StoredTable.keyCounts(view.history(), view.arranged() != null, cols);
        long viewSeq = view == null ? -1 : view.seq();
        for (CommitOp op : inflight) {
            if (op.seq > viewSeq) {
                for (RowDiff u : op.updates) {
                    Row value = u.row().project(cols);
                    if (!value.hasNull()) {
                        counts.merge(value, u.diff(), Long::sum);
                    }
                }
            }
        }
        counts.values().removeIf(n -> n == 0);
        return counts;
    }

    /** Notes that {@code key}'s addition is admitted, its values held {@code counts} times before it; writes from {@code firstSeq} on come after it. */
    void adding(UniqueKey key, Map<Row, Long> counts, long firstSeq) {
        adding.put(key, new AddedKey(counts, firstSeq));
    }

    /** Forgets {@code key} of {@code table}, whose drop is admitted. */
    void dropped(String table, UniqueKey key) {
        adding.remove(key);
        Map<UniqueKey, Map<Row, Long>> pending = inserts.get(table);
        if (pending != null) {
            pending.remove(key);
        }
    }

    /** Forgets table {@code table} and its {@code keys}, whose drop is admitted. */
    void tableDropped(String table, List<UniqueKey> keys) {
        keys.forEach(adding::remove);
        inserts.remove(table);
    }

    /** Counts the values (per key of {@code keys}) that an admitted write to {@code table} adds rows with. */
    void admitted(String table, List<UniqueKey> keys, List<Map<Row, Long>> keyInserts) {
        Map<UniqueKey, Map<Row, Long>> pending = inserts.computeIfAbsent(table, k -> new IdentityHashMap<>());
        for (int k = 0; k < keys.size(); k++) {
            Map<Row, Long> into = pending.computeIfAbsent(keys.get(k), x -> new HashMap<>());
            keyInserts.get(k).forEach((key, n) -> into.merge(key, n, Long::sum));
        }
    }

    /**
     * Forgets {@code op} once the commit thread has published it: a write's values no longer in flight, a
     * key's addition now counted in the key's published history.
     */
    void applied(CommitOp op) {
        if (op.record instanceof LogRecord.AddKey a) {
            adding.remove(a.key());
        }
        Map<UniqueKey, Map<Row, Long>> pending = op.keyInserts == null ? null : inserts.get(op.table);
        if (pending == null) {
            return;
        }
        for (int k = 0; k < op.keys.size(); k++) {
            Map<Row, Long> in = pending.get(op.keys.get(k));
            if (in != null) {
                op.keyInserts.get(k).forEach((key, n) -> in.computeIfPresent(key, (r, m) -> m - n == 0 ? null : m - n));
                if (in.isEmpty()) {
                    pending.remove(op.keys.get(k));
                }
            }
        }
        if (pending.isEmpty()) {
            inserts.remove(op.table);
        }
    }

    void clear() {
        inserts.clear();
        adding.clear();
    }

    /**
     * The violation of a unique key of table {@code id} that adding {@code keyInserts} (per key of
     * {@code keys}: value → rows added) would make, or null; {@code view} is the table's published history
     * (null: none yet) and {@code inflight} its writes admitted and not yet applied, in order. Checked as
     * deletes are: first against an upper bound (the published count, or for a key being added the count
     * its check made, plus the inserts in flight), and only the values that bound does not clear exactly,
     * by one pass over the writes in flight after what that count holds.
     */
    UniqueViolationException duplicate(String id, Schema schema, List<UniqueKey> keys, List<Map<Row, Long>> keyInserts, StoredTable.Applied view,
            Collection<CommitOp> inflight) {
        Map<UniqueKey, Map<Row, Long>> pending = inserts.get(id);
        // per key, the writes in flight counted beside its base counts: those after the published history,
        // or for a key being added, those admitted after it
        long[] after = new long[keys.size()];
        List<Map<Row, long[]>> unsure = null;
        for (int k = 0; k < keys.size(); k++) {
            UniqueKey key = keys.get(k);
            AddedKey added = adding.get(key);
            after[k] = added != null ? added.firstSeq() - 1 : view == null ? -1 : view.seq();
            Map<Row, Long> inFlight = pending == null ? Map.of() : pending.getOrDefault(key, Map.of());
            for (Map.Entry<Row, Long> e : keyInserts.get(k).entrySet()) {
                long count = added != null ? added.counts().getOrDefault(e.getKey(), 0L) : view == null ? 0 : view.keyCount(key, e.getKey());
                if (count + inFlight.getOrDefault(e.getKey(), 0L) + e.getValue() > 1) {
                    // Maybe too many, counting inserts in flight that deletes in flight undo: counted exactly below.
                    if (unsure == null) {
                        unsure = new ArrayList<>();
                        for (int j = 0; j < keys.size(); j++) {
                            unsure.add(new HashMap<>());
                        }
                    }
                    unsure.get(k).put(e.getKey(), new long[] {count});
                }
            }
        }
        if (unsure == null) {
            return null;
        }
        int[][] cols = new int[keys.size()][];
        for (int k = 0; k < keys.size(); k++) {
            cols[k] = unsure.get(k).isEmpty() ? null : keys.get(k).positions();
        }
        for (CommitOp op : inflight) {
            for (RowDiff u : op.updates) {
                for (int k = 0; k < keys.size(); k++) {
                    if (cols[k] != null && op.seq > after[k]) {
                        long[] have = unsure.get(k).get(u.row().project(cols[k]));
                        if (have != null) {
                            have[0] += u.diff();
                        }
                    }
                }
            }
        }
        for (int k = 0; k < keys.size(); k++) {
            for (Map.Entry<Row, long[]> e : unsure.get(k).entrySet()) {
                if (e.getValue()[0] + keyInserts.get(k).get(e.getKey()) > 1) {
                    UniqueKey key = keys.get(k);
                    List<String> names = key.columns().stream().map(c -> schema.column(c).name()).toList();
                    return new UniqueViolationException(key.name(), names, e.getKey());
                }
            }
        }
        return null;
    }
}
