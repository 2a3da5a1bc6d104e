package dev.tandem.pgwire;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** Random queries over generated tables, within the dialect both PostgreSQL and Tandem speak. */
final class QueryGenerator {

    /** The shapes of query generated; the differential test asserts each was compared, most with rows. */
    enum Kind {
        FILTER, JOIN, OUTER_JOIN_ANTI, GROUP_BY, JOIN_GROUP_BY, DISTINCT, ORDERED, ORDERED_AGGREGATE, SET_OP, SET_OP_TWO_COLUMNS,
        SUBQUERY, EXPRESSIONS, TEXT, LOOKUP, EMPTY_AGGREGATE,
        /** PostgreSQL's {@code x::type} casts, drawn from the dialect's own stream. */
        CAST,
        /** {@code [NOT] LIKE} and {@code [NOT] ILIKE}, with and without {@code ESCAPE}, in filters and select lists. */
        LIKE,
        /** {@code count}, {@code sum} and {@code avg} of {@code DISTINCT} values, beside aggregates of all rows, grouped or not. */
        DISTINCT_AGGREGATE,
        /** Writes ({@link #write}): applied to both databases, then the written table compared. */
        WRITE,
        /** Subqueries in expressions ({@link SubqueryGenerator}): {@code [NOT] IN (SELECT ...)}, correlated or not. */
        IN_SUBQUERY,
        /** {@code [NOT] EXISTS}, correlated on an equality or an inequality. */
        EXISTS_SUBQUERY,
        /** {@code op ANY|SOME|ALL (SELECT ...)}. */
        QUANTIFIED_SUBQUERY,
        /** Scalar (aggregate) subqueries in the select list, WHERE and HAVING. */
        SCALAR_SUBQUERY,
        /** A subquery inside a subquery, each correlated with the level out of it. */
        NESTED_SUBQUERY,
        /** Left, right and full joins on inequalities, expressions and conditions on one side. */
        OUTER_JOIN_ANY_CONDITION,
        /** {@code [NOT] SIMILAR TO}, with and without {@code ESCAPE}, in filters and select lists, drawn from {@link #later}. */
        SIMILAR,
        /** {@code a % b} and {@code mod(a, b)} of bigints, integers and smallints, drawn from {@link #later}. */
        REMAINDER,
        /**
         * Joins of three or four inputs, listed with commas or as {@code JOIN ... ON}: equalities between them in any
         * order, filters of one input, conditions across inputs, inputs no equality connects; drawn from {@link #joins}.
         */
        MULTI_JOIN
    }

    /** The kinds {@link #mainQuery} draws from {@link #random}, as before the dialect's kinds were added. */
    private static final List<Kind> MAIN = List.of(Kind.FILTER, Kind.JOIN, Kind.OUTER_JOIN_ANTI, Kind.GROUP_BY, Kind.JOIN_GROUP_BY,
            Kind.DISTINCT, Kind.ORDERED, Kind.ORDERED_AGGREGATE, Kind.SET_OP, Kind.SET_OP_TWO_COLUMNS, Kind.SUBQUERY, Kind.EXPRESSIONS,
            Kind.TEXT, Kind.LOOKUP, Kind.EMPTY_AGGREGATE);

    /** The kinds {@link #dialectQuery} draws from {@link #dialect}. */
    private static final List<Kind> DIALECT = List.of(Kind.CAST, Kind.LIKE, Kind.DISTINCT_AGGREGATE);

    /** A query, its parameters ({@code ?} in the text, bound through a prepared statement), its kind and whether its ORDER BY fixes the order of its rows. */
    record Query(String sql, List<Object> params, Kind kind, boolean ordered) {
        Query(String sql, Kind kind, boolean ordered) {
            this(sql, List.of(), kind, ordered);
        }
    }

    private final Random random;
    /** Draws the cases added for PostgreSQL's numeric and float8 semantics, so {@link #random} draws what it drew before. */
    private final Random extra;
    /** Draws the dialect's kinds (casts, LIKE, DISTINCT aggregates), so {@link #random} and {@link #extra} draw what they drew before. */
    private final Random dialect;
    /** Draws the kinds added after the dialect's (SIMILAR TO, remainders), so the other streams draw what they drew before. */
    private final Random later;
    /** Draws the joins of several inputs ({@link Kind#MULTI_JOIN}), so the other streams draw what they drew before. */
    private final Random joins;
    private final List<PostgresDifferentialTest.Table> tables;
    private final SubqueryGenerator subqueries;

    QueryGenerator(Random random, Random extra, Random dialect, Random shapes, Random later, Random joins,
            List<PostgresDifferentialTest.Table> tables) {
        this.random = random;
        this.extra = extra;
        this.dialect = dialect;
        this.later = later;
        this.joins = joins;
        this.tables = tables;
        this.subqueries = new SubqueryGenerator(shapes, tables);
    }

    private <T> T pick(List<T> l) {
        return l.get(random.nextInt(l.size()));
    }

    private static <T> T pick(Random random, List<T> l) {
        return l.get(random.nextInt(l.size()));
    }

    private PostgresDifferentialTest.Table table() {
        return pick(tables);
    }

    Query query() {
        Query q = mainQuery();
        Query f = extra.nextInt(5) == 0 ? floatQuery(q.kind()) : null;
        Query d = dialect.nextInt(4) == 0 ? dialectQuery(pick(dialect, DIALECT)) : null;
        if (later.nextInt(6) == 0) {
            return later.nextBoolean() ? similar() : remainder();
        }
        return d != null ? d : f != null ? f : q;
    }

    /**
     * A join of three or four inputs (tables of {@code among}, one may stand twice), from {@link #joins}: a chain of equalities between
     * them in a shuffled order, each written in WHERE or in a JOIN's ON; of three inputs, one equality may be left out
     * (a cross product); filters of single inputs, and a condition across two.
     */
    Query multiJoin(List<PostgresDifferentialTest.Table> among) {
        int n = joins.nextInt(3) == 0 ? 4 : 3;
        List<PostgresDifferentialTest.Table> ts = new ArrayList<>();
        List<String> aliases = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ts.add(pick(joins, among));
            aliases.add("j" + i);
        }
        List<String> where = new ArrayList<>();
        List<List<String>> on = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            on.add(new ArrayList<>());
        }
        List<Integer> chain = new ArrayList<>(List.of(0, 1, 2, 3).subList(0, n));
        java.util.Collections.shuffle(chain, joins);
        int skipped = n == 3 && joins.nextInt(3) == 0 ? 1 + joins.nextInt(2) : -1;
        for (int e = 1; e < n; e++) {
            if (e == skipped) {
                continue;
            }
            int a = chain.get(e - 1);
            int b = chain.get(e);
            String eq = aliases.get(b) + "." + pick(joins, ts.get(b).ints()) + " = " + aliases.get(a) + "." + pick(joins, ts.get(a).ints());
            // an ON may only name inputs before it: the later of the two
            if (joins.nextBoolean()) {
                where.add(eq);
            } else {
                on.get(Math.max(a, b)).add(eq);
            }
        }
        for (int i = 0; i < n; i++) {
            if (joins.nextInt(5) == 0) {
                String c = aliases.get(i) + "." + pick(joins, ts.get(i).ints());
                where.add(switch (joins.nextInt(4)) {
                    case 0 -> c + " IS NOT NULL";
                    case 1 -> c + " > " + (joins.nextInt(3) - 3);
                    case 2 -> c + " IN (" + (joins.nextInt(3) - 1) + ", " + (joins.nextInt(3) + 1) + ")";
                    default -> c + " <> " + (joins.nextInt(3) - 1);
                });
            }
        }
        if (joins.nextInt(4) == 0) {
            int a = joins.nextInt(n);
            int b = (a + 1 + joins.nextInt(n - 1)) % n;
            where.add(aliases.get(a) + "." + pick(joins, ts.get(a).ints()) + " <= " + aliases.get(b) + "." + pick(joins, ts.get(b).ints()) + " + 2");
        }
        // with an ON, the inputs are all joined with JOIN (a comma would hide the inputs before it from the ON)
        boolean anyOn = on.stream().anyMatch(l -> !l.isEmpty());
        StringBuilder from = new StringBuilder(ts.get(0).name() + " " + aliases.get(0));
        for (int i = 1; i < n; i++) {
            String item = ts.get(i).name() + " " + aliases.get(i);
            from.append(!on.get(i).isEmpty() ? " JOIN " + item + " ON " + String.join(" AND ", on.get(i)) : anyOn ? " CROSS JOIN " + item : ", " + item);
        }
        List<String> select = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            if (i < 2 || joins.nextBoolean()) {
                select.add(aliases.get(i) + "." + pick(joins, ts.get(i).columns()));
            }
        }
        if (joins.nextBoolean()) {
            select.add(intExpr(aliases.get(n - 1) + ".", ts.get(n - 1), joins));
        }
        return new Query("SELECT " + String.join(", ", select) + " FROM " + from + (where.isEmpty() ? "" : " WHERE " + String.join(" AND ", where)),
                Kind.MULTI_JOIN, false);
    }

    /** A SIMILAR TO of a text column (or an integer written as text) against a pattern, from {@link #later}. */
    private Query similar() {
        PostgresDifferentialTest.Table t = pick(later, tables);
        String i = pick(later, t.ints());
        String s = t.texts().isEmpty() ? "CAST(" + i + " AS text)" : pick(later, t.texts());
        List<String> patterns = t.texts().isEmpty() ? List.of("'1|2'", "'-?[0-9]+'", "'(1|-1)%'", "'_'", "'[0-2]*'", "'%2'")
                : List.of("'a%'", "'%b'", "'ab|bc%'", "'(a|b)+'", "'a_c'", "'[ab]%'", "'[^a]%'", "'a*b*c*'", "'(ab){1,2}'", "'ab?c?'",
                        "'%(ca|bc)%'", "'_b%'", "'c{1}a+b?'", "'%'");
        List<String> predicates = new ArrayList<>();
        for (int n = 0; n < 2; n++) {
            String op = later.nextInt(3) == 0 ? "NOT SIMILAR TO" : "SIMILAR TO";
            String pattern = pick(later, patterns);
            String escape = later.nextInt(5) == 0 ? " ESCAPE '#'" : "";
            predicates.add(s + " " + op + " " + pattern + escape);
        }
        if (later.nextBoolean()) {
            return new Query("SELECT " + i + ", " + s + " FROM " + t.name() + " WHERE " + predicates.get(0)
                    + (later.nextBoolean() ? " " + pick(later, List.of("AND", "OR")) + " " + predicates.get(1) : ""), Kind.SIMILAR, false);
        }
        return new Query("SELECT " + s + ", " + predicates.get(0) + ", " + predicates.get(1) + " FROM " + t.name(), Kind.SIMILAR, false);
    }

    /**
     * Remainders of integer columns (bigint, or narrowed to integer or smallint) by constants and by other columns (never zero:
     * NULLIF), in the select list and the filter, from {@link #later}.
     */
    private Query remainder() {
        PostgresDifferentialTest.Table t = pick(later, tables);
        List<String> operands = new ArrayList<>();
        for (String c : t.ints()) {
            operands.add(c);
            // (narrowed by a remainder first: a column may hold 2^53, beyond integer's range)
            operands.add("(" + c + " % 1000)::int");
            operands.add("(" + c + " % 100)::smallint");
        }
        List<String> items = new ArrayList<>();
        for (int n = 0, k = 1 + later.nextInt(3); n < k; n++) {
            String a = pick(later, operands);
            String b = later.nextBoolean() ? pick(later, List.of("2", "3", "-3", "2::smallint", "5::int")) : "NULLIF(" + pick(later, operands) + ", 0)";
            items.add(later.nextBoolean() ? a + " % " + b : "mod(" + a + ", " + b + ")");
        }
        String where = later.nextInt(3) == 0 ? " WHERE " + pick(later, t.ints()) + " % 2 = " + (later.nextInt(3) - 1) : "";
        return new Query("SELECT " + String.join(", ", items) + " FROM " + t.name() + where, Kind.REMAINDER, false);
    }

    /** A query of the shapes {@link SubqueryGenerator} draws, from its own stream. */
    Query shapeQuery() {
        return subqueries.query();
    }

    private Query dialectQuery(Kind kind) {
        return switch (kind) {
            case CAST -> cast();
            case LIKE -> like();
            case DISTINCT_AGGREGATE -> distinctAggregate();
            default -> throw new IllegalArgumentException(kind.name());
        };
    }

    /** A write applied to both databases, then its table compared: {@link Kind#WRITE}. */
    record Write(String sql, String table) {
    }

    /**
     * An INSERT with a column list (some columns left out, now and then DEFAULT), an INSERT ... SELECT
     * from another table, an UPDATE of one or two columns, or a DELETE, drawn from the dialect's stream.
     */
    Write write() {
        PostgresDifferentialTest.Table t = pick(dialect, tables);
        List<String> cols = new ArrayList<>(t.columns());
        java.util.Collections.shuffle(cols, dialect);
        List<String> named = cols.subList(0, 1 + dialect.nextInt(cols.size()));
        String sql = switch (dialect.nextInt(5)) {
            case 0, 1 -> {
                List<String> rows = new ArrayList<>();
                for (int r = 0, n = 1 + dialect.nextInt(3); r < n; r++) {
                    List<String> vals = new ArrayList<>();
                    for (String c : named) {
                        vals.add(dialect.nextInt(8) == 0 ? "DEFAULT" : value(c));
                    }
                    rows.add("(" + String.join(", ", vals) + ")");
                }
                yield "INSERT INTO " + t.name() + " (" + String.join(", ", named) + ") VALUES " + String.join(", ", rows);
            }
            case 2 -> {
                PostgresDifferentialTest.Table from = pick(dialect, tables);
                List<String> exprs = new ArrayList<>();
                for (String c : named) {
                    List<String> same = from.columns().stream().filter(x -> x.charAt(0) == c.charAt(0)).toList();
                    exprs.add(same.isEmpty() || dialect.nextInt(4) == 0 ? value(c)
                            : c.startsWith("i") && dialect.nextBoolean() ? pick(dialect, same) + " + 1" : pick(dialect, same));
                }
                String i = pick(dialect, from.ints());
                yield "INSERT INTO " + t.name() + " (" + String.join(", ", named) + ") SELECT " + String.join(", ", exprs) + " FROM " + from.name()
                        + (dialect.nextBoolean() ? " WHERE " + i + " " + pick(dialect, List.of(">", "<=", "<>")) + " " + (dialect.nextInt(3) - 1) : "");
            }
            case 3 -> {
                List<String> sets = new ArrayList<>();
                for (String c : named.subList(0, Math.min(2, named.size()))) {
                    sets.add(c + " = " + assigned(t, c));
                }
                yield "UPDATE " + t.name() + " SET " + String.join(", ", sets) + (dialect.nextInt(4) == 0 ? "" : " WHERE " + writeFilter(t));
            }
            default -> "DELETE FROM " + t.name() + " WHERE " + writeFilter(t);
        };
        return new Write(sql, t.name());
    }

    /** A value for column {@code c}, NULL now and then. */
    private String value(String c) {
        if (dialect.nextInt(6) == 0) {
            return "NULL";
        }
        return c.startsWith("i") ? Integer.toString(dialect.nextInt(7) - 2)
                : c.startsWith("s") ? pick(dialect, List.of("'a'", "'ab'", "'bca'", "'c'", "'abc'"))
                : pick(dialect, List.of("-1.5", "0", "0.25", "2", "'-0'"));
    }

    /** The new value of column {@code c} in an UPDATE: an expression over the row, a literal or NULL. */
    private String assigned(PostgresDifferentialTest.Table t, String c) {
        if (c.startsWith("i")) {
            return pick(dialect, List.of(c + " + 1", c + " * 2", "coalesce(" + c + ", 0) - 1", pick(dialect, t.ints()), value(c),
                    "CASE WHEN " + c + " > 0 THEN " + c + " ELSE NULL END"));
        }
        if (c.startsWith("s")) {
            return pick(dialect, List.of("upper(" + c + ")", c + " || 'x'", value(c), "substring(" + c + " from 2)",
                    "CASE WHEN " + c + " LIKE 'a%' THEN 'A' ELSE " + c + " END"));
        }
        return pick(dialect, List.of(c + " * 2", c + " + " + pick(dialect, t.ints()), value(c), "-" + c));
    }

    private String writeFilter(PostgresDifferentialTest.Table t) {
        String i = pick(dialect, t.ints());
        return switch (dialect.nextInt(4)) {
            case 0 -> i + " IS NULL";
            case 1 -> i + " IN (" + (dialect.nextInt(5) - 2) + ", " + (dialect.nextInt(5) - 2) + ")";
            case 2 -> !t.texts().isEmpty() ? pick(dialect, t.texts()) + " LIKE '" + pick(dialect, List.of("a%", "%b", "_")) + "'" : i + " > 0";
            default -> i + " " + pick(dialect, List.of("=", "<", ">=")) + " " + (dialect.nextInt(5) - 2);
        };
    }

    private Query distinctAggregate() {
        PostgresDifferentialTest.Table t = pick(dialect, tables);
        List<String> all = new ArrayList<>();
        for (String c : t.ints()) {
            all.addAll(List.of("count(DISTINCT " + c + ")", "sum(DISTINCT " + c + ")", "avg(DISTINCT " + c + ")"));
        }
        for (String c : t.columns()) {
            all.add("count(DISTINCT " + c + ")");
        }
        for (String c : t.floats()) {
            all.addAll(List.of("sum(DISTINCT " + c + ")", "count(DISTINCT " + c + ")"));
        }
        all.addAll(List.of("count(*)", "sum(" + pick(dialect, t.ints()) + ")", "max(" + pick(dialect, t.columns()) + ")", "min(DISTINCT "
                + pick(dialect, t.columns()) + ")"));
        List<String> aggs = new ArrayList<>();
        int n = 1 + dialect.nextInt(3);
        for (int i = 0; i < n; i++) {
            aggs.add(pick(dialect, all));
        }
        String where = dialect.nextInt(4) == 0 ? " WHERE " + pick(dialect, t.ints()) + " " + pick(dialect, List.of(">", "<=", "<>")) + " "
                + (dialect.nextInt(3) - 1) : "";
        if (dialect.nextInt(4) == 0) {
            return new Query("SELECT " + String.join(", ", aggs) + " FROM " + t.name() + where, Kind.DISTINCT_AGGREGATE, false);
        }
        String key = pick(dialect, t.columns());
        String having = dialect.nextInt(4) == 0 ? " HAVING count(DISTINCT " + pick(dialect, t.columns()) + ") > 1" : "";
        return new Query("SELECT " + key + ", " + String.join(", ", aggs) + " FROM " + t.name() + where + " GROUP BY " + key + having,
                Kind.DISTINCT_AGGREGATE, false);
    }

    /** A LIKE or ILIKE of a text column (or an integer written as text) against a pattern. */
    private Query like() {
        PostgresDifferentialTest.Table t = pick(dialect, tables);
        String i = pick(dialect, t.ints());
        String s = t.texts().isEmpty() ? "CAST(" + i + " AS text)" : pick(dialect, t.texts());
        List<String> patterns = t.texts().isEmpty() ? List.of("'1%'", "'-%'", "'_'", "'%2'", "'%'", "'-_'")
                : List.of("'a%'", "'%b'", "'_b%'", "'%a_'", "'ab'", "'%'", "'A%'", "'%B_'", "'a\\%'", "'%c%'", "'__'", "'%ca%'", "upper(" + s + ")");
        List<String> predicates = new ArrayList<>();
        for (int n = 0; n < 3; n++) {
            String op = pick(dialect, List.of("LIKE", "NOT LIKE", "ILIKE", "NOT ILIKE"));
            String pattern = pick(dialect, patterns);
            String escape = dialect.nextInt(5) == 0 ? " ESCAPE '#'" : "";
            if (!escape.isEmpty() && pattern.startsWith("'")) {
                pattern = pattern.replace("\\", "#");
            }
            predicates.add(s + " " + op + " " + pattern + escape);
        }
        if (dialect.nextBoolean()) {
            return new Query("SELECT " + i + ", " + s + " FROM " + t.name() + " WHERE " + predicates.get(0)
                    + (dialect.nextBoolean() ? " " + pick(dialect, List.of("AND", "OR")) + " " + predicates.get(1) : ""), Kind.LIKE, false);
        }
        return new Query("SELECT " + s + ", " + predicates.get(0) + ", " + predicates.get(1) + " FROM " + t.name(), Kind.LIKE, false);
    }

    /** {@code x::type} over columns, literals and expressions, in the select list and the filter. */
    private Query cast() {
        PostgresDifferentialTest.Table t = pick(dialect, tables);
        String i = pick(dialect, t.ints());
        List<String> exprs = new ArrayList<>(List.of(i + "::text", i + "::text || 'x'", "(" + i + " + 1)::double precision / 4",
                "'" + (dialect.nextInt(5) - 2) + "'::bigint + " + i, i + "::int8::text", "(" + i + " > 0)::text", "-" + i + "::bigint",
                "coalesce(" + i + ", 0)::text", "CASE WHEN " + i + " > 0 THEN 'p' ELSE 'n' END::text", i + "::int8::double precision * 2"));
        if (!t.texts().isEmpty()) {
            String s = pick(dialect, t.texts());
            exprs.addAll(List.of(s + "::text", s + "::varchar || " + i + "::text", "upper(" + s + "::text)"));
        }
        if (!t.floats().isEmpty()) {
            String f = pick(dialect, t.floats());
            exprs.addAll(List.of(f + "::bigint", "(" + f + " * 3)::integer", i + "::float8 + " + f));
        }
        String where = switch (dialect.nextInt(4)) {
            case 0 -> " WHERE " + i + "::text = '" + (dialect.nextInt(5) - 2) + "'";
            case 1 -> " WHERE " + i + "::double precision > " + pick(dialect, List.of("0.5", "-1", "1.5"));
            default -> "";
        };
        return new Query("SELECT " + pick(dialect, exprs) + ", " + pick(dialect, exprs) + " FROM " + t.name() + where, Kind.CAST, false);
    }

    /**
     * One time in five (drawn from {@link #extra}, after the usual query was drawn), a query of the same
     * kind over a double precision column, whose -0 and 0 PostgreSQL's float8 makes one value: to
     * DISTINCT, GROUP BY, a join, a set operation and a comparison. Null when the kind has none or no
     * table has a double column.
     */
    private Query floatQuery(Kind kind) {
        List<PostgresDifferentialTest.Table> withFloats = tables.stream().filter(t -> !t.floats().isEmpty()).toList();
        if (withFloats.isEmpty()) {
            return null;
        }
        PostgresDifferentialTest.Table a = pick(extra, withFloats);
        PostgresDifferentialTest.Table b = pick(extra, withFloats);
        String af = pick(extra, a.floats());
        String bf = pick(extra, b.floats());
        return switch (kind) {
            case FILTER -> new Query("SELECT " + pick(extra, a.ints()) + ", " + af + " FROM " + a.name() + " WHERE " + af + " "
                    + pick(extra, List.of("=", "<>", "<=", ">")) + " " + pick(extra, List.of("0", "'-0'", "CAST('-0' AS double precision)")), kind, false);
            case DISTINCT -> new Query("SELECT DISTINCT " + af + " FROM " + a.name(), kind, false);
            case GROUP_BY -> new Query("SELECT " + af + ", count(*), sum(" + pick(extra, a.ints()) + ") FROM " + a.name() + " GROUP BY " + af, kind, false);
            case JOIN -> new Query("SELECT a." + pick(extra, a.ints()) + ", b." + pick(extra, b.ints()) + " FROM " + a.name() + " a "
                    + pick(extra, List.of("JOIN", "LEFT JOIN", "FULL JOIN")) + " " + b.name() + " b ON a." + af + " = b." + bf, kind, false);
            case SET_OP -> new Query("SELECT " + af + " FROM " + a.name() + " " + pick(extra, SET_OPS) + " SELECT " + bf + " FROM " + b.name(), kind, false);
            default -> null;
        };
    }

    private Query mainQuery() {
        Kind kind = MAIN.get(random.nextInt(MAIN.size()));
        return switch (kind) {
            case FILTER -> filter();
            case JOIN -> join();
            case OUTER_JOIN_ANTI -> outerJoinAnti();
            case GROUP_BY -> groupBy();
            case JOIN_GROUP_BY -> joinGroupBy();
            case DISTINCT -> distinct();
            case ORDERED -> ordered();
            case ORDERED_AGGREGATE -> orderedAggregate();
            case SET_OP -> setOp();
            case SET_OP_TWO_COLUMNS -> setOpTwoColumns();
            case SUBQUERY -> subquery();
            case EXPRESSIONS -> expressions();
            case TEXT -> text();
            case LOOKUP -> lookup();
            case EMPTY_AGGREGATE -> emptyAggregate();
            default -> throw new IllegalArgumentException(kind.name());
        };
    }

    /** An int expression over a qualified int column. */
    private String intExpr(String q, PostgresDifferentialTest.Table t) {
        return intExpr(q, t, random);
    }

    private String intExpr(String q, PostgresDifferentialTest.Table t, Random random) {
        String c = q + pick(random, t.ints());
        return switch (random.nextInt(8)) {
            case 0 -> c + " + " + (random.nextInt(5) - 2);
            case 1 -> c + " * " + (random.nextInt(4) - 1);
            case 2 -> "COALESCE(" + c + ", " + (random.nextInt(5) - 2) + ")";
            case 3 -> "CASE WHEN " + c + " > " + (random.nextInt(3) - 1) + " THEN " + c + " ELSE " + (random.nextInt(9) - 4) + " END";
            case 4 -> c + " - " + q + pick(random, t.ints());
            case 5 -> "abs(" + c + ")";
            case 6 -> "NULLIF(" + c + ", " + (random.nextInt(3) - 1) + ")";
            default -> c;
        };
    }

    /** A numeric expression: an int one, or one over a double column when the table has one. */
    private String numExpr(String q, PostgresDifferentialTest.Table t) {
        if (!t.floats().isEmpty() && random.nextInt(3) == 0) {
            String f = q + pick(t.floats());
            return switch (random.nextInt(4)) {
                case 0 -> f + " * 2";
                case 1 -> f + " + " + q + pick(t.ints());
                case 2 -> "COALESCE(" + f + ", 0.5)";
                default -> f;
            };
        }
        return intExpr(q, t);
    }

    private String predicate(String q, PostgresDifferentialTest.Table t) {
        String p = switch (random.nextInt(11)) {
            case 0 -> q + pick(t.ints()) + " IS NULL";
            case 1 -> q + pick(t.ints()) + " IS NOT NULL";
            case 2 -> q + pick(t.ints()) + " IN (" + (random.nextInt(5) - 2) + ", " + (random.nextInt(5) - 2) + ")";
            case 3 -> !t.texts().isEmpty() ? q + pick(t.texts()) + " " + pick(List.of("=", "<>", "<", ">=")) + " '" + pick(List.of("a", "ab", "bca", "c")) + "'"
                    : q + pick(t.ints()) + " <> 0";
            case 4 -> "NOT (" + q + pick(t.ints()) + " < " + (random.nextInt(5) - 2) + ")";
            case 5 -> q + pick(t.ints()) + " BETWEEN " + (random.nextInt(3) - 2) + " AND " + random.nextInt(4);
            case 6 -> q + pick(t.ints()) + " NOT IN (" + (random.nextInt(5) - 2) + ", " + (random.nextBoolean() ? "NULL" : Integer.toString(random.nextInt(3))) + ")";
            case 7 -> q + pick(t.ints()) + " IS DISTINCT FROM " + pick(List.of("NULL", Integer.toString(random.nextInt(3) - 1), q + pick(t.ints())));
            case 8 -> !t.floats().isEmpty() ? q + pick(t.floats()) + " " + pick(List.of("<", ">=", "=")) + " "
                    + or(pick(List.of("0", "0.25", "-1.5", "2")), 4, "'-0'")
                    : q + pick(t.ints()) + " >= '" + (random.nextInt(3) - 1) + "'";
            default -> intExpr(q, t) + " " + pick(List.of("=", "<>", "<", "<=", ">", ">=")) + " " + (random.nextInt(7) - 3);
        };
        if (extra.nextInt(10) == 0) {
            // an integer against a decimal literal: PostgreSQL compares in numeric, exactly (ints include 2^53 and 2^53 + 1)
            p = intExpr(q, t, extra) + " " + pick(extra, List.of("=", "<>", "<", "<=", ">", ">=")) + " "
                    + pick(extra, List.of("1.5", "-0.5", "2.0", "0.25", "3.5", "-1.5", "9007199254740992.5", "9007199254740993.0", "-9007199254740992.0"));
        }
        if (random.nextInt(4) == 0) {
            return "(" + p + ") " + pick(List.of("AND", "OR")) + " (" + predicate(q, t) + ")";
        }
        return p;
    }

    /** {@code usual}, or one time in {@code odds} (drawn from {@link #extra}) {@code instead}. */
    private String or(String usual, int odds, String instead) {
        return extra.nextInt(odds) == 0 ? instead : usual;
    }

    private Query filter() {
        PostgresDifferentialTest.Table t = table();
        List<String> cols = new ArrayList<>();
        int n = 1 + random.nextInt(3);
        for (int i = 0; i < n; i++) {
            cols.add(random.nextBoolean() ? numExpr("", t) : pick(t.columns()));
        }
        return new Query("SELECT " + String.join(", ", cols) + " FROM " + t.name() + (random.nextInt(5) > 0 ? " WHERE " + predicate("", t) : ""),
                Kind.FILTER, false);
    }

    private String joinKind() {
        return pick(List.of("JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "INNER JOIN", "LEFT OUTER JOIN", "RIGHT OUTER JOIN", "FULL OUTER JOIN"));
    }

    private String on(PostgresDifferentialTest.Table a, PostgresDifferentialTest.Table b, String kind) {
        String on = "a." + pick(a.ints()) + " = b." + pick(b.ints());
        if (random.nextInt(3) == 0) {
            on += " AND a." + pick(a.ints()) + " = b." + pick(b.ints());
        }
        if (kind.startsWith("LEFT") && random.nextInt(3) == 0) {
            on += " AND b." + pick(b.ints()) + " > " + (random.nextInt(3) - 1);
        }
        if ((kind.startsWith("JOIN") || kind.startsWith("INNER")) && random.nextInt(3) == 0) {
            on += " AND a." + pick(a.ints()) + " <= b." + pick(b.ints());
        }
        return on;
    }

    private Query join() {
        PostgresDifferentialTest.Table a = table();
        PostgresDifferentialTest.Table b = table();
        String kind = joinKind();
        String select = "a." + pick(a.columns()) + ", b." + pick(b.columns()) + (random.nextBoolean() ? ", " + intExpr("a.", a) : "");
        String where = random.nextInt(3) == 0 ? " WHERE " + predicate("a.", a) : "";
        if (random.nextInt(6) == 0) {
            return new Query("SELECT " + select + " FROM " + a.name() + " a, " + b.name() + " b WHERE a." + pick(a.ints()) + " < b." + pick(b.ints()),
                    Kind.JOIN, false);
        }
        return new Query("SELECT " + select + " FROM " + a.name() + " a " + kind + " " + b.name() + " b ON " + on(a, b, kind) + where, Kind.JOIN, false);
    }

    /** Rows of one side without a match in the other: an outer join filtered on the other side's NULLs. */
    private Query outerJoinAnti() {
        PostgresDifferentialTest.Table a = table();
        PostgresDifferentialTest.Table b = table();
        String bi = pick(b.ints());
        return new Query("SELECT a." + pick(a.columns()) + ", a." + pick(a.columns()) + " FROM " + a.name() + " a LEFT JOIN " + b.name()
                + " b ON a." + pick(a.ints()) + " = b." + bi + " WHERE b." + bi + " IS NULL", Kind.OUTER_JOIN_ANTI, false);
    }

    private List<String> aggregates(PostgresDifferentialTest.Table t, String q) {
        String v = q + pick(t.ints());
        List<String> all = new ArrayList<>(List.of("count(*)", "count(" + v + ")", "sum(" + v + ")", "min(" + v + ")", "max(" + v + ")", "avg(" + v + ")",
                "max(" + q + pick(t.columns()) + ")", "min(" + q + pick(t.columns()) + ")"));
        if (!t.floats().isEmpty()) {
            String f = q + pick(t.floats());
            all.addAll(List.of("sum(" + f + ")", "avg(" + f + ")", "max(" + f + ")", "min(" + f + ")"));
        }
        List<String> out = new ArrayList<>();
        int n = 1 + random.nextInt(3);
        for (int i = 0; i < n; i++) {
            out.add(pick(all));
        }
        if (extra.nextInt(30) == 0) {
            // PostgreSQL has no min/max of boolean: both refuse
            out.add(pick(extra, List.of("min(", "max(")) + v + " > 0)");
        }
        return out;
    }

    private String having(PostgresDifferentialTest.Table t, String q) {
        return switch (random.nextInt(3)) {
            case 0 -> " HAVING count(*) " + pick(List.of(">", "=", "<")) + " " + (1 + random.nextInt(2));
            case 1 -> " HAVING sum(" + q + pick(t.ints()) + ") " + pick(List.of(">", "<=")) + " " + (random.nextInt(5) - 1);
            default -> " HAVING max(" + q + pick(t.ints()) + ") IS NOT NULL AND min(" + q + pick(t.ints()) + ") < 2";
        };
    }

    private Query groupBy() {
        PostgresDifferentialTest.Table t = table();
        String key = pick(t.columns());
        List<String> aggs = aggregates(t, "");
        boolean grouped = random.nextInt(4) > 0;
        String having = grouped && random.nextBoolean() ? having(t, "") : "";
        String where = random.nextInt(3) == 0 ? " WHERE " + predicate("", t) : "";
        return new Query("SELECT " + (grouped ? key + ", " : "") + String.join(", ", aggs) + " FROM " + t.name() + where
                + (grouped ? " GROUP BY " + key : "") + having, Kind.GROUP_BY, false);
    }

    private Query joinGroupBy() {
        PostgresDifferentialTest.Table a = table();
        PostgresDifferentialTest.Table b = table();
        String kind = pick(List.of("JOIN", "LEFT JOIN", "FULL JOIN"));
        String key = "a." + pick(a.columns());
        List<String> aggs = aggregates(b, "b.");
        String having = random.nextInt(3) == 0 ? having(b, "b.") : "";
        return new Query("SELECT " + key + ", " + String.join(", ", aggs) + " FROM " + a.name() + " a " + kind + " " + b.name() + " b ON "
                + on(a, b, kind) + " GROUP BY " + key + having, Kind.JOIN_GROUP_BY, false);
    }

    private Query distinct() {
        PostgresDifferentialTest.Table t = table();
        return new Query("SELECT DISTINCT " + pick(t.columns()) + (random.nextBoolean() ? ", " + intExpr("", t) : "")
                + (random.nextBoolean() ? ", " + pick(t.columns()) : "") + " FROM " + t.name(), Kind.DISTINCT, false);
    }

    /** An ORDER BY over every output column, so the order (and a LIMIT's rows) are the same in both. */
    private String orderBy(List<String> cols) {
        List<String> order = new ArrayList<>();
        for (String c : cols) {
            order.add(c + (random.nextBoolean() ? " DESC" : "") + (random.nextInt(4) == 0 ? pick(List.of(" NULLS FIRST", " NULLS LAST")) : ""));
        }
        java.util.Collections.shuffle(order, random);
        String limit = random.nextBoolean() ? " LIMIT " + random.nextInt(6) : "";
        String offset = random.nextInt(3) == 0 ? " OFFSET " + random.nextInt(4) : "";
        return " ORDER BY " + String.join(", ", order) + limit + offset;
    }

    private Query ordered() {
        PostgresDifferentialTest.Table t = table();
        List<String> cols = t.columns();
        String where = random.nextInt(3) == 0 ? " WHERE " + predicate("", t) : "";
        return new Query("SELECT " + String.join(", ", cols) + " FROM " + t.name() + where + orderBy(cols), Kind.ORDERED, true);
    }

    /** ORDER BY / LIMIT over a join or a group-by. */
    private Query orderedAggregate() {
        if (random.nextBoolean()) {
            PostgresDifferentialTest.Table t = table();
            String key = pick(t.columns());
            String v = pick(t.ints());
            return new Query("SELECT " + key + " AS k, count(*) AS n, sum(" + v + ") AS s FROM " + t.name() + " GROUP BY " + key
                    + orderBy(List.of("k", "n", "s")), Kind.ORDERED_AGGREGATE, true);
        }
        PostgresDifferentialTest.Table a = table();
        PostgresDifferentialTest.Table b = table();
        String kind = joinKind();
        return new Query("SELECT a." + pick(a.ints()) + " AS x, b." + pick(b.columns()) + " AS y FROM " + a.name() + " a " + kind + " " + b.name()
                + " b ON " + on(a, b, kind) + orderBy(List.of("x", "y")), Kind.ORDERED_AGGREGATE, true);
    }

    private static final List<String> SET_OPS = List.of("UNION", "UNION ALL", "EXCEPT ALL", "EXCEPT", "INTERSECT", "INTERSECT ALL");

    private Query setOp() {
        PostgresDifferentialTest.Table a = table();
        PostgresDifferentialTest.Table b = table();
        String op = pick(SET_OPS);
        String left = "SELECT " + pick(a.ints()) + " FROM " + a.name() + (random.nextBoolean() ? " WHERE " + predicate("", a) : "");
        String right = "SELECT " + pick(b.ints()) + " FROM " + b.name() + (random.nextBoolean() ? " WHERE " + predicate("", b) : "");
        return new Query(left + " " + op + " " + right, Kind.SET_OP, false);
    }

    /** A set operation over (int, text) pairs, NULLs included, of one table against another or itself. */
    private Query setOpTwoColumns() {
        PostgresDifferentialTest.Table a = table();
        PostgresDifferentialTest.Table b = random.nextBoolean() ? a : table();
        String op = pick(SET_OPS);
        String at = a.texts().isEmpty() ? "CAST(" + pick(a.ints()) + " AS text)" : pick(a.texts());
        String bt = b.texts().isEmpty() ? "CAST(" + pick(b.ints()) + " AS text)" : pick(b.texts());
        String left = "SELECT " + pick(a.ints()) + ", " + at + " FROM " + a.name() + (random.nextBoolean() ? " WHERE " + predicate("", a) : "");
        String right = "SELECT " + pick(b.ints()) + ", " + bt + " FROM " + b.name() + (random.nextBoolean() ? " WHERE " + predicate("", b) : "");
        return new Query(left + " " + op + " " + right, Kind.SET_OP_TWO_COLUMNS, false);
    }

    private Query subquery() {
        PostgresDifferentialTest.Table t = table();
        String key = pick(t.ints());
        String v = pick(t.ints());
        String inner = "SELECT " + key + " AS k, count(*) AS n, sum(" + v + ") AS total FROM " + t.name() + " GROUP BY " + key;
        String outer = switch (random.nextInt(5)) {
            case 0 -> "SELECT k, n FROM (" + inner + ") AS g WHERE n > 1";
            case 1 -> "SELECT g.k, g.total, u." + pick(tables.get(0).columns()) + " FROM (" + inner + ") AS g LEFT JOIN "
                    + tables.get(0).name() + " u ON g.k = u." + pick(tables.get(0).ints());
            case 2 -> "SELECT max(total), count(*), min(k) FROM (" + inner + ") AS g";
            case 3 -> "SELECT s.x, count(*) FROM (SELECT " + intExpr("", t) + " AS x FROM " + t.name() + " WHERE " + predicate("", t)
                    + ") AS s GROUP BY s.x";
            default -> "SELECT d.k FROM (SELECT DISTINCT " + key + " AS k FROM " + t.name() + ") AS d JOIN (" + inner
                    + ") AS g ON d.k = g.k WHERE g.total IS NOT NULL";
        };
        return new Query(outer, Kind.SUBQUERY, false);
    }

    private Query expressions() {
        PostgresDifferentialTest.Table t = table();
        String c = pick(t.ints());
        String d = pick(t.ints());
        List<String> exprs = new ArrayList<>(List.of(
                "CASE WHEN " + c + " IS NULL THEN 'none' WHEN " + c + " > 0 THEN 'pos' ELSE 'other' END",
                "COALESCE(" + c + ", " + d + ", 0)",
                c + " = " + d,
                c + " < " + d + " OR " + d + " IS NULL",
                "NOT (" + c + " > 1)",
                c + " % 3",
                c + " / 2",
                "-" + c,
                "CASE " + c + " WHEN 1 THEN 'one' WHEN 2 THEN 'two' END",
                c + " IS NOT DISTINCT FROM " + d,
                "(" + c + " > 0) AND (" + d + " < 1)",
                "NULLIF(" + c + ", " + d + ")"));
        if (!t.floats().isEmpty()) {
            String f = pick(t.floats());
            exprs.addAll(List.of(f + " * " + c, "CAST(" + f + " AS bigint)", f + " / 4", "-" + f));
        }
        String first = pick(exprs);
        String second = pick(exprs);
        // now and then a bigint cast to boolean, which PostgreSQL refuses: both refuse
        return new Query("SELECT " + or(first, 20, "CAST(" + c + " AS boolean)") + ", " + second + " FROM " + t.name(), Kind.EXPRESSIONS, false);
    }

    /** Text columns: comparisons with literals, functions, concatenation, CASE and COALESCE over text. */
    private Query text() {
        PostgresDifferentialTest.Table t = table();
        if (t.texts().isEmpty()) {
            return new Query("SELECT CAST(" + pick(t.ints()) + " AS text) || 'x', " + pick(t.ints()) + " FROM " + t.name(), Kind.TEXT, false);
        }
        String s = pick(t.texts());
        String expr = pick(List.of("upper(" + s + ")", "lower(" + s + ")", "char_length(" + s + ")", s + " || '-' || " + s,
                "substring(" + s + " from 2 for 2)", "COALESCE(" + s + ", 'zz')", "CASE WHEN " + s + " < 'b' THEN " + s + " ELSE 'later' END"));
        String where = pick(List.of(s + " IN ('a', 'ab', 'cab')", s + " > 'ab'", s + " IS NULL", s + " <> 'ca'", "upper(" + s + ") = 'AB'"));
        return new Query("SELECT " + expr + ", " + pick(t.ints()) + " FROM " + t.name() + (random.nextBoolean() ? " WHERE " + where : ""),
                Kind.TEXT, false);
    }

    /**
     * A point query on the first table's first int column (indexed in some schemas, so a fast-path lookup
     * there), its value a parameter or a list of literals.
     */
    private Query lookup() {
        PostgresDifferentialTest.Table t = tables.get(0);
        String key = t.ints().get(0);
        List<String> cols = new ArrayList<>();
        cols.add(pick(t.columns()));
        if (random.nextBoolean()) {
            cols.add(intExpr("", t));
        }
        String more = random.nextInt(3) == 0 ? " AND " + predicate("", t) : "";
        if (random.nextBoolean()) {
            return new Query("SELECT " + String.join(", ", cols) + " FROM " + t.name() + " WHERE " + key + " = ?" + more,
                    List.of((long) (random.nextInt(7) - 2)), Kind.LOOKUP, false);
        }
        return new Query("SELECT " + String.join(", ", cols) + " FROM " + t.name() + " WHERE " + key + " IN (" + (random.nextInt(7) - 2) + ", "
                + (random.nextInt(7) - 2) + ")" + more, Kind.LOOKUP, false);
    }

    /** Aggregates without GROUP BY over a filter no row passes: one row (count 0, the rest NULL). */
    private Query emptyAggregate() {
        PostgresDifferentialTest.Table t = table();
        return new Query("SELECT " + String.join(", ", aggregates(t, "")) + " FROM " + t.name() + " WHERE " + pick(t.ints()) + " > 100",
                Kind.EMPTY_AGGREGATE, false);
    }
}
