package dev.tandem.expr;

import static dev.tandem.expr.ExprException.child;
import static dev.tandem.expr.ExprException.index;

import dev.tandem.row.DatumType;
import java.util.ArrayList;
import java.util.List;

/** Type checking of expressions against the types of input columns. */
final class ExprTyper {

    private ExprTyper() {
    }

    static DatumType typeOf(Expr e, List<DatumType> input, String path) {
        return switch (e) {
            case Expr.Col c -> {
                if (c.index() >= input.size()) {
                    throw new ExprException(path, "column " + c.index() + " does not exist; the input has " + input.size() + " columns");
                }
                yield input.get(c.index());
            }
            case Expr.Lit l -> l.type();
            case Expr.Call c -> call(c, input, path);
        };
    }

    private static DatumType call(Expr.Call c, List<DatumType> input, String path) {
        Func f = c.func();
        int n = c.args().size();
        if (n < f.minArgs || n > f.maxArgs) {
            String expected = f.minArgs == f.maxArgs ? String.valueOf(f.minArgs)
                    : f.maxArgs == Integer.MAX_VALUE ? "at least " + f.minArgs : f.minArgs + " to " + f.maxArgs;
            throw new ExprException(path, "function '" + f.jsonName() + "' takes " + expected + " arguments, got " + n);
        }
        List<DatumType> t = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            t.add(typeOf(c.args().get(i), input, args(path, i)));
        }
        return switch (f) {
            case EQ, NEQ, LT, LTE, GT, GTE -> {
                same(f, t, 0, t.size(), path);
                yield DatumType.BOOL;
            }
            case AND, OR, NOT -> {
                all(f, t, 0, DatumType.BOOL, path);
                yield DatumType.BOOL;
            }
            case IS_NULL -> DatumType.BOOL;
            case FIT_INT4, FIT_INT2 -> {
                all(f, t, 0, DatumType.INT64, path);
                yield DatumType.INT64;
            }
            case MAKE_DATE -> {
                all(f, t, 0, DatumType.INT64, path);
                yield DatumType.DATE;
            }
            case TO_TIMESTAMP -> {
                all(f, t, 0, DatumType.FLOAT64, path);
                yield DatumType.TIMESTAMPTZ;
            }
            case TO_CHAR -> {
                DatumType x = t.get(0);
                if (x != DatumType.DATE && x != DatumType.TIMESTAMP && x != DatumType.TIMESTAMPTZ && x != DatumType.INTERVAL
                        && x != DatumType.INT64 && x != DatumType.FLOAT64 && x != DatumType.NUMERIC) {
                    throw new ExprException(args(path, 0), "function 'to_char' needs a date, timestamp, timestamptz, interval or number, got "
                            + x.jsonName());
                }
                all(f, t.subList(1, n), 1, DatumType.STRING, path);
                yield DatumType.STRING;
            }
            case TZ_PLUS -> {
                all(f, t.subList(0, 1), 0, DatumType.TIMESTAMPTZ, path);
                all(f, t.subList(1, 2), 1, DatumType.INTERVAL, path);
                all(f, t.subList(2, 3), 2, DatumType.STRING, path);
                yield DatumType.TIMESTAMPTZ;
            }
            case TIMEZONE -> {
                all(f, t.subList(0, 1), 0, DatumType.STRING, path);
                DatumType x = t.get(1);
                if (x != DatumType.TIMESTAMP && x != DatumType.TIMESTAMPTZ) {
                    throw new ExprException(args(path, 1), "function 'timezone' needs timestamp or timestamptz, got " + x.jsonName());
                }
                yield x == DatumType.TIMESTAMP ? DatumType.TIMESTAMPTZ : DatumType.TIMESTAMP;
            }
            case AGE -> {
                all(f, t, 0, DatumType.TIMESTAMP, path);
                yield DatumType.INTERVAL;
            }
            case FORMAT -> {
                all(f, t, 0, DatumType.STRING, path);
                yield DatumType.STRING;
            }
            case FIT_NUMERIC -> {
                all(f, t.subList(0, 1), 0, DatumType.NUMERIC, path);
                all(f, t.subList(1, t.size()), 1, DatumType.INT64, path);
                yield DatumType.NUMERIC;
            }
            case ADD, SUB, MUL, DIV, MOD, NEG, ABS -> {
                DatumType datetime = n == 2 ? Datetimes.arithmeticType(f, t.get(0), t.get(1)) : null;
                if (datetime != null) {
                    yield datetime;
                }
                if (f == Func.NEG && t.get(0) == DatumType.INTERVAL) {
                    yield DatumType.INTERVAL;
                }
                if (t.get(0) != DatumType.INT64 && t.get(0) != DatumType.FLOAT64 && t.get(0) != DatumType.NUMERIC) {
                    throw new ExprException(args(path, 0), "function '" + f.jsonName() + "' needs int64, float64 or numeric, got " + t.get(0).jsonName());
                }
                same(f, t, 0, t.size(), path);
                yield t.get(0);
            }
            case COALESCE -> {
                same(f, t, 0, t.size(), path);
                yield t.get(0);
            }
            case IF -> {
                all(f, t.subList(0, 1), 0, DatumType.BOOL, path);
                same(f, t, 1, 3, path);
                yield t.get(1);
            }
            case CONCAT, LOWER, UPPER, LENGTH, OCTET_LENGTH -> {
                all(f, t, 0, DatumType.STRING, path);
                yield f == Func.LENGTH || f == Func.OCTET_LENGTH ? DatumType.INT64 : DatumType.STRING;
            }
            case LIKE, ILIKE -> {
                all(f, t, 0, DatumType.STRING, path);
                yield DatumType.BOOL;
            }
            case SUBSTR -> {
                all(f, t.subList(0, 1), 0, DatumType.STRING, path);
                all(f, t.subList(1, n), 1, DatumType.INT64, path);
                yield DatumType.STRING;
            }
            case CONCAT_ARGS, CONCAT_WS, REPLACE, REVERSE, INITCAP, MD5, TRANSLATE, REGEXP_REPLACE, SIMILAR_ESCAPE, STARTS_WITH, REGEXP_LIKE, STRPOS,
                    BTRIM, LTRIM, RTRIM -> {
                all(f, t, 0, DatumType.STRING, path);
                yield f == Func.STARTS_WITH || f == Func.REGEXP_LIKE ? DatumType.BOOL : f == Func.STRPOS ? DatumType.INT64 : DatumType.STRING;
            }
            case SPLIT_PART, LPAD, RPAD, LEFT, RIGHT, REPEAT -> {
                // (string, int64[, string]) except split_part's (string, string, int64)
                int intAt = f == Func.SPLIT_PART ? 2 : 1;
                for (int i = 0; i < n; i++) {
                    all(f, t.subList(i, i + 1), i, i == intAt ? DatumType.INT64 : DatumType.STRING, path);
                }
                yield DatumType.STRING;
            }
            case ROUND, ROUND_NUMERIC, TRUNC, FLOOR, CEIL, SIGN, SQRT, EXP, LN, LOG10, POWER -> {
                boolean digits = (f == Func.ROUND_NUMERIC || f == Func.TRUNC) && n == 2;
                boolean numeric = t.get(0) == DatumType.NUMERIC && (f == Func.ROUND || f == Func.ROUND_NUMERIC || f == Func.TRUNC
                        || f == Func.FLOOR || f == Func.CEIL || f == Func.SIGN);
                DatumType x = numeric ? DatumType.NUMERIC : DatumType.FLOAT64;
                all(f, digits ? t.subList(0, 1) : t, 0, x, path);
                if (digits) {
                    all(f, t.subList(1, 2), 1, DatumType.INT64, path);
                }
                yield x;
            }
            case EXTRACT, DATE_TRUNC -> {
                all(f, t.subList(0, 1), 0, DatumType.STRING, path);
                all(f, t.subList(2, n), 2, DatumType.STRING, path);
                DatumType x = t.get(1);
                boolean ok = x == DatumType.TIMESTAMP || x == DatumType.TIMESTAMPTZ || f == Func.EXTRACT && (x == DatumType.DATE || x == DatumType.TIME);
                if (!ok) {
                    throw new ExprException(args(path, 1), "function '" + f.jsonName() + "' needs "
                            + (f == Func.EXTRACT ? "date, time, " : "") + "timestamp or timestamptz, got " + x.jsonName());
                }
                yield f == Func.EXTRACT ? DatumType.NUMERIC : x;
            }
            case GREATEST, LEAST -> {
                same(f, t, 0, t.size(), path);
                yield t.get(0);
            }
            case JSONB_FIELD, JSONB_FIELD_TEXT, JSONB_PATH, JSONB_PATH_TEXT, JSONB_EXISTS -> {
                all(f, t.subList(0, 1), 0, DatumType.JSONB, path);
                boolean index = (f == Func.JSONB_FIELD || f == Func.JSONB_FIELD_TEXT) && t.get(1) == DatumType.INT64;
                if (!index) {
                    all(f, t.subList(1, 2), 1, DatumType.STRING, path);
                }
                yield f == Func.JSONB_EXISTS ? DatumType.BOOL
                        : f == Func.JSONB_FIELD || f == Func.JSONB_PATH ? DatumType.JSONB : DatumType.STRING;
            }
            case JSONB_CONTAINS, JSONB_CONCAT -> {
                all(f, t, 0, DatumType.JSONB, path);
                yield f == Func.JSONB_CONTAINS ? DatumType.BOOL : DatumType.JSONB;
            }
            case JSONB_TYPEOF, JSONB_ARRAY_LENGTH -> {
                all(f, t, 0, DatumType.JSONB, path);
                yield f == Func.JSONB_TYPEOF ? DatumType.STRING : DatumType.INT64;
            }
            case TO_JSONB, JSONB_BUILD_ARRAY, JSONB_BUILD_OBJECT -> DatumType.JSONB;
            case JSONB_TO_NUMERIC, JSONB_TO_BOOL -> {
                all(f, t.subList(0, 1), 0, DatumType.JSONB, path);
                all(f, t.subList(1, 2), 1, DatumType.STRING, path);
                yield f == Func.JSONB_TO_BOOL ? DatumType.BOOL : DatumType.NUMERIC;
            }
            case ERROR -> {
                all(f, t, 0, DatumType.STRING, path);
                if (t.size() > 1 && !(c.args().get(1) instanceof Expr.Lit code && code.value() instanceof String name && EvalError.Code.fromJson(name) != null)) {
                    throw new ExprException(args(path, 1), "function '" + f.jsonName() + "' needs an error code's name, one of "
                            + java.util.Arrays.stream(EvalError.Code.values()).map(EvalError.Code::jsonName).toList());
                }
                yield c.type();
            }
            case ARRAY -> {
                if (!c.type().isArray()) {
                    throw new ExprException(path, "an array's type must be an array type, got " + c.type().jsonName());
                }
                all(f, t, 0, c.type().element(), path);
                yield c.type();
            }
            case ANY, ALL -> {
                all(f, t.subList(0, 1), 0, DatumType.STRING, path);
                if (!(c.args().get(0) instanceof Expr.Lit op && op.value() instanceof String name && Func.fromJson(name) != null
                        && java.util.EnumSet.of(Func.EQ, Func.NEQ, Func.LT, Func.LTE, Func.GT, Func.GTE).contains(Func.fromJson(name)))) {
                    throw new ExprException(args(path, 0), "function '" + f.jsonName() + "' needs a comparison's name (eq, neq, lt, lte, gt, gte)");
                }
                array(f, t, 2, path);
                all(f, t.subList(1, 2), 1, t.get(2).element(), path);
                yield DatumType.BOOL;
            }
            case ARRAY_GET -> {
                array(f, t, 0, path);
                all(f, t.subList(1, 2), 1, DatumType.INT64, path);
                yield t.get(0).element();
            }
            case ARRAY_LENGTH, CARDINALITY -> {
                array(f, t, 0, path);
                all(f, t.subList(1, n), 1, DatumType.INT64, path);
                yield DatumType.INT64;
            }
            case ARRAY_TO_STRING -> {
                array(f, t, 0, path);
                all(f, t.subList(1, n), 1, DatumType.STRING, path);
                yield DatumType.STRING;
            }
            case ARRAY_CAT, ARRAY_CONTAINS, ARRAY_OVERLAP -> {
                array(f, t, 0, path);
                same(f, t, 0, 2, path);
                yield f == Func.ARRAY_CAT ? t.get(0) : DatumType.BOOL;
            }
            case ARRAY_APPEND, ARRAY_PREPEND -> {
                int at = f == Func.ARRAY_APPEND ? 0 : 1;
                array(f, t, at, path);
                all(f, t.subList(1 - at, 2 - at), 1 - at, t.get(at).element(), path);
                yield t.get(at);
            }
            case JSONB_EXISTS_ANY, JSONB_EXISTS_ALL -> {
                all(f, t.subList(0, 1), 0, DatumType.JSONB, path);
                all(f, t.subList(1, 2), 1, DatumType.STRING_ARRAY, path);
                yield DatumType.BOOL;
            }
            case CAST -> {
                all(f, t.subList(1, n), 1, DatumType.STRING, path);
                if (!castable(t.get(0), c.type())) {
                    throw new ExprException(path, "cannot cast " + t.get(0).jsonName() + " to " + c.type().jsonName());
                }
                yield c.type();
            }
        };
    }

    static boolean castable(DatumType from, DatumType to) {
        if (from == to || from == DatumType.STRING || to == DatumType.STRING) {
            return true;
        }
        if (from.isArray() || to.isArray()) {
            return from.isArray() && to.isArray() && castable(from.element(), to.element());
        }
        return switch (from) {
            case BOOL -> to == DatumType.INT64;
            case INT64 -> to == DatumType.BOOL || to == DatumType.FLOAT64 || to == DatumType.TIMESTAMP || to == DatumType.NUMERIC;
            case FLOAT64 -> to == DatumType.INT64 || to == DatumType.NUMERIC;
            case NUMERIC -> to == DatumType.INT64 || to == DatumType.FLOAT64;
            case TIMESTAMP -> to == DatumType.INT64 || to == DatumType.DATE || to == DatumType.TIMESTAMPTZ || to == DatumType.TIME;
            case DATE -> to == DatumType.TIMESTAMP || to == DatumType.TIMESTAMPTZ;
            case TIMESTAMPTZ -> to == DatumType.TIMESTAMP || to == DatumType.DATE || to == DatumType.TIME;
            case UUID, INTERVAL, TIME, JSONB, BYTEA, BOOL_ARRAY, INT64_ARRAY, FLOAT64_ARRAY, STRING_ARRAY, TIMESTAMP_ARRAY, NUMERIC_ARRAY,
                    DATE_ARRAY, TIMESTAMPTZ_ARRAY, UUID_ARRAY -> false;
            case STRING -> true;
        };
    }

    private static String args(String path, int i) {
        return index(child(path, "args"), i);
    }

    private static void same(Func f, List<DatumType> t, int from, int to, String path) {
        for (int i = from + 1; i < to; i++) {
            if (t.get(i) != t.get(from)) {
                throw new ExprException(args(path, i), "function '" + f.jsonName() + "' needs arguments of one type: "
                        + t.get(i).jsonName() + " does not match " + t.get(from).jsonName());
            }
        }
    }

    private static void array(Func f, List<DatumType> t, int i, String path) {
        if (!t.get(i).isArray()) {
            throw new ExprException(args(path, i), "function '" + f.jsonName() + "' needs an array, got " + t.get(i).jsonName());
        }
    }

    private static void all(Func f, List<DatumType> t, int offset, DatumType want, String path) {
        for (int i = 0; i < t.size(); i++) {
            if (t.get(i) != want) {
                throw new ExprException(args(path, offset + i), "function '" + f.jsonName() + "' needs " + want.jsonName() + ", got " + t.get(i).jsonName());
            }
        }
    }
}
