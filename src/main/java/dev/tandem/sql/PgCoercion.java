package dev.tandem.sql;

import dev.tandem.expr.Datetimes;
import dev.tandem.expr.Expr;
import dev.tandem.expr.ExprException;
import dev.tandem.expr.Func;
import dev.tandem.row.DatumType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * PostgreSQL's rules for the types of translated operands: a quoted literal (and NULL) has no type of its own and takes
 * the one its use needs; {@code bigint}, {@code numeric} and {@code double precision} meet at the widest; a cast to or from
 * text writes and reads as PostgreSQL's does; what Calcite types {@code integer} or {@code smallint} is held to that range;
 * an integer compared with a decimal literal is compared exactly. Any other mix of types is refused, never compared as
 * some common type.
 */
final class PgCoercion {

    private static final Set<DatumType> DATETIMES = EnumSet.of(DatumType.DATE, DatumType.TIMESTAMP, DatumType.TIMESTAMPTZ,
            DatumType.INTERVAL, DatumType.TIME);
    private static final double TWO_53 = 0x1p53;
    private static final double TWO_63 = 0x1p63;
    private static final BigDecimal LONG_MIN = BigDecimal.valueOf(Long.MIN_VALUE);
    private static final BigDecimal LONG_MAX = BigDecimal.valueOf(Long.MAX_VALUE);

    private PgCoercion() {
    }

    /** The type of {@code e} over columns of types {@code in}; an expression the types do not fit is {@code 42804}. */
    static DatumType typeOf(Expr e, List<DatumType> in) {
        try {
            return e.typeOf(in);
        } catch (ExprException x) {
            throw new SqlException(SqlException.DATATYPE_MISMATCH, x.getMessage());
        }
    }

    /** Whether {@code e} is a quoted literal or NULL, which has no type of its own until its use gives it one. */
    static boolean untyped(Expr e) {
        return e instanceof Expr.Lit l && (l.value() == null || l.type() == DatumType.STRING);
    }

    private static boolean isNumber(DatumType t) {
        return t == DatumType.INT64 || t == DatumType.FLOAT64 || t == DatumType.NUMERIC;
    }

    /**
     * The arguments of {@code op} brought to one type, as PostgreSQL resolves them: a quoted literal
     * (and NULL) has no type of its own and takes the others' (parsed as that type); int64 and numeric
     * meet at numeric, either with float64 at float64; any other mix is refused ({@code text = bigint}: 42883, {@code CASE}/{@code
     * COALESCE} branches: 42804), never compared as some common type.
     */
    static List<Expr> unify(List<Expr> args, List<DatumType> in, String op) {
        DatumType target = null;
        boolean numeric = true;
        boolean anyFloat = false;
        boolean anyNumeric = false;
        boolean mixed = false;
        for (Expr a : args) {
            if (untyped(a)) {
                continue;
            }
            DatumType t = typeOf(a, in);
            mixed |= target != null && t != target;
            target = target == null ? t : target;
            numeric &= isNumber(t);
            anyFloat |= t == DatumType.FLOAT64;
            anyNumeric |= t == DatumType.NUMERIC;
        }
        if (mixed && !numeric) {
            List<String> names = args.stream().filter(a -> !untyped(a)).map(a -> SqlTypes.pgName(typeOf(a, in))).distinct().toList();
            if (op.chars().allMatch(c -> !Character.isLetter(c)) && args.size() == 2) {
                throw new SqlException(SqlException.UNDEFINED_FUNCTION, "operator does not exist: " + SqlTypes.pgName(typeOf(args.get(0), in))
                        + " " + op + " " + SqlTypes.pgName(typeOf(args.get(1), in)));
            }
            throw new SqlException(SqlException.DATATYPE_MISMATCH, op + " types " + String.join(" and ", names) + " cannot be matched");
        }
        if (target == null) {
            for (Expr a : args) {
                if (!(a instanceof Expr.Lit l && l.value() == null)) {
                    target = typeOf(a, in);
                    break;
                }
            }
            if (target == null) {
                target = typeOf(args.get(0), in);
            }
        }
        if (numeric && anyFloat) {
            target = DatumType.FLOAT64;
        } else if (numeric && anyNumeric) {
            target = DatumType.NUMERIC;
        }
        List<Expr> out = new ArrayList<>();
        for (Expr a : args) {
            out.add(coerce(a, typeOf(a, in), target));
        }
        return out;
    }

    /** The type of a set operation's column whose inputs are of types {@code column}: numbers meet at the widest, else the first's. */
    static DatumType setOpType(List<DatumType> column) {
        boolean numbers = column.stream().allMatch(PgCoercion::isNumber);
        return numbers && column.contains(DatumType.FLOAT64) ? DatumType.FLOAT64
                : numbers && column.contains(DatumType.NUMERIC) ? DatumType.NUMERIC : column.get(0);
    }

    /** {@code e}, of type {@code from}, as a {@code to}: a literal becomes that type's literal, anything else its cast. */
    static Expr coerce(Expr e, DatumType from, DatumType to) {
        if (from == to) {
            return e;
        }
        if (e instanceof Expr.Lit l && l.value() == null) {
            return Expr.lit(null, to);
        }
        if (e instanceof Expr.Lit l && (from == DatumType.NUMERIC || from == DatumType.INT64)
                && (to == DatumType.FLOAT64 || to == DatumType.NUMERIC)) {
            // a number literal taking a wider type is that type's literal (0.0 compared with a double is the double 0)
            return Expr.lit(SqlTypes.convert(l.value(), to), to);
        }
        if (e instanceof Expr.Lit l && (from == DatumType.TIMESTAMP || from == DatumType.DATE) && to == DatumType.TIMESTAMPTZ) {
            // a local time literal read as an instant in the session's time zone ('2024-01-02 03:04'::timestamptz)
            return Expr.lit(SqlTypes.convert(l.value(), to), to);
        }
        if (e instanceof Expr.Lit l && from == DatumType.STRING) {
            // a quoted literal takes the type it is used as, parsed as PostgreSQL parses it ('2024-01-02 03:04:05')
            return Expr.lit(SqlTypes.convert(l.value(), to), to);
        }
        return Expr.cast(e, to);
    }

    /**
     * {@code CAST(a AS toType)} of the translated operand {@code a} (of Calcite's {@code fromType}): from jsonb as
     * PostgreSQL reads a jsonb scalar, to text as PostgreSQL writes, a double to an integer rounded to even; a type
     * Tandem does not distinguish ({@code NULL}'s) is no cast.
     */
    static Expr cast(Expr a, RelDataType fromType, RelDataType toType, List<DatumType> in) {
        DatumType to = SqlTypes.of(toType);
        if (to == null) {
            return a;
        }
        SqlTypeName fromSql = fromType.getSqlTypeName();
        DatumType from = typeOf(a, in);
        if (from == DatumType.JSONB && to != DatumType.JSONB && to != DatumType.STRING) {
            return JsonbFunctions.castFrom(a, toType.getSqlTypeName(), to);
        }
        if (to == DatumType.STRING) {
            return text(a, from);
        }
        if (from == DatumType.TIME && to != DatumType.TIME || to == DatumType.TIME && from != DatumType.TIME && from != DatumType.STRING && from != DatumType.TIMESTAMP
                && from != DatumType.TIMESTAMPTZ) {
            if (from == DatumType.INTERVAL || to == DatumType.INTERVAL) {
                throw SqlException.notSupported("casting " + SqlTypes.pgName(from) + " to " + SqlTypes.pgName(to));
            }
            throw new SqlException(SqlState.CANNOT_COERCE, "cannot cast type " + SqlTypes.pgName(from) + " to " + SqlTypes.pgName(to));
        }
        if (to == DatumType.INT64 && (fromSql == SqlTypeName.DOUBLE || fromSql == SqlTypeName.FLOAT || fromSql == SqlTypeName.REAL)
                && from == DatumType.FLOAT64) {
            return roundHalfEven(a);
        }
        return coerce(a, from, to);
    }

    /** {@code a}, of type {@code from}, as its cast to text writes it (a string as it is). */
    static Expr text(Expr a, DatumType from) {
        if (from == DatumType.STRING) {
            return a;
        }
        if (from == DatumType.FLOAT64 || from == DatumType.TIMESTAMP) {
            // Tandem's cast writes these in its own notation (1.0, 2024-01-02T03:04:05Z), not PostgreSQL's
            throw SqlException.notSupported("casting " + SqlTypes.pgName(from) + " to text");
        }
        return coerce(a, from, DatumType.STRING);
    }

    /**
     * A double's conversion to bigint as PostgreSQL's {@code rint}: to the nearest integer, ties to the
     * even one ({@code 2.5} → 2, {@code -2.5} → -2). Tandem's cast rounds ties away from zero; a tie
     * that landed on an odd integer is moved one back towards zero.
     */
    private static Expr roundHalfEven(Expr x) {
        Expr r = Expr.cast(x, DatumType.INT64);
        Expr diff = Expr.call(Func.SUB, x, Expr.cast(r, DatumType.FLOAT64));
        Expr odd = Expr.call(Func.NEQ, Expr.call(Func.MOD, r, Expr.lit(2L, DatumType.INT64)), Expr.lit(0L, DatumType.INT64));
        Expr one = Expr.lit(1L, DatumType.INT64);
        return Expr.call(Func.IF, Expr.call(Func.AND, Expr.call(Func.EQ, diff, Expr.lit(-0.5, DatumType.FLOAT64)), odd),
                Expr.call(Func.SUB, r, one),
                Expr.call(Func.IF, Expr.call(Func.AND, Expr.call(Func.EQ, diff, Expr.lit(0.5, DatumType.FLOAT64)), odd),
                        Expr.call(Func.ADD, r, one), r));
    }

    // ------------------------------------------------------------------ integer and smallint

    /**
     * {@code e}, the translation of {@code call}, held to the range of PostgreSQL's {@code integer} or
     * {@code smallint} where it is arithmetic or a cast that Calcite types so ({@code 2147483647 + 1} and
     * {@code 99999999999::int} are {@code 22003}, as in PostgreSQL): Tandem computes every integer in 64 bits.
     */
    static Expr heldToRange(RexCall call, Expr e, List<DatumType> in) {
        SqlTypeName type = call.getType().getSqlTypeName();
        // (Calcite types a numeric's MOD by an integer as the integer: only an int64 is held to the range)
        if (type != SqlTypeName.INTEGER && type != SqlTypeName.SMALLINT && type != SqlTypeName.TINYINT || typeOf(e, in) != DatumType.INT64) {
            return e;
        }
        boolean fits = switch (call.getKind()) {
            case PLUS, MINUS, TIMES, DIVIDE, MOD, MINUS_PREFIX -> false;
            // a cast from an integer type as narrow is no change
            case CAST -> narrowerOrSame(call.getOperands().get(0).getType().getSqlTypeName(), type);
            default -> true;
        };
        return fits ? e : Expr.call(type == SqlTypeName.INTEGER ? Func.FIT_INT4 : Func.FIT_INT2, e);
    }

    private static boolean narrowerOrSame(SqlTypeName from, SqlTypeName to) {
        int f = from == SqlTypeName.TINYINT ? 1 : from == SqlTypeName.SMALLINT ? 2 : from == SqlTypeName.INTEGER ? 4 : 8;
        int t = to == SqlTypeName.TINYINT ? 1 : to == SqlTypeName.SMALLINT ? 2 : 4;
        return f <= t || from == SqlTypeName.NULL;
    }

    // ------------------------------------------------------------------ dates and times

    /**
     * Arithmetic on dates, times and intervals as PostgreSQL types it ({@code date + integer}, {@code date - date},
     * {@code timestamp + interval}, {@code timestamp - timestamp}, {@code interval * number}), a quoted literal taking
     * the type the other side needs; null when neither side is a date or time; 0A000 for an operation
     * Tandem does not compute, 42883 for one PostgreSQL has no operator for.
     */
    static Expr datetimeArithmetic(Func f, List<Expr> operands, List<DatumType> in) {
        if (operands.size() != 2) {
            return null;
        }
        List<Expr> args = new ArrayList<>(operands);
        DatumType a = untyped(args.get(0)) ? null : typeOf(args.get(0), in);
        DatumType b = untyped(args.get(1)) ? null : typeOf(args.get(1), in);
        if (!DATETIMES.contains(a) && !DATETIMES.contains(b)) {
            return null;
        }
        if (a == null) {
            a = b == DatumType.DATE && f == Func.SUB ? DatumType.DATE : DatumType.INT64;
            args.set(0, coerce(args.get(0), DatumType.STRING, a));
        }
        if (b == null) {
            b = a == DatumType.DATE && f == Func.SUB ? DatumType.DATE : DatumType.INT64;
            args.set(1, coerce(args.get(1), DatumType.STRING, b));
        }
        DatumType result = Datetimes.arithmeticType(f, a, b);
        if (result == null && f == Func.ADD && a == DatumType.TIME && b == DatumType.TIME) {
            // PostgreSQL reads either side as an interval (an implicit cast), so two operators fit
            throw new SqlException(SqlState.AMBIGUOUS_FUNCTION, "operator is not unique: time without time zone + time without time zone");
        }
        if (result == null) {
            if (f == Func.SUB && a == b || (f == Func.ADD || f == Func.SUB) && (b == DatumType.INT64 || a == DatumType.INT64)) {
                throw new SqlException(SqlException.UNDEFINED_FUNCTION, "operator does not exist: " + SqlTypes.pgName(a) + " "
                        + (f == Func.ADD ? "+" : f == Func.SUB ? "-" : f.jsonName()) + " " + SqlTypes.pgName(b));
            }
            throw SqlException.notSupported("the arithmetic " + SqlTypes.pgName(a) + " " + f.jsonName() + " " + SqlTypes.pgName(b));
        }
        return new Expr.Call(f, args);
    }

    // ------------------------------------------------------------------ an integer against a decimal literal

    /** A non-NULL literal of a decimal or double type (possibly under Calcite's cast to another decimal), or null. */
    static RexLiteral numericLiteral(RexNode e) {
        if (e instanceof RexCall c && c.getKind() == SqlKind.CAST && c.getType().getSqlTypeName() == SqlTypeName.DECIMAL
                && c.getOperands().get(0) instanceof RexLiteral inner && inner.getType().getSqlTypeName() == SqlTypeName.DECIMAL) {
            // an IN list's values cast by Calcite to a common decimal type: the cast would round 1.5 to 2
            e = inner;
        }
        if (!(e instanceof RexLiteral lit) || lit.isNull()) {
            return null;
        }
        SqlTypeName t = lit.getType().getSqlTypeName();
        if (t == SqlTypeName.DECIMAL) {
            // an integer literal bigint holds is an integer, compared as one already
            return SqlTypes.of(lit.getType()) == DatumType.INT64 ? null : lit;
        }
        return t == SqlTypeName.DOUBLE || t == SqlTypeName.FLOAT || t == SqlTypeName.REAL ? lit : null;
    }

    /** {@code e} without Calcite's implicit widening to another number type when what it widens is an integer, else null. */
    static RexNode integerOperand(RexNode e) {
        while (e instanceof RexCall c && c.getKind() == SqlKind.CAST && isNumeric(c.getType().getSqlTypeName())
                && isNumeric(c.getOperands().get(0).getType().getSqlTypeName())) {
            // Calcite's implicit widening of the integer to the literal's type (a user cannot write numeric)
            e = c.getOperands().get(0);
        }
        return isInteger(e.getType()) ? e : null;
    }

    private static boolean isNumeric(SqlTypeName t) {
        return t == SqlTypeName.DECIMAL || t == SqlTypeName.DOUBLE || t == SqlTypeName.FLOAT || t == SqlTypeName.REAL
                || t == SqlTypeName.BIGINT || t == SqlTypeName.INTEGER || t == SqlTypeName.SMALLINT || t == SqlTypeName.TINYINT;
    }

    private static boolean isInteger(RelDataType t) {
        return switch (t.getSqlTypeName()) {
            case BIGINT, INTEGER, SMALLINT, TINYINT -> true;
            default -> false;
        };
    }

    /**
     * The comparison {@code x k lit} of an integer x with a decimal or double literal, as PostgreSQL compares them: exactly,
     * in {@code numeric} (a double would round an integer beyond 2^53: {@code b = 9007199254740993.0} would match
     * 9007199254740992). A decimal literal's exact value is known, so the comparison becomes one of the
     * integer with an integer bound ({@link #integerBound}). A literal Calcite made a double ({@code 1e19}: a numeric
     * in PostgreSQL too) was rounded when parsed, so only where a double comparison is exact anyway (beyond 2^53 no
     * bigint's rounding crosses it) does it stay one (null: compare as usual); between 2^53 and 2^63 it is refused.
     */
    static Expr integerAgainst(SqlKind k, Expr x, RexLiteral lit) {
        if (lit.getType().getSqlTypeName() != SqlTypeName.DECIMAL) {
            double d = lit.getValueAs(Double.class);
            if (Math.abs(d) >= TWO_53 && Math.abs(d) <= TWO_63) {
                throw SqlException.notSupported("comparing an integer with the double precision " + d + ", between 2^53 and 2^63"
                        + " (a number written with an exponent is a numeric in PostgreSQL, compared exactly; Tandem reads it as a double"
                        + " precision, rounded: write the number without an exponent)");
            }
            return null;
        }
        return integerBound(k, x, lit.getValueAs(BigDecimal.class));
    }

    /**
     * {@code x k v} for an integer x and an exact decimal v, as a comparison of x with an integer: {@code
     * x < v} is {@code x < ceil(v)}, {@code x <= v} is {@code x <= floor(v)}, {@code x > v} is {@code x >
     * floor(v)}, {@code x >= v} is {@code x >= ceil(v)}, {@code x = v} is {@code x = v} for an integral v
     * and false otherwise ({@code <>} true); a bound beyond bigint's range makes the comparison true or
     * false for every non-NULL x (still NULL for NULL, as {@code x <= MAX} and {@code x > MAX} are).
     */
    private static Expr integerBound(SqlKind k, Expr x, BigDecimal v) {
        BigDecimal floor = v.setScale(0, RoundingMode.FLOOR);
        BigDecimal ceil = v.setScale(0, RoundingMode.CEILING);
        Expr always = Expr.call(Func.LTE, x, Expr.lit(Long.MAX_VALUE, DatumType.INT64));
        Expr never = Expr.call(Func.GT, x, Expr.lit(Long.MAX_VALUE, DatumType.INT64));
        boolean integral = floor.compareTo(v) == 0;
        return switch (k) {
            case LESS_THAN -> ceil.compareTo(LONG_MAX) > 0 ? always : ceil.compareTo(LONG_MIN) <= 0 ? never : bound(Func.LT, x, ceil);
            case LESS_THAN_OR_EQUAL -> floor.compareTo(LONG_MAX) >= 0 ? always : floor.compareTo(LONG_MIN) < 0 ? never : bound(Func.LTE, x, floor);
            case GREATER_THAN -> floor.compareTo(LONG_MIN) < 0 ? always : floor.compareTo(LONG_MAX) >= 0 ? never : bound(Func.GT, x, floor);
            case GREATER_THAN_OR_EQUAL -> ceil.compareTo(LONG_MIN) <= 0 ? always : ceil.compareTo(LONG_MAX) > 0 ? never : bound(Func.GTE, x, ceil);
            case EQUALS -> integral && v.compareTo(LONG_MIN) >= 0 && v.compareTo(LONG_MAX) <= 0 ? bound(Func.EQ, x, v) : never;
            case NOT_EQUALS -> integral && v.compareTo(LONG_MIN) >= 0 && v.compareTo(LONG_MAX) <= 0 ? bound(Func.NEQ, x, v) : always;
            default -> throw new IllegalArgumentException("not a comparison: " + k);
        };
    }

    private static Expr bound(Func f, Expr x, BigDecimal v) {
        return Expr.call(f, x, Expr.lit(v.longValueExact(), DatumType.INT64));
    }

    // ------------------------------------------------------------------ number literals

    /** Refuses an integer literal beyond bigint's range: a numeric in PostgreSQL, a double here, it would print otherwise. */
    static void exactLiteral(RexLiteral lit, DatumType t) {
        if (t == DatumType.FLOAT64 && lit.getType().getSqlTypeName() == SqlTypeName.DECIMAL && lit.getType().getScale() == 0 && !lit.isNull()) {
            throw SqlException.notSupported("the integer " + lit.getValueAs(BigDecimal.class).toPlainString()
                    + " beyond bigint's range (a numeric in PostgreSQL; Tandem's integers are bigint)");
        }
    }

    /**
     * Refuses a numeric literal Calcite cast to the common type of its CASE, COALESCE, VALUES or set operation,
     * adding places PostgreSQL would not print (1 beside 2.5 is 1 there, 1.0 here).
     */
    static void refuseCastLiteral(RexLiteral lit) {
        if (castLiteral(lit)) {
            throw SqlException.notSupported("the number " + lit.getValueAs(BigDecimal.class).stripTrailingZeros().toPlainString()
                    + " beside numbers of another scale in one column (CASE, COALESCE, VALUES, UNION): write each with the same"
                    + " number of decimal places");
        }
    }

    /** Whether a numeric literal carries places its own digits did not: Calcite cast it to a wider scale. */
    private static boolean castLiteral(RexLiteral lit) {
        BigDecimal v = lit.getValueAs(BigDecimal.class);
        // a literal as written has Calcite's precision of its digits (0.50: 3)
        return v != null && v.scale() > 0 && v.unscaledValue().mod(BigInteger.TEN).signum() == 0
                && lit.getType().getPrecision() != Math.max(v.precision(), v.scale() + 1);
    }
}
