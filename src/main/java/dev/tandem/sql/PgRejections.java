package dev.tandem.sql;

import dev.tandem.controller.CatalogEntry;
import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlJoin;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlOrderBy;
import org.apache.calcite.sql.util.SqlBasicVisitor;

/**
 * The statements PostgreSQL rejects that Calcite accepts, rejected before validation with PostgreSQL's
 * SQLSTATE: a {@code USING} or {@code NATURAL} join whose common column appears more than once on one
 * side ({@code 42702}) and an {@code ORDER BY} expression over a set operation ({@code 0A000}: only result
 * column names and positions).
 */
final class PgRejections {

    private PgRejections() {
    }

    /** Throws the {@link SqlException} PostgreSQL's error would be, if {@code parsed} is one of these. */
    static void check(SqlNode parsed, List<CatalogEntry> catalog) {
        parsed.accept(new SqlBasicVisitor<Void>() {
            @Override
            public Void visit(SqlCall call) {
                switch (call) {
                    case SqlJoin join -> commonColumns(join, catalog);
                    case SqlOrderBy orderBy -> setOperationOrder(orderBy);
                    default -> {
                    }
                }
                return super.visit(call);
            }
        });
    }

    private static void setOperationOrder(SqlOrderBy orderBy) {
        if (!orderBy.query.isA(SqlKind.SET_QUERY)) {
            return;
        }
        for (SqlNode item : orderBy.orderList) {
            SqlNode key = item;
            while (key instanceof SqlCall c && (c.getKind() == SqlKind.DESCENDING || c.getKind() == SqlKind.NULLS_FIRST
                    || c.getKind() == SqlKind.NULLS_LAST)) {
                key = c.operand(0);
            }
            boolean name = key instanceof SqlIdentifier id && id.isSimple();
            boolean position = key instanceof SqlLiteral;
            if (!name && !position) {
                throw at(new SqlException(SqlException.NOT_SUPPORTED, "invalid UNION/INTERSECT/EXCEPT ORDER BY clause: only result column"
                        + " names can be used, not expressions or functions (add the expression to every SELECT, or move the set operation"
                        + " into a FROM clause)"), key);
            }
        }
    }

    /** For a USING or NATURAL join: each common column must be one column of each side. */
    private static void commonColumns(SqlJoin join, List<CatalogEntry> catalog) {
        boolean natural = join.isNatural();
        boolean using = join.getConditionType() == org.apache.calcite.sql.JoinConditionType.USING;
        if (!natural && !using) {
            return;
        }
        List<String> left = columns(join.getLeft(), catalog);
        List<String> right = columns(join.getRight(), catalog);
        List<String> common = new ArrayList<>();
        if (using) {
            for (SqlNode n : (SqlNodeList) join.getCondition()) {
                common.add(((SqlIdentifier) n).getSimple());
            }
        } else if (left != null && right != null) {
            left.stream().filter(right::contains).distinct().forEach(common::add);
        }
        for (String c : common) {
            for (int side = 0; side < 2; side++) {
                List<String> cols = side == 0 ? left : right;
                if (cols != null && cols.stream().filter(c::equals).count() > 1) {
                    throw at(new SqlException(SqlState.AMBIGUOUS_COLUMN, "common column name \"" + c + "\" appears more than once in "
                            + (side == 0 ? "left" : "right") + " table"), side == 0 ? join.getLeft() : join.getRight());
                }
            }
        }
    }

    /**
     * The column names a FROM item shows, duplicates kept, as PostgreSQL names them; null where they
     * are not known before validation (a subquery, a function), which then is not checked.
     */
    private static List<String> columns(SqlNode from, List<CatalogEntry> catalog) {
        return switch (from) {
            case SqlIdentifier id -> {
                String name = id.names.get(id.names.size() - 1);
                yield catalog.stream().filter(e -> e.name().equals(name) && !(e instanceof CatalogEntry.Index)).findFirst()
                        .map(e -> (List<String>) new ArrayList<>(e.schema().columns().stream().map(dev.tandem.row.Column::name).toList())).orElse(null);
            }
            case SqlBasicCall as when as.getKind() == SqlKind.AS -> {
                List<SqlNode> ops = as.getOperandList();
                if (ops.size() > 2) {
                    List<String> named = new ArrayList<>();
                    for (SqlNode n : ops.subList(2, ops.size())) {
                        named.add(((SqlIdentifier) n).getSimple());
                    }
                    yield named;
                }
                yield columns(ops.get(0), catalog);
            }
            case SqlJoin join -> {
                List<String> l = columns(join.getLeft(), catalog);
                List<String> r = columns(join.getRight(), catalog);
                if (l == null || r == null) {
                    yield null;
                }
                boolean using = join.getConditionType() == org.apache.calcite.sql.JoinConditionType.USING;
                List<String> merged = new ArrayList<>();
                if (using) {
                    for (SqlNode n : (SqlNodeList) join.getCondition()) {
                        merged.add(((SqlIdentifier) n).getSimple());
                    }
                } else if (join.isNatural()) {
                    l.stream().filter(r::contains).distinct().forEach(merged::add);
                }
                // the merged columns once, first; then each side's others
                List<String> out = new ArrayList<>(merged);
                l.stream().filter(c -> !merged.contains(c)).forEach(out::add);
                r.stream().filter(c -> !merged.contains(c)).forEach(out::add);
                yield out;
            }
            default -> null;
        };
    }

    private static SqlException at(SqlException e, SqlNode n) {
        return n.getParserPosition() == null || n.getParserPosition().getLineNum() == 0 ? e
                : e.at(n.getParserPosition().getLineNum(), n.getParserPosition().getColumnNum());
    }
}
