package dev.tandem.source.postgres;

import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Tandem's own copy of one replicated table's rows, as the applied transactions left them: by key
 * (the upstream's replica identity) when the table has one, else as a multiset. An UPDATE or DELETE
 * whose old row pgoutput does not send whole (REPLICA IDENTITY DEFAULT sends the key, or nothing when
 * the key did not change; unchanged TOASTed values are never sent) takes it from here.
 */
final class PgTableState {

    final PgSourceDefinition.Table def;
    final String tableId;
    final int[] key;
    final List<DatumType> types;
    private final Map<Row, Row> byKey = new HashMap<>();
    private final Map<Row, Long> counts = new HashMap<>();
    /** Why this table no longer follows the upstream (its changes are skipped), or null. */
    String error;

    PgTableState(PgSourceDefinition.Table def, String tableId) {
        this.def = def;
        this.tableId = tableId;
        this.key = def.keyPositions();
        this.types = def.tandemSchema().types();
    }

    boolean keyed() {
        return key.length > 0;
    }

    Row keyOf(Row row) {
        return row.project(key);
    }

    /** The row with {@code key} as applied, or null. */
    Row committed(Row keyRow) {
        return byKey.get(keyRow);
    }

    long committedCount(Row row) {
        return counts.getOrDefault(row, 0L);
    }

    /** Every row as applied, with its multiplicity. */
    Map<Row, Long> rows() {
        if (keyed()) {
            Map<Row, Long> out = new HashMap<>();
            byKey.values().forEach(r -> out.put(r, 1L));
            return out;
        }
        return new HashMap<>(counts);
    }

    /** Applies a durable change of one row ({@code diff} copies; keyed tables: +1 or -1). */
    void apply(Row row, long diff) {
        if (keyed()) {
            Row k = keyOf(row);
            if (diff > 0) {
                byKey.put(k, row);
            } else if (row.equals(byKey.get(k))) {
                byKey.remove(k);
            }
        } else {
            counts.merge(row, diff, Long::sum);
            if (counts.get(row) == 0) {
                counts.remove(row);
            }
        }
    }

    void clear() {
        byKey.clear();
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
