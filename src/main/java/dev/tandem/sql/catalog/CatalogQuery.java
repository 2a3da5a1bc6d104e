package dev.tandem.sql.catalog;

import dev.tandem.controller.CatalogSnapshot;
import dev.tandem.row.DatumType;
import dev.tandem.sql.SqlColumn;
import dev.tandem.sql.SqlException;
import dev.tandem.sql.SqlResult;
import dev.tandem.sql.SqlState;
import java.sql.Array;
import java.sql.ParameterMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A read of {@code pg_catalog} or {@code information_schema}, prepared: the client's SQL rewritten for
 * Calcite ({@link PgCatalogRewriter}), its result columns and parameter count. It runs on Calcite's own
 * Enumerable engine over the relations of a catalog snapshot ({@link PgCatalogData}), one-shot, apart
 * from the maintained dataflows that answer reads of Tandem's tables and views; its compilation is kept
 * between runs ({@link CompiledCatalogQuery}).
 */
public final class CatalogQuery {

    /** The names (lower case) that make a statement a read of the catalog wherever they stand as words. */
    private static final java.util.Set<String> CATALOG_NAMES;
    /** The catalog functions (lower case) that make a statement a read of the catalog when called. */
    private static final java.util.Set<String> CATALOG_FUNCTIONS = java.util.Set.of("version", "current_schemas", "current_schema",
            "current_database", "format_type", "pg_table_is_visible", "pg_type_is_visible", "obj_description", "col_description",
            "pg_encoding_to_char", "current_setting", "pg_size_pretty", "pg_backend_pid", "quote_ident");

    static {
        java.util.Set<String> names = new java.util.HashSet<>(List.of("pg_catalog", "information_schema", "current_catalog", "current_schema",
                PgCatalogData.TANDEM_INTERNAL.toLowerCase(Locale.ROOT)));
        for (PgCatalogData.Relation r : PgCatalogData.RELATIONS.values()) {
            if (r.schema().equals("pg_catalog")) {
                names.add(r.name().toLowerCase(Locale.ROOT));
            }
        }
        EmptyRelationReads.EMPTY_RELATIONS.forEach(n -> names.add(n.toLowerCase(Locale.ROOT)));
        CATALOG_NAMES = java.util.Set.copyOf(names);
    }

    private final String text;
    private final PgCatalogRewriter.Rewritten rewritten;
    private final List<SqlColumn> columns;

    private CatalogQuery(String text, PgCatalogRewriter.Rewritten rewritten, List<SqlColumn> columns) {
        this.text = text;
        this.rewritten = rewritten;
        this.columns = columns;
    }

    /**
     * Whether {@code sql} reads PostgreSQL's catalog: a query naming {@code pg_catalog},
     * {@code information_schema}, one of their relations or a catalog function. (PostgreSQL searches
     * {@code pg_catalog} first, so a relation named so is the catalog's.)
     */
    public static boolean reads(String sql) {
        String head = sql.stripLeading().toLowerCase(Locale.ROOT);
        if (!(head.startsWith("select") || head.startsWith("with") || head.startsWith("(") || head.startsWith("table"))) {
            return false;
        }
        return namesCatalog(sql);
    }

    /**
     * Whether {@code name} (in {@code schema}, or unqualified when null) is one of the catalog's relations:
     * {@code pg_catalog}'s (found unqualified too), {@code information_schema}'s or {@code tandem_internal}'s (or one
     * of those schemas' names, unqualified).
     */
    public static boolean isCatalogRelation(String schema, String name) {
        String s = schema == null ? null : schema.toLowerCase(Locale.ROOT);
        String n = name.toLowerCase(Locale.ROOT);
        if (s == null && (n.equals("pg_catalog") || n.equals("information_schema") || n.equals(PgCatalogData.TANDEM_INTERNAL))) {
            return true; // a qualified name whose schema the planner took for the relation
        }
        return s == null ? PgCatalogData.RELATIONS.containsKey("pg_catalog." + n) : PgCatalogData.RELATIONS.containsKey(s + "." + n);
    }

    /**
     * Whether {@code sql} holds, as a word outside string literals, a name of {@link #CATALOG_NAMES} or a
     * call of a catalog function ({@link #CATALOG_FUNCTIONS}, {@code pg_get_*}, {@code has_*_privilege}):
     * one pass over the text, words looked up in a set, so a statement of any length (an IN list of 60,000
     * literals) costs time in proportion to it. It runs on the connection's event loop, before anything
     * else is known of the statement. A catalog name inside a string literal ({@code 'pg_class'}) does not
     * make a read of the catalog.
     */
    static boolean namesCatalog(String sql) {
        int n = sql.length();
        int i = 0;
        while (i < n) {
            char c = sql.charAt(i);
            if (c == '\'') {
                int close = i + 1;
                while (close < n && !(sql.charAt(close) == '\'' && (close + 1 >= n || sql.charAt(close + 1) != '\''))) {
                    close += sql.charAt(close) == '\'' ? 2 : 1;
                }
                // an unterminated literal is read as text (the statement is refused later, as PostgreSQL does)
                i = close < n ? close + 1 : i + 1;
            } else if (wordChar(c)) {
                int start = i;
                while (i < n && wordChar(sql.charAt(i))) {
                    i++;
                }
                String word = sql.substring(start, i).toLowerCase(Locale.ROOT);
                if (CATALOG_NAMES.contains(word)) {
                    return true;
                }
                if (catalogFunction(word)) {
                    int next = i;
                    while (next < n && Character.isWhitespace(sql.charAt(next))) {
                        next++;
                    }
                    if (next < n && sql.charAt(next) == '(') {
                        return true;
                    }
                }
            } else {
                i++;
            }
        }
        return false;
    }

    private static boolean wordChar(char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_';
    }

    private static boolean catalogFunction(String word) {
        return CATALOG_FUNCTIONS.contains(word) || word.startsWith("pg_get_") && word.length() > "pg_get_".length()
                || word.startsWith("has_") && word.endsWith("_privilege") && word.length() > "has__privilege".length()
                || word.startsWith("pg_") && word.endsWith("_size") && word.length() > "pg__size".length();
    }

    /** The query's result columns. */
    public List<SqlColumn> columns() {
        return columns;
    }

    private static final Pattern SIZE_FUNCTION = Pattern.compile("(?i)\\b(?:" + String.join("|", PgCatalogRewriter.SIZE_FUNCTIONS) + ")\\s*\\(");
    /** A string literal, for the reads of a query already known to read the catalog. */
    private static final Pattern STRING_LITERAL = Pattern.compile("'(?:[^']|'')*+'");
    private static final Pattern INTERNAL_RELATION = Pattern.compile("(?i)\\btandem_internal\\s*\\.\\s*\"?(\\w+)");

    /**
     * The introspection collections ({@code tandem_dataflows}…) a run of the query reads, to be read for it
     * beforehand ({@link CatalogAccess#withIntrospected}): those of the {@code tandem_internal} relations it
     * names, and the arrangement sizes for the size functions and {@code tandem_internal.indexes}.
     */
    public java.util.Set<String> introspectionReads() {
        java.util.Set<String> out = new java.util.TreeSet<>();
        String sql = textWithoutLiterals();
        if (SIZE_FUNCTION.matcher(sql).find()) {
            out.add("tandem_arrangement_sizes");
        }
        Matcher m = INTERNAL_RELATION.matcher(sql);
        while (m.find()) {
            String name = m.group(1).toLowerCase(Locale.ROOT);
            PgCatalogData.IntrospectionView v = PgCatalogData.INTROSPECTION_VIEWS.get(name);
            if (v != null) {
                out.add(v.collection());
            } else if (name.equals("indexes")) {
                out.add("tandem_arrangement_sizes");
            }
        }
        return out;
    }

    /** Whether a run of the query lists index statuses ({@code tandem_internal.indexes}). */
    public boolean readsIndexStatuses() {
        return INTERNAL_RELATION.matcher(textWithoutLiterals()).results()
                .anyMatch(m -> m.group(1).equalsIgnoreCase("indexes"));
    }

    /** The query's text with each string literal emptied, so that what it reads is found only where it names it. */
    private String textWithoutLiterals() {
        return STRING_LITERAL.matcher(text).replaceAll("''");
    }

    /** How many parameters ({@code $1}…) the query takes; each is text. */
    public int parameterCount() {
        return rewritten.parameterCount();
    }

    public String text() {
        return text;
    }

    /** Prepares {@code sql} against {@code snapshot}: rewritten and validated, its columns known; refused with {@code 0A000} what cannot be answered. */
    public static CatalogQuery prepare(String sql, CatalogSnapshot snapshot, String user) {
        return prepare(sql, snapshot, user, 0, CatalogAccess.all(user));
    }

    /**
     * As {@link #prepare(String, CatalogSnapshot, String)}, for the wire-protocol session with process id
     * {@code pid} ({@code pg_backend_pid()}) whose caller sees what {@code access} grants.
     */
    public static CatalogQuery prepare(String sql, CatalogSnapshot snapshot, String user, int pid, CatalogAccess access) {
        PgCatalogRewriter.Rewritten r = PgCatalogRewriter.rewrite(sql, user, pid);
        if (r.empty()) {
            List<SqlColumn> cols = r.emptyColumns().stream().map(n -> new SqlColumn(n, DatumType.STRING)).toList();
            return new CatalogQuery(sql, r, cols);
        }
        return withCompiled(r.sql(), new PgCatalogData(snapshot, access),
                compiled -> new CatalogQuery(sql, r, columns(compiled.statement().getMetaData(), pgNames(sql))));
    }

    /** Runs the query against {@code snapshot} with {@code params} (text, or values decoded from binary). */
    public SqlResult execute(CatalogSnapshot snapshot, List<Object> params) {
        return execute(snapshot, params, CatalogAccess.all(PgCatalogData.OWNER));
    }

    /** Runs the query against what {@code access} shows of {@code snapshot}, with {@code params}. */
    public SqlResult execute(CatalogSnapshot snapshot, List<Object> params, CatalogAccess access) {
        if (params.size() != rewritten.parameterCount()) {
            throw new SqlException(SqlState.PROTOCOL_VIOLATION, "the catalog query takes " + rewritten.parameterCount() + " parameters, not " + params.size());
        }
        if (rewritten.empty()) {
            return new SqlResult("SELECT", columns, List.of(), 0, null, null);
        }
        PgCatalogData data = new PgCatalogData(snapshot, access);
        List<Object[]> rows = withCompiled(rewritten.sql(), data, compiled -> rows(compiled, data, params));
        return new SqlResult("SELECT", columns, rows, rows.size(), null, null);
    }

    /** The rows a run of {@code compiled} over {@code data} with {@code params} answers. */
    private List<Object[]> rows(CompiledCatalogQuery compiled, PgCatalogData data, List<Object> params) throws SQLException {
        compiled.data().set(data);
        PreparedStatement ps = compiled.statement();
        ParameterMetaData pm = ps.getParameterMetaData();
        for (int i = 0; i < rewritten.parameters().size(); i++) {
            Object v = params.get(rewritten.parameters().get(i) - 1);
            ps.setObject(i + 1, parameter(v, pm.getParameterType(i + 1)));
        }
        List<Object[]> rows = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            ResultSetMetaData md = rs.getMetaData();
            int n = md.getColumnCount();
            while (rs.next()) {
                Object[] row = new Object[n];
                for (int i = 0; i < n; i++) {
                    row[i] = value(rs, i + 1, md.getColumnType(i + 1));
                }
                rows.add(row);
            }
        }
        compiled.data().set(null);
        return rows;
    }

    /** What a run does with the compiled query it has taken. */
    private interface CompiledUse<T> {
        T apply(CompiledCatalogQuery compiled) throws SQLException;
    }

    /**
     * Applies {@code use} to the compiled {@code sql}, taken for it, while the catalog functions read {@code data};
     * then returns the compiled query to the idle ones, or on a failure closes it and throws the failure's {@link #refusal}.
     */
    private static <T> T withCompiled(String sql, PgCatalogData data, CompiledUse<T> use) {
        PgCatalogFunctions.CURRENT.set(data);
        CompiledCatalogQuery compiled = null;
        try {
            compiled = CompiledCatalogQuery.take(sql);
            T out = use.apply(compiled);
            compiled = compiled.release();
            return out;
        } catch (SQLException | RuntimeException | LinkageError e) {
            throw refusal(e, sql);
        } finally {
            PgCatalogFunctions.CURRENT.remove();
            CompiledCatalogQuery.close(compiled);
        }
    }

    private static Object parameter(Object v, int type) {
        if (!(v instanceof String s)) {
            return v;
        }
        try {
            return switch (type) {
                case Types.BIGINT, Types.INTEGER, Types.SMALLINT, Types.TINYINT -> Long.parseLong(s.trim());
                case Types.BOOLEAN -> PgCatalogFunctions.parseBool(s);
                case Types.DOUBLE, Types.FLOAT, Types.REAL, Types.DECIMAL -> Double.parseDouble(s.trim());
                default -> s;
            };
        } catch (NumberFormatException e) {
            throw new SqlException(SqlException.INVALID_TEXT, "invalid input syntax for a number: \"" + s + "\"");
        }
    }

    private static Object value(ResultSet rs, int i, int type) throws SQLException {
        Object v = switch (type) {
            case Types.ARRAY -> {
                Array a = rs.getArray(i);
                yield a == null ? null : PgCatalogFunctions.text(Arrays.asList((Object[]) a.getArray()));
            }
            case Types.CHAR -> {
                String s = rs.getString(i);
                yield s == null ? null : s.stripTrailing();
            }
            default -> switch (datumType(type)) {
                case BOOL -> rs.getBoolean(i);
                case INT64 -> rs.getLong(i);
                case FLOAT64 -> rs.getDouble(i);
                default -> {
                    Object o = rs.getObject(i);
                    yield o == null ? null : PgCatalogFunctions.text(o instanceof Object[] arr ? Arrays.asList(arr) : o);
                }
            };
        };
        return rs.wasNull() ? null : v;
    }

    private static List<SqlColumn> columns(ResultSetMetaData md, List<String> pgNames) throws SQLException {
        List<SqlColumn> out = new ArrayList<>();
        int n = md.getColumnCount();
        for (int i = 1; i <= n; i++) {
            String name = md.getColumnLabel(i);
            if (name.matches("EXPR\\$\\d+")) {
                name = pgNames != null && pgNames.size() == n ? pgNames.get(i - 1) : "?column?";
            }
            out.add(new SqlColumn(name, datumType(md.getColumnType(i))));
        }
        return out;
    }

    /** The type Tandem answers a result column of JDBC type {@code jdbcType} as. */
    private static DatumType datumType(int jdbcType) {
        return switch (jdbcType) {
            case Types.BOOLEAN -> DatumType.BOOL;
            case Types.BIGINT, Types.INTEGER, Types.SMALLINT, Types.TINYINT -> DatumType.INT64;
            case Types.DOUBLE, Types.FLOAT, Types.REAL, Types.DECIMAL, Types.NUMERIC -> DatumType.FLOAT64;
            default -> DatumType.STRING;
        };
    }

    /** The column names PostgreSQL gives the statement's select list, or null when it cannot tell. */
    private static List<String> pgNames(String sql) {
        try {
            return PgCatalogRewriter.selectNames(sql);
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static final Pattern NOT_FOUND = Pattern.compile(
            "(Object|Table|Column) '([^']+)' not found(?: within '([^']+)')?|No match found for function signature ([^\\n]+)");

    /** A Calcite failure as a SQL error: a refused construct is {@code 0A000}, an error of the query's own keeps its SQLSTATE. */
    private static SqlException refusal(Throwable e, String rewritten) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SqlException s) {
                return s;
            }
        }
        StringBuilder all = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            all.append(t.getMessage()).append('\n');
        }
        Matcher m = NOT_FOUND.matcher(all);
        if (m.find()) {
            if ("tandem_internal".equals(m.group(3))) {
                // Tandem's own schema: what it does not hold does not exist
                return new SqlException(SqlException.UNDEFINED_TABLE, "relation \"tandem_internal." + m.group(2) + "\" does not exist");
            }
            if (m.group(2) != null && !m.group(1).equals("Column") && m.group(3) == null) {
                return SqlException.notSupported("relation " + m.group(2) + " in a query of the catalog: a query reads the catalog's"
                        + " relations (pg_catalog, information_schema, tandem_internal) or Tandem's own tables and views, not both");
            }
            String what = m.group(2) != null ? m.group(1).toLowerCase(Locale.ROOT) + " " + m.group(2) : "the function " + m.group(4);
            return SqlException.notSupported(what + " in Tandem's catalog (pg_catalog and information_schema hold the relations, "
                    + "columns and functions PostgreSQL clients read to describe tables, views, indexes and keys)");
        }
        Throwable root = e;
        while (root.getCause() != null) {
            root = root.getCause();
        }
        String first = String.valueOf(root.getMessage()).lines().filter(l -> !l.isBlank()).findFirst().orElse(root.getClass().getSimpleName());
        return SqlException.notSupported("this catalog query (" + first + ")");
    }
}
