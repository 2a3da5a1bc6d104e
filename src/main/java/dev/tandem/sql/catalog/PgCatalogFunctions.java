package dev.tandem.sql.catalog;

import dev.tandem.controller.CatalogEntry;
import dev.tandem.sql.SqlEngine;
import dev.tandem.sql.SqlException;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.StringJoiner;

/**
 * PostgreSQL's catalog functions ({@code format_type}, {@code pg_get_indexdef}, {@code pg_table_is_visible}…)
 * and the helpers the rewritten client SQL calls ({@code tandem_regex}, {@code tandem_regclass_in}…),
 * as static methods Calcite's generated code calls. Those that read the catalog read the snapshot of
 * the query running on this thread, so none is folded into a plan as a constant.
 *
 * <p>This class lists them all ({@link #FUNCTIONS}) and computes the ones about types, relations, keys,
 * privileges and the server; {@link PgSizeFunctions}, {@link PgRegCasts}, {@link PgOperatorFunctions} and
 * {@link PgArrayFunctions} compute the others.
 */
@org.apache.calcite.linq4j.function.NonDeterministic
public final class PgCatalogFunctions {

    /** The catalog data of the query running on this thread (Calcite evaluates on the caller's thread). */
    static final ThreadLocal<PgCatalogData> CURRENT = new ThreadLocal<>();

    private PgCatalogFunctions() {
    }

    /** The catalog data of the query running on this thread. */
    static PgCatalogData data() {
        PgCatalogData d = CURRENT.get();
        if (d == null) {
            throw new IllegalStateException("no catalog query is running on this thread");
        }
        return d;
    }

    /** A function Calcite may call: its SQL name, and the class and name of the Java methods computing it (overloaded by argument count). */
    record CatalogFunction(String name, Class<?> owner, String method) {
    }

    /** The functions Calcite may call. */
    static final List<CatalogFunction> FUNCTIONS = List.of(
            new CatalogFunction("format_type", PgCatalogFunctions.class, "formatType"),
            new CatalogFunction("pg_get_userbyid", PgCatalogFunctions.class, "getUserById"),
            new CatalogFunction("pg_table_is_visible", PgCatalogFunctions.class, "tableIsVisible"),
            new CatalogFunction("pg_type_is_visible", PgCatalogFunctions.class, "typeIsVisible"),
            new CatalogFunction("pg_get_indexdef", PgCatalogFunctions.class, "getIndexDef"),
            new CatalogFunction("pg_get_constraintdef", PgCatalogFunctions.class, "getConstraintDef"),
            new CatalogFunction("pg_get_expr", PgCatalogFunctions.class, "getExpr"),
            new CatalogFunction("pg_get_viewdef", PgCatalogFunctions.class, "getViewDef"),
            new CatalogFunction("pg_get_serial_sequence", PgCatalogFunctions.class, "getSerialSequence"),
            new CatalogFunction("obj_description", PgCatalogFunctions.class, "objDescription"),
            new CatalogFunction("col_description", PgCatalogFunctions.class, "colDescription"),
            new CatalogFunction("shobj_description", PgCatalogFunctions.class, "objDescription"),
            new CatalogFunction("has_table_privilege", PgCatalogFunctions.class, "tablePrivilege"),
            new CatalogFunction("has_schema_privilege", PgCatalogFunctions.class, "hasPrivilege"),
            new CatalogFunction("has_database_privilege", PgCatalogFunctions.class, "hasPrivilege"),
            new CatalogFunction("has_column_privilege", PgCatalogFunctions.class, "columnPrivilege"),
            new CatalogFunction("pg_has_role", PgCatalogFunctions.class, "hasPrivilege"),
            new CatalogFunction("pg_encoding_to_char", PgCatalogFunctions.class, "encodingToChar"),
            new CatalogFunction("version", PgCatalogFunctions.class, "version"),
            new CatalogFunction("current_database", PgCatalogFunctions.class, "currentDatabase"),
            new CatalogFunction("quote_ident", PgCatalogFunctions.class, "quoteIdent"),
            new CatalogFunction("current_setting", PgCatalogFunctions.class, "currentSetting"),
            new CatalogFunction("pg_size_pretty", PgSizeFunctions.class, "sizePretty"),
            new CatalogFunction("pg_relation_size", PgSizeFunctions.class, "relationSize"),
            new CatalogFunction("pg_table_size", PgSizeFunctions.class, "relationSize"),
            new CatalogFunction("pg_indexes_size", PgSizeFunctions.class, "indexesSize"),
            new CatalogFunction("pg_total_relation_size", PgSizeFunctions.class, "totalRelationSize"),
            new CatalogFunction("array_to_string", PgArrayFunctions.class, "arrayToString"),
            new CatalogFunction("array_upper", PgArrayFunctions.class, "arrayUpper"),
            new CatalogFunction("array_lower", PgArrayFunctions.class, "arrayLower"),
            new CatalogFunction("array_length", PgArrayFunctions.class, "arrayUpper"),
            new CatalogFunction("tandem_regex", PgOperatorFunctions.class, "regex"),
            new CatalogFunction("tandem_any", PgOperatorFunctions.class, "anyOf"),
            new CatalogFunction("tandem_like", PgOperatorFunctions.class, "like"),
            new CatalogFunction("tandem_bitand", PgOperatorFunctions.class, "bitAnd"),
            new CatalogFunction("tandem_bitor", PgOperatorFunctions.class, "bitOr"),
            new CatalogFunction("tandem_text", PgCatalogFunctions.class, "text"),
            new CatalogFunction("tandem_int2vector_out", PgArrayFunctions.class, "int2vectorOut"),
            new CatalogFunction("tandem_regclass_in", PgRegCasts.class, "regclassIn"),
            new CatalogFunction("tandem_regclass_out", PgRegCasts.class, "regclassOut"),
            new CatalogFunction("tandem_regtype_in", PgRegCasts.class, "regtypeIn"),
            new CatalogFunction("tandem_regtype_out", PgCatalogFunctions.class, "formatType"),
            new CatalogFunction("tandem_regnamespace_in", PgRegCasts.class, "regnamespaceIn"),
            new CatalogFunction("tandem_regnamespace_out", PgRegCasts.class, "regnamespaceOut"),
            new CatalogFunction("tandem_regrole_in", PgRegCasts.class, "regroleIn"),
            new CatalogFunction("tandem_regproc_out", PgRegCasts.class, "regprocOut"));

    // ------------------------------------------------------------------ types

    public static String formatType(Long oid) {
        return formatType(oid, null);
    }

    /** {@code format_type(type, typmod)}: the type's SQL name ({@code bigint}, {@code timestamp without time zone}, {@code text[]}). */
    public static String formatType(Long oid, Long typmod) {
        return PgTypes.formatType(oid, typmod);
    }

    public static Boolean typeIsVisible(Long oid) {
        return oid == null ? null : PgTypes.BY_OID.containsKey(oid);
    }

    // ------------------------------------------------------------------ relations, indexes, keys

    public static String getUserById(Long oid) {
        return oid == null ? null : oid == PgCatalogData.OWNER_OID ? PgCatalogData.OWNER : "unknown (OID=" + oid + ")";
    }

    public static Boolean tableIsVisible(Long oid) {
        return oid == null ? null : data().visible(oid);
    }

    public static String getIndexDef(Long oid) {
        return getIndexDef(oid, 0L, false);
    }

    /** {@code pg_get_indexdef(index, column, pretty)}: the CREATE INDEX statement, or with column > 0 that key column's name. */
    public static String getIndexDef(Long oid, Long column, Boolean pretty) {
        if (oid == null) {
            return null;
        }
        PgCatalogData d = data();
        PgCatalogData.Rel r = d.rels.get(oid);
        if (r == null || !(r.entry() instanceof CatalogEntry.Index i)) {
            return null;
        }
        if (column != null && column > 0) {
            return column <= i.key().size() ? quoteIdent(i.key().get((int) (column - 1))) : null;
        }
        return indexDef(d, oid);
    }

    static String indexDef(PgCatalogData d, long oid) {
        PgCatalogData.Rel r = d.rels.get(oid);
        CatalogEntry.Index i = (CatalogEntry.Index) r.entry();
        boolean unique = i.unique() || d.keys.stream().anyMatch(k -> k.index() == oid);
        StringJoiner cols = new StringJoiner(", ", "(", ")");
        i.key().forEach(k -> cols.add(quoteIdent(k)));
        return "CREATE " + (unique ? "UNIQUE " : "") + "INDEX " + quoteIdent(i.name()) + " ON public." + quoteIdent(i.on()) + " USING btree "
                + cols;
    }

    public static String getConstraintDef(Long oid) {
        return getConstraintDef(oid, false);
    }

    /**
     * {@code pg_get_constraintdef(constraint, pretty)}: {@code PRIMARY KEY (a, b)}, {@code UNIQUE (a)} or
     * {@code CHECK (condition)} (the condition as written, in the parentheses PostgreSQL prints around it
     * when not pretty).
     */
    public static String getConstraintDef(Long oid, Boolean pretty) {
        if (oid == null) {
            return null;
        }
        PgCatalogData.CheckRow check = data().checkByOid.get(oid);
        if (check != null) {
            return Boolean.TRUE.equals(pretty) ? "CHECK (" + check.check().text() + ")" : "CHECK ((" + check.check().text() + "))";
        }
        PgCatalogData.KeyRow k = data().keyByOid.get(oid);
        if (k == null) {
            return null;
        }
        StringJoiner cols = new StringJoiner(", ", "(", ")");
        k.key().columns().forEach(c -> cols.add(quoteIdent(c)));
        return (k.key().primary() ? "PRIMARY KEY " : "UNIQUE ") + cols;
    }

    /**
     * An expression tree as SQL text. The only trees Tandem shows are its columns' defaults
     * ({@code pg_attrdef.adbin}), which it keeps as their text (see {@link PgDefaults}); index expressions and
     * predicates are NULL.
     */
    public static String getExpr(String tree, Long relation) {
        return tree;
    }

    public static String getExpr(String tree, Long relation, Boolean pretty) {
        return getExpr(tree, relation);
    }

    /** A view's definition: Tandem keeps a view's plan, not its SQL text, so it has none to show. */
    public static String getViewDef(Long oid) {
        return null;
    }

    public static String getViewDef(Long oid, Boolean pretty) {
        return null;
    }

    public static String getSerialSequence(String table, String column) {
        return null;
    }

    public static String objDescription(Long oid) {
        return null;
    }

    public static String objDescription(Long oid, String catalog) {
        return null;
    }

    public static String colDescription(Long oid, Long column) {
        return null;
    }

    /** {@code has_table_privilege(table, privilege)}: the caller's grants, as {@link PgPrivileges#onTable} answers. */
    public static Boolean tablePrivilege(Object table, String privilege) {
        return PgPrivileges.onTable(data(), table, privilege);
    }

    public static Boolean tablePrivilege(Object user, Object table, String privilege) {
        PgPrivileges.checkUser(data(), user);
        return PgPrivileges.onTable(data(), table, privilege);
    }

    /** {@code has_column_privilege(table, column, privilege)}: a column's privileges are its table's. */
    public static Boolean columnPrivilege(Object table, Object column, String privilege) {
        return column == null ? null : PgPrivileges.onTable(data(), table, privilege);
    }

    public static Boolean columnPrivilege(Object user, Object table, Object column, String privilege) {
        PgPrivileges.checkUser(data(), user);
        return column == null ? null : PgPrivileges.onTable(data(), table, privilege);
    }

    /** A schema's, database's or role's privilege: every caller that may read the catalog has them. */
    public static Boolean hasPrivilege(Object object, String privilege) {
        return true;
    }

    public static Boolean hasPrivilege(Object user, Object object, String privilege) {
        return true;
    }

    public static Boolean hasPrivilege(Object user, Object object, Object column, String privilege) {
        return true;
    }

    public static String encodingToChar(Long encoding) {
        return encoding == null ? null : encoding == 6 ? "UTF8" : "";
    }

    public static String version() {
        return "PostgreSQL " + SqlEngine.SERVER_VERSION + " (Tandem)";
    }

    public static String currentDatabase() {
        return PgCatalogData.DATABASE;
    }

    public static String currentSetting(String name) {
        return currentSetting(name, false);
    }

    public static String currentSetting(String name, Boolean missingOk) {
        if (name != null && name.trim().equalsIgnoreCase("timezone")) {
            return data().access.timeZone();
        }
        return PgSettings.currentSetting(name, missingOk);
    }

    private static final Set<String> RESERVED = Set.of("all", "analyse", "analyze", "and", "any", "array", "as", "asc", "asymmetric", "both",
            "case", "cast", "check", "collate", "column", "constraint", "create", "current_catalog", "current_date", "current_role",
            "current_time", "current_timestamp", "current_user", "default", "deferrable", "desc", "distinct", "do", "else", "end", "except",
            "false", "fetch", "for", "foreign", "from", "grant", "group", "having", "in", "initially", "intersect", "into", "lateral",
            "leading", "limit", "localtime", "localtimestamp", "not", "null", "offset", "on", "only", "or", "order", "placing", "primary",
            "references", "returning", "select", "session_user", "some", "symmetric", "table", "then", "to", "trailing", "true", "union",
            "unique", "user", "using", "variadic", "when", "where", "window", "with");

    /** An identifier as PostgreSQL prints it: bare when it is lower case and no reserved word, else in double quotes. */
    public static String quoteIdent(String name) {
        if (name == null) {
            return null;
        }
        if (name.matches("[a-z_][a-z0-9_$]*") && !RESERVED.contains(name)) {
            return name;
        }
        return "\"" + name.replace("\"", "\"\"") + "\"";
    }

    // ------------------------------------------------------------------ text forms

    /** A value's PostgreSQL text form: {@code true}/{@code false}, arrays as {@code {a,b}}. */
    public static String text(Object value) {
        return switch (value) {
            case null -> null;
            case Boolean b -> b ? "true" : "false";
            case List<?> l -> {
                StringJoiner j = new StringJoiner(",", "{", "}");
                for (Object o : l) {
                    j.add(o == null ? "NULL" : text(o));
                }
                yield j.toString();
            }
            default -> value.toString();
        };
    }

    /** A boolean's PostgreSQL text form read ({@code t}, {@code yes}, {@code on}, {@code 1}…, in any case, blanks around it ignored). */
    static boolean parseBool(String s) {
        return switch (s.trim().toLowerCase(Locale.ROOT)) {
            case "t", "true", "y", "yes", "on", "1" -> true;
            case "f", "false", "n", "no", "off", "0" -> false;
            default -> throw new SqlException(SqlException.INVALID_TEXT, "invalid input syntax for type boolean: \"" + s + "\"");
        };
    }
}
