package dev.tandem.sql;

import dev.tandem.controller.DeclaredType;
import dev.tandem.row.DatumType;

/**
 * A column of a SQL result: its name (SQL rules: the select list's alias or expression), its datum type and,
 * where PostgreSQL's type of it says more than the datum type, that type ({@code integer} or {@code smallint}
 * for an int64 column), else null.
 */
public record SqlColumn(String name, DatumType type, DeclaredType declared) {

    public SqlColumn(String name, DatumType type) {
        this(name, type, null);
    }
}
