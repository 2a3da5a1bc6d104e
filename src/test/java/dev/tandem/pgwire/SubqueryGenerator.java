package dev.tandem.pgwire;

import java.util.List;
import java.util.Random;

/**
 * Random queries with subqueries in expressions, over the differential test's tables: {@code [NOT] IN},
 * {@code [NOT] EXISTS}, {@code op ANY|ALL}, scalar subqueries in the select list, {@code WHERE} and
 * {@code HAVING}, correlated or not, and nested two deep (each level correlated with the one just out of it:
 * a correlation that skips a level is refused), and outer joins on conditions other than equalities. Scalar subqueries are aggregates (at most one
 * row), so no query depends on when PostgreSQL evaluates them.
 */
final class SubqueryGenerator {

    private static final List<QueryGenerator.Kind> KINDS = List.of(QueryGenerator.Kind.IN_SUBQUERY, QueryGenerator.Kind.EXISTS_SUBQUERY,
            QueryGenerator.Kind.QUANTIFIED_SUBQUERY, QueryGenerator.Kind.SCALAR_SUBQUERY, QueryGenerator.Kind.NESTED_SUBQUERY,
            QueryGenerator.Kind.OUTER_JOIN_ANY_CONDITION);
    private static final List<String> OPS = List.of("=", "<>", "<", "<=", ">", ">=");

    private final Random random;
    private final List<PostgresDifferentialTest.Table> tables;

    SubqueryGenerator(Random random, List<PostgresDifferentialTest.Table> tables) {
        this.random = random;
        this.tables = tables;
    }

    private <T> T pick(List<T> l) {
        return l.get(random.nextInt(l.size()));
    }

    private PostgresDifferentialTest.Table table() {
        return pick(tables);
    }

    QueryGenerator.Query query() {
        QueryGenerator.Kind kind = pick(KINDS);
        PostgresDifferentialTest.Table a = table();
        PostgresDifferentialTest.Table b = table();
        String ax = "a." + pick(a.ints());
        String ay = "a." + pick(a.ints());
        String bz = "b." + pick(b.ints());
        String bw = "b." + pick(b.ints());
        String from = " FROM " + a.name() + " a";
        String select = "SELECT " + ax + ", a." + pick(a.columns());
        String sql = switch (kind) {
            case IN_SUBQUERY -> select + from + " WHERE " + ax + (random.nextBoolean() ? " NOT IN " : " IN ") + "(SELECT " + bz + " FROM "
                    + b.name() + " b" + inner(bw, ay) + ")";
            case EXISTS_SUBQUERY -> select + from + " WHERE " + (random.nextBoolean() ? "NOT " : "") + "EXISTS (SELECT 1 FROM " + b.name()
                    + " b WHERE " + bz + " " + pick(List.of("=", "=", "<")) + " " + ax
                    + (random.nextBoolean() ? " AND " + bw + " " + pick(OPS) + " " + ay : "") + ")";
            case QUANTIFIED_SUBQUERY -> select + from + " WHERE " + ax + " " + pick(OPS) + " " + pick(List.of("ANY", "ALL", "SOME"))
                    + " (SELECT " + bz + " FROM " + b.name() + " b" + inner(bw, ay) + ")";
            case SCALAR_SUBQUERY -> switch (random.nextInt(3)) {
                case 0 -> "SELECT " + ax + ", (SELECT " + aggregate(bz) + " FROM " + b.name() + " b" + inner(bw, ay) + ")" + from;
                case 1 -> select + from + " WHERE " + ax + " " + pick(OPS) + " (SELECT " + pick(List.of("max", "min")) + "(" + bz + ") FROM "
                        + b.name() + " b" + inner(bw, ay) + ")";
                default -> "SELECT " + ax + ", count(*)" + from + " GROUP BY " + ax + " HAVING count(*) " + pick(OPS)
                        + " (SELECT count(*) FROM " + b.name() + " b WHERE " + bw + " = " + ax + ")";
            };
            // PostgreSQL runs a full join only on a condition with an equality (Tandem on any)
            case OUTER_JOIN_ANY_CONDITION -> {
                String join = pick(List.of("LEFT", "RIGHT", "FULL"));
                String on = switch (join.equals("FULL") ? 2 * random.nextInt(2) : random.nextInt(4)) {
                    case 0 -> ax + " = " + bz + " AND " + ay + " " + pick(OPS) + " " + bw;
                    case 1 -> ay + " " + pick(OPS) + " " + bw;
                    case 2 -> ax + " = " + bz + " AND " + ay + " + " + bw + " > 1";
                    default -> ax + " + " + bz + " > 1 AND " + ay + " > 0";
                };
                yield "SELECT " + ax + ", " + bz + ", b." + pick(b.columns()) + " FROM " + a.name() + " a " + join + " JOIN " + b.name()
                        + " b ON " + on;
            }
            default -> {
                PostgresDifferentialTest.Table c = table();
                String cv = "c." + pick(c.ints());
                yield select + from + " WHERE " + ax + " IN (SELECT " + bz + " FROM " + b.name() + " b WHERE "
                        + (random.nextBoolean() ? "NOT " : "") + "EXISTS (SELECT 1 FROM " + c.name() + " c WHERE " + cv + " = " + bw
                        + (random.nextBoolean() ? " AND " + cv + " <> 1" : "") + "))"
                        + (random.nextBoolean() ? " OR " + ay + " > (SELECT count(*) FROM " + c.name() + " c WHERE " + cv + " = " + ay + ")" : "");
            }
        };
        return new QueryGenerator.Query(sql, kind, false);
    }

    /** A subquery's WHERE: none, a correlation on equality or inequality, or a filter of its own. */
    private String inner(String bw, String ay) {
        return switch (random.nextInt(4)) {
            case 0 -> "";
            case 1 -> " WHERE " + bw + " > 0";
            case 2 -> " WHERE " + bw + " " + pick(OPS) + " " + ay;
            default -> " WHERE " + bw + " = " + ay;
        };
    }

    private String aggregate(String c) {
        return pick(List.of("count(*)", "count(" + c + ")", "max(" + c + ")", "min(" + c + ")", "sum(" + c + ")"));
    }
}
