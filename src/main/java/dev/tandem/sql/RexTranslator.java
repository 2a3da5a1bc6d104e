package dev.tandem.sql;

import static dev.tandem.sql.PgCoercion.typeOf;
import static dev.tandem.sql.PgCoercion.unify;

import dev.tandem.expr.Expr;
import dev.tandem.expr.Func;
import dev.tandem.row.Bytea;
import dev.tandem.row.DatumType;
import dev.tandem.row.Interval;
import dev.tandem.row.TimestampTz;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import org.apache.calcite.avatica.util.ByteString;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexDynamicParam;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexOver;
import org.apache.calcite.rex.RexSubQuery;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.fun.SqlLikeOperator;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.util.DateString;
import org.apache.calcite.util.TimestampString;

/**
 * Translates Calcite's row expressions into Tandem expressions over the columns of a translated input: column
 * references, literals, parameters and calls. Operators are translated here, PostgreSQL's functions by
 * {@link ArrayFunctions} and {@link PgFunctions}, and the types operands take are PostgreSQL's ({@link PgCoercion}).
 * Every operator and function it does not know is refused as "not supported: ...".
 */
final class RexTranslator {

    private final IntFunction<Object> params;
    private final IntFunction<DatumType> paramTypes;
    /** The time {@code now()} and its kin read (null: none, as in a maintained view). */
    private Supplier<SqlSession.Times> statementTime;
    /** The builder of the plan's cluster, which expands a {@code SEARCH}. */
    private RexBuilder rexBuilder;
    /** The column of each window call a {@link dev.tandem.plan.Plan.Window} below computes, by its digest. */
    private final Map<String, Integer> overColumns = new HashMap<>();
    /** How deep in comparisons the translation is: they compare numerics by value, so a literal's scale does not matter there. */
    private int comparing;

    /**
     * @param params the value of dynamic parameter {@code i} (in Calcite's numbering), already of its type
     * @param paramTypes the type of dynamic parameter {@code i}
     */
    RexTranslator(IntFunction<Object> params, IntFunction<DatumType> paramTypes) {
        this.params = params;
        this.paramTypes = paramTypes;
    }

    /**
     * This translator with {@code time} as the statement's time, which {@code now()}, {@code current_timestamp},
     * {@code current_date} and {@code localtimestamp} read (one value for the whole statement, as in PostgreSQL).
     */
    RexTranslator statementTime(Supplier<SqlSession.Times> time) {
        this.statementTime = time;
        return this;
    }

    /** Whether the expressions are those of a maintained view or subscription, where {@code WHERE} may hold temporal filters. */
    private boolean temporal;

    /** This translator translating a maintained view or subscription, whose {@code WHERE} may hold temporal filters ({@link TemporalFilters}). */
    RexTranslator temporal() {
        this.temporal = true;
        return this;
    }

    /** Whether temporal filters are allowed (a maintained view or subscription). */
    boolean allowsTemporalFilters() {
        return temporal && statementTime == null;
    }

    /** Notes that the expressions translated compute otherwise in a zone other than UTC (when translating without one). */
    void dependsOnZone() {
        if (zone == null) {
            zoneDependent = true;
        }
    }

    /** The session's zone, or null for a result maintained outside any session. */
    java.time.ZoneId sessionZone() {
        return zone;
    }

    /** The statement's time; refused ({@code 0A000}) where a statement has none, in a maintained view. */
    SqlSession.Times statementTime(String function) {
        if (statementTime == null && temporal) {
            throw SqlException.notSupported(function + " in a view or a subscription other than in a temporal filter: a WHERE conjunct"
                    + " comparing an expression of the row with now() (or current_timestamp, transaction_timestamp(); localtimestamp for a"
                    + " timestamp) plus or minus constant intervals, by <, <=, >, >=, = or BETWEEN, as in WHERE created_at > now() - INTERVAL"
                    + " '1 hour'");
        }
        if (statementTime == null) {
            throw SqlException.notSupported(function + " in a view, a subscription, a CHECK or a write's RETURNING (a maintained result has no"
                    + " statement time to bind it to; only a one-shot query or write reads the time)");
        }
        return statementTime.get();
    }

    /** The session's time zone the expressions compute in; null: none (a maintained view's), in UTC, noting whether one would matter. */
    private java.time.ZoneId zone = java.time.ZoneOffset.UTC;
    /** Whether an expression translated without a zone computes otherwise in another zone than UTC. */
    private boolean zoneDependent;
    /** How deep in {@link #rex} the translation is: a whole expression is bound to the zone, once, at the top. */
    private int depth;

    /**
     * This translator with {@code zone} as the session's time zone, which zone-dependent expressions compute in (see
     * {@link dev.tandem.expr.ZoneBinding}); null: a result maintained outside any session, computed in UTC, whose
     * dependence on the zone {@link #zoneDependent} tells.
     */
    RexTranslator zone(java.time.ZoneId zone) {
        this.zone = zone;
        return this;
    }

    /** The zone expressions compute in: the session's, UTC for a maintained result. */
    java.time.ZoneId zone() {
        return zone == null ? java.time.ZoneOffset.UTC : zone;
    }

    /** Whether, translated without a session's zone, an expression would compute otherwise in a zone other than UTC. */
    boolean zoneDependent() {
        return zoneDependent;
    }

    /** This translator translating the expressions of {@code rel}'s plan (in its cluster). */
    RexTranslator cluster(RelNode rel) {
        this.rexBuilder = rel.getCluster().getRexBuilder();
        return this;
    }

    /** Whether {@code over} is read from a column already (a window operator below computes it). */
    boolean hasOverColumn(RexOver over) {
        return overColumns.containsKey(over.toString());
    }

    /** Reads {@code over}, and every window call of its digest, as {@code column} from now on. */
    void overColumn(RexOver over, int column) {
        overColumns.put(over.toString(), column);
    }

    /** The value of a literal or a parameter; any other expression is refused as "not supported: {@code what}". */
    Object constant(RexNode n, String what) {
        return switch (n) {
            case RexLiteral l -> literalValue(l);
            case RexDynamicParam p -> params.apply(p.getIndex());
            default -> throw SqlException.notSupported(what);
        };
    }

    /** A LIMIT or OFFSET count: a literal or a parameter, not negative. */
    long count(RexNode n, String what) {
        Object v = constant(n, what + " with an expression");
        if (v == null) {
            throw new SqlException(SqlException.INVALID_PARAMETER, what + " must not be NULL");
        }
        long c = ((Number) SqlTypes.convert(v, DatumType.INT64)).longValue();
        if (c < 0) {
            throw new SqlException(SqlState.INVALID_ROW_COUNT_IN_LIMIT_CLAUSE, what + " must not be negative");
        }
        return c;
    }

    /** {@code node} as an expression over columns of types {@code in}, computing in the translator's {@link #zone}. */
    Expr rex(RexNode node, List<DatumType> in) {
        if (depth > 0) {
            return translate(node, in);
        }
        return PgConstantFolding.fold(zoned(node, in), in);
    }

    private Expr zoned(RexNode node, List<DatumType> in) {
        if (zone != null && zone.equals(java.time.ZoneOffset.UTC)) {
            return translate(node, in);
        }
        depth++;
        try {
            if (zone == null) {
                // translated in UTC and in another zone: a difference (a binding, a literal read in the zone) is a dependence
                Expr e = translate(node, in);
                zoneDependent |= !inZone(node, in, PROBE).equals(e);
                return e;
            }
            return inZone(node, in, zone);
        } finally {
            depth--;
        }
    }

    /** A zone no session's is likely to be, whose translation tells whether an expression depends on the zone. */
    private static final java.time.ZoneId PROBE = java.time.ZoneOffset.ofHoursMinutes(5, 17);

    private Expr inZone(RexNode node, List<DatumType> in, java.time.ZoneId z) {
        java.time.ZoneId before = zone;
        zone = z;
        try {
            return dev.tandem.expr.ZoneBinding.bind(SqlTypes.inZone(z, () -> translate(node, in)), in, z.getId());
        } finally {
            zone = before;
        }
    }

    private Expr translate(RexNode node, List<DatumType> in) {
        depth++;
        try {
            return translated(node, in);
        } finally {
            depth--;
        }
    }

    private Expr translated(RexNode node, List<DatumType> in) {
        return switch (node) {
            case RexInputRef ref -> Expr.col(ref.getIndex());
            case RexLiteral lit -> literal(lit);
            case RexDynamicParam p -> param(p);
            case RexOver over -> {
                Integer col = overColumns.get(over.toString());
                if (col == null) {
                    throw SqlException.notSupported("window functions (" + over.getOperator().getName().toLowerCase(Locale.ROOT)
                            + "(...) OVER ...) here (only in a SELECT list)");
                }
                yield Expr.col(col);
            }
            case RexSubQuery sub -> throw SqlException.notSupported("subqueries in expressions (" + switch (sub.getKind()) {
                case IN, SOME, ALL -> "IN, ANY or ALL (SELECT ...)";
                case EXISTS -> "EXISTS (SELECT ...)";
                default -> "a scalar (SELECT ...)";
            } + "; only subqueries in FROM)");
            case RexCall call -> call(call, in);
            default -> throw SqlException.notSupported(node.getKind() == SqlKind.SCALAR_QUERY || node.getKind() == SqlKind.IN
                    || node.getKind() == SqlKind.EXISTS ? "subqueries in expressions (only subqueries in FROM)" : "expression " + node);
        };
    }

    private Expr literal(RexLiteral lit) {
        DatumType t = SqlTypes.of(lit.getType());
        if (t == DatumType.NUMERIC && comparing == 0) {
            PgCoercion.refuseCastLiteral(lit);
        }
        PgCoercion.exactLiteral(lit, t);
        return Expr.lit(t == null ? null : SqlTypes.convert(literalValue(lit), t), t == null ? DatumType.STRING : t);
    }

    private Expr param(RexDynamicParam p) {
        Object v = params.apply(p.getIndex());
        SqlTypeName pt = p.getType().getSqlTypeName();
        // a parameter Calcite typed integer or smallint (a literal of the statement's cached plan: 40000::smallint)
        if (v instanceof Long l && (pt == SqlTypeName.INTEGER ? l != l.intValue() : (pt == SqlTypeName.SMALLINT || pt == SqlTypeName.TINYINT) && l != l.shortValue())) {
            throw new SqlException(SqlException.OUT_OF_RANGE, (pt == SqlTypeName.INTEGER ? "integer" : "smallint") + " out of range");
        }
        return Expr.lit(v, paramTypes.apply(p.getIndex()));
    }

    private List<Expr> args(List<RexNode> ops, List<DatumType> in) {
        List<Expr> out = new ArrayList<>();
        for (RexNode o : ops) {
            out.add(rex(o, in));
        }
        return out;
    }

    // ------------------------------------------------------------------ calls

    private static boolean isComparison(SqlKind kind) {
        return switch (kind) {
            case SEARCH, EQUALS, NOT_EQUALS, LESS_THAN, LESS_THAN_OR_EQUAL, GREATER_THAN, GREATER_THAN_OR_EQUAL, IS_DISTINCT_FROM,
                    IS_NOT_DISTINCT_FROM -> true;
            default -> false;
        };
    }

    private Expr call(RexCall call, List<DatumType> in) {
        byteaCall(call);
        boolean compares = isComparison(call.getKind());
        comparing += compares ? 1 : 0;
        try {
            return PgCoercion.heldToRange(call, translateCall(call, in), in);
        } finally {
            comparing -= compares ? 1 : 0;
        }
    }

    /** Refuses a call of a {@code bytea} but a comparison, a test for NULL, a cast, CASE or coalesce: Tandem has no other bytea operators yet. */
    private static void byteaCall(RexCall call) {
        boolean bytea = isBinary(call.getType()) || call.getOperands().stream().anyMatch(o -> isBinary(o.getType()));
        boolean allowed = isComparison(call.getKind()) || switch (call.getKind()) {
            case IS_NULL, IS_NOT_NULL, CAST, CASE, COALESCE -> true;
            default -> false;
        };
        if (bytea && !allowed) {
            throw SqlException.notSupported(call.getOperator().getName().toLowerCase(Locale.ROOT) + " of bytea");
        }
    }

    private static boolean isBinary(RelDataType t) {
        return t.getSqlTypeName() == SqlTypeName.BINARY || t.getSqlTypeName() == SqlTypeName.VARBINARY;
    }

    private Expr translateCall(RexCall call, List<DatumType> in) {
        List<RexNode> ops = call.getOperands();
        SqlKind kind = call.getKind();
        return switch (kind) {
            case SEARCH -> rex(RexUtil.expandSearch(rexBuilder, null, call), in);
            case EQUALS, NOT_EQUALS, LESS_THAN, LESS_THAN_OR_EQUAL, GREATER_THAN, GREATER_THAN_OR_EQUAL -> comparison(call, in);
            case AND, OR -> new Expr.Call(kind == SqlKind.AND ? Func.AND : Func.OR, args(ops, in));
            case NOT -> Expr.call(Func.NOT, rex(ops.get(0), in));
            case IS_NULL -> Expr.call(Func.IS_NULL, rex(ops.get(0), in));
            case IS_NOT_NULL -> Expr.call(Func.NOT, Expr.call(Func.IS_NULL, rex(ops.get(0), in)));
            case IS_TRUE, IS_NOT_FALSE -> Expr.call(Func.COALESCE, rex(ops.get(0), in), Expr.lit(kind == SqlKind.IS_NOT_FALSE, DatumType.BOOL));
            case IS_FALSE, IS_NOT_TRUE -> Expr.call(Func.COALESCE, Expr.call(Func.NOT, rex(ops.get(0), in)),
                    Expr.lit(kind == SqlKind.IS_NOT_TRUE, DatumType.BOOL));
            case IS_DISTINCT_FROM, IS_NOT_DISTINCT_FROM -> distinctFrom(kind, ops, in);
            case PLUS, MINUS, TIMES, DIVIDE, MOD -> arithmetic(call, in);
            case MINUS_PREFIX -> Expr.call(Func.NEG, rex(ops.get(0), in));
            case PLUS_PREFIX -> rex(ops.get(0), in);
            case CASE -> caseWhen(ops, in);
            case LIKE -> like(call, in);
            case COALESCE -> new Expr.Call(Func.COALESCE, unify(args(ops, in), in, "COALESCE"));
            case NULLIF -> {
                // NULLIF(a, b): NULL when a = b, else a
                List<Expr> ab = unify(args(ops, in), in, "NULLIF");
                Expr a = ab.get(0);
                yield Expr.call(Func.IF, Expr.call(Func.EQ, a, ab.get(1)), Expr.lit(null, typeOf(a, in)), a);
            }
            case CAST -> PgCoercion.cast(rex(ops.get(0), in), ops.get(0).getType(), call.getType(), in);
            default -> function(call, in);
        };
    }

    private Expr comparison(RexCall call, List<DatumType> in) {
        Func f = switch (call.getKind()) {
            case EQUALS -> Func.EQ;
            case NOT_EQUALS -> Func.NEQ;
            case LESS_THAN -> Func.LT;
            case LESS_THAN_OR_EQUAL -> Func.LTE;
            case GREATER_THAN -> Func.GT;
            default -> Func.GTE;
        };
        Expr exact = integerAgainstDecimal(call.getKind(), call.getOperands(), in);
        if (exact != null) {
            return exact;
        }
        // the datum order is PostgreSQL's float8 order: -0 = 0, NaN = NaN and greatest
        return new Expr.Call(f, unify(args(call.getOperands(), in), in, call.getOperator().getName()));
    }

    /**
     * An integer compared with a decimal or double literal, exactly ({@link PgCoercion#integerAgainst}); null when the
     * comparison is not of an integer with such a literal, or is one a double compares exactly.
     */
    private Expr integerAgainstDecimal(SqlKind kind, List<RexNode> ops, List<DatumType> in) {
        for (int side = 0; side < 2; side++) {
            RexLiteral lit = PgCoercion.numericLiteral(ops.get(1 - side));
            RexNode other = lit == null ? null : PgCoercion.integerOperand(ops.get(side));
            if (other == null) {
                continue;
            }
            Expr integer = rex(other, in);
            if (typeOf(integer, in) == DatumType.INT64) {
                return PgCoercion.integerAgainst(side == 0 ? kind : kind.reverse(), integer, lit);
            }
        }
        return null;
    }

    private Expr distinctFrom(SqlKind kind, List<RexNode> ops, List<DatumType> in) {
        List<Expr> ab = unify(args(ops, in), in, kind == SqlKind.IS_DISTINCT_FROM ? "IS DISTINCT FROM" : "IS NOT DISTINCT FROM");
        Expr a = ab.get(0);
        Expr b = ab.get(1);
        Expr same = Expr.call(Func.IF, Expr.call(Func.IS_NULL, a), Expr.call(Func.IS_NULL, b),
                Expr.call(Func.IF, Expr.call(Func.IS_NULL, b), Expr.lit(false, DatumType.BOOL), Expr.call(Func.EQ, a, b)));
        return kind == SqlKind.IS_NOT_DISTINCT_FROM ? same : Expr.call(Func.NOT, same);
    }

    private Expr arithmetic(RexCall call, List<DatumType> in) {
        Func f = switch (call.getKind()) {
            case PLUS -> Func.ADD;
            case MINUS -> Func.SUB;
            case TIMES -> Func.MUL;
            case DIVIDE -> Func.DIV;
            default -> Func.MOD;
        };
        List<Expr> operands = args(call.getOperands(), in);
        Expr datetime = PgCoercion.datetimeArithmetic(f, operands, in);
        if (datetime != null) {
            return datetime;
        }
        List<Expr> args = unify(operands, in, call.getOperator().getName());
        DatumType t = typeOf(args.get(0), in);
        if (t != DatumType.INT64 && t != DatumType.FLOAT64 && t != DatumType.NUMERIC) {
            throw SqlException.notSupported("arithmetic on " + SqlTypes.pgName(t));
        }
        return new Expr.Call(f, args);
    }

    /** {@code CASE WHEN c1 THEN v1 ... ELSE e END}, its values of one type. */
    private Expr caseWhen(List<RexNode> ops, List<DatumType> in) {
        List<Expr> values = new ArrayList<>();
        for (int i = 1; i < ops.size(); i += 2) {
            values.add(rex(ops.get(i), in));
        }
        values.add(rex(ops.get(ops.size() - 1), in));
        values = unify(values, in, "CASE");
        Expr acc = values.get(values.size() - 1);
        for (int i = ops.size() - 3; i >= 0; i -= 2) {
            acc = Expr.call(Func.IF, rex(ops.get(i), in), values.get(i / 2), acc);
        }
        return acc;
    }

    /** LIKE, NOT LIKE, ILIKE, NOT ILIKE, with or without ESCAPE, of strings only. */
    private Expr like(RexCall call, List<DatumType> in) {
        SqlLikeOperator like = (SqlLikeOperator) call.getOperator();
        List<Expr> args = args(call.getOperands(), in);
        for (Expr a : args) {
            if (typeOf(a, in) != DatumType.STRING) {
                throw new SqlException(SqlException.UNDEFINED_FUNCTION, "operator does not exist: " + SqlTypes.pgName(typeOf(args.get(0), in))
                        + (like.isCaseSensitive() ? " ~~ " : " ~~* ") + SqlTypes.pgName(typeOf(args.get(1), in)));
            }
        }
        Expr match = new Expr.Call(like.isCaseSensitive() ? Func.LIKE : Func.ILIKE, args);
        return like.isNegated() ? Expr.call(Func.NOT, match) : match;
    }

    /** A call of a function or of an operator Calcite names (not by kind): the array functions, PostgreSQL's, then the standard ones. */
    private Expr function(RexCall call, List<DatumType> in) {
        Expr array = ArrayFunctions.translate(this, call, in);
        if (array != null) {
            return array;
        }
        Expr pg = PgFunctionCalls.translate(this, call, in);
        if (pg != null) {
            return pg;
        }
        String name = call.getOperator().getName().toUpperCase(Locale.ROOT);
        Func f = switch (name) {
            case "||" -> Func.CONCAT;
            case "LOWER" -> Func.LOWER;
            case "UPPER" -> Func.UPPER;
            case "CHAR_LENGTH", "CHARACTER_LENGTH", "LENGTH" -> Func.LENGTH;
            case "SUBSTRING" -> Func.SUBSTR;
            case "ABS" -> Func.ABS;
            case "MOD" -> Func.MOD;
            default -> throw SqlException.notSupported("function " + call.getOperator().getName().toLowerCase(Locale.ROOT));
        };
        List<Expr> args = args(call.getOperands(), in);
        if (f == Func.MOD) {
            args = unify(args, in, "mod");
        }
        if (f == Func.CONCAT) {
            // text || anynonarray: the other operand as its cast to text writes it
            List<Expr> texts = new ArrayList<>();
            for (Expr a : args) {
                texts.add(PgCoercion.text(a, typeOf(a, in)));
            }
            args = texts;
        }
        return new Expr.Call(f, args);
    }

    // ------------------------------------------------------------------ literals

    /** The value of a literal as Java sees it: Long, BigDecimal, Double, String, Boolean, Timestamp or null. */
    static Object literalValue(RexLiteral lit) {
        if (lit.isNull()) {
            return null;
        }
        SqlTypeName t = lit.getType().getSqlTypeName();
        return switch (t) {
            case BOOLEAN -> lit.getValueAs(Boolean.class);
            case TINYINT, SMALLINT, INTEGER -> {
                // a constant Calcite folded into a literal of its type (99999::smallint, length('abc') * 1000000000)
                long v = lit.getValueAs(Long.class);
                if (t == SqlTypeName.INTEGER ? v != (int) v : v != (short) v) {
                    throw new SqlException(SqlException.OUT_OF_RANGE, (t == SqlTypeName.INTEGER ? "integer" : "smallint") + " out of range");
                }
                yield v;
            }
            case BIGINT -> lit.getValueAs(Long.class);
            case DECIMAL -> lit.getValueAs(BigDecimal.class);
            case FLOAT, REAL, DOUBLE -> lit.getValueAs(Double.class);
            case CHAR, VARCHAR -> lit.getValueAs(String.class);
            case TIMESTAMP -> SqlTypes.parseTimestamp(lit.getValueAs(TimestampString.class).toString());
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE -> new TimestampTz(SqlTypes.parseTimestamp(lit.getValueAs(TimestampString.class).toString()).micros());
            case DATE -> LocalDate.parse(lit.getValueAs(DateString.class).toString());
            case TIME -> dev.tandem.expr.Times.parse(lit.getValueAs(org.apache.calcite.util.TimeString.class).toString());
            case UUID -> lit.getValueAs(java.util.UUID.class);
            case BINARY, VARBINARY -> new Bytea(lit.getValueAs(ByteString.class).getBytes());
            case INTERVAL_YEAR, INTERVAL_YEAR_MONTH, INTERVAL_MONTH -> new Interval(lit.getValueAs(BigDecimal.class).intValueExact(), 0, 0);
            case INTERVAL_DAY, INTERVAL_DAY_HOUR, INTERVAL_DAY_MINUTE, INTERVAL_DAY_SECOND, INTERVAL_HOUR, INTERVAL_HOUR_MINUTE, INTERVAL_HOUR_SECOND,
                    INTERVAL_MINUTE, INTERVAL_MINUTE_SECOND, INTERVAL_SECOND -> {
                long micros = lit.getValueAs(BigDecimal.class).movePointRight(3).longValueExact();
                yield new Interval(0, (int) (micros / Interval.MICROS_PER_DAY), micros % Interval.MICROS_PER_DAY);
            }
            default -> throw SqlException.notSupported("a literal of type " + t.getName().toLowerCase(Locale.ROOT));
        };
    }
}
