package dev.tandem.expr;

import java.util.Locale;

/**
 * The scalar functions an {@link Expr.Call} may apply, with their JSON names and argument counts.
 *
 * <p>Typing and semantics (all functions are NULL in → NULL out unless said otherwise):
 * <ul>
 *   <li>{@code eq neq lt lte gt gte}(T, T) → bool; both arguments of one type; the datum order (NULL
 *       aside, float order is total: {@code -0.0 < 0.0}, NaN equals NaN and is greatest).</li>
 *   <li>{@code and or}(bool, bool, ...) → bool, SQL three-valued logic: {@code and} is false if any
 *       argument is false, else NULL if any is NULL, else true ({@code or} dually). Arguments are
 *       evaluated left to right and evaluation stops at the first deciding value, so an error in a
 *       later argument is not raised.</li>
 *   <li>{@code not}(bool) → bool; {@code is_null}(T) → bool, never NULL.</li>
 *   <li>{@code add sub mul div mod}(N, N) → N and {@code neg abs}(N) → N for N int64 or float64. int64
 *       overflow is an error; {@code div} truncates toward zero; {@code mod} has the sign of the dividend;
 *       division or modulo by zero is an error for both types. float64 otherwise follows IEEE 754.</li>
 *   <li>{@code coalesce}(T, ...) → T: the first non-NULL argument, later ones not evaluated.</li>
 *   <li>{@code if}(bool, T, T) → T: the second argument when the condition is true, else (false or
 *       NULL) the third; only the chosen branch is evaluated.</li>
 *   <li>{@code concat}(string, ...) → string; NULL if any argument is NULL (SQL {@code ||}).</li>
 *   <li>{@code lower upper}(string) → string: each code point mapped on its own, as PostgreSQL does
 *       (locale-independent; {@code ß} stays one character); {@code length}(string) → int64 in
 *       code points; {@code octet_length}(string) → int64 in UTF-8 bytes.</li>
 *   <li>{@code substr}(string, int64 start[, int64 length]) → string: SQL {@code SUBSTRING(s FROM start
 *       FOR length)} over code points, 1-based: the characters at positions {@code p} with
 *       {@code start <= p < start + length}; a negative length is an error.</li>
 *   <li>{@code like ilike}(string, string pattern[, string escape]) → bool: SQL {@code LIKE}, as PostgreSQL
 *       matches it over code points: {@code %} any sequence, {@code _} any one character, the escape
 *       character ({@code \} unless given; an empty escape turns escaping off) makes the next pattern
 *       character literal. An escape of more than one character is an error, and so is a pattern
 *       ending in the escape character when the match reaches it. {@code ilike} matches {@code lower}
 *       of both.</li>
 *   <li>PostgreSQL's string functions, with its semantics over code points (see {@link TextFunctions}):
 *       {@code concat_args}(string, ...) (PostgreSQL's {@code concat}: NULLs skipped, never NULL),
 *       {@code concat_ws}(string sep, string, ...) (NULL only when {@code sep} is), {@code strpos replace
 *       split_part btrim ltrim rtrim lpad rpad left right repeat reverse initcap md5 starts_with translate};
 *       {@code regexp_like}(string, string pattern[, string flags]) → bool and {@code regexp_replace}(string,
 *       string pattern, string replacement[, string flags]) over the part of PostgreSQL's regular
 *       expressions that Java's agree on (see {@link Regex}); {@code similar_escape}(string pattern, string escape) → string,
 *       the regular expression of a {@code SIMILAR TO} pattern (see {@link SimilarTo}).</li>
 *   <li>Numeric functions over float64 (see {@link MathFunctions}): {@code round} (ties to even, as
 *       PostgreSQL's {@code round(double precision)}), {@code round_numeric}(float64[, int64 digits]) (ties
 *       away from zero, as its {@code round(numeric)}), {@code trunc}(float64[, int64 digits]), {@code floor
 *       ceil sign sqrt exp ln log10 power}, with PostgreSQL's errors; {@code greatest least}(T, ...) → T,
 *       NULL arguments skipped (NULL only when all are).</li>
 *   <li>Dates and times (see {@link Datetimes}): {@code add}(date, int64) and {@code add}(int64, date) → date,
 *       {@code sub}(date, int64) → date, {@code sub}(date, date) → int64 days; {@code add sub}(T, interval) → T for T
 *       timestamp or timestamptz ({@code add}(interval, T) too; of a date, a timestamp), {@code sub}(T, T) → interval,
 *       {@code add sub}(interval, interval), {@code neg}(interval), {@code mul}(interval, N), {@code mul}(N, interval) and
 *       {@code div}(interval, N) → interval, as PostgreSQL computes them (see {@link Intervals}); {@code add sub}(time, interval) and
 *       {@code add}(interval, time) → time, {@code sub}(time, time) → interval, {@code add}(date, time) and {@code add}(time, date) →
 *       timestamp (see {@link Times}); {@code extract}(string field, date | time | timestamp | timestamptz) → numeric, PostgreSQL's {@code extract} (an unknown field is an error);
 *       {@code date_trunc}(string field, T) → T for T timestamp or timestamptz.</li>
 *   <li>The session's time zone (see {@link TimeZones}): a last string argument naming a zone ({@link TimeZones.Zone#key}) makes
 *       {@code cast} (between timestamptz and string, timestamp, date or time, and of arrays of them), {@code extract},
 *       {@code date_trunc} and {@code to_char} of a timestamptz compute in that zone (without it: in UTC);
 *       {@code tz_plus}(timestamptz, interval, string zone) → timestamptz adds the interval's months and days to the local time
 *       in the zone; {@code timezone}(string zone, timestamptz) → timestamp and {@code timezone}(string zone, timestamp) →
 *       timestamptz are SQL's {@code AT TIME ZONE} (an unknown zone is an error).</li>
 *   <li>jsonb, as PostgreSQL's (see {@link Jsonbs}): {@code jsonb_field jsonb_field_text}(jsonb, string key | int64 index) →
 *       jsonb, string ({@code -> ->>}); {@code jsonb_path jsonb_path_text}(jsonb, string text-array literal) → jsonb, string
 *       ({@code #> #>>}); {@code jsonb_contains}(jsonb, jsonb) → bool ({@code @>}); {@code jsonb_exists}(jsonb, string) → bool
 *       ({@code ?}); {@code jsonb_concat}(jsonb, jsonb) → jsonb ({@code ||}); {@code jsonb_typeof}(jsonb) → string;
 *       {@code jsonb_array_length}(jsonb) → int64; {@code to_jsonb}(T) → jsonb; {@code jsonb_build_array
 *       jsonb_build_object}(T, ...) → jsonb, a NULL argument JSON's null; {@code jsonb_to_numeric jsonb_to_bool}(jsonb, string
 *       type name) → numeric, bool: a jsonb number or boolean cast, an error naming the type for any other value.</li>
 *   <li>Arrays, as PostgreSQL's one-dimensional arrays (see {@link ArrayValues}): {@code array}(T, ...) → the call's {@code type},
 *       an array of T (NULL arguments are NULL elements); {@code any all}(string comparison, T, T[]) → bool ({@code x = ANY (a)},
 *       the comparison named as its function: {@code "eq"}...), with PostgreSQL's NULLs; {@code array_get}(T[], int64) → T
 *       ({@code a[i]}, 1-based, NULL out of range); {@code array_length}(T[], int64 dimension) → int64; {@code cardinality}(T[]) →
 *       int64; {@code array_to_string}(T[], string[, string]) → string; {@code array_cat}(T[], T[]), {@code array_append}(T[], T)
 *       and {@code array_prepend}(T, T[]) → T[] (a NULL array is an empty one); {@code array_contains array_overlap}(T[], T[])
 *       → bool ({@code @>}, {@code &&}); {@code jsonb_exists_any jsonb_exists_all}(jsonb, string[]) → bool ({@code ?|}, {@code ?&}).
 *       A cast reads and writes PostgreSQL's array text ({@code {1,"b c",NULL}}) and casts arrays element by element.</li>
 *   <li>{@code cast}(T) → the call's {@code type}: see {@link Expr.Call}.</li>
 *   <li>{@code error}(string message[, string code]) → the call's {@code type}: raises an {@link EvalError} with the
 *       message and the {@link EvalError.Code} named by the literal {@code code} ({@code cardinality_violation},
 *       a scalar subquery's error, when absent).</li>
 *   <li>{@code fit_int4 fit_int2}(int64) → int64: the value when it is in the range of PostgreSQL's
 *       {@code integer} (32 bits) or {@code smallint} (16 bits), else an error ({@code integer out of range},
 *       {@code smallint out of range}): SQL's arithmetic and casts typed {@code integer} or {@code smallint}.</li>
 *   <li>{@code make_date}(int64 year, int64 month, int64 day) → date, an error ({@code date field value out of range})
 *       for a day that does not exist; {@code to_timestamp}(float64 seconds since the epoch) → timestamptz, rounded to the
 *       microsecond, an error for NaN or a time out of range.</li>
 *   <li>{@code to_char}(date | timestamp | timestamptz | interval | int64 | float64 | numeric, string template) → string:
 *       PostgreSQL's {@code to_char} (see {@link FormatTemplates}); {@code age}(timestamp, timestamp) → interval, PostgreSQL's
 *       symbolic difference in years, months, days and time; {@code format}(string, string...) → string, PostgreSQL's
 *       {@code format} ({@code %s %I %L %%}, positions and widths), NULL only when the format is NULL.</li>
 *   <li>{@code fit_numeric}(numeric, int64 precision, int64 scale) → numeric: the value rounded half away from zero
 *       to the scale, an error ({@code numeric field overflow}) when its integer digits do not fit: SQL's cast to
 *       {@code numeric(p, s)}.</li>
 *   <li>{@code error}(string message) → the call's {@code type}: an evaluation error with the message (never a
 *       value); it stands in a branch of {@code if} that a row must not reach.</li>
 * </ul>
 */
public enum Func {
    EQ(2, 2), NEQ(2, 2), LT(2, 2), LTE(2, 2), GT(2, 2), GTE(2, 2),
    AND(1, Integer.MAX_VALUE), OR(1, Integer.MAX_VALUE), NOT(1, 1), IS_NULL(1, 1),
    ADD(2, 2), SUB(2, 2), MUL(2, 2), DIV(2, 2), MOD(2, 2), NEG(1, 1), ABS(1, 1),
    COALESCE(1, Integer.MAX_VALUE), IF(3, 3),
    CONCAT(1, Integer.MAX_VALUE), LOWER(1, 1), UPPER(1, 1), LENGTH(1, 1), OCTET_LENGTH(1, 1), SUBSTR(2, 3),
    LIKE(2, 3), ILIKE(2, 3),
    CONCAT_ARGS(0, Integer.MAX_VALUE), CONCAT_WS(1, Integer.MAX_VALUE), STRPOS(2, 2), REPLACE(3, 3), SPLIT_PART(3, 3),
    BTRIM(1, 2), LTRIM(1, 2), RTRIM(1, 2), LPAD(2, 3), RPAD(2, 3), LEFT(2, 2), RIGHT(2, 2), REPEAT(2, 2),
    REVERSE(1, 1), INITCAP(1, 1), MD5(1, 1), STARTS_WITH(2, 2), TRANSLATE(3, 3), REGEXP_LIKE(2, 3), REGEXP_REPLACE(3, 4), SIMILAR_ESCAPE(2, 2),
    ROUND(1, 1), ROUND_NUMERIC(1, 2), TRUNC(1, 2), FLOOR(1, 1), CEIL(1, 1), SIGN(1, 1), SQRT(1, 1), EXP(1, 1), LN(1, 1),
    LOG10(1, 1), POWER(2, 2), GREATEST(1, Integer.MAX_VALUE), LEAST(1, Integer.MAX_VALUE),
    EXTRACT(2, 3), DATE_TRUNC(2, 3), TZ_PLUS(3, 3), TIMEZONE(2, 2),
    JSONB_FIELD(2, 2), JSONB_FIELD_TEXT(2, 2), JSONB_PATH(2, 2), JSONB_PATH_TEXT(2, 2), JSONB_CONTAINS(2, 2), JSONB_EXISTS(2, 2),
    JSONB_CONCAT(2, 2), JSONB_TYPEOF(1, 1), JSONB_ARRAY_LENGTH(1, 1), TO_JSONB(1, 1), JSONB_BUILD_ARRAY(0, Integer.MAX_VALUE),
    JSONB_BUILD_OBJECT(0, Integer.MAX_VALUE), JSONB_TO_NUMERIC(2, 2), JSONB_TO_BOOL(2, 2),
    CAST(1, 2), ERROR(1, 2), FIT_INT4(1, 1), FIT_INT2(1, 1), FIT_NUMERIC(3, 3),
    MAKE_DATE(3, 3), TO_TIMESTAMP(1, 1), TO_CHAR(2, 3), AGE(2, 2), FORMAT(1, Integer.MAX_VALUE),
    ARRAY(0, Integer.MAX_VALUE), ANY(3, 3), ALL(3, 3), ARRAY_GET(2, 2), ARRAY_LENGTH(2, 2), CARDINALITY(1, 1), ARRAY_TO_STRING(2, 3),
    ARRAY_CAT(2, 2), ARRAY_APPEND(2, 2), ARRAY_PREPEND(2, 2), ARRAY_CONTAINS(2, 2), ARRAY_OVERLAP(2, 2), JSONB_EXISTS_ANY(2, 2),
    JSONB_EXISTS_ALL(2, 2);

    final int minArgs;
    final int maxArgs;

    Func(int minArgs, int maxArgs) {
        this.minArgs = minArgs;
        this.maxArgs = maxArgs;
    }

    /** The name used in JSON ({@code "is_null"}). */
    public String jsonName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The function of a JSON name, or null. */
    public static Func fromJson(String name) {
        for (Func f : values()) {
            if (f.jsonName().equals(name)) {
                return f;
            }
        }
        return null;
    }
}
