package dev.tandem.row;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** An ordered list of named, typed columns (immutable; equal when the columns are). */
public final class Schema {

    private final List<Column> columns;
    /** The columns' types and names, kept: reads ask for them on every request. */
    private final List<DatumType> types;
    private final List<String> names;

    public Schema(List<Column> columns) {
        this.columns = List.copyOf(columns);
        Set<String> seen = new HashSet<>();
        DatumType[] t = new DatumType[this.columns.size()];
        String[] n = new String[this.columns.size()];
        for (int i = 0; i < t.length; i++) {
            Column c = this.columns.get(i);
            if (!seen.add(c.name())) {
                throw new IllegalArgumentException("duplicate column name '" + c.name() + "'");
            }
            t[i] = c.type();
            n[i] = c.name();
        }
        this.types = List.of(t);
        this.names = List.of(n);
    }

    public List<Column> columns() {
        return columns;
    }

    /** The columns' names, in order. */
    public List<String> names() {
        return names;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Schema s && columns.equals(s.columns);
    }

    @Override
    public int hashCode() {
        return columns.hashCode();
    }

    @Override
    public String toString() {
        return "Schema[columns=" + columns + "]";
    }

    /** A schema of unnamed columns {@code c0, c1, ...}, all nullable. */
    public static Schema ofTypes(List<DatumType> types) {
        List<Column> cols = new ArrayList<>(types.size());
        for (int i = 0; i < types.size(); i++) {
            cols.add(new Column("c" + i, types.get(i), true));
        }
        return new Schema(cols);
    }

    public int arity() {
        return columns.size();
    }

    public Column column(int i) {
        return columns.get(i);
    }

    public DatumType type(int i) {
        return columns.get(i).type();
    }

    public List<DatumType> types() {
        return types;
    }

    /** The position of a column by name, or -1. */
    public int indexOf(String name) {
        for (int i = 0; i < columns.size(); i++) {
            if (columns.get(i).name().equals(name)) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Checks that {@code values} fit this schema; returns null when they do, else a precise message.
     */
    public String violation(List<?> values) {
        if (values.size() != columns.size()) {
            return "expected " + columns.size() + " values, got " + values.size();
        }
        for (int i = 0; i < values.size(); i++) {
            Column c = columns.get(i);
            Object v = values.get(i);
            if (v == null) {
                if (!c.nullable()) {
                    return "column '" + c.name() + "' is not nullable";
                }
            } else if (!c.type().accepts(v)) {
                return "column '" + c.name() + "' expects " + c.type().jsonName() + ", got " + v.getClass().getSimpleName();
            }
        }
        return null;
    }
}
