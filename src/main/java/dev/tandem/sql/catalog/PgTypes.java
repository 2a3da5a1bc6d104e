package dev.tandem.sql.catalog;

import static dev.tandem.sql.catalog.PgCatalogData.DEFAULT_COLLATION;
import static dev.tandem.sql.catalog.PgCatalogData.OWNER_OID;
import static dev.tandem.sql.catalog.PgCatalogData.row;

import dev.tandem.controller.CatalogEntry;
import dev.tandem.controller.DeclaredType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The PostgreSQL types Tandem lists in {@code pg_type} (its datum types', the catalog's own columns' and their array
 * types), with their {@code pg_type} rows, their SQL names as {@code format_type} prints them, and the types a table's
 * or view's columns are declared with.
 */
final class PgTypes {

    private PgTypes() {
    }

    /** A PostgreSQL type Tandem lists in {@code pg_type}. */
    record PgType(long oid, String name, int len, boolean byval, String category, boolean preferred, long array, long elem,
            String input, String align, long collation) {
    }

    /** The types, each base type followed (after all of them) by its array type. */
    static final List<PgType> ALL;
    /** The types by OID. */
    static final Map<Long, PgType> BY_OID = new HashMap<>();

    static {
        List<PgType> base = List.of(
                new PgType(16, "bool", 1, true, "B", true, 1000, 0, "boolin", "c", 0),
                new PgType(17, "bytea", -1, false, "U", false, 1001, 0, "byteain", "i", 0),
                new PgType(18, "char", 1, true, "Z", false, 1002, 0, "charin", "c", 0),
                new PgType(19, "name", 64, false, "S", false, 1003, 18, "namein", "c", 950),
                new PgType(20, "int8", 8, true, "N", false, 1016, 0, "int8in", "d", 0),
                new PgType(21, "int2", 2, true, "N", false, 1005, 0, "int2in", "s", 0),
                new PgType(22, "int2vector", -1, false, "A", false, 1006, 21, "int2vectorin", "i", 0),
                new PgType(23, "int4", 4, true, "N", false, 1007, 0, "int4in", "i", 0),
                new PgType(24, "regproc", 4, true, "N", false, 1008, 0, "regprocin", "i", 0),
                new PgType(25, "text", -1, false, "S", true, 1009, 0, "textin", "i", DEFAULT_COLLATION),
                new PgType(26, "oid", 4, true, "N", true, 1028, 0, "oidin", "i", 0),
                new PgType(30, "oidvector", -1, false, "A", false, 1013, 26, "oidvectorin", "i", 0),
                new PgType(114, "json", -1, false, "U", false, 199, 0, "json_in", "i", 0),
                new PgType(194, "pg_node_tree", -1, false, "Z", false, 0, 0, "pg_node_tree_in", "i", DEFAULT_COLLATION),
                new PgType(700, "float4", 4, true, "N", false, 1021, 0, "float4in", "i", 0),
                new PgType(701, "float8", 8, true, "N", true, 1022, 0, "float8in", "d", 0),
                new PgType(1033, "aclitem", 12, false, "U", false, 1034, 0, "aclitemin", "i", 0),
                new PgType(1042, "bpchar", -1, false, "S", false, 1014, 0, "bpcharin", "i", DEFAULT_COLLATION),
                new PgType(1043, "varchar", -1, false, "S", false, 1015, 0, "varcharin", "i", DEFAULT_COLLATION),
                new PgType(1082, "date", 4, true, "D", false, 1182, 0, "date_in", "i", 0),
                new PgType(1083, "time", 8, true, "D", false, 1183, 0, "time_in", "d", 0),
                new PgType(1114, "timestamp", 8, true, "D", false, 1115, 0, "timestamp_in", "d", 0),
                new PgType(1184, "timestamptz", 8, true, "D", true, 1185, 0, "timestamptz_in", "d", 0),
                new PgType(1700, "numeric", -1, false, "N", false, 1231, 0, "numeric_in", "i", 0),
                new PgType(1186, "interval", 16, false, "T", true, 1187, 0, "interval_in", "d", 0),
                new PgType(2950, "uuid", 16, false, "U", false, 2951, 0, "uuid_in", "c", 0),
                new PgType(3802, "jsonb", -1, false, "U", false, 3807, 0, "jsonb_in", "i", 0),
                new PgType(2205, "regclass", 4, true, "N", false, 2210, 0, "regclassin", "i", 0));
        List<PgType> all = new ArrayList<>(base);
        for (PgType t : base) {
            if (t.array() != 0) {
                all.add(new PgType(t.array(), "_" + t.name(), -1, false, "A", false, 0, t.oid(), "array_in", t.align().equals("d") ? "d" : "i",
                        t.collation()));
            }
        }
        ALL = List.copyOf(all);
        for (PgType t : ALL) {
            BY_OID.put(t.oid(), t);
        }
    }

    /** The types' OIDs by name ({@code int4}, {@code _int4}, and {@code int4[]} for the arrays the catalog's own columns have). */
    static final Map<String, Long> OID_BY_NAME = new HashMap<>();

    static {
        for (PgType t : ALL) {
            OID_BY_NAME.put(t.name(), t.oid());
        }
        OID_BY_NAME.put("int2[]", 1005L);
        OID_BY_NAME.put("oid[]", 1028L);
        OID_BY_NAME.put("text[]", 1009L);
        OID_BY_NAME.put("aclitem[]", 1034L);
        OID_BY_NAME.put("char[]", 1002L);
    }

    /** {@code pg_type}: every type, with its input, output, receive and send functions' names. */
    static List<Object[]> rows() {
        List<Object[]> out = new ArrayList<>();
        for (PgType t : ALL) {
            String output = t.input().endsWith("in") ? t.input().substring(0, t.input().length() - 2) + "out"
                    : t.input().replace("_in", "_out");
            String recv = t.input().endsWith("in") ? t.input().substring(0, t.input().length() - 2) + "recv"
                    : t.input().replace("_in", "_recv");
            String send = t.input().endsWith("in") ? t.input().substring(0, t.input().length() - 2) + "send"
                    : t.input().replace("_in", "_send");
            out.add(row(t.oid(), t.name(), PgOids.PG_CATALOG_NAMESPACE, OWNER_OID, (long) t.len(), t.byval(), "b", t.category(),
                    t.preferred(), true, ",", 0L, t.category().equals("A") ? "array_subscript_handler" : "-", t.elem(), t.array(),
                    t.input(), output, recv, send, "-", "-", "-", t.align(), t.len() == -1 ? "x" : "p", false, 0L, -1L, 0L,
                    t.collation(), null, null, null));
        }
        return out;
    }

    /** {@code format_type(type, typmod)}: the type's SQL name ({@code bigint}, {@code timestamp without time zone}, {@code text[]}). */
    static String formatType(Long oid, Long typmod) {
        if (oid == null) {
            return null;
        }
        PgType t = BY_OID.get(oid);
        if (t == null) {
            return "???";
        }
        if (t.category().equals("A") && t.elem() != 0 && t.name().startsWith("_")) {
            return formatType(t.elem(), typmod) + "[]";
        }
        String mod = typmod == null || typmod < 4 ? ""
                : oid == 1043 || oid == 1042 ? "(" + (typmod - 4) + ")"
                : oid == 1700 ? "(" + ((typmod - 4) >> 16) + "," + ((((typmod - 4) & 0x7ff) ^ 0x400) - 0x400) + ")" : "";
        return switch (t.name()) {
            case "bool" -> "boolean";
            case "int8" -> "bigint";
            case "int4" -> "integer";
            case "int2" -> "smallint";
            case "float8" -> "double precision";
            case "float4" -> "real";
            case "varchar" -> "character varying" + mod;
            // as PostgreSQL's format_type: without a modifier (-1) bpchar, with none given (NULL) character
            case "bpchar" -> typmod == null ? "character" : mod.isEmpty() ? "bpchar" : "character" + mod;
            case "char" -> "\"char\"";
            case "timestamp" -> "timestamp without time zone";
            case "time" -> "time without time zone";
            case "timestamptz" -> "timestamp with time zone";
            case "numeric" -> "numeric" + mod;
            default -> t.name();
        };
    }

    /**
     * The declared type of column {@code c} of {@code entry}, or null: a table's column declared {@code integer},
     * {@code varchar(n)}, {@code numeric(p, s)}, a view's column its query types {@code integer} or {@code smallint}.
     */
    static DeclaredType declared(CatalogEntry entry, int c) {
        return switch (entry) {
            case CatalogEntry.Table t -> t.declaredType(c);
            case CatalogEntry.View v -> v.declaredType(c);
            default -> null;
        };
    }
}
