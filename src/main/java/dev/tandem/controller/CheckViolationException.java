package dev.tandem.controller;

import java.util.List;

/**
 * A write refused because a row it adds makes a {@link CatalogEntry.Check} of its table false: the table,
 * the constraint's name and the row's values. Nothing of the write was kept.
 */
public final class CheckViolationException extends RuntimeException {

    private final String constraint;
    private final transient List<Object> row;

    CheckViolationException(String table, String constraint, List<Object> row) {
        super("new row for relation \"" + table + "\" violates check constraint \"" + constraint + "\"", null, false, false);
        this.constraint = constraint;
        this.row = row;
    }

    /** The constraint's name, e.g. {@code orders_amount_check}. */
    public String constraint() {
        return constraint;
    }

    /** The values of the row that failed the check, in column order. */
    public List<Object> row() {
        return row;
    }
}
