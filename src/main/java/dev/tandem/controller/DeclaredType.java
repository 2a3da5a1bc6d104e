package dev.tandem.controller;

import dev.tandem.expr.EvalError;
import dev.tandem.expr.Numerics;
import dev.tandem.row.DatumArray;
import dev.tandem.row.DatumType;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A table column's declared SQL type where it says more than the column's datum type: the range of an
 * {@code integer} or {@code smallint} (an int64 datum) and of the elements of an {@code integer[]} or {@code smallint[]},
 * the length of a {@code character varying(n)} or a {@code character(n)} (a string) and of the elements of a
 * {@code character varying(n)[]} (also {@code character varying[]}, whose elements have none), the precision and scale of a
 * {@code numeric(p, s)} and of the elements of a {@code numeric(p, s)[]}; the length of the elements of a {@code character(n)[]},
 * each kept, as a {@code character(n)} is, without trailing spaces. Every write to the table fits its values
 * to it ({@link #fit}) as PostgreSQL's column does: an integer out of range and a string too long are
 * refused, a numeric is rounded to its scale and refused when its integer digits do not fit. A {@code character(n)}
 * keeps its value without trailing spaces (PostgreSQL's blank-padded {@code bpchar} compares, groups and keys
 * ignoring them): {@link #padded} is the value as PostgreSQL writes it, blank-padded to {@code n}.
 *
 * <p>{@link #sqlName()} is the name PostgreSQL's {@code format_type} gives it; {@link #parse} reads it back.
 */
public record DeclaredType(Kind kind, int length, int precision, int scale) {

    public enum Kind {
        SMALLINT, INTEGER, VARCHAR, BPCHAR, NUMERIC, SMALLINT_ARRAY, INTEGER_ARRAY, VARCHAR_ARRAY, NUMERIC_ARRAY, BPCHAR_ARRAY
    }

    /** PostgreSQL's largest {@code numeric(p, s)} precision. */
    public static final int MAX_NUMERIC_PRECISION = 1000;
    /** PostgreSQL's longest {@code character varying(n)}. */
    public static final int MAX_VARCHAR_LENGTH = 10_485_760;

    public DeclaredType {
        switch (kind) {
            case VARCHAR, BPCHAR, BPCHAR_ARRAY -> {
                String name = kind == Kind.VARCHAR ? "varchar" : "char";
                if (length < (kind == Kind.VARCHAR ? 0 : 1)) {
                    throw new IllegalArgumentException("length for type " + name + " must be at least 1");
                }
                if (length > MAX_VARCHAR_LENGTH) {
                    throw new IllegalArgumentException("length for type " + name + " cannot exceed " + MAX_VARCHAR_LENGTH);
                }
            }
            case VARCHAR_ARRAY -> {
                if (length < 0 || length > MAX_VARCHAR_LENGTH) {
                    throw new IllegalArgumentException(length == 0 ? "length for type varchar must be at least 1"
                            : "length for type varchar cannot exceed " + MAX_VARCHAR_LENGTH);
                }
            }
            case NUMERIC, NUMERIC_ARRAY -> {
                if (precision < 1 || precision > MAX_NUMERIC_PRECISION) {
                    throw new IllegalArgumentException("NUMERIC precision " + precision + " must be between 1 and " + MAX_NUMERIC_PRECISION);
                }
                // as in PostgreSQL 15: a scale may exceed the precision (only digits after the point) or be negative (rounding left of it)
                if (scale < -MAX_NUMERIC_PRECISION || scale > MAX_NUMERIC_PRECISION) {
                    throw new IllegalArgumentException("NUMERIC scale " + scale + " must be between -1000 and 1000");
                }
            }
            default -> {
            }
        }
    }

    public static final DeclaredType SMALLINT = new DeclaredType(Kind.SMALLINT, 0, 0, 0);
    public static final DeclaredType INTEGER = new DeclaredType(Kind.INTEGER, 0, 0, 0);
    /** PostgreSQL's {@code smallint[]} and {@code integer[]} ({@code int2[]}, {@code int4[]}): arrays of int64 datums held to the range. */
    public static final DeclaredType SMALLINT_ARRAY = new DeclaredType(Kind.SMALLINT_ARRAY, 0, 0, 0);
    public static final DeclaredType INTEGER_ARRAY = new DeclaredType(Kind.INTEGER_ARRAY, 0, 0, 0);

    public static DeclaredType varchar(int length) {
        if (length < 1) {
            throw new IllegalArgumentException("length for type varchar must be at least 1");
        }
        return new DeclaredType(Kind.VARCHAR, length, 0, 0);
    }

    /** PostgreSQL's {@code character varying(n)[]}, or with {@code length} 0 its {@code character varying[]}: arrays of strings. */
    public static DeclaredType varcharArray(int length) {
        return new DeclaredType(Kind.VARCHAR_ARRAY, length, 0, 0);
    }

    /** PostgreSQL's {@code character varying} without a length: a string as a {@code text} is, but compared with a {@code character(n)} as one. */
    public static final DeclaredType VARCHAR = new DeclaredType(Kind.VARCHAR, 0, 0, 0);

    public static DeclaredType bpchar(int length) {
        return new DeclaredType(Kind.BPCHAR, length, 0, 0);
    }

    public static DeclaredType numeric(int precision, int scale) {
        return new DeclaredType(Kind.NUMERIC, 0, precision, scale);
    }

    /** PostgreSQL's {@code numeric(p, s)[]}: arrays of numerics, each element rounded to the scale and held to the precision. */
    public static DeclaredType numericArray(int precision, int scale) {
        return new DeclaredType(Kind.NUMERIC_ARRAY, 0, precision, scale);
    }

    /** PostgreSQL's {@code character(n)[]}: arrays of strings, each element a {@code character(n)}. */
    public static DeclaredType bpcharArray(int length) {
        return new DeclaredType(Kind.BPCHAR_ARRAY, length, 0, 0);
    }

    /** The datum type a column of this declared type holds. */
    public DatumType datumType() {
        return switch (kind) {
            case SMALLINT, INTEGER -> DatumType.INT64;
            case VARCHAR, BPCHAR -> DatumType.STRING;
            case NUMERIC -> DatumType.NUMERIC;
            case SMALLINT_ARRAY, INTEGER_ARRAY -> DatumType.INT64_ARRAY;
            case VARCHAR_ARRAY, BPCHAR_ARRAY -> DatumType.STRING_ARRAY;
            case NUMERIC_ARRAY -> DatumType.NUMERIC_ARRAY;
        };
    }

    /** The name PostgreSQL's {@code format_type} gives the type: {@code integer}, {@code character varying(20)}, {@code numeric(10,2)}. */
    public String sqlName() {
        return switch (kind) {
            case SMALLINT -> "smallint";
            case INTEGER -> "integer";
            case VARCHAR -> length == 0 ? "character varying" : "character varying(" + length + ")";
            case BPCHAR -> "character(" + length + ")";
            case NUMERIC -> "numeric(" + precision + "," + scale + ")";
            case SMALLINT_ARRAY -> "smallint[]";
            case INTEGER_ARRAY -> "integer[]";
            case VARCHAR_ARRAY -> length == 0 ? "character varying[]" : "character varying(" + length + ")[]";
            case NUMERIC_ARRAY -> "numeric(" + precision + "," + scale + ")[]";
            case BPCHAR_ARRAY -> "character(" + length + ")[]";
        };
    }

    /** PostgreSQL's type OID: int2, int4, varchar, bpchar, numeric, int2[], int4[], varchar[], numeric[], bpchar[]. */
    public long oid() {
        return switch (kind) {
            case SMALLINT -> 21;
            case INTEGER -> 23;
            case VARCHAR -> 1043;
            case BPCHAR -> 1042;
            case NUMERIC -> 1700;
            case SMALLINT_ARRAY -> 1005;
            case INTEGER_ARRAY -> 1007;
            case VARCHAR_ARRAY -> 1015;
            case NUMERIC_ARRAY -> 1231;
            case BPCHAR_ARRAY -> 1014;
        };
    }

    /** PostgreSQL's type modifier ({@code atttypmod}): the length + 4, or {@code (precision << 16 | scale & 0x7ff) + 4}; -1 for none. */
    public long typmod() {
        return switch (kind) {
            case SMALLINT, INTEGER, SMALLINT_ARRAY, INTEGER_ARRAY -> -1;
            case VARCHAR -> length == 0 ? -1 : length + 4L;
            case BPCHAR, BPCHAR_ARRAY -> length + 4L;
            case VARCHAR_ARRAY -> length == 0 ? -1 : length + 4L;
            case NUMERIC, NUMERIC_ARRAY -> ((long) precision << 16 | scale & 0x7ff) + 4;
        };
    }

    private static final Pattern NAME = Pattern.compile("(smallint|integer)(\\[\\])?|character varying\\((\\d+)\\)|numeric\\((\\d+),(-?\\d+)\\)|character\\((\\d+)\\)"
            + "|character varying(?:\\((\\d+)\\))?(\\[\\])|(character varying)|numeric\\((\\d+),(-?\\d+)\\)\\[\\]|character\\((\\d+)\\)\\[\\]");

    /** The declared type of {@link #sqlName()}; throws {@link IllegalArgumentException} for any other text. */
    public static DeclaredType parse(String sqlName) {
        Matcher m = NAME.matcher(sqlName.toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException("not a declared column type: '" + sqlName + "'");
        }
        if (m.group(1) != null) {
            boolean small = m.group(1).equals("smallint");
            return m.group(2) != null ? small ? SMALLINT_ARRAY : INTEGER_ARRAY : small ? SMALLINT : INTEGER;
        }
        if (m.group(8) != null) {
            return varcharArray(m.group(7) == null ? 0 : Integer.parseInt(m.group(7)));
        }
        if (m.group(3) != null) {
            return varchar(Integer.parseInt(m.group(3)));
        }
        if (m.group(9) != null) {
            return VARCHAR;
        }
        if (m.group(6) != null) {
            return bpchar(Integer.parseInt(m.group(6)));
        }
        if (m.group(12) != null) {
            return bpcharArray(Integer.parseInt(m.group(12)));
        }
        if (m.group(10) != null) {
            return numericArray(Integer.parseInt(m.group(10)), Integer.parseInt(m.group(11)));
        }
        return numeric(Integer.parseInt(m.group(4)), Integer.parseInt(m.group(5)));
    }

    /**
     * {@code value} (a non-null datum of {@link #datumType()}) as a column of this type keeps it; throws
     * {@link EvalError} with PostgreSQL's message when it does not fit ({@code integer out of range},
     * {@code value too long for type character varying(3)}, {@code numeric field overflow…}).
     */
    public Object fit(Object value) {
        return switch (kind) {
            case SMALLINT -> {
                long v = (Long) value;
                if (v < Short.MIN_VALUE || v > Short.MAX_VALUE) {
                    throw new EvalError(EvalError.Code.NUMERIC_OUT_OF_RANGE, "smallint out of range");
                }
                yield value;
            }
            case INTEGER -> {
                long v = (Long) value;
                if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
                    throw new EvalError(EvalError.Code.NUMERIC_OUT_OF_RANGE, "integer out of range");
                }
                yield value;
            }
            case VARCHAR -> {
                String s = (String) value;
                int n = s.codePointCount(0, s.length());
                if (length == 0 || n <= length) {
                    yield s;
                }
                // as PostgreSQL does, characters past the length that are all spaces are cut, not refused
                int cut = s.offsetByCodePoints(0, length);
                if (s.substring(cut).chars().allMatch(c -> c == ' ')) {
                    yield s.substring(0, cut);
                }
                throw new EvalError(EvalError.Code.STRING_DATA_RIGHT_TRUNCATION, "value too long for type character varying(" + length + ")");
            }
            case BPCHAR -> {
                // as PostgreSQL does, characters past the length that are all spaces are cut, not refused
                String s = stripTrailingSpaces((String) value);
                if (s.codePointCount(0, s.length()) > length) {
                    throw new EvalError(EvalError.Code.STRING_DATA_RIGHT_TRUNCATION, "value too long for type character(" + length + ")");
                }
                yield s;
            }
            case NUMERIC -> Numerics.fit((BigDecimal) value, precision, scale);
            case VARCHAR_ARRAY -> length == 0 ? value : fitElements(value, varchar(length));
            case NUMERIC_ARRAY -> fitElements(value, numeric(precision, scale));
            case BPCHAR_ARRAY -> fitElements(value, bpchar(length));
            case SMALLINT_ARRAY, INTEGER_ARRAY -> {
                DeclaredType element = kind == Kind.SMALLINT_ARRAY ? SMALLINT : INTEGER;
                for (Object e : ((DatumArray) value).elements()) {
                    if (e != null) {
                        element.fit(e);
                    }
                }
                yield value;
            }
        };
    }

    /** The array {@code value} with each of its elements fitted to {@code element}: itself when none changes. */
    private static Object fitElements(Object value, DeclaredType element) {
        DatumArray a = (DatumArray) value;
        List<Object> fitted = new ArrayList<>(a.size());
        boolean changed = false;
        for (Object e : a.elements()) {
            Object f = e == null ? null : element.fit(e);
            changed |= f != e;
            fitted.add(f);
        }
        return changed ? new DatumArray(a.elementType(), fitted) : value;
    }

    /** {@code s} without its trailing spaces: the value a {@code character(n)} keeps, as PostgreSQL's {@code bpchar} compares it. */
    public static String stripTrailingSpaces(String s) {
        int end = s.length();
        while (end > 0 && s.charAt(end - 1) == ' ') {
            end--;
        }
        return end == s.length() ? s : s.substring(0, end);
    }

    /**
     * A value of this type as PostgreSQL writes it: a {@code character(n)} blank-padded to {@code n} characters, and so each element
     * of a {@code character(n)[]}; others as they are.
     */
    public Object padded(Object value) {
        if (kind == Kind.BPCHAR_ARRAY && value instanceof DatumArray a) {
            DeclaredType element = bpchar(length);
            List<Object> padded = new ArrayList<>(a.size());
            for (Object e : a.elements()) {
                padded.add(element.padded(e));
            }
            return new DatumArray(a.elementType(), padded);
        }
        if (kind != Kind.BPCHAR || !(value instanceof String s)) {
            return value;
        }
        int n = s.codePointCount(0, s.length());
        return n >= length ? s : s + " ".repeat(length - n);
    }
}
