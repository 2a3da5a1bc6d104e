package dev.tandem.sql;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import org.apache.calcite.sql.JoinType;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlJoin;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlOrderBy;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.SqlSetOperator;
import org.apache.calcite.sql.SqlWith;
import org.apache.calcite.sql.SqlWithItem;
import org.apache.calcite.sql.util.SqlBasicVisitor;

/**
 * A query with recursive {@code WITH} items split into queries Calcite plans without recursion: each recursive
 * item's non-recursive term and recursive term, and the main query, each over the catalog and the work tables of
 * the recursive items before it (a recursive term over its own item's too), under the item's plain
 * {@code WITH} items. PostgreSQL's rules for the form of a recursive item are checked here ({@code 42P19}).
 */
final class RecursiveWith {

    /** One recursive item: its work table, its two terms, and whether they are combined by {@code UNION ALL} (else {@code UNION}). */
    record Item(CalcitePlanner.WorkTable table, SqlEngine.Query seed, SqlEngine.Query step, boolean all) {
    }

    /** The recursive items in order, the main query over their work tables, and the catalog objects all of them read. */
    record Planned(List<Item> items, SqlEngine.Query main, Set<String> reads) {
    }

    private RecursiveWith() {
    }

    /** Whether {@code parsed} holds a {@code WITH RECURSIVE} item that reads itself. */
    static boolean isRecursive(SqlNode parsed) {
        return recursiveItems(parsed) > 0;
    }

    private static int recursiveItems(SqlNode parsed) {
        int[] found = {0};
        parsed.accept(new SqlBasicVisitor<Void>() {
            @Override
            public Void visit(SqlCall call) {
                if (call instanceof SqlWithItem item && recursive(item)) {
                    found[0]++;
                }
                return super.visit(call);
            }
        });
        return found[0];
    }

    /** Marks, in place, every item of a {@code WITH RECURSIVE} in {@code parsed} that does not read itself as a plain item. */
    static void plainItems(SqlNode parsed) {
        List<SqlWith> withs = new ArrayList<>();
        parsed.accept(new SqlBasicVisitor<Void>() {
            @Override
            public Void visit(SqlCall call) {
                if (call instanceof SqlWith w) {
                    withs.add(w);
                }
                return super.visit(call);
            }
        });
        for (SqlWith w : withs) {
            for (int i = 0; i < w.withList.size(); i++) {
                if (w.withList.get(i) instanceof SqlWithItem item && item.recursive != null && item.recursive.booleanValue() && !recursive(item)) {
                    w.withList.set(i, new SqlWithItem(item.getParserPosition(), item.name, item.columnList, item.query,
                            SqlLiteral.createBoolean(false, item.getParserPosition())));
                }
            }
        }
    }

    private static boolean recursive(SqlWithItem item) {
        return item.recursive != null && item.recursive.booleanValue() && references(item.query, item.name.getSimple()) > 0;
    }

    /**
     * Plans the query {@code parse} parses (a fresh tree each call: Calcite's validation changes the tree it
     * validates), each part by {@code planner} over the work tables given it.
     */
    static Planned plan(Supplier<SqlNode> parse, BiFunction<SqlNode, List<CalcitePlanner.WorkTable>, SqlEngine.Query> planner) {
        SqlNode parsed = parse.get();
        SqlWith with = topWith(parsed);
        int top = 0;
        if (with != null) {
            for (SqlNode n : with.withList) {
                top += recursive((SqlWithItem) n) ? 1 : 0;
            }
        }
        if (with == null || top != recursiveItems(parsed)) {
            throw SqlException.notSupported("WITH RECURSIVE inside a subquery (a recursive WITH is supported at the top of a SELECT)");
        }
        List<CalcitePlanner.WorkTable> tables = new ArrayList<>();
        List<Item> items = new ArrayList<>();
        List<Integer> plain = new ArrayList<>();
        Set<String> reads = new HashSet<>();
        for (int i = 0; i < with.withList.size(); i++) {
            SqlWithItem item = (SqlWithItem) with.withList.get(i);
            if (!recursive(item)) {
                plain.add(i);
                continue;
            }
            String name = item.name.getSimple();
            SqlCall union = terms(item, name);
            int index = i;
            List<Integer> before = List.copyOf(plain);
            SqlEngine.Query seed = planner.apply(term(parse.get(), index, before, 0), List.copyOf(tables));
            List<String> columns = new ArrayList<>();
            List<dev.tandem.row.DatumType> types = new ArrayList<>();
            List<dev.tandem.controller.DeclaredType> declared = new ArrayList<>();
            if (item.columnList != null && item.columnList.size() != seed.columns().size()) {
                throw new SqlException(SqlState.INVALID_COLUMN_REFERENCE, "WITH query \"" + name + "\" has " + seed.columns().size()
                        + " columns available but " + item.columnList.size() + " columns specified");
            }
            for (int c = 0; c < seed.columns().size(); c++) {
                SqlColumn col = seed.columns().get(c);
                columns.add(item.columnList != null ? ((SqlIdentifier) item.columnList.get(c)).getSimple() : col.name());
                types.add(col.type());
                declared.add(col.declared());
            }
            CalcitePlanner.WorkTable table = new CalcitePlanner.WorkTable(name, columns, types, declared);
            List<CalcitePlanner.WorkTable> withOwn = new ArrayList<>();
            for (CalcitePlanner.WorkTable t : tables) {
                if (!t.name().equals(name)) {
                    withOwn.add(t);
                }
            }
            withOwn.add(table);
            SqlEngine.Query step = planner.apply(term(parse.get(), index, before, 1), List.copyOf(withOwn));
            if (step.columns().size() != types.size()) {
                throw new SqlException(SqlState.SYNTAX_ERROR, "each UNION query must have the same number of columns");
            }
            for (int c = 0; c < types.size(); c++) {
                SqlColumn was = seed.columns().get(c);
                SqlColumn is = step.columns().get(c);
                if (is.type() != was.type() || !java.util.Objects.equals(is.declared(), was.declared())) {
                    throw new SqlException(SqlState.DATATYPE_MISMATCH, "recursive query \"" + name + "\" column " + (c + 1) + " has type "
                            + typeName(was) + " in non-recursive term but type " + typeName(is) + " overall");
                }
            }
            reads.addAll(QueryPlanner.scanned(seed.body()));
            reads.addAll(QueryPlanner.scanned(step.body()));
            items.add(new Item(table, seed, step, ((SqlSetOperator) union.getOperator()).isAll()));
            tables = withOwn;
        }
        SqlEngine.Query main = planner.apply(main(parse.get(), plain), List.copyOf(tables));
        reads.addAll(QueryPlanner.scanned(main.body()));
        for (CalcitePlanner.WorkTable t : tables) {
            reads.remove(t.name());
        }
        return new Planned(List.copyOf(items), main, Set.copyOf(reads));
    }

    /** The name of a column's type, as PostgreSQL names it in its errors. */
    private static String typeName(SqlColumn c) {
        if (c.type() == dev.tandem.row.DatumType.INT64) {
            return c.declared() == dev.tandem.controller.DeclaredType.INTEGER ? "integer"
                    : c.declared() == dev.tandem.controller.DeclaredType.SMALLINT ? "smallint" : "bigint";
        }
        return c.type().name().toLowerCase(java.util.Locale.ROOT);
    }

    /** The top-level {@code WITH} of a query (under its {@code ORDER BY} and {@code LIMIT}), or null. */
    private static SqlWith topWith(SqlNode n) {
        if (n instanceof SqlWith w) {
            return w;
        }
        if (n instanceof SqlOrderBy o && o.query instanceof SqlWith w) {
            return w;
        }
        return null;
    }

    /** The {@code UNION [ALL]} of a recursive item, checked for PostgreSQL's form of its terms. */
    private static SqlCall terms(SqlWithItem item, String name) {
        if (item.query instanceof SqlOrderBy) {
            throw SqlException.notSupported("ORDER BY, LIMIT or OFFSET in a recursive query");
        }
        if (!(item.query instanceof SqlCall union) || union.getKind() != SqlKind.UNION || union.operandCount() != 2) {
            throw new SqlException(SqlState.INVALID_RECURSION, "recursive query \"" + name
                    + "\" does not have the form non-recursive-term UNION [ALL] recursive-term");
        }
        if (references(union.operand(0), name) > 0) {
            throw new SqlException(SqlState.INVALID_RECURSION, "recursive reference to query \"" + name
                    + "\" must not appear within its non-recursive term");
        }
        SqlNode right = union.operand(1);
        if (references(right, name) > 1) {
            throw new SqlException(SqlState.INVALID_RECURSION, "recursive reference to query \"" + name + "\" must not appear more than once");
        }
        if (!(right instanceof SqlSelect select)) {
            throw SqlException.notSupported("a recursive term that is not a single SELECT");
        }
        if (direct(select.getFrom(), name, true) != 1) {
            throw new SqlException(SqlState.INVALID_RECURSION, "recursive reference to query \"" + name + "\" must not appear within a subquery");
        }
        boolean[] aggregates = {select.getGroup() != null && !select.getGroup().isEmpty() || select.getHaving() != null};
        select.getSelectList().accept(new SqlBasicVisitor<Void>() {
            @Override
            public Void visit(SqlCall call) {
                if (call instanceof SqlSelect) {
                    return null;
                }
                if (call.getOperator().isAggregator() || call.getKind() == SqlKind.OVER
                        || AGGREGATES.contains(call.getOperator().getName().toLowerCase(java.util.Locale.ROOT))) {
                    aggregates[0] = true;
                }
                return super.visit(call);
            }
        });
        if (aggregates[0]) {
            throw new SqlException(SqlState.INVALID_RECURSION, "aggregate functions are not allowed in a recursive query's recursive term");
        }
        return union;
    }

    /** The aggregate functions by name (the parser leaves most calls unresolved until validation). */
    private static final Set<String> AGGREGATES = Set.of("count", "sum", "min", "max", "avg", "array_agg", "string_agg", "bool_and",
            "bool_or", "every", "stddev", "stddev_pop", "stddev_samp", "variance", "var_pop", "var_samp", "jsonb_agg", "jsonb_object_agg");

    /** How many times the queries in {@code node} read {@code name} in their {@code FROM} clauses. */
    static int references(SqlNode node, String name) {
        if (node == null) {
            return 0;
        }
        int[] n = {0};
        node.accept(new SqlBasicVisitor<Void>() {
            @Override
            public Void visit(SqlCall call) {
                if (call instanceof SqlSelect s && s.getFrom() != null) {
                    n[0] += direct(s.getFrom(), name, false);
                }
                return super.visit(call);
            }
        });
        return n[0];
    }

    /**
     * How many times {@code from} reads {@code name} itself, through joins, aliases and (when {@code nested})
     * subqueries in {@code FROM}; with {@code nested}, a read on the side of an outer join that may be NULL is
     * refused as PostgreSQL refuses it.
     */
    private static int direct(SqlNode from, String name, boolean nested) {
        return switch (from) {
            case null -> 0;
            case SqlIdentifier id -> id.isSimple() && id.getSimple().equals(name) ? 1 : 0;
            case SqlJoin join -> {
                int left = direct(join.getLeft(), name, nested);
                int right = direct(join.getRight(), name, nested);
                JoinType type = join.getJoinType();
                if (nested && (right > 0 && (type == JoinType.LEFT || type == JoinType.FULL)
                        || left > 0 && (type == JoinType.RIGHT || type == JoinType.FULL))) {
                    throw new SqlException(SqlState.INVALID_RECURSION, "recursive reference to query \"" + name
                            + "\" must not appear within an outer join");
                }
                yield left + right;
            }
            case SqlBasicCall call when call.getKind() == SqlKind.AS -> direct(call.operand(0), name, nested);
            case SqlSelect select when nested -> direct(select.getFrom(), name, true);
            default -> 0;
        };
    }

    /** Term {@code term} (0: the non-recursive, 1: the recursive) of item {@code index} of a fresh parse, under the plain items {@code before}. */
    private static SqlNode term(SqlNode fresh, int index, List<Integer> before, int term) {
        SqlWith with = topWith(fresh);
        SqlWithItem item = (SqlWithItem) with.withList.get(index);
        return plainWith(with, before, ((SqlCall) item.query).operand(term));
    }

    /** The main query of a fresh parse, under its plain items {@code plain}. */
    private static SqlNode main(SqlNode fresh, List<Integer> plain) {
        SqlWith with = topWith(fresh);
        SqlNode body = plainWith(with, plain, with.body);
        if (fresh instanceof SqlOrderBy o) {
            return new SqlOrderBy(o.getParserPosition(), body, o.orderList, o.offset, o.fetch);
        }
        return body;
    }

    /** {@code body} under the items {@code keep} of {@code with} ({@code body} itself when there are none). */
    private static SqlNode plainWith(SqlWith with, List<Integer> keep, SqlNode body) {
        if (keep.isEmpty()) {
            return body;
        }
        SqlNodeList list = new SqlNodeList(with.withList.getParserPosition());
        for (int i : keep) {
            SqlWithItem item = (SqlWithItem) with.withList.get(i);
            list.add(new SqlWithItem(item.getParserPosition(), item.name, item.columnList, item.query,
                    SqlLiteral.createBoolean(false, item.getParserPosition())));
        }
        return new SqlWith(with.getParserPosition(), list, body);
    }
}
