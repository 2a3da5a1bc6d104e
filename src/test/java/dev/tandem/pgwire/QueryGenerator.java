package dev.tandem.pgwire;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** Random queries over generated tables, within the dialect both PostgreSQL and Tandem speak. */
final class QueryGenerator {

    /** A query and whether its ORDER BY fixes the order of its rows. */
    record Query(String sql, boolean ordered) {
    }

    private final Random random;
    private final List<PostgresDifferentialTest.Table> tables;

    QueryGenerator(Random random, List<PostgresDifferentialTest.Table> tables) {
        this.random = random;
        this.tables = tables;
    }

    private <T> T pick(List<T> l) {
        return l.get(random.nextInt(l.size()));
    }

    private PostgresDifferentialTest.Table table() {
        return pick(tables);
    }

    Query query() {
        return switch (random.nextInt(9)) {
            case 0, 1 -> filter();
            case 2 -> join();
            case 3 -> groupBy();
            case 4 -> distinct();
            case 5 -> ordered();
            case 6 -> setOp();
            case 7 -> subquery();
            default -> expressions();
        };
    }

    /** An int expression over a qualified int column. */
    private String intExpr(String q, PostgresDifferentialTest.Table t) {
        String c = q + pick(t.ints());
        return switch (random.nextInt(7)) {
            case 0 -> c + " + " + (random.nextInt(5) - 2);
            case 1 -> c + " * " + (random.nextInt(4) - 1);
            case 2 -> "COALESCE(" + c + ", " + (random.nextInt(5) - 2) + ")";
            case 3 -> "CASE WHEN " + c + " > " + (random.nextInt(3) - 1) + " THEN " + c + " ELSE " + (random.nextInt(9) - 4) + " END";
            case 4 -> c + " - " + q + pick(t.ints());
            case 5 -> "abs(" + c + ")";
            default -> c;
        };
    }

    private String predicate(String q, PostgresDifferentialTest.Table t) {
        String p = switch (random.nextInt(8)) {
            case 0 -> q + pick(t.ints()) + " IS NULL";
            case 1 -> q + pick(t.ints()) + " IS NOT NULL";
            case 2 -> q + pick(t.ints()) + " IN (" + (random.nextInt(5) - 2) + ", " + (random.nextInt(5) - 2) + ")";
            case 3 -> !t.texts().isEmpty() ? q + pick(t.texts()) + " " + pick(List.of("=", "<>", "<", ">=")) + " '" + pick(List.of("a", "ab", "bca", "c")) + "'"
                    : q + pick(t.ints()) + " <> 0";
            case 4 -> "NOT (" + q + pick(t.ints()) + " < " + (random.nextInt(5) - 2) + ")";
            case 5 -> q + pick(t.ints()) + " BETWEEN " + (random.nextInt(3) - 2) + " AND " + random.nextInt(4);
            default -> intExpr(q, t) + " " + pick(List.of("=", "<>", "<", "<=", ">", ">=")) + " " + (random.nextInt(7) - 3);
        };
        if (random.nextInt(4) == 0) {
            return "(" + p + ") " + pick(List.of("AND", "OR")) + " (" + predicate(q, t) + ")";
        }
        return p;
    }

    private Query filter() {
        PostgresDifferentialTest.Table t = table();
        List<String> cols = new ArrayList<>();
        int n = 1 + random.nextInt(3);
        for (int i = 0; i < n; i++) {
            cols.add(random.nextBoolean() ? intExpr("", t) : pick(t.columns()));
        }
        return new Query("SELECT " + String.join(", ", cols) + " FROM " + t.name() + (random.nextInt(5) > 0 ? " WHERE " + predicate("", t) : ""), false);
    }

    private Query join() {
        PostgresDifferentialTest.Table a = table();
        PostgresDifferentialTest.Table b = table();
        String kind = pick(List.of("JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "INNER JOIN", "LEFT OUTER JOIN"));
        String on = "a." + pick(a.ints()) + " = b." + pick(b.ints());
        if (random.nextInt(3) == 0) {
            on += " AND a." + pick(a.ints()) + " = b." + pick(b.ints());
        }
        if (kind.startsWith("LEFT") && random.nextInt(3) == 0) {
            on += " AND b." + pick(b.ints()) + " > " + (random.nextInt(3) - 1);
        }
        String select = "a." + pick(a.columns()) + ", b." + pick(b.columns()) + (random.nextBoolean() ? ", " + intExpr("a.", a) : "");
        String where = random.nextInt(3) == 0 ? " WHERE " + predicate("a.", a) : "";
        return new Query("SELECT " + select + " FROM " + a.name() + " a " + kind + " " + b.name() + " b ON " + on + where, false);
    }

    private Query groupBy() {
        PostgresDifferentialTest.Table t = table();
        String key = pick(t.columns());
        String v = pick(t.ints());
        List<String> aggs = new ArrayList<>();
        List<String> all = List.of("count(*)", "count(" + v + ")", "sum(" + v + ")", "min(" + v + ")", "max(" + v + ")", "avg(" + v + ")",
                "max(" + pick(t.columns()) + ")");
        int n = 1 + random.nextInt(3);
        for (int i = 0; i < n; i++) {
            aggs.add(pick(all));
        }
        boolean grouped = random.nextInt(4) > 0;
        String having = grouped && random.nextBoolean() ? " HAVING count(*) " + pick(List.of(">", "=", "<")) + " " + (1 + random.nextInt(2)) : "";
        String where = random.nextInt(3) == 0 ? " WHERE " + predicate("", t) : "";
        return new Query("SELECT " + (grouped ? key + ", " : "") + String.join(", ", aggs) + " FROM " + t.name() + where
                + (grouped ? " GROUP BY " + key : "") + having, false);
    }

    private Query distinct() {
        PostgresDifferentialTest.Table t = table();
        return new Query("SELECT DISTINCT " + pick(t.columns()) + (random.nextBoolean() ? ", " + intExpr("", t) : "") + " FROM " + t.name(), false);
    }

    private Query ordered() {
        PostgresDifferentialTest.Table t = table();
        List<String> cols = t.columns();
        List<String> order = new ArrayList<>();
        for (String c : cols) {
            order.add(c + (random.nextBoolean() ? " DESC" : "") + (random.nextInt(4) == 0 ? pick(List.of(" NULLS FIRST", " NULLS LAST")) : ""));
        }
        java.util.Collections.shuffle(order, random);
        String limit = random.nextBoolean() ? " LIMIT " + random.nextInt(6) : "";
        String offset = random.nextInt(3) == 0 ? " OFFSET " + random.nextInt(4) : "";
        return new Query("SELECT " + String.join(", ", cols) + " FROM " + t.name() + " ORDER BY " + String.join(", ", order) + limit + offset, true);
    }

    private Query setOp() {
        PostgresDifferentialTest.Table a = table();
        PostgresDifferentialTest.Table b = table();
        String op = pick(List.of("UNION", "UNION ALL", "EXCEPT ALL", "EXCEPT", "INTERSECT", "INTERSECT ALL"));
        String left = "SELECT " + pick(a.ints()) + " FROM " + a.name() + (random.nextBoolean() ? " WHERE " + predicate("", a) : "");
        String right = "SELECT " + pick(b.ints()) + " FROM " + b.name() + (random.nextBoolean() ? " WHERE " + predicate("", b) : "");
        return new Query(left + " " + op + " " + right, false);
    }

    private Query subquery() {
        PostgresDifferentialTest.Table t = table();
        String key = pick(t.ints());
        String v = pick(t.ints());
        String inner = "SELECT " + key + " AS k, count(*) AS n, sum(" + v + ") AS total FROM " + t.name() + " GROUP BY " + key;
        String outer = switch (random.nextInt(3)) {
            case 0 -> "SELECT k, n FROM (" + inner + ") AS g WHERE n > 1";
            case 1 -> "SELECT g.k, g.total, u." + pick(tables.get(0).columns()) + " FROM (" + inner + ") AS g LEFT JOIN "
                    + tables.get(0).name() + " u ON g.k = u." + pick(tables.get(0).ints());
            default -> "SELECT max(total), count(*) FROM (" + inner + ") AS g";
        };
        return new Query(outer, false);
    }

    private Query expressions() {
        PostgresDifferentialTest.Table t = table();
        String c = pick(t.ints());
        String d = pick(t.ints());
        List<String> exprs = List.of(
                "CASE WHEN " + c + " IS NULL THEN 'none' WHEN " + c + " > 0 THEN 'pos' ELSE 'other' END",
                "COALESCE(" + c + ", " + d + ", 0)",
                c + " = " + d,
                c + " < " + d + " OR " + d + " IS NULL",
                "NOT (" + c + " > 1)",
                c + " % 3",
                c + " / 2",
                "-" + c);
        return new Query("SELECT " + pick(exprs) + ", " + pick(exprs) + " FROM " + t.name(), false);
    }
}
