package dev.tandem.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.calcite.rel.RelRoot;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlDataTypeSpec;
import org.apache.calcite.sql.SqlFunction;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOrderBy;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.fun.SqlCase;


/**
 * Result column names by PostgreSQL's rules: an alias, else a column's name, else a function's name
 * ({@code count}, {@code coalesce}, {@code case}), else {@code ?column?}. Calcite names unnamed
 * expressions {@code EXPR$n}; those get the PostgreSQL name of their select-list item.
 */
final class SqlNames {

    private SqlNames() {
    }

    static List<String> of(SqlNode validated, RelRoot root) {
        SqlSelect select = firstSelect(validated);
        boolean values = select == null && firstValues(validated);
        List<String> out = new ArrayList<>();
        int i = 0;
        for (java.util.Map.Entry<Integer, String> f : root.fields) {
            String name = f.getValue();
            if (name.matches("EXPR\\$\\d+")) {
                SqlNode item = select != null && i < select.getSelectList().size() ? select.getSelectList().get(i) : null;
                name = values ? "column" + (i + 1) : item == null ? "?column?" : derive(item).name();
                if (name.matches("EXPR\\$\\d+")) {
                    // a column of a subquery in FROM that has no name: VALUES' columns are column1..., others ?column?
                    name = select != null && fromValues(select.getFrom()) ? "column" + (Integer.parseInt(name.substring(5)) + 1) : "?column?";
                }
            }
            out.add(name);
            i++;
        }
        return out;
    }

    private static SqlSelect firstSelect(SqlNode n) {
        return switch (n) {
            case SqlSelect s -> s;
            case SqlOrderBy o -> firstSelect(o.query);
            case SqlCall c when c.getKind() == SqlKind.UNION || c.getKind() == SqlKind.EXCEPT || c.getKind() == SqlKind.INTERSECT ->
                    firstSelect(c.operand(0));
            default -> null;
        };
    }

    /** Whether the query is (or starts with) a {@code VALUES} list, whose columns PostgreSQL names column1, column2... */
    private static boolean firstValues(SqlNode n) {
        return switch (n) {
            case SqlOrderBy o -> firstValues(o.query);
            case SqlCall c when c.getKind() == SqlKind.UNION || c.getKind() == SqlKind.EXCEPT || c.getKind() == SqlKind.INTERSECT ->
                    firstValues(c.operand(0));
            case SqlCall c -> c.getKind() == SqlKind.VALUES;
            default -> false;
        };
    }

    private static boolean fromValues(SqlNode from) {
        return switch (from) {
            case null -> false;
            case SqlBasicCall c when c.getKind() == SqlKind.AS -> fromValues(c.operand(0));
            case SqlSelect s -> false;
            case SqlCall c -> c.getKind() == SqlKind.VALUES;
            default -> false;
        };
    }

    /** A derived name and how strongly it holds (PostgreSQL's FigureColname: 2 a column or function name, 1 {@code case} or a type, 0 none). */
    private record Derived(String name, int strength) {
    }

    private static Derived derive(SqlNode item) {
        return switch (item) {
            case SqlIdentifier id -> id.isStar() ? new Derived("?column?", 0) : new Derived(id.names.get(id.names.size() - 1), 2);
            case SqlCase c -> new Derived("case", 1);
            // a typed literal (TIMESTAMP '...', and a CAST of a quoted literal to timestamp, made one before validation)
            case org.apache.calcite.sql.SqlTimestampLiteral l -> new Derived("timestamp", 1);
            case SqlBasicCall c when c.getKind() == SqlKind.AS -> derive(c.operand(1));
            // an aggregate with FILTER or WITHIN GROUP, or a window function, is named by its function
            case SqlCall c when c.getKind() == SqlKind.FILTER || c.getKind() == SqlKind.OVER || c.getKind() == SqlKind.WITHIN_GROUP
                    || c.getKind() == SqlKind.WITHIN_DISTINCT -> derive(c.operand(0));
            case SqlBasicCall c when c.getKind() == SqlKind.CAST -> {
                Derived inner = derive(c.operand(0));
                yield inner.strength() > 1 ? inner : new Derived(typeName(c.operand(1)), 1);
            }
            // an operator or a cast Tandem writes as a function is named as PostgreSQL names the operator (none) or the cast (its type)
            case SqlCall c when c.getOperator() instanceof SqlFunction f && f.getName().startsWith("PG_JSONB_") -> new Derived("?column?", 0);
            case SqlCall c when c.getOperator() instanceof SqlFunction f && (f.getName().equals("PG_INTERVAL") || f.getName().equals("PG_JSONB")
                    || f.getName().equals("PG_TIME")) ->
                    new Derived(f.getName().substring(3).toLowerCase(Locale.ROOT), 1);
            case SqlCall c when c.getOperator() instanceof SqlFunction f && f.getName().equals("PG_BPCHAR") -> {
                Derived inner = derive(((SqlCall) c.operand(0)).operand(0));
                yield inner.strength() > 1 ? inner : new Derived("bpchar", 1);
            }
            case SqlCall c when c.getOperator() instanceof SqlFunction f && f.getName().equals("PG_NUMERIC_FIT") -> {
                Derived inner = derive(((SqlCall) c.operand(0)).operand(0));
                yield inner.strength() > 1 ? inner : new Derived("numeric", 1);
            }
            case SqlCall c when c.getOperator() instanceof SqlFunction f -> new Derived(PgFunctions.writtenName(f.getName()), 2);
            default -> new Derived("?column?", 0);
        };
    }

    /** A type's name as PostgreSQL names a cast's column: its internal name ({@code int8}, {@code float8}, {@code bool}...). */
    private static String typeName(SqlNode n) {
        if (!(n instanceof SqlDataTypeSpec spec)) {
            return "?column?";
        }
        String written = spec.getTypeName().getSimple().toLowerCase(Locale.ROOT);
        return switch (written) {
            case "bigint" -> "int8";
            case "integer", "int" -> "int4";
            case "smallint" -> "int2";
            case "double", "double precision", "float" -> "float8";
            case "real" -> "float4";
            case "boolean" -> "bool";
            case "char", "character" -> "bpchar";
            case "decimal" -> "numeric";
            default -> written;
        };
    }
}
