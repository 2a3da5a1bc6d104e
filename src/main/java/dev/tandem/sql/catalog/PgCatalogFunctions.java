package dev.tandem.sql.catalog;

import dev.tandem.controller.CatalogEntry;
import dev.tandem.sql.SqlEngine;
import dev.tandem.sql.SqlException;
import dev.tandem.sql.SqlState;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * PostgreSQL's catalog functions ({@code format_type}, {@code pg_get_indexdef}, {@code pg_table_is_visible}…)
 * and the helpers the rewritten client SQL calls ({@code tandem_regex}, {@code tandem_regclass_in}…),
 * as static methods Calcite's generated code calls. Those that read the catalog read the snapshot of
 * the query running on this thread, so none is folded into a plan as a constant.
 */
@org.apache.calcite.linq4j.function.NonDeterministic
public final class PgCatalogFunctions {

    /** The catalog data of the query running on this thread (Calcite evaluates on the caller's thread). */
    static final ThreadLocal<PgCatalogData> CURRENT = new ThreadLocal<>();

    private PgCatalogFunctions() {
    }

    private static PgCatalogData data() {
        PgCatalogData d = CURRENT.get();
        if (d == null) {
            throw new IllegalStateException("no catalog query is running on this thread");
        }
        return d;
    }

    /** The functions Calcite may call, by SQL name: the Java method names (overloaded by argument count). */
    static final List<String[]> FUNCTIONS = List.of(
            new String[] {"format_type", "formatType"},
            new String[] {"pg_get_userbyid", "getUserById"},
            new String[] {"pg_table_is_visible", "tableIsVisible"},
            new String[] {"pg_type_is_visible", "typeIsVisible"},
            new String[] {"pg_get_indexdef", "getIndexDef"},
            new String[] {"pg_get_constraintdef", "getConstraintDef"},
            new String[] {"pg_get_expr", "getExpr"},
            new String[] {"pg_get_viewdef", "getViewDef"},
            new String[] {"pg_get_serial_sequence", "getSerialSequence"},
            new String[] {"obj_description", "objDescription"},
            new String[] {"col_description", "colDescription"},
            new String[] {"shobj_description", "objDescription"},
            new String[] {"has_table_privilege", "tablePrivilege"},
            new String[] {"has_schema_privilege", "hasPrivilege"},
            new String[] {"has_database_privilege", "hasPrivilege"},
            new String[] {"has_column_privilege", "columnPrivilege"},
            new String[] {"pg_has_role", "hasPrivilege"},
            new String[] {"pg_encoding_to_char", "encodingToChar"},
            new String[] {"version", "version"},
            new String[] {"current_database", "currentDatabase"},
            new String[] {"quote_ident", "quoteIdent"},
            new String[] {"current_setting", "currentSetting"},
            new String[] {"pg_size_pretty", "sizePretty"},
            new String[] {"pg_relation_size", "relationSize"},
            new String[] {"pg_table_size", "relationSize"},
            new String[] {"pg_indexes_size", "indexesSize"},
            new String[] {"pg_total_relation_size", "totalRelationSize"},
            new String[] {"array_to_string", "arrayToString"},
            new String[] {"array_upper", "arrayUpper"},
            new String[] {"array_lower", "arrayLower"},
            new String[] {"array_length", "arrayUpper"},
            new String[] {"tandem_regex", "regex"},
            new String[] {"tandem_any", "anyOf"},
            new String[] {"tandem_like", "like"},
            new String[] {"tandem_bitand", "bitAnd"},
            new String[] {"tandem_bitor", "bitOr"},
            new String[] {"tandem_text", "text"},
            new String[] {"tandem_int2vector_out", "int2vectorOut"},
            new String[] {"tandem_regclass_in", "regclassIn"},
            new String[] {"tandem_regclass_out", "regclassOut"},
            new String[] {"tandem_regtype_in", "regtypeIn"},
            new String[] {"tandem_regtype_out", "formatType"},
            new String[] {"tandem_regnamespace_in", "regnamespaceIn"},
            new String[] {"tandem_regnamespace_out", "regnamespaceOut"},
            new String[] {"tandem_regrole_in", "regroleIn"},
            new String[] {"tandem_regproc_out", "regprocOut"});

    // ------------------------------------------------------------------ types

    public static String formatType(Long oid) {
        return formatType(oid, -1L);
    }

    /** {@code format_type(type, typmod)}: the type's SQL name ({@code bigint}, {@code timestamp without time zone}, {@code text[]}). */
    public static String formatType(Long oid, Long typmod) {
        if (oid == null) {
            return null;
        }
        PgCatalogData.PgType t = PgCatalogData.TYPE_BY_OID.get(oid);
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
            case "bpchar" -> "character" + (mod.isEmpty() ? "(1)" : mod);
            case "char" -> "\"char\"";
            case "timestamp" -> "timestamp without time zone";
            case "time" -> "time without time zone";
            case "timestamptz" -> "timestamp with time zone";
            case "numeric" -> "numeric" + mod;
            default -> t.name();
        };
    }

    public static Boolean typeIsVisible(Long oid) {
        return oid == null ? null : PgCatalogData.TYPE_BY_OID.containsKey(oid);
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
        boolean unique = d.keys.stream().anyMatch(k -> k.index() == oid);
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
        return PgSettings.currentSetting(name);
    }

    public static String currentSetting(String name, Boolean missingOk) {
        return PgSettings.currentSetting(name, missingOk);
    }

    /**
     * {@code pg_size_pretty(bigint)}: bytes below 10240 as bytes, else halved-and-rounded steps of 1024
     * into kB, MB, GB, TB and PB, each unit taken while the value stays below 20480 of it.
     */
    public static String sizePretty(Long size) {
        if (size == null) {
            return null;
        }
        long limit = 10 * 1024;
        long limit2 = limit * 2 - 1;
        if (Math.abs(size) < limit) {
            return size + " bytes";
        }
        // one extra bit is kept for the rounding (a division, rounding toward zero, as PostgreSQL's)
        long v = size / (1L << 9);
        for (String unit : List.of("kB", "MB", "GB", "TB")) {
            if (Math.abs(v) < limit2) {
                return halfRounded(v) + " " + unit;
            }
            v /= 1L << 10;
        }
        return halfRounded(v) + " PB";
    }

    /**
     * {@code pg_relation_size(regclass)} and {@code pg_table_size}: the bytes of the arrangements Tandem
     * keeps under the relation's own id (an index's; a table's or view's own arrangement where it has one,
     * else 0), summed over workers. A name that is no relation the caller sees is {@code 42P01}, an OID
     * that is none is NULL, as in PostgreSQL.
     */
    public static Long relationSize(String relation) {
        Long oid = relationOid(relation);
        if (oid == null) {
            return null;
        }
        PgCatalogData d = data();
        PgCatalogData.Rel r = d.rels.get(oid);
        if (r != null) {
            return d.bytes(r.entry().id());
        }
        // a relation of the catalog itself, computed per query, keeps nothing; another OID is none
        return PgCatalogData.RELATIONS.values().stream().anyMatch(c -> c.oid() == oid) ? 0L : null;
    }

    /** {@code pg_relation_size(regclass, fork)}: the main fork's size; the other forks are empty. */
    public static Long relationSize(String relation, String fork) {
        Long main = relationSize(relation);
        return main == null || fork == null ? null : fork.equals("main") ? main : 0L;
    }

    /** {@code pg_indexes_size(regclass)}: the bytes of the indexes on the relation the caller sees (0 for an index). */
    public static Long indexesSize(String relation) {
        Long own = relationSize(relation);
        if (own == null) {
            return null;
        }
        PgCatalogData d = data();
        PgCatalogData.Rel r = d.rels.get(relationOid(relation));
        long sum = 0;
        for (PgCatalogData.Rel x : d.rels.values()) {
            if (r != null && x.entry() instanceof dev.tandem.controller.CatalogEntry.Index i && i.on().equals(r.name())) {
                sum += d.bytes(i.id());
            }
        }
        return sum;
    }

    /** {@code pg_total_relation_size(regclass)}: the relation's own size and its indexes'. */
    public static Long totalRelationSize(String relation) {
        Long own = relationSize(relation);
        return own == null ? null : own + indexesSize(relation);
    }

    /**
     * The OID an argument of type {@code regclass} gives: an OID (Calcite passes it as its digits), or a name
     * read as {@code 'name'::regclass} reads it (unknown: 42P01).
     */
    private static Long relationOid(String relation) {
        if (relation == null) {
            return null;
        }
        return regclassIn(relation); // an OID's digits are the OID, as regclass reads them
    }

    private static long halfRounded(long x) {
        return (x + (x < 0 ? -1 : 1)) / 2;
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

    // ------------------------------------------------------------------ arrays

    public static String arrayToString(List<?> array, String separator) {
        if (array == null || separator == null) {
            return null;
        }
        StringJoiner j = new StringJoiner(separator);
        for (Object o : array) {
            if (o != null) {
                j.add(text(o));
            }
        }
        return j.toString();
    }

    /**
     * {@code value = ANY(array)} for an array bound as a parameter in PostgreSQL's text form
     * ({@code {a,b,"c d",NULL}}): true when an element equals the value's text, else NULL when the value
     * or an element is NULL, else false.
     */
    public static Boolean anyOf(Object value, String array) {
        if (value == null || array == null) {
            return null;
        }
        List<String> elements = PgArrays.parse(array);
        String v = text(value);
        boolean unknown = false;
        for (String e : elements) {
            if (e == null) {
                unknown = true;
            } else if (e.equals(v)) {
                return true;
            }
        }
        return unknown ? null : false;
    }

    public static Long arrayUpper(List<?> array, Long dimension) {
        return array == null || array.isEmpty() || dimension == null || dimension != 1 ? null : (long) array.size();
    }

    public static Long arrayLower(List<?> array, Long dimension) {
        return array == null || array.isEmpty() || dimension == null || dimension != 1 ? null : 1L;
    }

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

    /** An {@code int2vector} or {@code oidvector}'s text form: its elements separated by spaces. */
    public static String int2vectorOut(List<?> vector) {
        if (vector == null) {
            return null;
        }
        StringJoiner j = new StringJoiner(" ");
        vector.forEach(o -> j.add(String.valueOf(o)));
        return j.toString();
    }

    // ------------------------------------------------------------------ operators

    /** What PostgreSQL's regular expressions (ARE) mean and Java's do not, or mean otherwise. */
    private static final Pattern ARE_ONLY = Pattern.compile("\\[[:.=]|\\\\[mMyYZ]|^\\*\\*\\*|\\(\\?[^:=!]");

    /**
     * {@code text ~ pattern} (and {@code ~*} when {@code insensitive}), with Java's regular expressions for
     * PostgreSQL's where they agree (what psql, drivers and ORMs send: anchors, groups, classes,
     * quantifiers); the constructs only PostgreSQL's have are refused.
     */
    public static Boolean regex(String text, String pattern, Boolean insensitive) {
        if (text == null || pattern == null) {
            return null;
        }
        if (ARE_ONLY.matcher(pattern).find()) {
            throw SqlException.notSupported("this regular expression in a catalog query (POSIX classes, collating elements, "
                    + "and \\m \\M \\y \\Y \\Z escapes are PostgreSQL's alone): " + pattern);
        }
        try {
            return Pattern.compile(pattern, Boolean.TRUE.equals(insensitive) ? Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE : 0)
                    .matcher(text).find();
        } catch (PatternSyntaxException e) {
            throw new SqlException(SqlState.INVALID_REGULAR_EXPRESSION, "invalid regular expression: " + e.getDescription());
        }
    }

    /** {@code text ~~ pattern}: LIKE, with {@code \} escaping. */
    public static Boolean like(String text, String pattern, Boolean insensitive) {
        if (text == null || pattern == null) {
            return null;
        }
        StringBuilder re = new StringBuilder();
        for (int i = 0; i < pattern.length(); i++) {
            char c = pattern.charAt(i);
            if (c == '\\' && i + 1 < pattern.length()) {
                re.append(Pattern.quote(String.valueOf(pattern.charAt(++i))));
            } else if (c == '%') {
                re.append(".*");
            } else if (c == '_') {
                re.append('.');
            } else {
                re.append(Pattern.quote(String.valueOf(c)));
            }
        }
        return Pattern.compile(re.toString(), Pattern.DOTALL | (Boolean.TRUE.equals(insensitive) ? Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE : 0))
                .matcher(text).matches();
    }

    public static Long bitAnd(Long a, Long b) {
        return a == null || b == null ? null : a & b;
    }

    public static Long bitOr(Long a, Long b) {
        return a == null || b == null ? null : a | b;
    }

    /** {@code generate_series(a, b)}: the integers from a to b, as a one-column table. */
    public static org.apache.calcite.schema.ScannableTable generateSeries(Long from, Long to) {
        return new org.apache.calcite.schema.ScannableTable() {
            @Override
            public org.apache.calcite.linq4j.Enumerable<Object[]> scan(org.apache.calcite.DataContext root) {
                java.util.List<Object[]> rows = new java.util.ArrayList<>();
                if (from != null && to != null) {
                    if (to - from > 1_000_000) {
                        throw SqlException.notSupported("generate_series of more than a million rows in a catalog query");
                    }
                    for (long v = from; v <= to; v++) {
                        rows.add(new Object[] {v});
                    }
                }
                return org.apache.calcite.linq4j.Linq4j.asEnumerable(rows);
            }

            @Override
            public org.apache.calcite.rel.type.RelDataType getRowType(org.apache.calcite.rel.type.RelDataTypeFactory types) {
                return types.builder().add("generate_series", org.apache.calcite.sql.type.SqlTypeName.BIGINT).build();
            }

            @Override
            public org.apache.calcite.schema.Statistic getStatistic() {
                return org.apache.calcite.schema.Statistics.UNKNOWN;
            }

            @Override
            public org.apache.calcite.schema.Schema.TableType getJdbcTableType() {
                return org.apache.calcite.schema.Schema.TableType.TABLE;
            }

            @Override
            public boolean isRolledUp(String column) {
                return false;
            }

            @Override
            public boolean rolledUpColumnValidInsideAgg(String column, org.apache.calcite.sql.SqlCall call, org.apache.calcite.sql.SqlNode parent,
                    org.apache.calcite.config.CalciteConnectionConfig config) {
                return false;
            }
        };
    }

    // ------------------------------------------------------------------ reg* casts

    /** {@code 'name'::regclass}: the relation's OID; an unknown name is {@code 42P01} as in PostgreSQL. */
    public static Long regclassIn(String name) {
        if (name == null) {
            return null;
        }
        if (name.matches("\\d+")) {
            return Long.parseLong(name);
        }
        String n = name.startsWith("\"") && name.endsWith("\"") && name.length() > 1 ? name.substring(1, name.length() - 1) : name.toLowerCase(Locale.ROOT);
        Long oid = data().relationOid(n);
        if (oid == null) {
            throw new SqlException(SqlException.UNDEFINED_TABLE, "relation \"" + name + "\" does not exist");
        }
        return oid;
    }

    public static String regclassOut(Long oid) {
        return oid == null ? null : oid == 0 ? "-" : data().relationName(oid);
    }

    public static Long regtypeIn(String name) {
        if (name == null) {
            return null;
        }
        String n = name.toLowerCase(Locale.ROOT).replaceFirst("^pg_catalog\\.", "");
        for (PgCatalogData.PgType t : PgCatalogData.TYPES) {
            if (t.name().equals(n) || formatType(t.oid(), -1L).equals(n)) {
                return t.oid();
            }
        }
        throw new SqlException(SqlState.UNDEFINED_OBJECT, "type \"" + name + "\" does not exist");
    }

    /** {@code 'name'::regnamespace}: the schema's OID; an unknown name is {@code 3F000} as in PostgreSQL. */
    public static Long regnamespaceIn(String name) {
        if (name == null || name.isEmpty()) {
            return null;
        }
        Long oid = PgCatalogData.NAMESPACES.get(name);
        if (oid == null) {
            throw new SqlException(SqlState.INVALID_SCHEMA_NAME, "schema \"" + name + "\" does not exist");
        }
        return oid;
    }

    /** {@code oid::regnamespace}: the schema's name, or the OID's digits when no schema has it. */
    public static String regnamespaceOut(Long oid) {
        if (oid == null) {
            return null;
        }
        return PgCatalogData.NAMESPACES.entrySet().stream().filter(e -> e.getValue().equals(oid)).map(Map.Entry::getKey).findFirst()
                .orElse(oid.toString());
    }

    public static Long regroleIn(String name) {
        if (name == null) {
            return null;
        }
        if (name.equals(PgCatalogData.OWNER)) {
            return PgCatalogData.OWNER_OID;
        }
        throw new SqlException(SqlState.UNDEFINED_OBJECT, "role \"" + name + "\" does not exist");
    }

    public static String regprocOut(Long oid) {
        return oid == null ? null : oid == 0 ? "-" : oid.toString();
    }
}
