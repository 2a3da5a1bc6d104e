package dev.tandem.expr;

import dev.tandem.row.Jsonb;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** PostgreSQL's {@code jsonb} input, operators and functions over {@link Jsonb} values, with its errors. */
public final class Jsonbs {

    private Jsonbs() {
    }

    /** The jsonb {@code s} spells, as PostgreSQL's {@code jsonb_in} reads it; an {@link EvalError} (22P02, 22P05) when it does not. */
    public static Jsonb parse(String s) {
        try {
            return Jsonb.parse(s);
        } catch (Jsonb.SyntaxError e) {
            throw switch (e.problem()) {
                case SYNTAX -> new EvalError(EvalError.Code.INVALID_TEXT_REPRESENTATION, "invalid input syntax for type json");
                case NUMERIC_OVERFLOW -> new EvalError(EvalError.Code.NUMERIC_OUT_OF_RANGE, e.getMessage());
                case UNSUPPORTED_ESCAPE -> new EvalError(EvalError.Code.UNTRANSLATABLE_CHARACTER, "unsupported Unicode escape sequence");
            };
        }
    }

    /** {@code j -> key}: the value of an object's key, else null. */
    static Jsonb field(Jsonb j, String key) {
        Object v = j.tree() instanceof Map<?, ?> m ? m.get(key) : null;
        return v == null ? null : Jsonb.of(v);
    }

    /**
     * {@code j -> index}: an array's element, counted from the end when negative, else null; a top-level scalar is, as
     * in PostgreSQL, an array of itself.
     */
    static Jsonb element(Jsonb j, long index) {
        Object t = j.tree();
        Object v = elementOf(t instanceof List || t instanceof Map ? t : List.of(t), index);
        return v == null ? null : Jsonb.of(v);
    }

    private static Object elementOf(Object tree, long index) {
        if (!(tree instanceof List<?> l)) {
            return null;
        }
        long i = index < 0 ? l.size() + index : index;
        return i >= 0 && i < l.size() ? l.get((int) i) : null;
    }

    /** {@code j #> path}: the value at a path given as a text-array literal ({@code '{a,0,b}'}), else null. */
    static Jsonb path(Jsonb j, String path) {
        List<String> steps = TextArrays.parse(path);
        Object v = j.tree();
        for (String step : steps) {
            if (step == null) {
                return null;
            }
            if (v instanceof Map<?, ?> m) {
                v = m.get(step);
            } else if (v instanceof List<?>) {
                Long i = index(step);
                v = i == null ? null : elementOf(v, i);
            } else {
                return null;
            }
            if (v == null) {
                return null;
            }
        }
        return Jsonb.of(v);
    }

    /** A path step read as an array index, as PostgreSQL's {@code strtoint} reads it, or null. */
    private static Long index(String step) {
        String t = step.stripLeading();
        if (!t.matches("[+-]?[0-9]+")) {
            return null;
        }
        try {
            return (long) Integer.parseInt(t.startsWith("+") ? t.substring(1) : t);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** The text {@code ->>} and {@code #>>} give of a value: a string unquoted, JSON null as SQL NULL, anything else as jsonb text. */
    static String text(Jsonb j) {
        if (j == null) {
            return null;
        }
        Object v = j.tree();
        return v instanceof String s ? s : v == Jsonb.NULL ? null : j.text();
    }

    /** {@code a @> b}: PostgreSQL's jsonb containment. */
    static boolean contains(Jsonb a, Jsonb b) {
        Object x = a.tree();
        Object y = b.tree();
        boolean xs = !(x instanceof List) && !(x instanceof Map);
        boolean ys = !(y instanceof List) && !(y instanceof Map);
        if (xs || ys) {
            // a top-level scalar is a one-element array: it contains only an equal scalar; an array contains it as an element
            if (x instanceof Map || y instanceof Map) {
                return false;
            }
            if (xs && !ys) {
                return false;
            }
            List<Object> xl = xs ? List.of(x) : castList(x);
            return containsIn(xl, List.of(y));
        }
        return deep(x, y);
    }

    @SuppressWarnings("unchecked")
    private static List<Object> castList(Object v) {
        return (List<Object>) v;
    }

    private static boolean deep(Object x, Object y) {
        if (x instanceof Map<?, ?> mx && y instanceof Map<?, ?> my) {
            if (mx.size() < my.size()) {
                return false;
            }
            for (Map.Entry<?, ?> e : my.entrySet()) {
                Object v = mx.get(e.getKey());
                if (v == null || !sameKind(v, e.getValue())) {
                    return false;
                }
                if (v instanceof Map || v instanceof List ? !deep(v, e.getValue()) : !scalarEquals(v, e.getValue())) {
                    return false;
                }
            }
            return true;
        }
        if (x instanceof List<?> lx && y instanceof List<?> ly) {
            return containsIn(lx, ly);
        }
        return false;
    }

    private static boolean containsIn(List<?> lx, List<?> ly) {
        for (Object e : ly) {
            boolean found = false;
            for (Object c : lx) {
                if (e instanceof Map || e instanceof List ? sameKind(c, e) && deep(c, e) : sameKind(c, e) && scalarEquals(c, e)) {
                    found = true;
                    break;
                }
            }
            if (!found) {
                return false;
            }
        }
        return true;
    }

    private static boolean sameKind(Object a, Object b) {
        return Jsonb.typeName(a).equals(Jsonb.typeName(b));
    }

    private static boolean scalarEquals(Object a, Object b) {
        return a instanceof BigDecimal x && b instanceof BigDecimal y ? x.compareTo(y) == 0 : a.equals(b);
    }

    /** {@code j ? key}: whether an object has the key, or an array (or a top-level string) has the string as an element. */
    static boolean exists(Jsonb j, String key) {
        Object v = j.tree();
        if (v instanceof Map<?, ?> m) {
            return m.containsKey(key);
        }
        if (v instanceof List<?> l) {
            return l.contains(key);
        }
        return key.equals(v);
    }

    /** {@code a || b}: objects merged (the right's keys win), anything else concatenated as arrays. */
    static Jsonb concat(Jsonb a, Jsonb b) {
        if (a.tree() instanceof Map<?, ?> x && b.tree() instanceof Map<?, ?> y) {
            Map<Object, Object> m = new LinkedHashMap<>(x);
            m.putAll(y);
            return Jsonb.of(m);
        }
        List<Object> out = new ArrayList<>(asList(a.tree()));
        out.addAll(asList(b.tree()));
        return Jsonb.of(out);
    }

    private static List<?> asList(Object v) {
        return v instanceof List<?> l ? l : List.of(v);
    }

    /** PostgreSQL's {@code jsonb_typeof}. */
    static String typeOf(Jsonb j) {
        return Jsonb.typeName(j.tree());
    }

    /** PostgreSQL's {@code jsonb_array_length}; 22023 for a scalar or an object. */
    static long arrayLength(Jsonb j) {
        return switch (j.tree()) {
            case List<?> l -> l.size();
            case Map<?, ?> m -> throw new EvalError(EvalError.Code.INVALID_PARAMETER_VALUE, "cannot get array length of a non-array");
            default -> throw new EvalError(EvalError.Code.INVALID_PARAMETER_VALUE, "cannot get array length of a scalar");
        };
    }

    /** PostgreSQL's {@code to_jsonb} of one datum (never SQL NULL: that is JSON null), as a tree node. */
    static Object node(Object v) {
        return switch (v) {
            case null -> Jsonb.NULL;
            case Jsonb j -> j.tree();
            case Boolean b -> b;
            case Long l -> BigDecimal.valueOf(l);
            case BigDecimal d -> d;
            case Double d -> d.isNaN() || d.isInfinite() ? (d.isNaN() ? "NaN" : d > 0 ? "Infinity" : "-Infinity") : floatNumber(d);
            case String s -> s;
            case java.util.UUID u -> u.toString();
            case java.time.LocalDate d -> Datetimes.text(d);
            default -> throw new EvalError(EvalError.Code.NOT_SUPPORTED, "not supported: to_jsonb of " + v.getClass().getSimpleName());
        };
    }

    private static BigDecimal floatNumber(double d) {
        BigDecimal b = new BigDecimal(Double.toString(d)).stripTrailingZeros();
        return b.scale() < 0 ? b.setScale(0) : b;
    }

    /** PostgreSQL's {@code to_jsonb}. */
    static Jsonb toJsonb(Object v) {
        return Jsonb.of(node(v));
    }

    /** PostgreSQL's {@code jsonb_build_array}. */
    static Jsonb buildArray(List<Object> args) {
        List<Object> out = new ArrayList<>(args.size());
        for (Object a : args) {
            out.add(node(a));
        }
        return Jsonb.of(out);
    }

    /** PostgreSQL's {@code jsonb_build_object}: keys the text of their values; 22004 for a NULL key, 22023 for an odd count. */
    static Jsonb buildObject(List<Object> args) {
        if (args.size() % 2 != 0) {
            throw new EvalError(EvalError.Code.INVALID_PARAMETER_VALUE, "argument list must have even number of elements");
        }
        Map<String, Object> out = new LinkedHashMap<>();
        for (int i = 0; i < args.size(); i += 2) {
            Object k = args.get(i);
            if (k == null) {
                throw new EvalError(EvalError.Code.INVALID_PARAMETER_VALUE, "argument " + (i + 1) + ": key must not be null");
            }
            String key = switch (k) {
                case String s -> s;
                case Boolean b -> b ? "true" : "false";
                case BigDecimal d -> d.toPlainString();
                case Long l -> l.toString();
                case java.util.UUID u -> u.toString();
                case java.time.LocalDate d -> Datetimes.text(d);
                case Jsonb j -> j.text();
                default -> throw new EvalError(EvalError.Code.NOT_SUPPORTED, "not supported: a jsonb_build_object key of " + k.getClass().getSimpleName());
            };
            out.remove(key);
            out.put(key, node(args.get(i + 1)));
        }
        return Jsonb.of(out);
    }

    /** A jsonb cast to {@code numeric} (a number) or {@code boolean}, as PostgreSQL casts it; 22023 naming {@code type} for another value. */
    static Object cast(Jsonb j, boolean bool, String type) {
        Object v = j.tree();
        if (bool ? v instanceof Boolean : v instanceof BigDecimal) {
            return v;
        }
        String kind = v instanceof BigDecimal ? "numeric" : Jsonb.typeName(v);
        throw new EvalError(EvalError.Code.INVALID_PARAMETER_VALUE, "cannot cast jsonb " + kind + " to type " + type);
    }
}
