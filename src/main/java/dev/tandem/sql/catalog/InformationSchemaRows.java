package dev.tandem.sql.catalog;

import static dev.tandem.sql.catalog.PgCatalogData.DATABASE;
import static dev.tandem.sql.catalog.PgCatalogData.OWNER;
import static dev.tandem.sql.catalog.PgCatalogData.TANDEM_INTERNAL;
import static dev.tandem.sql.catalog.PgCatalogData.row;

import dev.tandem.controller.DeclaredType;
import dev.tandem.row.Column;
import dev.tandem.sql.catalog.CatalogRelations.Col;
import dev.tandem.sql.catalog.CatalogRelations.Relation;
import dev.tandem.sql.catalog.PgCatalogData.CheckRow;
import dev.tandem.sql.catalog.PgCatalogData.KeyRow;
import dev.tandem.sql.catalog.PgCatalogData.Rel;
import dev.tandem.sql.catalog.PgTypes.PgType;
import java.util.ArrayList;
import java.util.List;

/**
 * The rows of {@code information_schema}'s views: its schemata, tables, columns (with the SQL standard's type names,
 * lengths and precisions), table constraints, key columns and views, over the catalog's own relations and the Tandem
 * objects a caller sees.
 */
final class InformationSchemaRows {

    private InformationSchemaRows() {
    }

    /** {@code information_schema.schemata}: the four schemas. */
    static List<Object[]> schemata() {
        List<Object[]> out = new ArrayList<>();
        for (String s : List.of("information_schema", "pg_catalog", "public", TANDEM_INTERNAL)) {
            out.add(row(DATABASE, s, OWNER, null, null, null, null));
        }
        return out;
    }

    /** {@code information_schema.tables}: the catalog's relations, then Tandem's tables and views. */
    static List<Object[]> tables(PgCatalogData d) {
        List<Object[]> out = new ArrayList<>();
        for (Relation c : CatalogRelations.ALL.values()) {
            out.add(tablesRow(c.schema(), c.name(), c.kind()));
        }
        for (Rel r : d.rels.values()) {
            if (!r.kind().equals("i")) {
                out.add(tablesRow("public", r.name(), r.kind()));
            }
        }
        return out;
    }

    /** {@code information_schema.columns}: the columns of the catalog's relations, then of Tandem's tables and views. */
    static List<Object[]> columns(PgCatalogData d) {
        List<Object[]> out = new ArrayList<>();
        for (Relation c : CatalogRelations.ALL.values()) {
            for (int k = 0; k < c.columns().size(); k++) {
                Col col = c.columns().get(k);
                String type = col.type().startsWith("information_schema.") ? "varchar" : col.type();
                out.add(columnsRow(c.schema(), c.name(), col.name(), k + 1, true, PgTypes.OID_BY_NAME.getOrDefault(type, 25L)));
            }
        }
        for (Rel r : d.rels.values()) {
            if (!r.kind().equals("i")) {
                List<Column> columns = r.entry().schema().columns();
                for (int k = 0; k < columns.size(); k++) {
                    Column c = columns.get(k);
                    DeclaredType declared = PgTypes.declared(r.entry(), k);
                    Object[] row = declared == null ? columnsRow("public", r.name(), c.name(), k + 1, c.nullable(), PgOids.ofType(c.type()))
                            : columnsRow("public", r.name(), c.name(), k + 1, c.nullable(), declared.oid(), declared.typmod());
                    row[COLUMN_DEFAULT] = PgDefaults.text(r.entry(), k);
                    out.add(row);
                }
            }
        }
        return out;
    }

    /** {@code information_schema.table_constraints}: the tables' keys, then their checks. */
    static List<Object[]> tableConstraints(PgCatalogData d) {
        List<Object[]> out = new ArrayList<>();
        for (KeyRow k : d.keys) {
            out.add(row(DATABASE, "public", k.key().name(), DATABASE, "public", k.table().name(),
                    k.key().primary() ? "PRIMARY KEY" : "UNIQUE", "NO", "NO", "YES", k.key().primary() ? null : "YES"));
        }
        for (CheckRow c : d.checks) {
            out.add(row(DATABASE, "public", c.check().name(), DATABASE, "public", c.table().name(), "CHECK", "NO", "NO", "YES", null));
        }
        return out;
    }

    /** {@code information_schema.key_column_usage}: each key's columns in order. */
    static List<Object[]> keyColumnUsage(PgCatalogData d) {
        List<Object[]> out = new ArrayList<>();
        for (KeyRow k : d.keys) {
            for (int c = 0; c < k.key().columns().size(); c++) {
                out.add(row(DATABASE, "public", k.key().name(), DATABASE, "public", k.table().name(), k.key().columns().get(c),
                        (long) c + 1, null));
            }
        }
        return out;
    }

    /** {@code information_schema.views}: Tandem's views. */
    static List<Object[]> views(PgCatalogData d) {
        List<Object[]> out = new ArrayList<>();
        for (Rel r : d.rels.values()) {
            if (r.kind().equals("v")) {
                out.add(row(DATABASE, "public", r.name(), null, "NONE", "NO", "NO", "NO", "NO", "NO"));
            }
        }
        return out;
    }

    /** Where {@code information_schema.columns.column_default} is in its row. */
    private static final int COLUMN_DEFAULT = 5;

    private static Object[] tablesRow(String schema, String name, String kind) {
        return row(DATABASE, schema, name, kind.equals("v") ? "VIEW" : "BASE TABLE", null, null, null, null, null, kind.equals("v") ? "NO" : "YES",
                "NO", null);
    }

    private static Object[] columnsRow(String schema, String table, String column, int position, boolean nullable, long type) {
        return columnsRow(schema, table, column, position, nullable, type, -1L);
    }

    private static Object[] columnsRow(String schema, String table, String column, int position, boolean nullable, long type, long typmod) {
        String dataType = switch ((int) type) {
            case 16 -> "boolean";
            case 20 -> "bigint";
            case 21 -> "smallint";
            case 23 -> "integer";
            case 25 -> "text";
            case 26 -> "oid";
            case 19 -> "name";
            case 18 -> "\"char\"";
            case 700 -> "real";
            case 701 -> "double precision";
            case 1043 -> "character varying";
            case 1042 -> "character";
            case 1700 -> "numeric";
            case 1114 -> "timestamp without time zone";
            case 1184 -> "timestamp with time zone";
            case 3802 -> "jsonb";
            case 17 -> "bytea";
            default -> PgTypes.BY_OID.containsKey(type) && PgTypes.BY_OID.get(type).category().equals("A") ? "ARRAY" : "USER-DEFINED";
        };
        Long precision = switch ((int) type) {
            case 20 -> 64L;
            case 21 -> 16L;
            case 23 -> 32L;
            case 700 -> 24L;
            case 701 -> 53L;
            default -> null;
        };
        Long radix = precision == null ? null : 2L;
        Long scale = type == 20 || type == 21 || type == 23 ? 0L : null;
        if (type == 1700 && typmod >= 4) {
            precision = (typmod - 4) >> 16;
            scale = (typmod - 4) & 0xffff;
            radix = 10L;
        } else if (type == 1700) {
            radix = 10L;
        }
        Long datetime = type == 1114 || type == 1184 ? 6L : null;
        Long length = (type == 1043 || type == 1042) && typmod >= 4 ? typmod - 4 : null;
        Long octets = length != null ? Long.valueOf(4 * length) : type == 25 || type == 1043 || type == 1042 ? Long.valueOf(1073741824L) : null;
        PgType t = PgTypes.BY_OID.get(type);
        return row(DATABASE, schema, table, column, (long) position, null, nullable ? "YES" : "NO", dataType, length, octets, precision, radix, scale,
                datetime, null, null, DATABASE, "pg_catalog", t == null ? null : t.name(), "NO", "NEVER", null, schema.equals("public") ? "YES" : "NO");
    }
}
