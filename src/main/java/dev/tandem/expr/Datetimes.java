package dev.tandem.expr;

import dev.tandem.row.Timestamp;
import dev.tandem.row.TimestampTz;
import java.math.BigDecimal;
import java.time.DateTimeException;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * PostgreSQL's {@code date} and {@code timestamp with time zone} as Tandem computes them ({@code time} in {@link Times}): input in ISO form
 * ({@code 2024-01-02}, {@code 2024-01-02 03:04:05.5+02}), output in PostgreSQL's ISO DateStyle, arithmetic,
 * {@code extract} and {@code date_trunc}. The session time zone is UTC. Errors are {@link EvalError}s whose
 * messages are PostgreSQL's.
 */
public final class Datetimes {

    static final long MICROS_PER_DAY = 86_400_000_000L;
    private static final LocalDate MIN_DATE = LocalDate.of(1, 1, 1);
    private static final LocalDate MAX_DATE = LocalDate.of(9999, 12, 31);

    /** {@code y-m-d}, then optionally a time of day and a zone (an offset, {@code Z} or a zone name). */
    private static final Pattern INPUT = Pattern.compile(
            "(\\d{1,9})-(\\d{1,2})-(\\d{1,2})"
                    + "(?:(?:[Tt]|\\s+)(\\d{1,2}):(\\d{1,2})(?::(\\d{1,2})(?:\\.(\\d{0,9}))?)?)?"
                    + "\\s*(?:([Zz]|[+-]\\d{1,2}(?::?\\d{2}(?::?\\d{2})?)?)|\\s([A-Za-z][A-Za-z0-9_/+-]*))?");

    private Datetimes() {
    }

    /** PostgreSQL's input of a {@code date}; a time of day and a zone after it are ignored. */
    public static LocalDate parseDate(String s) {
        Matcher m = match(s, "date");
        try {
            return checked(LocalDate.of(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3))));
        } catch (DateTimeException | NumberFormatException e) {
            throw new EvalError(EvalError.Code.DATETIME_FIELD_OVERFLOW, "date/time field value out of range: \"" + s + "\"");
        }
    }

    /** PostgreSQL's input of a {@code timestamp with time zone}; one without a zone is in UTC. */
    public static TimestampTz parseTimestampTz(String s) {
        return parseTimestampTz(s, ZoneOffset.UTC);
    }

    /** PostgreSQL's input of a {@code timestamp with time zone}; one without a zone is in {@code session}'s. */
    public static TimestampTz parseTimestampTz(String s, ZoneId session) {
        Matcher m = match(s, "timestamp with time zone");
        LocalDateTime local;
        try {
            local = localDateTime(m);
        } catch (DateTimeException | NumberFormatException e) {
            throw new EvalError(EvalError.Code.DATETIME_FIELD_OVERFLOW, "date/time field value out of range: \"" + s + "\"");
        }
        ZoneId zone = session;
        if (m.group(8) != null) {
            zone = offset(m.group(8), s);
        } else if (m.group(9) != null) {
            try {
                zone = ZoneId.of(m.group(9));
            } catch (DateTimeException e) {
                throw new EvalError(EvalError.Code.INVALID_PARAMETER_VALUE, "time zone \"" + m.group(9) + "\" not recognized");
            }
        }
        return new TimestampTz(checkedMicros(TimeZones.instant(micros(local, ZoneOffset.UTC), zone)));
    }

    /** PostgreSQL's input of a {@code timestamp} (without time zone): a zone in it is ignored, as PostgreSQL ignores it. */
    public static dev.tandem.row.Timestamp parseTimestamp(String s) {
        Matcher m = match(s, "timestamp");
        try {
            return new dev.tandem.row.Timestamp(checkedMicros(micros(localDateTime(m), ZoneOffset.UTC)));
        } catch (DateTimeException | NumberFormatException e) {
            throw new EvalError(EvalError.Code.DATETIME_FIELD_OVERFLOW, "date/time field value out of range: \"" + s + "\"");
        }
    }

    private static Matcher match(String s, String type) {
        String t = s.trim();
        String lower = t.toLowerCase(Locale.ROOT);
        if (lower.equals("epoch")) {
            return match("1970-01-01 00:00:00+00", type);
        }
        if (lower.matches("[-+]?infinity|now|today|tomorrow|yesterday|allballs") || lower.matches(".*\\bbc$")) {
            throw new EvalError(EvalError.Code.NOT_SUPPORTED, "not supported: the " + type + " input '" + t + "' (Tandem's are finite, of years 1 to 9999, without special values)");
        }
        Matcher m = INPUT.matcher(t);
        if (m.matches()) {
            return m;
        }
        if (lower.matches(".*\\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|mon|tue|wed|thu|fri|sat|sun)[a-z]*\\b.*")) {
            throw new EvalError(EvalError.Code.NOT_SUPPORTED, "not supported: the " + type + " input '" + t + "' (write an ISO date, 2024-01-02)");
        }
        throw new EvalError(EvalError.Code.INVALID_DATETIME_FORMAT, "invalid input syntax for type " + type + ": \"" + s + "\"");
    }

    private static LocalDateTime localDateTime(Matcher m) {
        LocalDate d = checked(LocalDate.of(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3))));
        if (m.group(4) == null) {
            return d.atStartOfDay();
        }
        int hour = Integer.parseInt(m.group(4));
        int minute = Integer.parseInt(m.group(5));
        int second = m.group(6) == null ? 0 : Integer.parseInt(m.group(6));
        String fraction = m.group(7) == null ? "" : m.group(7);
        // to microseconds, a finer fraction rounded half up as PostgreSQL rounds it
        long micros = fraction.isEmpty() ? 0 : new BigDecimal("0." + fraction).movePointRight(6).setScale(0, java.math.RoundingMode.HALF_UP).longValue();
        if (hour == 24 && minute == 0 && second == 0 && micros == 0) {
            return d.plusDays(1).atStartOfDay();
        }
        return d.atTime(hour, minute, second).plus(micros, ChronoUnit.MICROS);
    }

    private static ZoneOffset offset(String z, String s) {
        if (z.equalsIgnoreCase("z")) {
            return ZoneOffset.UTC;
        }
        String digits = z.substring(1).replace(":", "");
        try {
            int h = Integer.parseInt(digits.substring(0, Math.min(2, digits.length())));
            int min = digits.length() > 2 ? Integer.parseInt(digits.substring(2, 4)) : 0;
            int sec = digits.length() > 4 ? Integer.parseInt(digits.substring(4)) : 0;
            int sign = z.charAt(0) == '-' ? -1 : 1;
            return ZoneOffset.ofHoursMinutesSeconds(sign * h, sign * min, sign * sec);
        } catch (DateTimeException | NumberFormatException | StringIndexOutOfBoundsException e) {
            throw new EvalError(EvalError.Code.INVALID_DATETIME_FORMAT, "invalid input syntax for type timestamp with time zone: \"" + s + "\"");
        }
    }

    private static long micros(LocalDateTime t, ZoneOffset offset) {
        return Math.addExact(Math.multiplyExact(t.toEpochSecond(offset), 1_000_000L), t.getNano() / 1_000);
    }

    /** The date, or {@code 22008} when it is outside years 1 to 9999. */
    public static LocalDate checked(LocalDate d) {
        if (d.isBefore(MIN_DATE) || d.isAfter(MAX_DATE)) {
            throw new EvalError(EvalError.Code.NOT_SUPPORTED, "not supported: the date " + d + " (Tandem's dates are of years 1 to 9999)");
        }
        return d;
    }

    /** PostgreSQL's {@code make_date}: {@code 22008} for a day that does not exist (or year 0), refused before year 1. */
    static LocalDate makeDate(long year, long month, long day) {
        if (year < 0) {
            throw new EvalError(EvalError.Code.NOT_SUPPORTED, "not supported: the date of year " + -year + " BC (Tandem's dates are of years 1 to 9999)");
        }
        try {
            if (year == 0) {
                throw new java.time.DateTimeException("year 0");
            }
            return checked(LocalDate.of(Math.toIntExact(year), Math.toIntExact(month), Math.toIntExact(day)));
        } catch (java.time.DateTimeException | ArithmeticException e) {
            throw new EvalError(EvalError.Code.DATETIME_FIELD_OVERFLOW, "date field value out of range: " + year + "-" + (month < 10 && month >= 0 ? "0" : "") + month + "-"
                    + (day < 10 && day >= 0 ? "0" : "") + day);
        }
    }

    /** PostgreSQL's {@code to_timestamp(seconds)}: the instant, rounded to the microsecond (half to even, as its rint). */
    static TimestampTz toTimestamp(double seconds) {
        if (Double.isNaN(seconds)) {
            throw new EvalError(EvalError.Code.DATETIME_FIELD_OVERFLOW, "timestamp cannot be NaN");
        }
        if (Double.isInfinite(seconds)) {
            throw new EvalError(EvalError.Code.NOT_SUPPORTED, "not supported: an infinite timestamp");
        }
        double micros = Math.rint(seconds * 1_000_000d);
        if (Math.abs(micros) > 9.2e18) {
            throw new EvalError(EvalError.Code.DATETIME_FIELD_OVERFLOW, "timestamp out of range: \"" + seconds + "\"");
        }
        return new TimestampTz(checkedMicros((long) micros));
    }

    /** The timestamp, or {@code 22008} when it is outside years 1 to 9999. */
    static long checkedMicros(long micros) {
        LocalDate d = LocalDate.ofEpochDay(Math.floorDiv(micros, MICROS_PER_DAY));
        if (d.isBefore(MIN_DATE) || d.isAfter(MAX_DATE)) {
            throw new EvalError(EvalError.Code.NOT_SUPPORTED, "not supported: a timestamp outside years 1 to 9999");
        }
        return micros;
    }

    /** A date in PostgreSQL's ISO output ({@code 2024-01-02}). */
    public static String text(LocalDate d) {
        return d.toString();
    }

    /** A timestamp with time zone in PostgreSQL's ISO output in the UTC session ({@code 2024-01-02 03:04:05.5+00}). */
    public static String text(TimestampTz t) {
        return localText(t.micros()) + "+00";
    }

    /** A timestamp with time zone in PostgreSQL's ISO output in {@code zone} ({@code 2024-01-02 04:04:05.5+01}, {@code ...+05:30}). */
    public static String text(TimestampTz t, ZoneId zone) {
        int offset = TimeZones.offsetAt(t.micros(), zone);
        return localText(t.micros() + offset * 1_000_000L) + TimeZones.offsetText(offset);
    }

    /** Microseconds since the epoch as PostgreSQL prints a local time ({@code 2024-01-02 03:04:05.5}). */
    public static String localText(long micros) {
        LocalDateTime t = LocalDateTime.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), 0, ZoneOffset.UTC);
        String s = String.format(Locale.ROOT, "%04d-%02d-%02d %02d:%02d:%02d", t.getYear(), t.getMonthValue(), t.getDayOfMonth(),
                t.getHour(), t.getMinute(), t.getSecond());
        int fraction = (int) Math.floorMod(micros, 1_000_000L);
        return fraction == 0 ? s : s + "." + String.format(Locale.ROOT, "%06d", fraction).replaceAll("0+$", "");
    }

    /** The midnight starting a date, in microseconds since the epoch. */
    public static long startOfDay(LocalDate d) {
        return d.toEpochDay() * MICROS_PER_DAY;
    }

    /** The date of a time in microseconds since the epoch (in UTC). */
    public static LocalDate dateOf(long micros) {
        return LocalDate.ofEpochDay(Math.floorDiv(micros, MICROS_PER_DAY));
    }

    /** {@code date + days}: 22008 when outside the range. */
    static LocalDate plusDays(LocalDate d, long days) {
        if (Math.abs(days) > 5_000_000L) {
            throw new EvalError(EvalError.Code.NOT_SUPPORTED, "not supported: a date outside years 1 to 9999");
        }
        return checked(d.plusDays(days));
    }

    /** PostgreSQL's {@code extract(field FROM v)} of a date, timestamp or timestamp with time zone: a numeric. */
    static BigDecimal extract(String field, Object v) {
        return extract(field, v, ZoneOffset.UTC);
    }

    /** PostgreSQL's {@code extract(field FROM v)}, a timestamp with time zone's fields in {@code zone}. */
    static BigDecimal extract(String field, Object v, ZoneId zone) {
        if (v instanceof dev.tandem.row.TimeOfDay time) {
            return Times.extract(field, time);
        }
        String f = field.toLowerCase(Locale.ROOT);
        boolean date = v instanceof LocalDate;
        long micros = switch (v) {
            case LocalDate d -> startOfDay(d);
            case Timestamp t -> t.micros();
            case TimestampTz t -> t.micros();
            default -> throw new IllegalStateException("extract of " + v.getClass());
        };
        int offset = v instanceof TimestampTz ? TimeZones.offsetAt(micros, zone) : 0;
        long local = micros + offset * 1_000_000L;
        LocalDateTime t = LocalDateTime.ofEpochSecond(Math.floorDiv(local, 1_000_000L), (int) Math.floorMod(local, 1_000_000L) * 1000,
                ZoneOffset.UTC);
        long fraction = Math.floorMod(micros, 1_000_000L);
        String type = date ? "date" : v instanceof Timestamp ? "timestamp without time zone" : "timestamp with time zone";
        return switch (f) {
            case "year", "years" -> BigDecimal.valueOf(t.getYear());
            case "month", "months", "mon", "mons" -> BigDecimal.valueOf(t.getMonthValue());
            case "day", "days" -> BigDecimal.valueOf(t.getDayOfMonth());
            case "quarter" -> BigDecimal.valueOf((t.getMonthValue() - 1) / 3 + 1);
            case "decade", "decades" -> BigDecimal.valueOf(Math.floorDiv(t.getYear(), 10));
            case "century", "centuries" -> BigDecimal.valueOf((t.getYear() + 99) / 100);
            case "millennium", "millennia" -> BigDecimal.valueOf((t.getYear() + 999) / 1000);
            case "dow" -> BigDecimal.valueOf(t.getDayOfWeek().getValue() % 7);
            case "isodow" -> BigDecimal.valueOf(t.getDayOfWeek().getValue());
            case "doy" -> BigDecimal.valueOf(t.getDayOfYear());
            case "week" -> BigDecimal.valueOf(t.get(java.time.temporal.IsoFields.WEEK_OF_WEEK_BASED_YEAR));
            case "isoyear" -> BigDecimal.valueOf(t.get(java.time.temporal.IsoFields.WEEK_BASED_YEAR));
            case "julian" -> date ? BigDecimal.valueOf(t.toLocalDate().toEpochDay() + 2_440_588L)
                    : BigDecimal.valueOf(local).add(BigDecimal.valueOf(2_440_588L * MICROS_PER_DAY))
                            .divide(BigDecimal.valueOf(MICROS_PER_DAY), 20, java.math.RoundingMode.HALF_EVEN).stripTrailingZeros();
            case "epoch" -> date ? BigDecimal.valueOf(Math.floorDiv(micros, 1_000_000L))
                    : BigDecimal.valueOf(micros, 6);
            case "hour", "hours", "minute", "minutes", "min", "mins", "second", "seconds", "sec", "secs",
                    "millisecond", "milliseconds", "ms", "microsecond", "microseconds", "us", "timezone", "timezone_hour", "timezone_minute" -> {
                if (date) {
                    throw new EvalError(EvalError.Code.NOT_SUPPORTED, "unit \"" + field + "\" not supported for type date");
                }
                yield switch (f) {
                    case "hour", "hours" -> BigDecimal.valueOf(t.getHour());
                    case "minute", "minutes", "min", "mins" -> BigDecimal.valueOf(t.getMinute());
                    case "second", "seconds", "sec", "secs" -> BigDecimal.valueOf(t.getSecond() * 1_000_000L + fraction, 6);
                    case "millisecond", "milliseconds", "ms" -> BigDecimal.valueOf(t.getSecond() * 1_000_000L + fraction, 3);
                    case "microsecond", "microseconds", "us" -> BigDecimal.valueOf(t.getSecond() * 1_000_000L + fraction);
                    default -> {
                        if (v instanceof Timestamp) {
                            throw new EvalError(EvalError.Code.NOT_SUPPORTED, "unit \"" + field + "\" not supported for type timestamp without time zone");
                        }
                        yield BigDecimal.valueOf(switch (f) {
                            case "timezone" -> offset;
                            case "timezone_hour" -> offset / 3600;
                            default -> offset % 3600 / 60;
                        });
                    }
                };
            }
            default -> throw new EvalError(EvalError.Code.INVALID_PARAMETER_VALUE, "unit \"" + field + "\" not recognized for type " + type);
        };
    }

    /** PostgreSQL's {@code date_trunc(field, v)} of a timestamp or timestamp with time zone (in UTC), in microseconds. */
    static long truncate(String field, long micros, String type) {
        return truncate(field, micros, type, null);
    }

    /**
     * PostgreSQL's {@code date_trunc(field, v)} of a timestamp with time zone in {@code zone} (null: of a timestamp): the
     * local time truncated, read back in the zone with the instant's own offset for fields below a day, as PostgreSQL keeps it.
     */
    static long truncate(String field, long micros, String type, ZoneId zone) {
        int offset = zone == null ? 0 : TimeZones.offsetAt(micros, zone);
        long local = micros + offset * 1_000_000L;
        LocalDateTime t = LocalDateTime.ofEpochSecond(Math.floorDiv(local, 1_000_000L), (int) Math.floorMod(local, 1_000_000L) * 1000,
                ZoneOffset.UTC);
        LocalDateTime r = switch (field.toLowerCase(Locale.ROOT)) {
            case "microseconds", "microsecond", "us" -> t;
            case "milliseconds", "millisecond", "ms" -> t.truncatedTo(ChronoUnit.MILLIS);
            case "second", "seconds", "sec", "secs" -> t.truncatedTo(ChronoUnit.SECONDS);
            case "minute", "minutes", "min", "mins" -> t.truncatedTo(ChronoUnit.MINUTES);
            case "hour", "hours" -> t.truncatedTo(ChronoUnit.HOURS);
            case "day", "days" -> t.truncatedTo(ChronoUnit.DAYS);
            case "week", "weeks" -> t.toLocalDate().minusDays(t.getDayOfWeek().getValue() - 1).atStartOfDay();
            case "month", "months", "mon", "mons" -> t.toLocalDate().withDayOfMonth(1).atStartOfDay();
            case "quarter" -> LocalDate.of(t.getYear(), (t.getMonthValue() - 1) / 3 * 3 + 1, 1).atStartOfDay();
            case "year", "years" -> LocalDate.of(t.getYear(), 1, 1).atStartOfDay();
            case "decade", "decades" -> LocalDate.of(Math.floorDiv(t.getYear(), 10) * 10, 1, 1).atStartOfDay();
            case "century", "centuries" -> LocalDate.of((t.getYear() - 1) / 100 * 100 + 1, 1, 1).atStartOfDay();
            case "millennium", "millennia" -> LocalDate.of((t.getYear() - 1) / 1000 * 1000 + 1, 1, 1).atStartOfDay();
            default -> throw new EvalError(EvalError.Code.INVALID_PARAMETER_VALUE, "unit \"" + field + "\" not recognized for type " + type);
        };
        long truncated = micros(r, ZoneOffset.UTC);
        if (zone == null) {
            return truncated;
        }
        boolean belowDay = switch (field.toLowerCase(Locale.ROOT)) {
            case "microseconds", "microsecond", "us", "milliseconds", "millisecond", "ms", "second", "seconds", "sec", "secs", "minute", "minutes",
                    "min", "mins", "hour", "hours" -> true;
            default -> false;
        };
        return belowDay ? truncated - offset * 1_000_000L : TimeZones.instant(truncated, zone);
    }

    /** The type of {@code a f b} when it is arithmetic on dates or times, else null. */
    public static dev.tandem.row.DatumType arithmeticType(Func f, dev.tandem.row.DatumType a, dev.tandem.row.DatumType b) {
        if (f == Func.ADD && (a == dev.tandem.row.DatumType.DATE && b == dev.tandem.row.DatumType.INT64 || a == dev.tandem.row.DatumType.INT64 && b == dev.tandem.row.DatumType.DATE)) {
            return dev.tandem.row.DatumType.DATE;
        }
        if (f == Func.SUB && a == dev.tandem.row.DatumType.DATE && b == dev.tandem.row.DatumType.INT64) {
            return dev.tandem.row.DatumType.DATE;
        }
        if (f == Func.SUB && a == dev.tandem.row.DatumType.DATE && b == dev.tandem.row.DatumType.DATE) {
            return dev.tandem.row.DatumType.INT64;
        }
        dev.tandem.row.DatumType interval = dev.tandem.row.DatumType.INTERVAL;
        dev.tandem.row.DatumType timeOfDay = dev.tandem.row.DatumType.TIME;
        if (a == timeOfDay || b == timeOfDay) {
            boolean plus = f == Func.ADD;
            if ((plus || f == Func.SUB) && a == timeOfDay && b == interval || plus && a == interval && b == timeOfDay) {
                return timeOfDay;
            }
            if (f == Func.SUB && a == timeOfDay && b == timeOfDay) {
                return interval;
            }
            if (plus && (a == dev.tandem.row.DatumType.DATE && b == timeOfDay || a == timeOfDay && b == dev.tandem.row.DatumType.DATE)) {
                return dev.tandem.row.DatumType.TIMESTAMP;
            }
            return null;
        }
        boolean time = a == dev.tandem.row.DatumType.TIMESTAMP || a == dev.tandem.row.DatumType.TIMESTAMPTZ;
        if ((f == Func.ADD || f == Func.SUB) && b == interval) {
            return time || a == interval ? a : a == dev.tandem.row.DatumType.DATE ? dev.tandem.row.DatumType.TIMESTAMP : null;
        }
        if (f == Func.ADD && a == interval) {
            return b == dev.tandem.row.DatumType.TIMESTAMP || b == dev.tandem.row.DatumType.TIMESTAMPTZ ? b
                    : b == dev.tandem.row.DatumType.DATE ? dev.tandem.row.DatumType.TIMESTAMP : null;
        }
        if (f == Func.SUB && time && a == b) {
            return interval;
        }
        boolean number = b == dev.tandem.row.DatumType.INT64 || b == dev.tandem.row.DatumType.FLOAT64 || b == dev.tandem.row.DatumType.NUMERIC;
        boolean numberFirst = a == dev.tandem.row.DatumType.INT64 || a == dev.tandem.row.DatumType.FLOAT64 || a == dev.tandem.row.DatumType.NUMERIC;
        if ((f == Func.MUL || f == Func.DIV) && a == interval && number || f == Func.MUL && b == interval && numberFirst) {
            return interval;
        }
        return null;
    }
}
