package dev.tandem.storage;

import dev.tandem.row.Row;
import java.util.List;
import java.util.function.Function;

/**
 * A write refused because it would leave two rows (or two copies of one row) with the same value of a
 * {@link UniqueKey}: the constraint's name, its column names and the duplicated key value. Nothing of
 * the write was kept.
 */
public final class UniqueViolationException extends IllegalArgumentException {

    private final String constraint;
    private final List<String> columns;
    private final transient Row key;

    UniqueViolationException(String constraint, List<String> columns, Row key) {
        super("duplicate key value violates unique constraint \"" + constraint + "\"");
        this.constraint = constraint;
        this.columns = List.copyOf(columns);
        this.key = key;
    }

    /** The constraint's name, e.g. {@code orders_pkey}. */
    public String constraint() {
        return constraint;
    }

    /** The key's column names, in key order. */
    public List<String> columns() {
        return columns;
    }

    /** The duplicated key value (the key columns of the row, in key order). */
    public Row key() {
        return key;
    }

    /** PostgreSQL's detail line, {@code Key (id)=(1) already exists.}, with each value written by {@code text}. */
    public String detail(Function<Object, String> text) {
        Object[] values = key.unpack();
        StringBuilder b = new StringBuilder("Key (").append(String.join(", ", columns)).append(")=(");
        for (int i = 0; i < values.length; i++) {
            b.append(i == 0 ? "" : ", ").append(values[i] == null ? "null" : text.apply(values[i]));
        }
        return b.append(") already exists.").toString();
    }
}
