package dev.tandem.sql;

import java.util.List;
import java.util.Map;
import org.apache.calcite.runtime.CalciteContextException;
import org.apache.calcite.sql.parser.SqlParseException;

/**
 * Calcite's parse and validation errors as PostgreSQL's: a syntax error at or near its token, a validation
 * message matched to its SQLSTATE and, where PostgreSQL words it otherwise, reworded; each with the line and
 * column Calcite reports.
 */
final class CalciteErrors {

    private CalciteErrors() {
    }

    /** A Calcite validation message, its SQLSTATE and, when PostgreSQL words it otherwise, PostgreSQL's words ($1... from the pattern). */
    private record Rewrite(java.util.regex.Pattern pattern, SqlState state, String message) {
        Rewrite(String regex, SqlState state, String message) {
            this(java.util.regex.Pattern.compile("(?s)" + regex), state, message);
        }
    }

    /** Calcite's message for a relation it does not know: the name, and the schema it was looked for in. */
    private static final java.util.regex.Pattern MISSING_RELATION =
            java.util.regex.Pattern.compile("(?s)(?:Object|Table) '([^']*)' not found(?: within '([^']*)')?.*");

    /**
     * Calcite's messages about a window's clauses (each followed by whatever Calcite adds) and PostgreSQL's words for each, all
     * {@code 42P20}.
     */
    private static final Map<String, String> WINDOW_CLAUSES = Map.of(
            "Window expressions are not permitted in the HAVING clause", "window functions are not allowed in HAVING",
            "RANGE clause cannot be used with compound ORDER BY clause", "RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column",
            "UNBOUNDED FOLLOWING cannot be specified for the lower frame boundary", "frame start cannot be UNBOUNDED FOLLOWING",
            "UNBOUNDED PRECEDING cannot be specified for the upper frame boundary", "frame end cannot be UNBOUNDED PRECEDING",
            "Upper frame boundary cannot be PRECEDING when lower boundary is CURRENT ROW", "frame starting from current row cannot have preceding rows",
            "Upper frame boundary cannot be CURRENT ROW when lower boundary is FOLLOWING", "frame starting from following row cannot end with current row",
            "Upper frame boundary cannot be PRECEDING when lower boundary is FOLLOWING", "frame starting from following row cannot have preceding rows");

    private static final List<Rewrite> REWRITES = List.of(
            // Calcite's word for a column's qualifier no FROM item in scope is named (FROM names an unknown relation "Object")
            new Rewrite("Table '([^']*)' not found", SqlException.UNDEFINED_TABLE, "missing FROM-clause entry for table \"$1\""),
            new Rewrite("(?:Object|Table) '([^']*)' not found(?: within '[^']*')?(; did you mean '[^']*'\\?)?.*", SqlException.UNDEFINED_TABLE,
                    "relation \"$1\" does not exist$2"),
            new Rewrite("Column '([^']*)' not found in any table(; did you mean '[^']*'\\?)?.*", SqlException.UNDEFINED_COLUMN,
                    "column \"$1\" does not exist$2"),
            new Rewrite("Column '([^']*)' not found in table '([^']*)'(; did you mean '[^']*'\\?)?.*", SqlException.UNDEFINED_COLUMN,
                    "column $2.$1 does not exist$3"),
            new Rewrite("Unknown field '([^']*)'.*", SqlException.UNDEFINED_COLUMN, "column \"$1\" does not exist"),
            new Rewrite("Cannot apply '(SUM|AVG)' to arguments of type '[A-Z]*\\(<INTERVAL [^>]*>\\)'.*", SqlException.NOT_SUPPORTED,
                    "not supported: $1 of interval"),
            new Rewrite("Argument to function 'NTILE' must be a literal.*", SqlException.NOT_SUPPORTED,
                    "not supported: ntile with a count that is not a positive integer constant"),
            new Rewrite("RANK or DENSE_RANK functions require ORDER BY clause in window specification.*", SqlException.NOT_SUPPORTED,
                    "not supported: rank, dense_rank, percent_rank or cume_dist over a window without ORDER BY"),
            new Rewrite("Windowed aggregate expression is illegal in (.*) clause.*", SqlState.WINDOWING_ERROR, "window functions are not allowed in $1"),
            new Rewrite("(?:Data type of ORDER BY prohibits use of RANGE clause|Data Type mismatch between ORDER BY and RANGE clause"
                    + "|Window ORDER BY expression of type DATE requires range of type INTERVAL).*", SqlException.NOT_SUPPORTED,
                    "not supported: RANGE with offset PRECEDING/FOLLOWING for this column type and offset type"),
            new Rewrite("Unknown identifier '([^']*)'.*", SqlState.UNDEFINED_OBJECT, "type \"$1\" does not exist"),
            new Rewrite("Cast function cannot convert value of type \\S+ ARRAY.* to type (\\S+).*", SqlException.NOT_SUPPORTED,
                    "not supported: casting an array to $1 (array_to_string writes an array's elements as text)"),
            new Rewrite("Column '([^']*)' is ambiguous.*", SqlState.AMBIGUOUS_COLUMN, "column reference \"$1\" is ambiguous"),
            new Rewrite("Expression '(.*)' is not being grouped.*", SqlState.GROUPING_ERROR,
                    "column \"$1\" must appear in the GROUP BY clause or be used in an aggregate function"),
            new Rewrite("Aggregate expression is illegal in (.*)", SqlState.GROUPING_ERROR, "aggregate functions are not allowed in $1"),
            new Rewrite("Column count mismatch in (UNION|EXCEPT|INTERSECT).*", SqlException.SYNTAX,
                    "each $1 query must have the same number of columns"),
            new Rewrite("Ordinal out of range.*", SqlState.INVALID_COLUMN_REFERENCE, "ORDER BY or GROUP BY position is not in select list"),
            new Rewrite("Cast function cannot convert value of type (\\S+).* to type (\\S+).*", SqlState.CANNOT_COERCE, "cannot cast type $1 to $2"),
            new Rewrite("Illegal use of 'NULL'.*", SqlException.NOT_SUPPORTED,
                    "not supported: a NULL whose type cannot be inferred here (write CAST(NULL AS type))"),
            new Rewrite("No match found for function signature (.*<(?:VAR)?BINARY>.*|(?i:decode|encode|sha224|sha256|sha384|sha512|get_byte|set_byte"
                    + "|get_bit|set_bit|convert_to|convert_from|bit_count)\\(.*)", SqlException.NOT_SUPPORTED, "not supported: function $1 (bytea)"),
            new Rewrite("No match found for function signature ((?i:array_agg|array_position|array_positions|array_remove|array_replace|array_upper"
                    + "|array_lower|array_dims|array_ndims|array_fill|string_to_array|unnest)\\(.*)", SqlException.NOT_SUPPORTED,
                    "not supported: function $1 (arrays)"),
            new Rewrite("No match found for function signature (.*)", SqlException.UNDEFINED_FUNCTION, "not supported: function $1"),
            new Rewrite("Cannot apply '(IS (NOT )?DISTINCT FROM)' to arguments of type '(<VARIANT> .* <CHAR\\(\\d+\\)>|<CHAR\\(\\d+\\)> .* <VARIANT>)'.*",
                    SqlException.NOT_SUPPORTED, "not supported: $1 of a jsonb and a quoted literal (cast the literal: '...'::jsonb)"),
            new Rewrite("(Cannot apply '.*' to arguments of type '.*')\\. Supported form.*", SqlException.UNDEFINED_FUNCTION, "$1"),
            new Rewrite("Cannot apply.*", SqlException.UNDEFINED_FUNCTION, null),
            new Rewrite("Illegal mixing of types.*|.*incompatible.*|Cannot infer.*|Type mismatch.*", SqlException.DATATYPE_MISMATCH, null));

    /** A parse error as PostgreSQL's {@code 42601} (or a resource error's SQLSTATE, when that is what failed the parse). */
    static SqlException parseError(SqlParseException e) {
        SqlException exhausted = SqlErrors.exhausted(e);
        if (exhausted != null) {
            return exhausted;
        }
        String msg = e.getMessage() == null ? "syntax error" : e.getMessage();
        int nl = msg.indexOf('\n');
        if (nl > 0) {
            msg = msg.substring(0, nl);
        }
        msg = msg.replaceAll("\\s+at line \\d+, column \\d+\\.?", "");
        int line = e.getPos() == null ? 0 : e.getPos().getLineNum();
        int col = e.getPos() == null ? 0 : e.getPos().getColumnNum();
        java.util.regex.Matcher near = java.util.regex.Pattern.compile("Encountered \"(.*?)\"\\s*").matcher(msg.trim());
        if (near.matches()) {
            String token = near.group(1).replaceAll("\\s+", " ");
            return new SqlException(SqlException.SYNTAX, token.equals("<EOF>") ? "syntax error at end of input"
                    : "syntax error at or near \"" + token + "\"", line, col);
        }
        return new SqlException(SqlException.SYNTAX, "syntax error: " + msg.trim(), line, col);
    }

    /** A validation error (the innermost message of {@code e}) as PostgreSQL's error, at Calcite's position. */
    static SqlException validationError(Throwable e) {
        CalciteContextException ctx = null;
        Throwable innermost = e;
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof CalciteContextException c) {
                ctx = c;
            }
            innermost = t;
        }
        String msg = innermost.getMessage() == null ? e.toString() : innermost.getMessage();
        int line = ctx == null ? 0 : ctx.getPosLine();
        int col = ctx == null ? 0 : ctx.getPosColumn();
        java.util.regex.Matcher missing = MISSING_RELATION.matcher(msg);
        if (missing.matches() && dev.tandem.sql.catalog.CatalogQuery.isCatalogRelation(missing.group(2), missing.group(1))) {
            return new SqlException(SqlException.NOT_SUPPORTED, "not supported: " + (missing.group(2) == null ? "" : missing.group(2) + ".")
                    + missing.group(1) + " here: the catalog's relations (pg_catalog, information_schema, tandem_internal) are read by"
                    + " queries that read only them, not in views, SUBSCRIBE, writes or beside tables", line, col);
        }
        for (Map.Entry<String, String> window : WINDOW_CLAUSES.entrySet()) {
            if (msg.startsWith(window.getKey())) {
                return new SqlException(SqlState.WINDOWING_ERROR, window.getValue(), line, col);
            }
        }
        SqlState state = SqlState.SYNTAX_ERROR_OR_ACCESS_RULE_VIOLATION;
        for (Rewrite r : REWRITES) {
            java.util.regex.Matcher m = r.pattern().matcher(msg);
            if (m.matches()) {
                state = r.state();
                msg = r.message() == null ? msg : m.replaceFirst(r.message());
                break;
            }
        }
        return new SqlException(state, msg, line, col);
    }
}
