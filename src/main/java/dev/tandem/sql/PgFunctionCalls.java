package dev.tandem.sql;

import static dev.tandem.sql.PgFunctions.PG_CURRENT_DATE;
import static dev.tandem.sql.PgFunctions.PG_CURRENT_TIMESTAMP;
import static dev.tandem.sql.PgFunctions.PG_EXTRACT;
import static dev.tandem.sql.PgFunctions.PG_LOCALTIMESTAMP;

import dev.tandem.expr.Expr;
import dev.tandem.expr.Func;
import dev.tandem.expr.Regex;
import dev.tandem.row.DatumType;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.fun.SqlTrimFunction;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * The translation of calls of PostgreSQL's scalar functions and regular-expression operators, declared in
 * {@link PgFunctions#TABLE}, to {@link Expr} calls (see {@link Func} for the semantics).
 */
final class PgFunctionCalls {

    private PgFunctionCalls() {
    }

    /** {@code t} in microseconds since the epoch, as timestamps hold it. */
    private static long micros(java.time.Instant t) {
        return Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000L), t.getNano() / 1000);
    }

    /**
     * The expression of a call of one of PostgreSQL's functions or regular-expression operators, or null
     * when {@code call} is none of them.
     */
    static Expr translate(RexTranslator t, RexCall call, List<DatumType> in) {
        List<RexNode> ops = call.getOperands();
        SqlKind kind = call.getKind();
        switch (kind) {
            case SIMILAR -> {
                String op = ops.size() == 3 && ops.get(2) instanceof RexLiteral l && l.getValueAs(String.class) instanceof String e
                        && e.startsWith(PgRegexOperators.MARKER) ? e.substring(PgRegexOperators.MARKER.length()) : null;
                if (op == null) {
                    return similarTo(t, call, in);
                }
                List<Expr> args = new ArrayList<>(strings(t, ops.subList(0, 2), in, op));
                String flags = op.endsWith("*") ? "i" : "";
                checkPattern(args.get(1), flags, false);
                args.add(Expr.lit(flags, DatumType.STRING));
                Expr match = new Expr.Call(Func.REGEXP_LIKE, args);
                return ((org.apache.calcite.sql.fun.SqlLikeOperator) call.getOperator()).isNegated() ? Expr.call(Func.NOT, match) : match;
            }
            case POSITION -> {
                if (ops.size() > 2) {
                    throw SqlException.notSupported("position(... FROM ...)");
                }
                List<Expr> args = strings(t, ops, in, "position");
                return Expr.call(Func.STRPOS, args.get(1), args.get(0));
            }
            case TRIM -> {
                SqlTrimFunction.Flag flag = ((RexLiteral) ops.get(0)).getValueAs(SqlTrimFunction.Flag.class);
                List<Expr> args = strings(t, ops.subList(1, 3), in, "trim");
                Func f = flag == SqlTrimFunction.Flag.LEADING ? Func.LTRIM : flag == SqlTrimFunction.Flag.TRAILING ? Func.RTRIM : Func.BTRIM;
                return Expr.call(f, args.get(1), args.get(0));
            }
            default -> {
            }
        }
        String name = call.getOperator().getName().toUpperCase(Locale.ROOT);
        if (name.equals("||") && ops.stream().anyMatch(o -> o.getType().getSqlTypeName() == SqlTypes.JSONB)) {
            return JsonbFunctions.translate(t, PgJsonbOperators.CONCAT, ops, in);
        }
        switch (name) {
            case "CONCAT", "CONCAT_WS" -> {
                List<Expr> args = new ArrayList<>();
                for (RexNode o : ops) {
                    Expr a = t.rex(o, in);
                    DatumType at = PgCoercion.typeOf(a, in);
                    if (at == DatumType.INT64) {
                        a = Expr.cast(a, DatumType.STRING);
                    } else if (at != DatumType.STRING) {
                        // PostgreSQL writes these with its output functions (t, 1.5, 2024-01-02 03:04:05), Tandem's casts differently
                        throw SqlException.notSupported(name.toLowerCase(Locale.ROOT) + " of " + SqlTypes.pgName(at));
                    }
                    args.add(a);
                }
                return new Expr.Call(name.equals("CONCAT") ? Func.CONCAT_ARGS : Func.CONCAT_WS, args);
            }
            case "STRPOS", "REPLACE", "SPLIT_PART", "BTRIM", "LTRIM", "RTRIM", "LPAD", "RPAD", "LEFT", "RIGHT", "REPEAT", "REVERSE",
                    "INITCAP", "MD5", "STARTS_WITH", "TRANSLATE3", "REGEXP_REPLACE", "LENGTH" -> {
                Func f = switch (name) {
                    case "TRANSLATE3" -> Func.TRANSLATE;
                    case "LENGTH" -> Func.LENGTH;
                    default -> Func.valueOf(name);
                };
                List<Expr> args = new ArrayList<>();
                for (RexNode o : ops) {
                    args.add(t.rex(o, in));
                }
                int4Counts(name, ops);
                if (f == Func.REGEXP_REPLACE) {
                    checkPattern(args.get(1), args.size() > 3 ? args.get(3) instanceof Expr.Lit l ? (String) l.value() : null : "", true);
                }
                return new Expr.Call(f, args);
            }
            case "MAKE_DATE" -> {
                List<Expr> args = new ArrayList<>();
                for (RexNode op : ops) {
                    Expr x = t.rex(op, in);
                    args.add(PgCoercion.typeOf(x, in) == DatumType.INT64 ? x : Expr.cast(x, DatumType.INT64));
                }
                return Expr.call(Func.MAKE_DATE, args.toArray(Expr[]::new));
            }
            case "TO_DATE" -> throw SqlException.notSupported("to_date(text, text) (write the date in ISO form, '2024-01-02'::date)");
            case "TO_TIMESTAMP" -> {
                if (ops.size() == 2) {
                    throw SqlException.notSupported("to_timestamp(text, text) (write the time in ISO form, '2024-01-02 03:04:05+00'::timestamptz)");
                }
                Expr x = t.rex(ops.get(0), in);
                DatumType xt = PgCoercion.typeOf(x, in);
                if (xt != DatumType.INT64 && xt != DatumType.FLOAT64 && xt != DatumType.NUMERIC) {
                    throw new SqlException(SqlException.UNDEFINED_FUNCTION, "function to_timestamp(" + SqlTypes.pgName(xt) + ") does not exist");
                }
                return Expr.call(Func.TO_TIMESTAMP, PgCoercion.typeOf(x, in) == DatumType.FLOAT64 ? x : Expr.cast(x, DatumType.FLOAT64));
            }
            case "TO_CHAR" -> {
                Expr x = t.rex(ops.get(0), in);
                Expr template = t.rex(ops.get(1), in);
                DatumType xt = PgCoercion.typeOf(x, in);
                if (xt == DatumType.TIME) {
                    // PostgreSQL has no to_char(time): it casts the time to an interval, its time since midnight
                    x = Expr.call(Func.SUB, x, Expr.lit(new dev.tandem.row.TimeOfDay(0), DatumType.TIME));
                    xt = DatumType.INTERVAL;
                }
                boolean number = xt == DatumType.INT64 || xt == DatumType.FLOAT64 || xt == DatumType.NUMERIC;
                if (!number && xt != DatumType.DATE && xt != DatumType.TIMESTAMP && xt != DatumType.TIMESTAMPTZ && xt != DatumType.INTERVAL) {
                    throw new SqlException(SqlException.UNDEFINED_FUNCTION, "function to_char(" + SqlTypes.pgName(xt) + ", text) does not exist");
                }
                if (PgCoercion.typeOf(template, in) != DatumType.STRING) {
                    throw new SqlException(SqlException.UNDEFINED_FUNCTION, "function to_char(" + SqlTypes.pgName(xt) + ", "
                            + SqlTypes.pgName(PgCoercion.typeOf(template, in)) + ") does not exist");
                }
                if (template instanceof Expr.Lit l && l.value() instanceof String s) {
                    String why = number ? dev.tandem.expr.FormatTemplates.unsupportedNumber(s)
                            : dev.tandem.expr.FormatTemplates.unsupportedDatetime(s, xt == DatumType.INTERVAL);
                    if (why != null) {
                        throw SqlException.notSupported(why);
                    }
                }
                return Expr.call(Func.TO_CHAR, x, template);
            }
            case "PG_LOCAL_TIMESTAMPTZ" -> {
                Expr x = t.rex(ops.get(0), in);
                return PgCoercion.coerce(x, PgCoercion.typeOf(x, in), DatumType.TIMESTAMPTZ);
            }
            case "TIMEZONE" -> {
                Expr zone = t.rex(ops.get(0), in);
                Expr x = t.rex(ops.get(1), in);
                DatumType xt = PgCoercion.typeOf(x, in);
                if (PgCoercion.typeOf(zone, in) != DatumType.STRING) {
                    throw new SqlException(SqlException.UNDEFINED_FUNCTION, "function timezone(" + SqlTypes.pgName(PgCoercion.typeOf(zone, in)) + ", "
                            + SqlTypes.pgName(xt) + ") does not exist");
                }
                switch (xt) {
                    case TIMESTAMP, TIMESTAMPTZ -> {
                    }
                    case STRING, DATE -> x = PgCoercion.coerce(x, xt, DatumType.TIMESTAMPTZ);
                    default -> throw new SqlException(SqlException.UNDEFINED_FUNCTION, "function timezone(text, " + SqlTypes.pgName(xt) + ") does not exist");
                }
                if (zone instanceof Expr.Lit l && l.value() instanceof String z) {
                    try {
                        dev.tandem.expr.TimeZones.atTimeZone(z);
                    } catch (dev.tandem.expr.EvalError e) {
                        throw SqlErrors.evaluation(e);
                    }
                }
                return Expr.call(Func.TIMEZONE, zone, x);
            }
            case "AGE" -> {
                List<Expr> args = new ArrayList<>();
                if (ops.size() == 1) {
                    java.time.Instant now = t.statementTime("age(timestamp)").transaction();
                    args.add(Expr.lit(new dev.tandem.row.Timestamp(micros(java.time.LocalDate.ofInstant(now, t.zone())
                            .atStartOfDay().toInstant(java.time.ZoneOffset.UTC))), DatumType.TIMESTAMP));
                }
                for (RexNode op : ops) {
                    Expr x = t.rex(op, in);
                    DatumType xt = PgCoercion.typeOf(x, in);
                    if (xt != DatumType.DATE && xt != DatumType.TIMESTAMP && xt != DatumType.TIMESTAMPTZ) {
                        throw new SqlException(SqlException.UNDEFINED_FUNCTION, "function age(" + SqlTypes.pgName(xt) + ") does not exist");
                    }
                    // a timestamptz's fields are those of its timestamp in the session's time zone
                    args.add(xt == DatumType.TIMESTAMP ? x : Expr.cast(x, DatumType.TIMESTAMP));
                }
                return Expr.call(Func.AGE, args.toArray(Expr[]::new));
            }
            case "FORMAT" -> {
                List<Expr> args = new ArrayList<>();
                for (RexNode op : ops) {
                    Expr x = t.rex(op, in);
                    DatumType xt = PgCoercion.typeOf(x, in);
                    switch (xt) {
                        case STRING -> args.add(x);
                        case INT64, NUMERIC, DATE, TIMESTAMPTZ, UUID -> {
                            if (args.isEmpty()) {
                                throw new SqlException(SqlException.UNDEFINED_FUNCTION, "function format(" + SqlTypes.pgName(xt) + ") does not exist");
                            }
                            args.add(Expr.cast(x, DatumType.STRING));
                        }
                        default -> throw SqlException.notSupported("format() of " + SqlTypes.pgName(xt)
                                + " (PostgreSQL writes it with its output function: write it as text, to_char(x, '...'))");
                    }
                }
                return new Expr.Call(Func.FORMAT, args);
            }
            case "OCTET_LENGTH" -> {
                Expr x = t.rex(ops.get(0), in);
                if (PgCoercion.typeOf(x, in) != DatumType.STRING) {
                    throw SqlException.notSupported("octet_length of " + SqlTypes.pgName(PgCoercion.typeOf(x, in)));
                }
                return Expr.call(Func.OCTET_LENGTH, x);
            }
            case "PG_BPCHAR" -> {
                // a cast to character(n): the text cut to n characters, kept without trailing spaces
                long n = ((RexLiteral) ops.get(1)).getValueAs(Long.class);
                return Expr.call(Func.RTRIM, Expr.call(Func.LEFT, t.rex(ops.get(0), in), Expr.lit(n, DatumType.INT64)));
            }
            case "PG_BPCHAR_TRIM" -> {
                return Expr.call(Func.RTRIM, t.rex(ops.get(0), in));
            }
            case "PG_BPCHAR_PAD" -> {
                long n = ((RexLiteral) ops.get(1)).getValueAs(Long.class);
                return Expr.call(Func.RPAD, t.rex(ops.get(0), in), Expr.lit(n, DatumType.INT64));
            }
            case "PG_NUMERIC_FIT" -> {
                Expr x = t.rex(ops.get(0), in);
                return Expr.call(Func.FIT_NUMERIC, x, t.rex(ops.get(1), in), t.rex(ops.get(2), in));
            }
            case "PG_INTERVAL" -> {
                Expr x = t.rex(ops.get(0), in);
                DatumType xt = PgCoercion.typeOf(x, in);
                if (x instanceof Expr.Lit l && l.value() instanceof String s) {
                    try {
                        return Expr.lit(dev.tandem.expr.Intervals.parse(s), DatumType.INTERVAL);
                    } catch (dev.tandem.expr.EvalError e) {
                        throw SqlErrors.evaluation(e);
                    }
                }
                if (x instanceof Expr.Lit l && l.value() == null) {
                    return Expr.lit(null, DatumType.INTERVAL);
                }
                if (xt == DatumType.INTERVAL) {
                    return x;
                }
                if (xt == DatumType.TIME) {
                    throw SqlException.notSupported("casting time without time zone to interval");
                }
                if (xt != DatumType.STRING) {
                    throw new SqlException(SqlState.CANNOT_COERCE, "cannot cast type " + SqlTypes.pgName(xt) + " to interval");
                }
                return Expr.cast(x, DatumType.INTERVAL);
            }
            case "PG_TIME" -> {
                Expr x = t.rex(ops.get(0), in);
                DatumType xt = PgCoercion.typeOf(x, in);
                if (x instanceof Expr.Lit l && l.value() instanceof String s) {
                    try {
                        return Expr.lit(dev.tandem.expr.Times.parse(s), DatumType.TIME);
                    } catch (dev.tandem.expr.EvalError e) {
                        throw SqlErrors.evaluation(e);
                    }
                }
                if (x instanceof Expr.Lit l && l.value() == null) {
                    return Expr.lit(null, DatumType.TIME);
                }
                return switch (xt) {
                    case TIME -> x;
                    case STRING, TIMESTAMP, TIMESTAMPTZ -> Expr.cast(x, DatumType.TIME);
                    case INTERVAL -> throw SqlException.notSupported("casting interval to time without time zone");
                    default -> throw new SqlException(SqlState.CANNOT_COERCE, "cannot cast type " + SqlTypes.pgName(xt) + " to time without time zone");
                };
            }
            case "NOW", "STATEMENT_TIMESTAMP", "TRANSACTION_TIMESTAMP", PG_CURRENT_TIMESTAMP -> {
                SqlSession.Times times = t.statementTime(PgFunctions.writtenName(name) + (name.equals(PG_CURRENT_TIMESTAMP) ? "" : "()"));
                java.time.Instant now = name.equals("STATEMENT_TIMESTAMP") ? times.statement() : times.transaction();
                return Expr.lit(new dev.tandem.row.TimestampTz(micros(now)), DatumType.TIMESTAMPTZ);
            }
            case PG_LOCALTIMESTAMP -> {
                java.time.Instant now = t.statementTime("localtimestamp").transaction();
                return Expr.lit(new dev.tandem.row.Timestamp(dev.tandem.expr.TimeZones.local(micros(now), t.zone())), DatumType.TIMESTAMP);
            }
            case PgFunctions.PG_LOCALTIME -> {
                int precision = 6;
                if (!ops.isEmpty()) {
                    Expr p = t.rex(ops.get(0), in);
                    if (!(p instanceof Expr.Lit l)) {
                        throw SqlException.notSupported("localtime(p) of a precision that is not a constant");
                    }
                    if (l.value() instanceof Long v) {
                        if (v < 0) {
                            throw new SqlException(SqlException.INVALID_PARAMETER, "LOCALTIME(" + v + ") precision must not be negative");
                        }
                        precision = (int) Math.min(v, 6);
                    }
                }
                java.time.Instant now = t.statementTime("localtime").transaction();
                long micros = Math.floorMod(dev.tandem.expr.TimeZones.local(micros(now), t.zone()), dev.tandem.row.TimeOfDay.MICROS_PER_DAY);
                // rounded to the precision half up, as PostgreSQL rounds a time to its type modifier (24:00:00 at most)
                long scale = (long) Math.pow(10, 6 - precision);
                micros = (micros + scale / 2) / scale * scale;
                return Expr.lit(new dev.tandem.row.TimeOfDay(micros), DatumType.TIME);
            }
            case PgFunctions.PG_CURRENT_TIME -> throw SqlException.notSupported(
                    "current_time (its type, time with time zone, is not supported: localtime is the time of day without a zone)");
            case PG_CURRENT_DATE -> {
                java.time.Instant now = t.statementTime("current_date").transaction();
                return Expr.lit(java.time.LocalDate.ofInstant(now, t.zone()), DatumType.DATE);
            }
            case "CLOCK_TIMESTAMP" -> throw SqlException.notSupported(
                    "clock_timestamp() (it changes within a statement; now() is the statement's time)");
            case "PG_JSONB", PgJsonbOperators.FIELD, PgJsonbOperators.FIELD_TEXT, PgJsonbOperators.PATH, PgJsonbOperators.PATH_TEXT,
                    PgJsonbOperators.CONTAINS, PgJsonbOperators.CONTAINED, PgJsonbOperators.EXISTS, PgJsonbOperators.CONCAT, "JSONB_TYPEOF",
                    "JSONB_ARRAY_LENGTH", "TO_JSONB", "JSONB_BUILD_ARRAY", "JSONB_BUILD_OBJECT" -> {
                return JsonbFunctions.translate(t, name, ops, in);
            }
            case PG_EXTRACT, "DATE_PART", "PG_DATE_TRUNC" -> {
                Expr field = t.rex(ops.get(0), in);
                Expr x = t.rex(ops.get(1), in);
                DatumType xt = PgCoercion.typeOf(x, in);
                if (name.equals("PG_DATE_TRUNC")) {
                    if (xt == DatumType.TIME) {
                        throw SqlException.notSupported("date_trunc of time without time zone (PostgreSQL casts it to an interval)");
                    }
                    return Expr.call(Func.DATE_TRUNC, field, xt == DatumType.DATE ? Expr.cast(x, DatumType.TIMESTAMPTZ) : x);
                }
                if (xt != DatumType.DATE && xt != DatumType.TIMESTAMP && xt != DatumType.TIMESTAMPTZ && xt != DatumType.TIME) {
                    throw SqlException.notSupported(name.toLowerCase(Locale.ROOT) + " of " + SqlTypes.pgName(xt));
                }
                Expr extract = Expr.call(Func.EXTRACT, field, x);
                return name.equals("DATE_PART") ? Expr.cast(extract, DatumType.FLOAT64) : extract;
            }
            case "ROUND", "TRUNC" -> {
                Expr x = t.rex(ops.get(0), in);
                SqlTypeName xt = ops.get(0).getType().getSqlTypeName();
                if (PgCoercion.typeOf(x, in) == DatumType.NUMERIC) {
                    return ops.size() == 1 ? Expr.call(name.equals("TRUNC") ? Func.TRUNC : Func.ROUND_NUMERIC, x)
                            : Expr.call(name.equals("TRUNC") ? Func.TRUNC : Func.ROUND_NUMERIC, x, t.rex(ops.get(1), in));
                }
                if (ops.size() == 1) {
                    Func f = name.equals("TRUNC") ? Func.TRUNC : xt == SqlTypeName.DECIMAL ? Func.ROUND_NUMERIC : Func.ROUND;
                    return Expr.call(f, toFloat(x, in));
                }
                if (xt == SqlTypeName.DOUBLE || xt == SqlTypeName.FLOAT || xt == SqlTypeName.REAL) {
                    throw new SqlException(SqlException.UNDEFINED_FUNCTION, "function " + name.toLowerCase(Locale.ROOT)
                            + "(double precision, integer) does not exist");
                }
                return Expr.call(name.equals("TRUNC") ? Func.TRUNC : Func.ROUND_NUMERIC, toFloat(x, in), t.rex(ops.get(1), in));
            }
            case "FLOOR", "CEIL", "CEILING", "SIGN", "SQRT", "EXP", "LN", "LOG10", "LOG", "POWER" -> {
                if ((name.equals("FLOOR") || name.startsWith("CEIL")) && ops.size() > 1) {
                    throw SqlException.notSupported(name.toLowerCase(Locale.ROOT) + "(... TO ...)");
                }
                if (name.equals("LOG") && ops.size() > 1) {
                    throw SqlException.notSupported("log(b, x) (a numeric function)");
                }
                Func f = switch (name) {
                    case "CEILING" -> Func.CEIL;
                    case "LOG" -> Func.LOG10;
                    default -> Func.valueOf(name);
                };
                List<Expr> args = new ArrayList<>();
                for (RexNode o : ops) {
                    args.add(t.rex(o, in));
                }
                if (args.stream().anyMatch(a -> PgCoercion.typeOf(a, in) == DatumType.NUMERIC)) {
                    if (f == Func.FLOOR || f == Func.CEIL || f == Func.SIGN) {
                        return new Expr.Call(f, args);
                    }
                    throw SqlException.notSupported(name.toLowerCase(Locale.ROOT) + " of a numeric (PostgreSQL computes it in numeric;"
                            + " write CAST(x AS double precision) to compute in floating point)");
                }
                args.replaceAll(a -> toFloat(a, in));
                return new Expr.Call(f, args);
            }
            case "PI" -> {
                return Expr.lit(Math.PI, DatumType.FLOAT64);
            }
            case "GREATEST", "LEAST" -> {
                List<Expr> args = new ArrayList<>();
                for (RexNode o : ops) {
                    args.add(t.rex(o, in));
                }
                return new Expr.Call(Func.valueOf(name), PgCoercion.unify(args, in, name));
            }
            default -> {
                return null;
            }
        }
    }

    /**
     * Refuses a bigint count ({@code lpad(s, n)} of a bigint {@code n}) as PostgreSQL does: its string
     * functions take an {@code integer}, to which a bigint does not cast implicitly.
     */
    private static void int4Counts(String name, List<RexNode> ops) {
        if (ops.stream().anyMatch(o -> o.getType().getSqlTypeName() == SqlTypeName.BIGINT)) {
            List<String> types = ops.stream().map(o -> switch (o.getType().getSqlTypeName()) {
                case BIGINT -> "bigint";
                case INTEGER, SMALLINT, TINYINT -> "integer";
                default -> "text";
            }).toList();
            throw new SqlException(SqlException.UNDEFINED_FUNCTION, "function " + name.toLowerCase(Locale.ROOT) + "(" + String.join(", ", types)
                    + ") does not exist");
        }
    }

    private static List<Expr> strings(RexTranslator t, List<RexNode> ops, List<DatumType> in, String op) {
        List<Expr> args = new ArrayList<>();
        for (RexNode o : ops) {
            Expr a = t.rex(o, in);
            if (PgCoercion.typeOf(a, in) != DatumType.STRING) {
                throw new SqlException(SqlException.UNDEFINED_FUNCTION, (op.contains("~") ? "operator" : "function") + " does not exist: "
                        + op + " of " + SqlTypes.pgName(PgCoercion.typeOf(a, in)));
            }
            args.add(a);
        }
        return args;
    }

    /**
     * {@code x [NOT] SIMILAR TO pattern [ESCAPE e]}, as PostgreSQL runs it: {@code x ~ similar_to_escape(pattern, e)}, the
     * pattern's regular expression computed once when pattern and escape are constants (and refused when it uses what
     * Tandem does not read as PostgreSQL does), on every row otherwise; NULL when any of the three is NULL.
     */
    private static Expr similarTo(RexTranslator t, RexCall call, List<DatumType> in) {
        List<RexNode> ops = call.getOperands();
        List<Expr> args = new ArrayList<>(strings(t, ops, in, "SIMILAR TO"));
        Expr pattern = args.get(1);
        Expr escape = args.size() > 2 ? args.get(2) : Expr.lit("\\", DatumType.STRING);
        Expr regex;
        if (pattern instanceof Expr.Lit p && escape instanceof Expr.Lit e) {
            if (p.value() == null || e.value() == null) {
                return Expr.lit(null, DatumType.BOOL);
            }
            try {
                regex = Expr.lit(dev.tandem.expr.SimilarTo.toRegex((String) p.value(), (String) e.value()), DatumType.STRING);
            } catch (dev.tandem.expr.EvalError x) {
                throw SqlErrors.evaluation(x);
            }
            checkPattern(regex, "", false);
        } else {
            regex = Expr.call(Func.SIMILAR_ESCAPE, pattern, escape);
        }
        Expr match = Expr.call(Func.REGEXP_LIKE, args.get(0), regex, Expr.lit("", DatumType.STRING));
        return ((org.apache.calcite.sql.fun.SqlLikeOperator) call.getOperator()).isNegated() ? Expr.call(Func.NOT, match) : match;
    }

    /** Refuses a literal pattern (and flags) using what Tandem does not read as PostgreSQL does. */
    private static void checkPattern(Expr pattern, String flags, boolean replace) {
        if (pattern instanceof Expr.Lit l && l.value() instanceof String p && flags != null) {
            String why = Regex.unsupported(p, flags, replace);
            if (why != null) {
                throw SqlException.notSupported(why);
            }
        }
    }

    private static Expr toFloat(Expr e, List<DatumType> in) {
        DatumType t = PgCoercion.typeOf(e, in);
        if (t == DatumType.FLOAT64) {
            return e;
        }
        if (t != DatumType.INT64) {
            throw new SqlException(SqlException.UNDEFINED_FUNCTION, "function of " + SqlTypes.pgName(t) + " does not exist");
        }
        return e instanceof Expr.Lit l ? Expr.lit(l.value() == null ? null : ((Long) l.value()).doubleValue(), DatumType.FLOAT64) : Expr.cast(e, DatumType.FLOAT64);
    }
}
