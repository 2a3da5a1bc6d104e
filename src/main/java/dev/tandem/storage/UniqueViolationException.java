package dev.tandem.storage;

import dev.tandem.row.Row;
import java.util.List;
import java.util.function.Function;

/**
 * A write refused because it would leave two rows (or two copies of one row) with the same value of a
 * {@link UniqueKey}, or a key's addition refused because rows already there share a value of it: the
 * constraint's name, its column names and the duplicated key value. Nothing of the change was kept.
 */
public final class UniqueViolationException extends IllegalArgumentException {

    private final String constraint;
    private final List<String> columns;
    private final transient Row key;
    /** Whether the key was being added (its rows already held the value twice) rather than written. */
    private final boolean adding;

    UniqueViolationException(String constraint, List<String> columns, Row key) {
        this(constraint, columns, key, false);
    }

    private UniqueViolationException(String constraint, List<String> columns, Row key, boolean adding) {
        super(adding ? "could not create unique index \"" + constraint + "\"" : "duplicate key value violates unique constraint \"" + constraint + "\"");
        this.constraint = constraint;
        this.columns = List.copyOf(columns);
        this.key = key;
        this.adding = adding;
    }

    /** The refusal to add key {@code constraint} to a table whose rows hold {@code key} more than once. */
    static UniqueViolationException duplicated(String constraint, List<String> columns, Row key) {
        return new UniqueViolationException(constraint, columns, key, true);
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

    /**
     * PostgreSQL's detail line, {@code Key (id)=(1) already exists.} (or, for a key being added, {@code Key
     * (id)=(1) is duplicated.}), with each value written by {@code text}.
     */
    public String detail(Function<Object, String> text) {
        Object[] values = key.unpack();
        StringBuilder b = new StringBuilder("Key (").append(String.join(", ", columns)).append(")=(");
        for (int i = 0; i < values.length; i++) {
            b.append(i == 0 ? "" : ", ").append(values[i] == null ? "null" : text.apply(values[i]));
        }
        return b.append(adding ? ") is duplicated." : ") already exists.").toString();
    }
}
