package dev.tandem.expr;

import dev.tandem.row.DatumArray;
import dev.tandem.row.DatumType;
import dev.tandem.row.Jsonb;
import dev.tandem.row.Timestamp;
import dev.tandem.row.TimestampTz;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/** Evaluation of type-checked expressions over decoded rows; see {@link Func} for the semantics. */
final class ExprEval {

    private static final double TWO_63 = 0x1p63;

    private ExprEval() {
    }

    static Object eval(Expr e, Object[] row) {
        return switch (e) {
            case Expr.Col c -> row[c.index()];
            case Expr.Lit l -> l.value();
            case Expr.Call c -> call(c, row);
        };
    }

    private static Object call(Expr.Call c, Object[] row) {
        List<Expr> args = c.args();
        switch (c.func()) {
            case ERROR -> throw new EvalError(args.size() > 1
                    ? java.util.Objects.requireNonNullElse(EvalError.Code.fromJson(String.valueOf(eval(args.get(1), row))), EvalError.Code.DATA_EXCEPTION)
                    : EvalError.Code.CARDINALITY_VIOLATION, String.valueOf(eval(args.get(0), row)));
            case AND, OR -> {
                boolean decider = c.func() == Func.OR;
                boolean sawNull = false;
                for (Expr a : args) {
                    Object v = eval(a, row);
                    if (v == null) {
                        sawNull = true;
                    } else if ((Boolean) v == decider) {
                        return decider;
                    }
                }
                return sawNull ? null : !decider;
            }
            case IS_NULL -> {
                return eval(args.get(0), row) == null;
            }
            case CAST -> {
                Object a = eval(args.get(0), row);
                return a == null ? null
                        : cast(a, c.type(), args.size() > 1 ? TimeZones.of((String) eval(args.get(1), row)) : java.time.ZoneOffset.UTC);
            }
            case COALESCE -> {
                for (Expr a : args) {
                    Object v = eval(a, row);
                    if (v != null) {
                        return v;
                    }
                }
                return null;
            }
            case IF -> {
                Object cond = eval(args.get(0), row);
                return eval(args.get(Boolean.TRUE.equals(cond) ? 1 : 2), row);
            }
            case CONCAT -> {
                StringBuilder sb = new StringBuilder();
                for (Expr a : args) {
                    Object v = eval(a, row);
                    if (v == null) {
                        return null;
                    }
                    sb.append((String) v);
                }
                return sb.toString();
            }
            case CONCAT_ARGS, CONCAT_WS, GREATEST, LEAST -> {
                Object[] v = new Object[args.size()];
                for (int i = 0; i < v.length; i++) {
                    v[i] = eval(args.get(i), row);
                }
                if (c.func() == Func.GREATEST || c.func() == Func.LEAST) {
                    Object best = null;
                    for (Object x : v) {
                        if (x != null && (best == null || Datums.compare(x, best) * (c.func() == Func.GREATEST ? 1 : -1) > 0)) {
                            best = x;
                        }
                    }
                    return best;
                }
                if (c.func() == Func.CONCAT_ARGS) {
                    return TextFunctions.join(null, v);
                }
                return v[0] == null ? null : TextFunctions.join((String) v[0], Arrays.copyOfRange(v, 1, v.length));
            }
            case STRPOS, REPLACE, SPLIT_PART, BTRIM, LTRIM, RTRIM, LPAD, RPAD, LEFT, RIGHT, REPEAT, REVERSE, INITCAP, MD5, STARTS_WITH,
                    TRANSLATE, REGEXP_LIKE, REGEXP_REPLACE, SIMILAR_ESCAPE -> {
                Object[] v = strictArgs(args, row);
                return v == null ? null : TextFunctions.apply(c.func(), v);
            }
            case EXTRACT, DATE_TRUNC -> {
                Object[] v = strictArgs(args, row);
                if (v == null) {
                    return null;
                }
                java.time.ZoneId zone = v.length > 2 ? TimeZones.of((String) v[2]) : java.time.ZoneOffset.UTC;
                if (c.func() == Func.EXTRACT) {
                    return Datetimes.extract((String) v[0], v[1], zone);
                }
                return v[1] instanceof Timestamp t ? (Object) new Timestamp(Datetimes.truncate((String) v[0], t.micros(), "timestamp without time zone"))
                        : (Object) new TimestampTz(Datetimes.truncate((String) v[0], ((TimestampTz) v[1]).micros(), "timestamp with time zone",
                                v.length > 2 ? zone : null));
            }
            case TZ_PLUS -> {
                Object[] v = strictArgs(args, row);
                return v == null ? null : new TimestampTz(Intervals.plus(((TimestampTz) v[0]).micros(), (dev.tandem.row.Interval) v[1],
                        TimeZones.of((String) v[2])));
            }
            case TIMEZONE -> {
                Object[] v = strictArgs(args, row);
                if (v == null) {
                    return null;
                }
                java.time.ZoneId zone = TimeZones.atTimeZone((String) v[0]);
                return v[1] instanceof TimestampTz t ? (Object) new Timestamp(Datetimes.checkedMicros(TimeZones.local(t.micros(), zone)))
                        : (Object) new TimestampTz(Datetimes.checkedMicros(TimeZones.instant(((Timestamp) v[1]).micros(), zone)));
            }
            case JSONB_BUILD_ARRAY, JSONB_BUILD_OBJECT -> {
                List<Object> v = new java.util.ArrayList<>(args.size());
                for (Expr a : args) {
                    v.add(eval(a, row));
                }
                return c.func() == Func.JSONB_BUILD_ARRAY ? Jsonbs.buildArray(v) : Jsonbs.buildObject(v);
            }
            case JSONB_FIELD, JSONB_FIELD_TEXT, JSONB_PATH, JSONB_PATH_TEXT, JSONB_CONTAINS, JSONB_EXISTS, JSONB_CONCAT, JSONB_TYPEOF,
                    JSONB_ARRAY_LENGTH, TO_JSONB, JSONB_TO_NUMERIC, JSONB_TO_BOOL -> {
                Object[] v = strictArgs(args, row);
                return v == null ? null : jsonb(c.func(), v);
            }
            case MAKE_DATE -> {
                Object[] v = strictArgs(args, row);
                return v == null ? null : Datetimes.makeDate((Long) v[0], (Long) v[1], (Long) v[2]);
            }
            case TO_TIMESTAMP -> {
                Object[] v = strictArgs(args, row);
                return v == null ? null : Datetimes.toTimestamp((Double) v[0]);
            }
            case TO_CHAR -> {
                Object[] v = strictArgs(args, row);
                if (v == null) {
                    return null;
                }
                return v[0] instanceof Long || v[0] instanceof Double || v[0] instanceof java.math.BigDecimal
                        ? FormatTemplates.number(v[0], (String) v[1])
                        : FormatTemplates.datetime(v[0], (String) v[1], v.length > 2 ? TimeZones.of((String) v[2]) : java.time.ZoneOffset.UTC);
            }
            case AGE -> {
                Object[] v = strictArgs(args, row);
                return v == null ? null : Intervals.age(((Timestamp) v[0]).micros(), ((Timestamp) v[1]).micros());
            }
            case FORMAT -> {
                Object fmt = eval(args.get(0), row);
                if (fmt == null) {
                    return null;
                }
                String[] rest = new String[args.size() - 1];
                for (int i = 0; i < rest.length; i++) {
                    rest[i] = (String) eval(args.get(i + 1), row);
                }
                return TextFunctions.format((String) fmt, rest);
            }
            case FIT_NUMERIC -> {
                Object[] v = strictArgs(args, row);
                return v == null ? null : Numerics.fit((java.math.BigDecimal) v[0], Math.toIntExact((Long) v[1]), Math.toIntExact((Long) v[2]));
            }
            case ARRAY -> {
                List<Object> v = new java.util.ArrayList<>(args.size());
                for (Expr a : args) {
                    v.add(eval(a, row));
                }
                return new DatumArray(c.type().element(), v);
            }
            case ANY, ALL -> {
                DatumArray a = (DatumArray) eval(args.get(2), row);
                return a == null ? null : ArrayValues.quantified(Func.fromJson((String) eval(args.get(0), row)), eval(args.get(1), row), a,
                        c.func() == Func.ALL);
            }
            case ARRAY_TO_STRING -> {
                Object a = eval(args.get(0), row);
                Object sep = eval(args.get(1), row);
                return a == null || sep == null ? null
                        : ArrayValues.join((DatumArray) a, (String) sep, args.size() == 3 ? (String) eval(args.get(2), row) : null);
            }
            case ARRAY_CAT -> {
                return ArrayValues.concat((DatumArray) eval(args.get(0), row), (DatumArray) eval(args.get(1), row));
            }
            case ARRAY_APPEND, ARRAY_PREPEND -> {
                boolean first = c.func() == Func.ARRAY_PREPEND;
                DatumArray a = (DatumArray) eval(args.get(first ? 1 : 0), row);
                Object e = eval(args.get(first ? 0 : 1), row);
                return ArrayValues.add(a, e, first);
            }
            case ARRAY_GET, ARRAY_LENGTH, CARDINALITY, ARRAY_CONTAINS, ARRAY_OVERLAP, JSONB_EXISTS_ANY, JSONB_EXISTS_ALL -> {
                Object[] v = strictArgs(args, row);
                if (v == null) {
                    return null;
                }
                return switch (c.func()) {
                    case ARRAY_GET -> ArrayValues.get((DatumArray) v[0], (Long) v[1]);
                    case ARRAY_LENGTH -> ArrayValues.length((DatumArray) v[0], (Long) v[1]);
                    case CARDINALITY -> (long) ((DatumArray) v[0]).size();
                    case ARRAY_CONTAINS -> ArrayValues.contains((DatumArray) v[0], (DatumArray) v[1]);
                    case ARRAY_OVERLAP -> ArrayValues.overlaps((DatumArray) v[0], (DatumArray) v[1]);
                    default -> ArrayValues.jsonbExists((Jsonb) v[0], (DatumArray) v[1], c.func() == Func.JSONB_EXISTS_ALL);
                };
            }
            case ROUND, ROUND_NUMERIC, TRUNC, FLOOR, CEIL, SIGN, SQRT, EXP, LN, LOG10, POWER -> {
                Object[] v = strictArgs(args, row);
                return v == null ? null : v[0] instanceof java.math.BigDecimal ? Numerics.apply(c.func(), v) : MathFunctions.apply(c.func(), v);
            }
            default -> {
            }
        }
        Object a = eval(args.get(0), row);
        if (a == null) {
            return null;
        }
        if (args.size() == 1) {
            return unary(c, a);
        }
        Object b = eval(args.get(1), row);
        if (b == null) {
            return null;
        }
        if (c.func() == Func.LIKE || c.func() == Func.ILIKE) {
            String escape = null;
            if (args.size() == 3) {
                escape = (String) eval(args.get(2), row);
                if (escape == null) {
                    return null;
                }
            }
            return Like.matches((String) a, (String) b, escape, c.func() == Func.ILIKE);
        }
        if (c.func() == Func.SUBSTR) {
            Long len = null;
            if (args.size() == 3) {
                len = (Long) eval(args.get(2), row);
                if (len == null) {
                    return null;
                }
            }
            return substr((String) a, (Long) b, len);
        }
        return binary(c.func(), a, b);
    }

    private static Object jsonb(Func f, Object[] v) {
        return switch (f) {
            case JSONB_FIELD -> v[1] instanceof Long i ? Jsonbs.element((Jsonb) v[0], i) : Jsonbs.field((Jsonb) v[0], (String) v[1]);
            case JSONB_FIELD_TEXT -> Jsonbs.text(v[1] instanceof Long i ? Jsonbs.element((Jsonb) v[0], i) : Jsonbs.field((Jsonb) v[0], (String) v[1]));
            case JSONB_PATH -> Jsonbs.path((Jsonb) v[0], (String) v[1]);
            case JSONB_PATH_TEXT -> Jsonbs.text(Jsonbs.path((Jsonb) v[0], (String) v[1]));
            case JSONB_CONTAINS -> Jsonbs.contains((Jsonb) v[0], (Jsonb) v[1]);
            case JSONB_EXISTS -> Jsonbs.exists((Jsonb) v[0], (String) v[1]);
            case JSONB_CONCAT -> Jsonbs.concat((Jsonb) v[0], (Jsonb) v[1]);
            case JSONB_TYPEOF -> Jsonbs.typeOf((Jsonb) v[0]);
            case JSONB_ARRAY_LENGTH -> Jsonbs.arrayLength((Jsonb) v[0]);
            case TO_JSONB -> Jsonbs.toJsonb(v[0]);
            case JSONB_TO_NUMERIC, JSONB_TO_BOOL -> Jsonbs.cast((Jsonb) v[0], f == Func.JSONB_TO_BOOL, (String) v[1]);
            default -> throw new IllegalStateException(f.name());
        };
    }

    /** The arguments' values, or null when one is NULL. */
    private static Object[] strictArgs(List<Expr> args, Object[] row) {
        Object[] v = new Object[args.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = eval(args.get(i), row);
            if (v[i] == null) {
                return null;
            }
        }
        return v;
    }

    private static Object unary(Expr.Call c, Object a) {
        return switch (c.func()) {
            case NOT -> !(Boolean) a;
            case NEG -> a instanceof dev.tandem.row.Interval v ? (Object) Intervals.negate(v) : a instanceof Long l ? (Object) exact(() -> Math.negateExact(l), "neg")
                    : a instanceof java.math.BigDecimal d ? (Object) d.negate() : (Object) (-(Double) a);
            case ABS -> a instanceof Long l ? (Object) exact(() -> Math.absExact(l), "abs")
                    : a instanceof java.math.BigDecimal d ? (Object) d.abs() : (Object) Math.abs((Double) a);
            case LOWER -> caseMapped((String) a, false);
            case UPPER -> caseMapped((String) a, true);
            case LENGTH -> (long) ((String) a).codePointCount(0, ((String) a).length());
            case OCTET_LENGTH -> (long) ((String) a).getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
            case FIT_INT4 -> {
                long v = (Long) a;
                if (v != (int) v) {
                    throw new EvalError(EvalError.Code.NUMERIC_OUT_OF_RANGE, "integer out of range");
                }
                yield a;
            }
            case FIT_INT2 -> {
                long v = (Long) a;
                if (v != (short) v) {
                    throw new EvalError(EvalError.Code.NUMERIC_OUT_OF_RANGE, "smallint out of range");
                }
                yield a;
            }
            default -> throw new IllegalStateException("not unary: " + c.func());
        };
    }

    /**
     * Each code point mapped to its own upper (or lower) case, as PostgreSQL maps each character: no
     * expansion ({@code ß} stays {@code ß}, where Java's String.toUpperCase writes {@code SS}) and no
     * context ({@code Σ} is always {@code σ}).
     */
    static String caseMapped(String s, boolean upper) {
        StringBuilder b = new StringBuilder(s.length());
        s.codePoints().forEach(c -> b.appendCodePoint(upper ? Character.toUpperCase(c) : Character.toLowerCase(c)));
        return b.toString();
    }

    private static Object binary(Func f, Object a, Object b) {
        boolean arithmetic = f == Func.ADD || f == Func.SUB || f == Func.MUL || f == Func.DIV;
        if ((f == Func.ADD || f == Func.SUB) && (a instanceof dev.tandem.row.TimeOfDay || b instanceof dev.tandem.row.TimeOfDay)) {
            return Times.arith(f, a, b);
        }
        if (arithmetic && (a instanceof dev.tandem.row.Interval || b instanceof dev.tandem.row.Interval)
                || f == Func.SUB && (a instanceof Timestamp || a instanceof TimestampTz)) {
            return Intervals.arith(f, a, b);
        }
        if ((f == Func.ADD || f == Func.SUB) && (a instanceof LocalDate || b instanceof LocalDate)) {
            return dateArith(f, a, b);
        }
        return switch (f) {
            case EQ -> Datums.sqlCompare(a, b) == 0;
            case NEQ -> Datums.sqlCompare(a, b) != 0;
            case LT -> Datums.sqlCompare(a, b) < 0;
            case LTE -> Datums.sqlCompare(a, b) <= 0;
            case GT -> Datums.sqlCompare(a, b) > 0;
            case GTE -> Datums.sqlCompare(a, b) >= 0;
            case ADD, SUB, MUL, DIV, MOD -> a instanceof Long x ? (Object) intArith(f, x, (Long) b)
                    : a instanceof java.math.BigDecimal x ? (Object) Numerics.arith(f, x, (java.math.BigDecimal) b)
                    : (Object) floatArith(f, (Double) a, (Double) b);
            default -> throw new IllegalStateException("not binary: " + f);
        };
    }

    private static Object dateArith(Func f, Object a, Object b) {
        if (f == Func.ADD) {
            return a instanceof LocalDate d ? Datetimes.plusDays(d, (Long) b) : Datetimes.plusDays((LocalDate) b, (Long) a);
        }
        return b instanceof LocalDate e ? (Object) (((LocalDate) a).toEpochDay() - e.toEpochDay())
                : (Object) Datetimes.plusDays((LocalDate) a, exact(() -> Math.negateExact((Long) b), "sub"));
    }

    private interface LongOp {
        long apply();
    }

    private static long exact(LongOp op, String what) {
        try {
            return op.apply();
        } catch (ArithmeticException e) {
            throw new EvalError(EvalError.Code.NUMERIC_OUT_OF_RANGE, "int64 overflow in " + what);
        }
    }

    private static long intArith(Func f, long x, long y) {
        return switch (f) {
            case ADD -> exact(() -> Math.addExact(x, y), "add");
            case SUB -> exact(() -> Math.subtractExact(x, y), "sub");
            case MUL -> exact(() -> Math.multiplyExact(x, y), "mul");
            case DIV -> {
                if (y == 0) throw new EvalError(EvalError.Code.DIVISION_BY_ZERO, "division by zero");
                yield exact(() -> Math.divideExact(x, y), "div");
            }
            case MOD -> {
                if (y == 0) throw new EvalError(EvalError.Code.DIVISION_BY_ZERO, "division by zero in mod");
                yield x % y;
            }
            default -> throw new IllegalStateException();
        };
    }

    private static double floatArith(Func f, double x, double y) {
        return switch (f) {
            case ADD -> x + y;
            case SUB -> x - y;
            case MUL -> x * y;
            case DIV -> {
                if (y == 0.0) throw new EvalError(EvalError.Code.DIVISION_BY_ZERO, "division by zero");
                yield x / y;
            }
            case MOD -> {
                if (y == 0.0) throw new EvalError(EvalError.Code.DIVISION_BY_ZERO, "division by zero in mod");
                yield x % y;
            }
            default -> throw new IllegalStateException();
        };
    }

    private static String substr(String s, long start, Long len) {
        if (len != null && len < 0) {
            throw new EvalError(EvalError.Code.DATA_EXCEPTION, "negative substring length " + len);
        }
        long n = s.codePointCount(0, s.length());
        long from = Math.max(start, 1);
        long to = len == null ? n + 1 : Math.min(n + 1, start > Long.MAX_VALUE - len ? Long.MAX_VALUE : start + len);
        if (to <= from || from > n) {
            return "";
        }
        int b = s.offsetByCodePoints(0, (int) (from - 1));
        int e = s.offsetByCodePoints(b, (int) (to - from));
        return s.substring(b, e);
    }

    /** {@code v} cast to {@code to}, converting between instants and local times in {@code zone}. */
    static Object cast(Object v, DatumType to, java.time.ZoneId zone) {
        if (to.accepts(v)) {
            return v;
        }
        if (v instanceof DatumArray a) {
            return to == DatumType.STRING ? ArrayValues.text(a, zone) : ArrayValues.cast(a, to, zone);
        }
        if (to.isArray()) {
            return ArrayValues.parse((String) v, to.element(), zone);
        }
        if (to == DatumType.STRING) {
            return switch (v) {
                case java.math.BigDecimal d -> d.toPlainString();
                case TimestampTz t -> Datetimes.text(t, zone);
                case dev.tandem.row.Interval i -> Intervals.text(i);
                case Jsonb j -> j.text();
                case dev.tandem.row.Bytea b -> b.hex();
                default -> v.toString();
            };
        }
        if (v instanceof String s) {
            return parse(s, to, zone);
        }
        return switch (to) {
            case BOOL -> (Long) v != 0;
            case INT64 -> switch (v) {
                case Boolean b -> b ? 1L : 0L;
                case Long l -> l;
                case Double d -> roundToLong(d);
                case Timestamp t -> t.micros();
                case java.math.BigDecimal d -> Numerics.toLong(d);
                default -> throw new IllegalStateException("cast of " + v.getClass());
            };
            case FLOAT64 -> v instanceof Long l ? (double) l : v instanceof java.math.BigDecimal d ? d.doubleValue() : (Double) v;
            case NUMERIC -> v instanceof Long l ? java.math.BigDecimal.valueOf(l) : Numerics.ofDouble((Double) v);
            case TIMESTAMP -> switch (v) {
                case Long l -> new Timestamp(l);
                case LocalDate d -> new Timestamp(Datetimes.startOfDay(d));
                case TimestampTz t -> new Timestamp(Datetimes.checkedMicros(TimeZones.local(t.micros(), zone)));
                default -> v;
            };
            case DATE -> switch (v) {
                case Timestamp t -> Datetimes.dateOf(t.micros());
                case TimestampTz t -> Datetimes.checked(Datetimes.dateOf(TimeZones.local(t.micros(), zone)));
                default -> throw new IllegalStateException("cast of " + v.getClass());
            };
            case TIMESTAMPTZ -> switch (v) {
                case Timestamp t -> new TimestampTz(Datetimes.checkedMicros(TimeZones.instant(t.micros(), zone)));
                case LocalDate d -> new TimestampTz(Datetimes.checkedMicros(TimeZones.instant(Datetimes.startOfDay(d), zone)));
                default -> throw new IllegalStateException("cast of " + v.getClass());
            };
            case TIME -> switch (v) {
                case Timestamp t -> Times.of(t.micros());
                case TimestampTz t -> Times.of(TimeZones.local(t.micros(), zone));
                default -> throw new IllegalStateException("cast of " + v.getClass());
            };
            default -> throw new IllegalStateException("cast of " + v.getClass() + " to " + to);
        };
    }

    private static long roundToLong(double d) {
        double r = d < 0 ? -Math.floor(-d + 0.5) : Math.floor(d + 0.5);
        if (Double.isNaN(r) || r >= TWO_63 || r < -TWO_63) {
            throw new EvalError(EvalError.Code.NUMERIC_OUT_OF_RANGE, "float64 " + d + " out of range for int64");
        }
        return (long) r;
    }

    private static Object parse(String s, DatumType to, java.time.ZoneId zone) {
        String t = s.trim();
        try {
            return switch (to) {
                case BOOL -> switch (t.toLowerCase(Locale.ROOT)) {
                    case "true", "t", "1" -> true;
                    case "false", "f", "0" -> false;
                    default -> throw new NumberFormatException();
                };
                case INT64 -> Long.parseLong(t);
                case FLOAT64 -> {
                    if (t.isEmpty() || Character.isLetter(t.charAt(t.length() - 1)) && !t.endsWith("Infinity") && !t.equals("NaN")) {
                        throw new NumberFormatException();
                    }
                    yield Double.parseDouble(t);
                }
                case TIMESTAMP -> Timestamp.parse(t);
                case NUMERIC -> Numerics.parse(t);
                case DATE -> Datetimes.parseDate(t);
                case TIMESTAMPTZ -> Datetimes.parseTimestampTz(t, zone);
                case TIME -> Times.parse(t);
                case UUID -> Uuids.parse(s);
                case INTERVAL -> Intervals.parse(s);
                case JSONB -> Jsonbs.parse(s);
                case BYTEA -> Byteas.parse(s);
                case STRING -> s;
                default -> throw new IllegalStateException("parse of " + to);
            };
        } catch (IllegalArgumentException e) {
            throw new EvalError(EvalError.Code.INVALID_TEXT_REPRESENTATION, "cannot cast string '" + abbreviate(s) + "' to " + to.jsonName());
        }
    }

    private static String abbreviate(String s) {
        return s.length() > 40 ? s.substring(0, 40) + "..." : s;
    }
}
