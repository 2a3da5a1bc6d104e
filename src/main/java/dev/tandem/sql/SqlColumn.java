package dev.tandem.sql;

import dev.tandem.row.DatumType;

/** A column of a SQL result: its name (SQL rules: the select list's alias or expression) and type. */
public record SqlColumn(String name, DatumType type) {
}
