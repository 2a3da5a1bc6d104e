package dev.tandem.plan;

import dev.tandem.expr.Expr;
import dev.tandem.expr.Func;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.IntFunction;

/**
 * Translates plans with SQL equivalents (get, constant, mfp, join, reduce/distinct, top_k, union,
 * arrange_by) into H2 SQL over tables named by the collection ids with columns {@code c0, c1, ...},
 * and runs them: {@link #load} creates and fills the tables from multisets (a row of multiplicity m is
 * inserted m times), {@link #query} returns a plan's result as a multiset. negate and threshold have no
 * translation; neither do division, modulo and casts (their error behaviour differs).
 */
public final class SqlTranslator {

    private final Function<String, List<DatumType>> typesOf;
    private int aliases;

    public SqlTranslator(Function<String, List<DatumType>> typesOf) {
        this.typesOf = typesOf;
    }

    /** Whether {@code plan} has a translation. */
    public static boolean supports(Plan plan) {
        return switch (plan) {
            case Plan.Get g -> g.id() != null;
            case Plan.Constant c -> !c.types().isEmpty();
            case Plan.MapFilterProject m -> supports(m.input()) && (m.mfp().project() == null || !m.mfp().project().isEmpty()) && m.mfp().map().stream().allMatch(SqlTranslator::supports)
                    && m.mfp().filter().stream().allMatch(SqlTranslator::supports);
            case Plan.Join j -> j.inputs().stream().allMatch(SqlTranslator::supports);
            case Plan.Reduce r -> supports(r.input()) && r.aggregates().stream().allMatch(a -> a.expr() == null || supports(a.expr()))
                    && !(r.groupKey().isEmpty() && r.aggregates().isEmpty());
            case Plan.TopK k -> supports(k.input());
            case Plan.Union u -> u.inputs().stream().allMatch(SqlTranslator::supports);
            case Plan.ArrangeBy a -> supports(a.input());
            case Plan.Iterate it -> false;
            case Plan.Window w -> false;
            case Plan.FlatMap f -> false;
            case Plan.Threshold t -> false;
            case Plan.Negate n -> false;
            case Plan.TemporalFilter f -> false;
        };
    }

    static boolean supports(Expr e) {
        return switch (e) {
            case Expr.Col c -> true;
            case Expr.Lit l -> l.type() != DatumType.FLOAT64 && l.type() != DatumType.TIMESTAMP;
            case Expr.Call c -> c.func() != Func.DIV && c.func() != Func.MOD && c.func() != Func.CAST
                    && c.args().stream().allMatch(SqlTranslator::supports);
        };
    }

    /** The SQL type of a datum type. */
    public static String sqlType(DatumType t) {
        return switch (t) {
            case BOOL -> "BOOLEAN";
            case INT64 -> "BIGINT";
            case FLOAT64 -> "DOUBLE PRECISION";
            case STRING -> "VARCHAR";
            case TIMESTAMP -> "TIMESTAMP WITH TIME ZONE";
            case NUMERIC -> "NUMERIC";
            case DATE -> "DATE";
            case TIMESTAMPTZ -> "TIMESTAMP WITH TIME ZONE";
            case UUID -> "UUID";
            case INTERVAL -> "INTERVAL";
            case JSONB -> throw new UnsupportedOperationException("jsonb has no translation (random plans have no jsonb columns)");
            case BYTEA -> throw new UnsupportedOperationException("bytea has no translation (random plans have no bytea columns)");
            default -> throw new UnsupportedOperationException("arrays have no translation");
        };
    }

    /** A query whose result columns are {@code c0, c1, ...} in the plan's column order. */
    public String sql(Plan plan) {
        return switch (plan) {
            case Plan.Get g -> "SELECT * FROM " + table(g.id());
            case Plan.Constant c -> constant(c);
            case Plan.MapFilterProject m -> mfp(m);
            case Plan.Join j -> join(j);
            case Plan.Reduce r -> reduce(r);
            case Plan.TopK k -> topK(k);
            case Plan.Union u -> {
                List<String> parts = new ArrayList<>();
                for (Plan p : u.inputs()) {
                    parts.add("SELECT * FROM (" + sql(p) + ") " + alias());
                }
                yield String.join(" UNION ALL ", parts);
            }
            case Plan.ArrangeBy a -> sql(a.input());
            case Plan.Iterate it -> throw new UnsupportedOperationException("iterate has no translation");
            case Plan.Window w -> throw new UnsupportedOperationException("window has no SQL translation here");
            case Plan.FlatMap f -> throw new UnsupportedOperationException("flat_map has no SQL translation here");
            case Plan.Threshold t -> throw new UnsupportedOperationException("threshold has no SQL translation");
            case Plan.Negate n -> throw new UnsupportedOperationException("negate has no SQL translation");
            case Plan.TemporalFilter f -> throw new UnsupportedOperationException("temporal_filter has no SQL translation");
        };
    }

    public static String table(String id) {
        return "\"" + id.replace("\"", "\"\"") + "\"";
    }

    private String alias() {
        return "q" + (aliases++);
    }

    private List<DatumType> types(Plan p) {
        return p.types(typesOf, "");
    }

    private static String columns(String alias, int n) {
        List<String> cs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            cs.add(alias + ".c" + i);
        }
        return String.join(", ", cs);
    }

    private String constant(Plan.Constant c) {
        List<String> names = new ArrayList<>();
        List<String> nulls = new ArrayList<>();
        for (int i = 0; i < c.types().size(); i++) {
            names.add("c" + i);
            nulls.add(literal(null, c.types().get(i)) + " AS c" + i);
        }
        if (c.rows().isEmpty()) {
            return "SELECT " + String.join(", ", nulls) + " FROM (VALUES (1)) " + alias() + "(x) WHERE FALSE";
        }
        List<String> rows = new ArrayList<>();
        for (Row r : c.rows()) {
            Object[] v = r.unpack();
            List<String> lits = new ArrayList<>();
            for (int i = 0; i < v.length; i++) {
                lits.add(literal(v[i], c.types().get(i)));
            }
            rows.add("(" + String.join(", ", lits) + ")");
        }
        String a = alias();
        return "SELECT * FROM (VALUES " + String.join(", ", rows) + ") " + a + "(" + String.join(", ", names) + ")";
    }

    private String mfp(Plan.MapFilterProject m) {
        List<DatumType> width = new ArrayList<>(types(m.input()));
        String q = sql(m.input());
        for (Expr e : m.mfp().map()) {
            String a = alias();
            DatumType t = e.typeOf(width);
            q = "SELECT " + a + ".*, CAST(" + expr(e, i -> a + ".c" + i) + " AS " + sqlType(t) + ") AS c" + width.size() + " FROM (" + q + ") " + a;
            width.add(t);
        }
        if (!m.mfp().filter().isEmpty()) {
            String a = alias();
            List<String> preds = new ArrayList<>();
            for (Expr e : m.mfp().filter()) {
                preds.add(expr(e, i -> a + ".c" + i));
            }
            q = "SELECT * FROM (" + q + ") " + a + " WHERE " + String.join(" AND ", preds);
        }
        if (m.mfp().project() != null) {
            String a = alias();
            List<String> cs = new ArrayList<>();
            List<Integer> p = m.mfp().project();
            for (int i = 0; i < p.size(); i++) {
                cs.add(a + ".c" + p.get(i) + " AS c" + i);
            }
            q = "SELECT " + String.join(", ", cs) + " FROM (" + q + ") " + a;
        }
        return q;
    }

    private String join(Plan.Join j) {
        List<String> from = new ArrayList<>();
        List<String> out = new ArrayList<>();
        List<String> aliasOf = new ArrayList<>();
        int k = 0;
        for (Plan p : j.inputs()) {
            String a = alias();
            aliasOf.add(a);
            from.add("(" + sql(p) + ") " + a);
            for (int c = 0; c < types(p).size(); c++) {
                out.add(a + ".c" + c + " AS c" + (k++));
            }
        }
        List<String> conds = new ArrayList<>();
        for (List<Plan.JoinColumn> cls : j.on()) {
            String first = aliasOf.get(cls.get(0).input()) + ".c" + cls.get(0).column();
            for (Plan.JoinColumn jc : cls) {
                conds.add(first + " = " + aliasOf.get(jc.input()) + ".c" + jc.column());
            }
        }
        return "SELECT " + String.join(", ", out) + " FROM " + String.join(" CROSS JOIN ", from)
                + (conds.isEmpty() ? "" : " WHERE " + String.join(" AND ", conds));
    }

    private String reduce(Plan.Reduce r) {
        String a = alias();
        List<String> out = new ArrayList<>();
        List<String> keys = new ArrayList<>();
        int k = 0;
        for (int c : r.groupKey()) {
            keys.add(a + ".c" + c);
            out.add(a + ".c" + c + " AS c" + (k++));
        }
        for (Plan.Aggregate agg : r.aggregates()) {
            String arg = agg.expr() == null ? "*"
                    : "CAST(" + expr(agg.expr(), i -> a + ".c" + i) + " AS " + sqlType(agg.expr().typeOf(types(r.input()))) + ")";
            out.add(agg.func().name() + "(" + arg + ") AS c" + (k++));
        }
        return "SELECT " + String.join(", ", out) + " FROM (" + sql(r.input()) + ") " + a
                + (keys.isEmpty() ? "" : " GROUP BY " + String.join(", ", keys)) + " HAVING COUNT(*) > 0";
    }

    private String topK(Plan.TopK k) {
        int arity = types(k.input()).size();
        String a = alias();
        List<String> order = new ArrayList<>();
        for (Plan.Ordering o : k.orderBy()) {
            order.add(a + ".c" + o.col() + (o.desc() ? " DESC" : " ASC") + (o.nullsLast() ? " NULLS LAST" : " NULLS FIRST"));
        }
        for (int c = 0; c < arity; c++) {
            order.add(a + ".c" + c + " ASC NULLS LAST");
        }
        List<String> partition = new ArrayList<>();
        for (int c : k.groupKey()) {
            partition.add(a + ".c" + c);
        }
        String ranked = "SELECT " + a + ".*, ROW_NUMBER() OVER (" + (partition.isEmpty() ? "" : "PARTITION BY " + String.join(", ", partition) + " ")
                + "ORDER BY " + String.join(", ", order) + ") AS rn FROM (" + sql(k.input()) + ") " + a;
        String b = alias();
        String where = " WHERE " + b + ".rn > " + k.offset() + (k.limit() == null ? "" : " AND " + b + ".rn <= " + (k.offset() + k.limit()));
        return "SELECT " + columns(b, arity) + " FROM (" + ranked + ") " + b + where;
    }

    /** The SQL of an expression; {@code column} names input column {@code i}. */
    public static String expr(Expr e, IntFunction<String> column) {
        return switch (e) {
            case Expr.Col c -> column.apply(c.index());
            case Expr.Lit l -> literal(l.value(), l.type());
            case Expr.Call c -> {
                List<String> a = new ArrayList<>();
                c.args().forEach(x -> a.add(expr(x, column)));
                yield switch (c.func()) {
                    case JSONB_FIELD, JSONB_FIELD_TEXT, JSONB_PATH, JSONB_PATH_TEXT, JSONB_CONTAINS, JSONB_EXISTS, JSONB_CONCAT, JSONB_TYPEOF,
                            JSONB_ARRAY_LENGTH, TO_JSONB, JSONB_BUILD_ARRAY, JSONB_BUILD_OBJECT, JSONB_TO_NUMERIC, JSONB_TO_BOOL ->
                            throw new UnsupportedOperationException("jsonb functions have no translation");
                    case ARRAY, ANY, ALL, ARRAY_GET, ARRAY_LENGTH, CARDINALITY, ARRAY_TO_STRING, ARRAY_CAT, ARRAY_APPEND, ARRAY_PREPEND,
                            ARRAY_CONTAINS, ARRAY_OVERLAP, JSONB_EXISTS_ANY, JSONB_EXISTS_ALL ->
                            throw new UnsupportedOperationException("array functions have no translation");
                    case EQ -> bin(a, "=");
                    case NEQ -> bin(a, "<>");
                    case LT -> bin(a, "<");
                    case LTE -> bin(a, "<=");
                    case GT -> bin(a, ">");
                    case GTE -> bin(a, ">=");
                    case AND -> "(" + String.join(" AND ", a) + ")";
                    case OR -> "(" + String.join(" OR ", a) + ")";
                    case NOT -> "(NOT " + a.get(0) + ")";
                    case IS_NULL -> "(" + a.get(0) + " IS NULL)";
                    case ADD -> bin(a, "+");
                    case SUB -> bin(a, "-");
                    case MUL -> bin(a, "*");
                    case NEG -> "(-" + a.get(0) + ")";
                    case ABS -> "ABS(" + a.get(0) + ")";
                    case COALESCE -> "COALESCE(" + String.join(", ", a) + ")";
                    case IF -> "(CASE WHEN " + a.get(0) + " THEN " + a.get(1) + " ELSE " + a.get(2) + " END)";
                    case CONCAT -> "(" + String.join(" || ", a) + ")";
                    case LOWER -> "LOWER(" + a.get(0) + ")";
                    case UPPER -> "UPPER(" + a.get(0) + ")";
                    case LENGTH -> "CAST(CHAR_LENGTH(" + a.get(0) + ") AS BIGINT)";
                    case OCTET_LENGTH -> "CAST(OCTET_LENGTH(" + a.get(0) + ") AS BIGINT)";
                    case SUBSTR -> "SUBSTRING(" + a.get(0) + " FROM " + a.get(1) + (a.size() > 2 ? " FOR " + a.get(2) : "") + ")";
                    case LIKE, ILIKE -> "(" + a.get(0) + (c.func() == Func.LIKE ? " LIKE " : " ILIKE ") + a.get(1)
                            + (a.size() > 2 ? " ESCAPE " + a.get(2) : "") + ")";
                    case DIV, MOD, CAST, CONCAT_ARGS, CONCAT_WS, STRPOS, REPLACE, SPLIT_PART, BTRIM, LTRIM, RTRIM, LPAD, RPAD, LEFT, RIGHT,
                            REPEAT, REVERSE, INITCAP, MD5, STARTS_WITH, TRANSLATE, REGEXP_LIKE, REGEXP_REPLACE, SIMILAR_ESCAPE, ROUND, ROUND_NUMERIC, TRUNC, FLOOR,
                            CEIL, SIGN, SQRT, EXP, LN, LOG10, POWER, GREATEST, LEAST, EXTRACT, DATE_TRUNC, TZ_PLUS, TIMEZONE, ERROR, FIT_INT4, FIT_INT2, FIT_NUMERIC, MAKE_DATE, TO_TIMESTAMP, TO_CHAR, AGE, FORMAT -> throw new UnsupportedOperationException(c.func().jsonName() + " has no exact SQL translation");
                };
            }
        };
    }

    private static String bin(List<String> a, String op) {
        return "(" + a.get(0) + " " + op + " " + a.get(1) + ")";
    }

    /** A typed SQL literal. */
    public static String literal(Object v, DatumType t) {
        if (v == null) {
            return "CAST(NULL AS " + sqlType(t) + ")";
        }
        return switch (t) {
            case BOOL -> ((Boolean) v) ? "TRUE" : "FALSE";
            case INT64 -> "CAST(" + v + " AS BIGINT)";
            case FLOAT64 -> "CAST(" + v + " AS DOUBLE PRECISION)";
            case STRING -> "'" + ((String) v).replace("'", "''") + "'";
            case TIMESTAMP -> "TIMESTAMP WITH TIME ZONE '" + v + "'";
            case NUMERIC -> "CAST(" + ((java.math.BigDecimal) v).toPlainString() + " AS NUMERIC)";
            case DATE -> "DATE '" + v + "'";
            case TIMESTAMPTZ -> "TIMESTAMP WITH TIME ZONE '" + v + "'";
            case UUID -> "CAST('" + v + "' AS UUID)";
            case INTERVAL -> "CAST('" + v + "' AS INTERVAL)";
            case JSONB -> throw new UnsupportedOperationException("jsonb has no translation");
            case BYTEA -> throw new UnsupportedOperationException("bytea has no translation");
            default -> throw new UnsupportedOperationException("arrays have no translation");
        };
    }

    /** Creates table {@code id} with columns {@code c0, c1, ...} of {@code types} and inserts each row as many times as its multiplicity (which must be positive). */
    public static void load(Connection conn, String id, List<DatumType> types, Map<Row, Long> rows) throws SQLException {
        List<String> cols = new ArrayList<>();
        List<String> marks = new ArrayList<>();
        for (int i = 0; i < types.size(); i++) {
            cols.add("c" + i + " " + sqlType(types.get(i)));
            marks.add("?");
        }
        try (Statement s = conn.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + table(id));
            s.execute("CREATE TABLE " + table(id) + " (" + String.join(", ", cols) + ")");
        }
        try (PreparedStatement ps = conn.prepareStatement("INSERT INTO " + table(id) + " VALUES (" + String.join(", ", marks) + ")")) {
            for (Map.Entry<Row, Long> e : rows.entrySet()) {
                if (e.getValue() <= 0) {
                    throw new IllegalArgumentException("SQL tables hold positive multiplicities only: " + e);
                }
                Object[] v = e.getKey().unpack();
                for (long n = 0; n < e.getValue(); n++) {
                    for (int i = 0; i < v.length; i++) {
                        if (v[i] == null) {
                            ps.setNull(i + 1, switch (types.get(i)) {
                                case BOOL -> java.sql.Types.BOOLEAN;
                                case INT64 -> java.sql.Types.BIGINT;
                                case FLOAT64 -> java.sql.Types.DOUBLE;
                                case STRING -> java.sql.Types.VARCHAR;
                                case TIMESTAMP -> java.sql.Types.TIMESTAMP_WITH_TIMEZONE;
                                case NUMERIC -> java.sql.Types.NUMERIC;
                                case DATE -> java.sql.Types.DATE;
                                case TIMESTAMPTZ -> java.sql.Types.TIMESTAMP_WITH_TIMEZONE;
                                case UUID, INTERVAL, JSONB -> java.sql.Types.OTHER;
                                case BYTEA -> java.sql.Types.VARBINARY;
                                default -> java.sql.Types.ARRAY;
                            });
                        } else if (v[i] instanceof dev.tandem.row.Timestamp ts) {
                            ps.setObject(i + 1, ts.toInstant().atOffset(java.time.ZoneOffset.UTC));
                        } else if (v[i] instanceof dev.tandem.row.TimestampTz ts) {
                            ps.setObject(i + 1, ts.toInstant().atOffset(java.time.ZoneOffset.UTC));
                        } else {
                            ps.setObject(i + 1, v[i]);
                        }
                    }
                    ps.executeUpdate();
                }
            }
        }
    }

    /** Runs the translation of {@code plan} and returns its result as a multiset of rows of the plan's types. */
    public Map<Row, Long> query(Connection conn, Plan plan) throws SQLException {
        List<DatumType> types = types(plan);
        Map<Row, Long> out = new HashMap<>();
        try (Statement s = conn.createStatement(); ResultSet rs = s.executeQuery(sql(plan))) {
            while (rs.next()) {
                List<Object> values = new ArrayList<>();
                for (int i = 0; i < types.size(); i++) {
                    Object v = switch (types.get(i)) {
                        case BOOL -> rs.getBoolean(i + 1);
                        case INT64 -> rs.getLong(i + 1);
                        case FLOAT64 -> rs.getDouble(i + 1);
                        case STRING -> rs.getString(i + 1);
                        case TIMESTAMP -> {
                            java.time.OffsetDateTime t = rs.getObject(i + 1, java.time.OffsetDateTime.class);
                            yield t == null ? null : dev.tandem.row.Timestamp.of(t.toInstant());
                        }
                        case NUMERIC -> rs.getBigDecimal(i + 1);
                        case DATE -> rs.getObject(i + 1, java.time.LocalDate.class);
                        case TIMESTAMPTZ -> {
                            java.time.OffsetDateTime t = rs.getObject(i + 1, java.time.OffsetDateTime.class);
                            yield t == null ? null : dev.tandem.row.TimestampTz.of(t.toInstant());
                        }
                        case UUID -> rs.getObject(i + 1, java.util.UUID.class);
                        case INTERVAL -> throw new UnsupportedOperationException("intervals have no translation");
                        case JSONB -> throw new UnsupportedOperationException("jsonb has no translation");
            case BYTEA -> throw new UnsupportedOperationException("bytea has no translation");
                        default -> throw new UnsupportedOperationException("arrays have no translation");
                    };
                    values.add(rs.wasNull() ? null : v);
                }
                out.merge(Row.pack(types, values), 1L, Long::sum);
            }
        }
        return out;
    }
}
