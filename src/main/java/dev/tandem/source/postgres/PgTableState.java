package dev.tandem.source.postgres;

import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.storage.TableEvent;
import dev.tandem.storage.TableStorage;
import dev.tandem.storage.TableUpdate;
import dev.tandem.storage.UniqueKey;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One replicated table's rows as the applied transactions left them, for the UPDATEs and DELETEs whose
 * old row pgoutput does not send whole (REPLICA IDENTITY DEFAULT sends the key, or nothing when the key
 * did not change; unchanged TOASTed values are never sent). A table keyed by its replica identity is
 * arranged by that key in the storage, so a row is looked up there, in the table itself: what is durable,
 * under the changes applied by writes not yet durable ({@link #apply}, forgotten at {@link #durable}).
 * Only a table without such a key (REPLICA IDENTITY FULL, whose changes carry their old rows whole) keeps
 * its rows here, for {@code TRUNCATE}.
 */
final class PgTableState {

    private static final Row DELETED = Row.of();

    final PgSourceDefinition.Table def;
    final String tableId;
    final int[] key;
    final List<DatumType> types;
    private final TableStorage storage;
    /**
     * Keyed tables: the rows changed by writes not yet durable, by key ({@link #DELETED}: none), each with
     * the sequence number of the batch that changed it last.
     */
    private final Map<Row, Pending> pending = new HashMap<>();
    /** Tables without a key: every row as applied, with its multiplicity. */
    private final Map<Row, Long> counts = new HashMap<>();
    /** Why this table no longer follows the upstream (its changes are skipped), or null. */
    String error;

    PgTableState(PgSourceDefinition.Table def, String tableId, TableStorage storage) {
        this.def = def;
        this.tableId = tableId;
        this.storage = storage;
        int[] k = def.keyPositions();
        // keyed here only when the storage arranges the table by the same key (it does when the key's columns are NOT NULL)
        List<UniqueKey> keys = k.length == 0 || tableId == null ? List.of() : storage.keys(tableId);
        this.key = !keys.isEmpty() && keys.get(0).columns().equals(Arrays.stream(k).boxed().toList()) ? k : new int[0];
        this.types = def.tandemSchema().types();
    }

    boolean keyed() {
        return key.length > 0;
    }

    Row keyOf(Row row) {
        return row.project(key);
    }

    /** A keyed row's latest change not yet durable: the row ({@link #DELETED}: none) and its batch. */
    private record Pending(Row row, long batch) {
    }

    /** The row with {@code key} as applied, or null. */
    Row committed(Row keyRow) {
        Pending changed = pending.get(keyRow);
        if (changed != null) {
            return changed.row() == DELETED ? null : changed.row();
        }
        for (Map.Entry<Row, Long> e : storage.rowsWithKey(tableId, keyRow).entrySet()) {
            if (e.getValue() > 0) {
                return e.getKey();
            }
        }
        return null;
    }

    /** Every row as applied, with its multiplicity: read from the table for a keyed one. */
    Map<Row, Long> rows() {
        if (!keyed()) {
            return new HashMap<>(counts);
        }
        Map<Row, Long> out = new HashMap<>();
        long upper = storage.upper(tableId).time();
        long asOf = Math.max(storage.since(tableId).time(), upper - 1);
        storage.subscribe(tableId, asOf).takeUntil(e -> e instanceof TableEvent.Progress).doOnNext(e -> {
            if (e instanceof TableEvent.Updates u) {
                for (TableUpdate x : u.updates()) {
                    out.merge(x.row(), x.diff(), Long::sum);
                }
            }
        }).blockLast(java.time.Duration.ofSeconds(60));
        out.values().removeIf(n -> n == 0);
        out.keySet().removeIf(r -> pending.containsKey(keyOf(r)));
        pending.values().forEach(p -> {
            if (p.row() != DELETED) {
                out.put(p.row(), 1L);
            }
        });
        return out;
    }

    /**
     * Applies a change of one row ({@code diff} copies; keyed tables: +1 or -1), which for a keyed table
     * becomes durable with the write of batch {@code batch}.
     */
    void apply(Row row, long diff, long batch) {
        if (keyed()) {
            Row k = keyOf(row);
            if (diff > 0) {
                pending.put(k, new Pending(row, batch));
            } else if (row.equals(committed(k))) {
                pending.put(k, new Pending(DELETED, batch));
            }
        } else {
            counts.merge(row, diff, Long::sum);
            if (counts.get(row) == 0) {
                counts.remove(row);
            }
        }
    }

    /**
     * The writes of every batch up to {@code batch} are durable: a keyed row they changed last is read
     * from the storage again; one a later batch changed stays here until that batch is durable.
     */
    void durable(long batch) {
        pending.values().removeIf(p -> p.batch() <= batch);
    }

    /** Forgets what is not durable, after a failed write (a table without a key is rebuilt with {@link #apply}). */
    void clear() {
        pending.clear();
        counts.clear();
    }

    /**
     * Packs a tuple's values (text forms, nulls, {@link PgOutput#UNCHANGED}) as a row of this table; an
     * unchanged value is taken from {@code previous} (null: none is known, which is an error).
     */
    Row row(Object[] values, Row previous) {
        if (values.length != types.size()) {
            throw new IllegalStateException("table " + def.qualified() + " sent " + values.length + " columns, Tandem has " + types.size());
        }
        List<Object> out = new ArrayList<>(values.length);
        for (int i = 0; i < values.length; i++) {
            Object v = values[i];
            if (v == PgOutput.UNCHANGED) {
                if (previous == null) {
                    throw new IllegalStateException("table " + def.qualified() + ", column " + def.columns().get(i).name()
                            + ": an unchanged TOAST value of a row Tandem does not hold");
                }
                out.add(previous.get(i));
            } else {
                out.add(v == null ? null : PgValues.parse(types.get(i), (String) v));
            }
        }
        return Row.pack(types, out);
    }

    /** The key of a tuple that carries only the key columns' values (pgoutput's 'K' old tuple: the others are null). */
    Row keyOfKeyTuple(Object[] values) {
        List<Object> out = new ArrayList<>(key.length);
        List<DatumType> keyTypes = new ArrayList<>(key.length);
        for (int k : key) {
            Object v = values[k];
            out.add(v == null || v == PgOutput.UNCHANGED ? null : PgValues.parse(types.get(k), (String) v));
            keyTypes.add(types.get(k));
        }
        return Row.pack(keyTypes, out);
    }

    @Override
    public String toString() {
        return def.qualified() + " -> " + def.local() + " key " + Arrays.toString(key);
    }
}
