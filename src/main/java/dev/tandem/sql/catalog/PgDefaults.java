package dev.tandem.sql.catalog;

import dev.tandem.controller.CatalogEntry;
import dev.tandem.controller.DeclaredType;
import dev.tandem.row.Column;
import dev.tandem.sql.SqlValues;
import java.math.BigDecimal;

/**
 * A column's default as PostgreSQL's {@code pg_get_expr(adbin, adrelid)} and {@code information_schema.columns.column_default}
 * show it: a number as it is ({@code 0}, {@code 1.25}; a negative one quoted and cast, {@code '-1'::integer}), any
 * other constant quoted and cast to the column's type ({@code 'x'::text}, {@code 'a'::character varying},
 * {@code '2024-01-02'::date}), a boolean {@code true}/{@code false}, the statement's time {@code now()} (of a
 * {@code timestamp} column {@code LOCALTIMESTAMP}, of a {@code date} column {@code CURRENT_DATE}) and a serial column's
 * sequence {@code nextval('t_c_seq'::regclass)}, the name PostgreSQL gives a serial column's sequence.
 */
final class PgDefaults {

    private PgDefaults() {
    }

    /** The default of column {@code c} (0-based) of {@code entry} as SQL text; null when it has none (or is no table). */
    static String text(CatalogEntry entry, int c) {
        if (!(entry instanceof CatalogEntry.Table t)) {
            return null;
        }
        Column column = t.schema().column(c);
        Object value = t.defaults().get(column.name());
        if (value == null) {
            return null;
        }
        if (value == CatalogEntry.WriteTimeDefault.SEQUENCE) {
            return "nextval('" + (t.name() + "_" + column.name() + "_seq").replace("'", "''") + "'::regclass)";
        }
        if (value == CatalogEntry.WriteTimeDefault.NOW) {
            return switch (column.type()) {
                case TIMESTAMP -> "LOCALTIMESTAMP";
                case DATE -> "CURRENT_DATE";
                default -> "now()";
            };
        }
        if (value instanceof Boolean b) {
            return b.toString();
        }
        DeclaredType declared = t.declaredType(c);
        String type = declared != null ? typeName(declared) : PgCatalogFunctions.formatType((long) PgOids.ofType(column.type()), -1L);
        String text = SqlValues.text(value);
        boolean number = value instanceof Long || value instanceof BigDecimal || value instanceof Double d && Double.isFinite(d);
        if (number && !text.startsWith("-")) {
            return text;
        }
        return "'" + text.replace("'", "''") + "'::" + type;
    }

    /** A declared type's name without its modifiers, as a default's cast shows it ({@code character varying}, {@code numeric}). */
    private static String typeName(DeclaredType d) {
        // (format_type names a bpchar without its length character(1); a default's cast shows it bpchar)
        return d.kind() == DeclaredType.Kind.BPCHAR ? "bpchar" : PgCatalogFunctions.formatType(d.oid(), -1L);
    }
}
