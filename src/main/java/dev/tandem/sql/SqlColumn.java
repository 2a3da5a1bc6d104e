package dev.tandem.sql;

import dev.tandem.controller.DeclaredType;
import dev.tandem.row.DatumType;

/**
 * A column of a SQL result: its name (SQL rules: the select list's alias or expression), its datum type and,
 * where PostgreSQL's type of it says more than the datum type, that type ({@code integer} or {@code smallint}
 * for an int64 column, {@code character(n)} for a string), else null.
 */
public record SqlColumn(String name, DatumType type, DeclaredType declared) {

    public SqlColumn(String name, DatumType type) {
        this(name, type, null);
    }

    /** A value of this column as PostgreSQL writes it to a client: a {@code character(n)}'s blank-padded to {@code n}. */
    public Object output(Object value) {
        return declared == null ? value : declared.padded(value);
    }

    /** {@code row}'s values as {@link #output} writes them (the row itself when none of {@code columns} changes one). */
    public static Object[] output(Object[] row, java.util.List<SqlColumn> columns) {
        Object[] out = row;
        for (int i = 0; i < row.length && i < columns.size(); i++) {
            Object v = columns.get(i).output(row[i]);
            if (v != row[i]) {
                if (out == row) {
                    out = row.clone();
                }
                out[i] = v;
            }
        }
        return out;
    }
}
