package dev.tandem.expr;

import dev.tandem.row.Interval;
import dev.tandem.row.TimeOfDay;
import dev.tandem.row.Timestamp;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * PostgreSQL's {@code time} (without time zone) as Tandem computes it: input of {@code hh:mm[:ss[.fraction]]} (after an
 * optional ISO date, which is ignored), output as {@code hh:mm:ss[.fraction]}, {@code time ± interval} (the interval's
 * time part, wrapped around midnight), {@code time - time} (an interval), {@code date + time} (a timestamp) and
 * {@code extract} of its fields. Errors are {@link EvalError}s whose messages are PostgreSQL's.
 */
public final class Times {

    private static final long DAY = TimeOfDay.MICROS_PER_DAY;

    /** An optional ISO date, then {@code h:m[:s[.fraction]]}. */
    private static final Pattern INPUT = Pattern.compile(
            "(?:\\d{1,9}-\\d{1,2}-\\d{1,2}(?:[Tt]|\\s+))?(\\d{1,9}):(\\d{1,9})(?::(\\d{1,9})(?:\\.(\\d*))?)?");

    /** Inputs PostgreSQL reads that Tandem does not: AM/PM, a zone, compact digits, month or day names, special values. */
    private static final Pattern OTHER_FORMS = Pattern.compile("\\d+(\\.\\d*)?|.*\\b(am|pm|a\\.m\\.|p\\.m\\.|allballs|now|today|tomorrow|yesterday"
            + "|epoch|infinity|utc|gmt|z|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|mon|tue|wed|thu|fri|sat|sun)[a-z]*\\b.*"
            + "|.*\\d\\s*[+-]\\s*\\d.*|.*\\dz|.*[a-z]+/[a-z_]+.*");

    private Times() {
    }

    /** PostgreSQL's input of a {@code time}: {@code 22007} when it does not read, {@code 22008} for a field out of range. */
    public static TimeOfDay parse(String s) {
        String t = s.trim();
        Matcher m = INPUT.matcher(t);
        if (!m.matches()) {
            if (OTHER_FORMS.matcher(t.toLowerCase(Locale.ROOT)).matches()) {
                throw new EvalError(EvalError.Code.NOT_SUPPORTED, "not supported: the time input '" + t + "' (write hh:mm[:ss[.ffffff]]; zones, AM/PM, compact digits,"
                        + " names and special values are not read)");
            }
            throw new EvalError(EvalError.Code.INVALID_DATETIME_FORMAT, "invalid input syntax for type time: \"" + s + "\"");
        }
        try {
            long hour = Long.parseLong(m.group(1));
            long minute = Long.parseLong(m.group(2));
            long second = m.group(3) == null ? 0 : Long.parseLong(m.group(3));
            String digits = m.group(4) == null ? "" : m.group(4);
            long fraction = digits.isEmpty() ? 0 : (long) Math.rint(Double.parseDouble("0." + digits) * 1_000_000d);
            if (hour > 24 || minute > 59 || second > 60 || hour == 24 && (minute > 0 || second > 0 || fraction > 0)) {
                throw new NumberFormatException();
            }
            long micros = ((hour * 60 + minute) * 60 + second) * 1_000_000L + fraction;
            if (micros > DAY) {
                throw new NumberFormatException();
            }
            return new TimeOfDay(micros);
        } catch (NumberFormatException e) {
            throw new EvalError(EvalError.Code.DATETIME_FIELD_OVERFLOW, "date/time field value out of range: \"" + s + "\"");
        }
    }

    /** The time of day of a timestamp (microseconds since the epoch, in UTC). */
    public static TimeOfDay of(long epochMicros) {
        return new TimeOfDay(Math.floorMod(epochMicros, DAY));
    }

    /** {@code a f b} for {@code time ± interval}, {@code interval + time}, {@code time - time}, {@code date + time} or {@code time + date}. */
    static Object arith(Func f, Object a, Object b) {
        return switch (a) {
            case TimeOfDay t when b instanceof Interval i -> wrap(f == Func.ADD ? t.micros() + i.micros() % DAY : t.micros() - i.micros() % DAY);
            case Interval i when b instanceof TimeOfDay t -> wrap(t.micros() + i.micros() % DAY);
            case TimeOfDay t when b instanceof TimeOfDay u -> new Interval(0, 0, t.micros() - u.micros());
            case LocalDate d when b instanceof TimeOfDay t -> new Timestamp(Datetimes.checkedMicros(Datetimes.startOfDay(d) + t.micros()));
            case TimeOfDay t when b instanceof LocalDate d -> new Timestamp(Datetimes.checkedMicros(Datetimes.startOfDay(d) + t.micros()));
            default -> throw new IllegalStateException("not time arithmetic: " + f + " of " + a.getClass() + " and " + b.getClass());
        };
    }

    private static TimeOfDay wrap(long micros) {
        return new TimeOfDay(Math.floorMod(micros, DAY));
    }

    /** PostgreSQL's {@code extract(field FROM t)} of a time: a numeric. */
    static BigDecimal extract(String field, TimeOfDay t) {
        long micros = t.micros();
        long secondMicros = micros % 60_000_000L;
        return switch (field.toLowerCase(Locale.ROOT)) {
            case "microsecond", "microseconds", "us", "usec", "usecs", "microsecon" -> BigDecimal.valueOf(secondMicros);
            case "millisecond", "milliseconds", "ms", "msec", "msecs", "millisecon" -> BigDecimal.valueOf(secondMicros, 3);
            case "second", "seconds", "sec", "secs", "s" -> BigDecimal.valueOf(secondMicros, 6);
            case "minute", "minutes", "min", "mins", "m" -> BigDecimal.valueOf(micros / 60_000_000L % 60);
            case "hour", "hours", "hr", "hrs", "h" -> BigDecimal.valueOf(micros / 3_600_000_000L);
            case "epoch" -> BigDecimal.valueOf(micros, 6);
            case "day", "days", "d", "month", "months", "mon", "mons", "year", "years", "y", "yr", "yrs", "quarter", "qtr", "decade",
                    "decades", "century", "centuries", "millennium", "millennia", "dow", "isodow", "doy", "week", "weeks", "w", "isoyear",
                    "julian", "timezone", "timezone_hour", "timezone_minute" ->
                    throw new EvalError(EvalError.Code.NOT_SUPPORTED, "unit \"" + field + "\" not supported for type time without time zone");
            default -> throw new EvalError(EvalError.Code.INVALID_PARAMETER_VALUE, "unit \"" + field + "\" not recognized for type time without time zone");
        };
    }
}
