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
        List<String> out = new ArrayList<>();
        int i = 0;
        for (java.util.Map.Entry<Integer, String> f : root.fields) {
            String name = f.getValue();
            if (name.matches("EXPR\\$\\d+")) {
                SqlNode item = select != null && i < select.getSelectList().size() ? select.getSelectList().get(i) : null;
                name = item == null ? "?column?" : derive(item);
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

    private static String derive(SqlNode item) {
        return switch (item) {
            case SqlIdentifier id -> id.isStar() ? "?column?" : id.names.get(id.names.size() - 1);
            case SqlCase c -> "case";
            case SqlBasicCall c when c.getKind() == SqlKind.AS -> derive(c.operand(1));
            case SqlBasicCall c when c.getKind() == SqlKind.CAST -> c.operand(0) instanceof SqlIdentifier || c.operand(0) instanceof SqlCall
                    ? derive(c.operand(0)) : typeName(c.operand(1));
            case SqlCall c when c.getOperator() instanceof SqlFunction f -> f.getName().toLowerCase(Locale.ROOT);
            default -> "?column?";
        };
    }

    private static String typeName(SqlNode n) {
        return n instanceof SqlDataTypeSpec spec ? spec.getTypeName().getSimple().toLowerCase(Locale.ROOT) : "?column?";
    }
}
