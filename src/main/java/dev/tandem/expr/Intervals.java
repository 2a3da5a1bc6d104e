package dev.tandem.expr;

import dev.tandem.row.Interval;
import dev.tandem.row.Timestamp;
import dev.tandem.row.TimestampTz;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * PostgreSQL's {@code interval} as Tandem computes it: input of quantities and units ({@code 1 day 02:03:04},
 * {@code 2 hours}, {@code 1.5 months}, {@code 3 days ago}), output in PostgreSQL's default {@code postgres}
 * IntervalStyle ({@code 1 year 2 mons 3 days 04:05:06.5}), and its arithmetic with dates, timestamps, intervals and numbers.
 * Errors are {@link EvalError}s whose messages are PostgreSQL's.
 */
public final class Intervals {

    private static final long MICROS_PER_SECOND = 1_000_000L;
    private static final Pattern TOKEN = Pattern.compile(
            "\\s*(?:(?<h>[+-]?\\d+):(?<m>\\d{1,2})(?::(?<s>\\d{1,2}(?:\\.\\d*)?))?|(?<n>[+-]?\\d+(?:\\.\\d*)?|[+-]?\\.\\d+)\\s*(?<u>[a-z]+)?|(?<ago>ago))");

    private Intervals() {
    }

    /** PostgreSQL's input of an interval in its {@code postgres} form; other forms (ISO-8601, SQL's {@code 1-2}) are refused. */
    public static Interval parse(String s) {
        String t = s.trim().toLowerCase(Locale.ROOT);
        if (t.startsWith("@")) {
            t = t.substring(1).trim();
        }
        if (t.startsWith("p") || t.matches("[+-]?\\d+-\\d+.*") || t.equals("infinity") || t.equals("-infinity")) {
            throw new EvalError(EvalError.Code.NOT_SUPPORTED, "not supported: the interval input '" + s.trim() + "' (write quantities and units, '1 year 2 mons 3 days 04:05:06')");
        }
        if (t.isEmpty()) {
            throw invalid(s);
        }
        BigDecimal months = BigDecimal.ZERO;
        BigDecimal days = BigDecimal.ZERO;
        BigDecimal micros = BigDecimal.ZERO;
        boolean ago = false;
        Matcher m = TOKEN.matcher(t);
        int at = 0;
        while (at < t.length()) {
            if (!m.find(at) || m.start() != at || ago) {
                throw invalid(s);
            }
            at = m.end();
            if (m.group("ago") != null) {
                ago = true;
            } else if (m.group("h") != null) {
                boolean negative = m.group("h").startsWith("-");
                BigDecimal time = new BigDecimal(m.group("h").replace("+", "").replace("-", "")).multiply(BigDecimal.valueOf(3600))
                        .add(new BigDecimal(m.group("m")).multiply(BigDecimal.valueOf(60)))
                        .add(m.group("s") == null ? BigDecimal.ZERO : new BigDecimal(m.group("s")));
                if (Integer.parseInt(m.group("m")) > 59 || m.group("s") != null && new BigDecimal(m.group("s")).compareTo(BigDecimal.valueOf(60)) >= 0) {
                    throw new EvalError(EvalError.Code.INTERVAL_FIELD_OVERFLOW, "interval field value out of range: \"" + s + "\"");
                }
                micros = micros.add(time.movePointRight(6).multiply(BigDecimal.valueOf(negative ? -1 : 1)));
            } else {
                String number = m.group("n");
                BigDecimal n = new BigDecimal(number.startsWith(".") || number.startsWith("-.") || number.startsWith("+.")
                        ? number.replace(".", "0.") : number);
                String unit = m.group("u") == null ? "second" : m.group("u");
                switch (unit) {
                    case "microsecond", "microseconds", "us", "usec", "usecs" -> micros = micros.add(n);
                    case "millisecond", "milliseconds", "ms", "msec", "msecs" -> micros = micros.add(n.movePointRight(3));
                    case "second", "seconds", "sec", "secs", "s" -> micros = micros.add(n.movePointRight(6));
                    case "minute", "minutes", "min", "mins", "m" -> micros = micros.add(n.multiply(BigDecimal.valueOf(60_000_000L)));
                    case "hour", "hours", "hr", "hrs", "h" -> micros = micros.add(n.multiply(BigDecimal.valueOf(3_600_000_000L)));
                    case "day", "days", "d" -> days = days.add(n);
                    case "week", "weeks", "w" -> days = days.add(n.multiply(BigDecimal.valueOf(7)));
                    case "month", "months", "mon", "mons" -> months = months.add(n);
                    case "year", "years", "yr", "yrs", "y" -> months = months.add(n.multiply(BigDecimal.valueOf(12)));
                    case "decade", "decades" -> months = months.add(n.multiply(BigDecimal.valueOf(120)));
                    case "century", "centuries" -> months = months.add(n.multiply(BigDecimal.valueOf(1200)));
                    case "millennium", "millennia", "millenniums" -> months = months.add(n.multiply(BigDecimal.valueOf(12000)));
                    default -> throw invalid(s);
                }
            }
        }
        // fractions cascade down as PostgreSQL's do: a month's to 30 days, a day's to microseconds
        BigDecimal wholeMonths = months.setScale(0, RoundingMode.DOWN);
        days = days.add(months.subtract(wholeMonths).multiply(BigDecimal.valueOf(30)));
        BigDecimal wholeDays = days.setScale(0, RoundingMode.DOWN);
        micros = micros.add(days.subtract(wholeDays).multiply(BigDecimal.valueOf(Interval.MICROS_PER_DAY)));
        try {
            Interval v = new Interval(wholeMonths.intValueExact(), wholeDays.intValueExact(), micros.setScale(0, RoundingMode.HALF_EVEN).longValueExact());
            return ago ? negate(v) : v;
        } catch (ArithmeticException e) {
            throw new EvalError(EvalError.Code.INTERVAL_FIELD_OVERFLOW, "interval field value out of range: \"" + s + "\"");
        }
    }

    private static EvalError invalid(String s) {
        return new EvalError(EvalError.Code.INVALID_DATETIME_FORMAT, "invalid input syntax for type interval: \"" + s + "\"");
    }

    /** An interval in PostgreSQL's {@code postgres} IntervalStyle ({@code 1 year 2 mons -3 days +04:05:06.5}). */
    public static String text(Interval v) {
        StringBuilder b = new StringBuilder();
        boolean[] state = {true, false}; // is_zero, is_before
        part(b, v.months() / 12, "year", state);
        part(b, v.months() % 12, "mon", state);
        part(b, v.days(), "day", state);
        long micros = v.micros();
        if (state[0] || micros != 0) {
            boolean minus = micros < 0;
            long abs = Math.abs(micros);
            long hours = abs / 3_600_000_000L;
            long minutes = abs / 60_000_000L % 60;
            long seconds = abs / MICROS_PER_SECOND % 60;
            long fraction = abs % MICROS_PER_SECOND;
            b.append(state[0] ? "" : " ").append(minus ? "-" : state[1] ? "+" : "")
                    .append(String.format(Locale.ROOT, "%02d:%02d:%02d", hours, minutes, seconds));
            if (fraction != 0) {
                b.append('.').append(String.format(Locale.ROOT, "%06d", fraction).replaceAll("0+$", ""));
            }
        }
        return b.toString();
    }

    private static void part(StringBuilder b, long value, String unit, boolean[] state) {
        if (value == 0) {
            return;
        }
        b.append(state[0] ? "" : " ").append(state[1] && value > 0 ? "+" : "").append(value).append(' ').append(unit).append(value != 1 ? "s" : "");
        state[1] = value < 0;
        state[0] = false;
    }

    static Interval negate(Interval v) {
        try {
            return new Interval(Math.negateExact(v.months()), Math.negateExact(v.days()), Math.negateExact(v.micros()));
        } catch (ArithmeticException e) {
            throw new EvalError(EvalError.Code.DATETIME_FIELD_OVERFLOW, "interval out of range");
        }
    }

    static Interval add(Interval a, Interval b) {
        try {
            return new Interval(Math.addExact(a.months(), b.months()), Math.addExact(a.days(), b.days()), Math.addExact(a.micros(), b.micros()));
        } catch (ArithmeticException e) {
            throw new EvalError(EvalError.Code.DATETIME_FIELD_OVERFLOW, "interval out of range");
        }
    }

    /** A time in microseconds since the epoch plus an interval: months (clamped to the month's last day), then days, then time. */
    static long plus(long micros, Interval v) {
        LocalDateTime t = LocalDateTime.ofEpochSecond(Math.floorDiv(micros, MICROS_PER_SECOND), (int) Math.floorMod(micros, MICROS_PER_SECOND) * 1000,
                ZoneOffset.UTC);
        try {
            LocalDateTime r = t.plusMonths(v.months()).plusDays(v.days());
            long base = Math.addExact(Math.multiplyExact(r.toEpochSecond(ZoneOffset.UTC), MICROS_PER_SECOND), r.getNano() / 1000);
            return Datetimes.checkedMicros(Math.addExact(base, v.micros()));
        } catch (ArithmeticException | java.time.DateTimeException e) {
            throw new EvalError(EvalError.Code.NOT_SUPPORTED, "not supported: a timestamp outside years 1 to 9999");
        }
    }

    /**
     * A timestamp with time zone plus an interval in {@code zone}, as PostgreSQL adds them: the months and the days to the local
     * time (a day across a daylight-saving change is 23 or 25 hours), read back in the zone, then the time.
     */
    static long plus(long micros, Interval v, java.time.ZoneId zone) {
        if (v.months() == 0 && v.days() == 0) {
            return plus(micros, v);
        }
        long local = plus(TimeZones.local(micros, zone), new Interval(v.months(), v.days(), 0));
        try {
            return Datetimes.checkedMicros(Math.addExact(TimeZones.instant(local, zone), v.micros()));
        } catch (ArithmeticException e) {
            throw new EvalError(EvalError.Code.NOT_SUPPORTED, "not supported: a timestamp outside years 1 to 9999");
        }
    }

    /** {@code a - b} of two times in microseconds as PostgreSQL's {@code timestamp - timestamp}: days and time, no months. */
    static Interval between(long a, long b) {
        long d;
        try {
            d = Math.subtractExact(a, b);
        } catch (ArithmeticException e) {
            throw new EvalError(EvalError.Code.DATETIME_FIELD_OVERFLOW, "interval out of range");
        }
        return new Interval(0, (int) (d / Interval.MICROS_PER_DAY), d % Interval.MICROS_PER_DAY);
    }

    /** PostgreSQL's {@code interval * float8} (and {@code /}, with the reciprocal computed as PostgreSQL does). */
    static Interval multiply(Interval v, double factor, boolean divide) {
        if (divide && factor == 0) {
            throw new EvalError(EvalError.Code.DIVISION_BY_ZERO, "division by zero");
        }
        double monthsD = divide ? v.months() / factor : v.months() * factor;
        double daysD = divide ? v.days() / factor : v.days() * factor;
        if (Double.isNaN(monthsD) || Double.isNaN(daysD) || Math.abs(monthsD) > Integer.MAX_VALUE || Math.abs(daysD) > Integer.MAX_VALUE) {
            throw new EvalError(EvalError.Code.DATETIME_FIELD_OVERFLOW, "interval out of range");
        }
        int months = (int) monthsD;
        int days = (int) daysD;
        double monthRemainderDays = tsround((monthsD - months) * 30);
        double secRemainder = tsround((daysD - days + monthRemainderDays - (int) monthRemainderDays) * 86400);
        if (Math.abs(secRemainder) >= 86400) {
            days += (int) (secRemainder / 86400);
            secRemainder -= (int) (secRemainder / 86400) * 86400.0;
        }
        days += (int) monthRemainderDays;
        double time = Math.rint((divide ? v.micros() / factor : v.micros() * factor) + secRemainder * MICROS_PER_SECOND);
        if (Double.isNaN(time) || Math.abs(time) >= 0x1p63) {
            throw new EvalError(EvalError.Code.DATETIME_FIELD_OVERFLOW, "interval out of range");
        }
        return new Interval(months, days, (long) time);
    }

    private static double tsround(double j) {
        return Math.rint(j * 1_000_000.0) / 1_000_000.0;
    }

    /** {@code a op b} on dates, times and intervals (the operand types checked by {@link Datetimes#arithmeticType}). */
    static Object arith(Func f, Object a, Object b) {
        return switch (f) {
            case ADD -> {
                if (a instanceof Interval x && b instanceof Interval y) yield add(x, y);
                Object time = a instanceof Interval ? b : a;
                Interval v = (Interval) (a instanceof Interval ? a : b);
                yield shifted(time, v);
            }
            case SUB -> {
                if (a instanceof Interval x && b instanceof Interval y) yield add(x, negate(y));
                if (b instanceof Interval y) yield shifted(a, negate(y));
                yield between(micros(a), micros(b));
            }
            case MUL -> a instanceof Interval x ? multiply(x, factor(b), false) : multiply((Interval) b, factor(a), false);
            case DIV -> multiply((Interval) a, factor(b), true);
            default -> throw new IllegalStateException("interval arithmetic " + f);
        };
    }

    private static Object shifted(Object time, Interval v) {
        return switch (time) {
            case LocalDate d -> new Timestamp(plus(Datetimes.startOfDay(d), v));
            case Timestamp t -> new Timestamp(plus(t.micros(), v));
            case TimestampTz t -> new TimestampTz(plus(t.micros(), v));
            default -> throw new IllegalStateException("interval arithmetic on " + time.getClass());
        };
    }

    private static long micros(Object time) {
        return time instanceof Timestamp t ? t.micros() : ((TimestampTz) time).micros();
    }

    private static double factor(Object n) {
        return switch (n) {
            case Long l -> l;
            case Double d -> d;
            case BigDecimal d -> d.doubleValue();
            default -> throw new IllegalStateException("interval factor " + n.getClass());
        };
    }

    /**
     * PostgreSQL's {@code age(a, b)} of two timestamps (in UTC): the symbolic difference of their fields, years, months,
     * days and time, each negative field borrowed from the next larger (a day from the month of the earlier timestamp).
     */
    static Interval age(long a, long b) {
        java.time.LocalDateTime t1 = java.time.LocalDateTime.ofEpochSecond(Math.floorDiv(a, MICROS_PER_SECOND), 0, java.time.ZoneOffset.UTC);
        java.time.LocalDateTime t2 = java.time.LocalDateTime.ofEpochSecond(Math.floorDiv(b, MICROS_PER_SECOND), 0, java.time.ZoneOffset.UTC);
        boolean flip = a < b;
        int s = flip ? -1 : 1;
        long fsec = s * (Math.floorMod(a, MICROS_PER_SECOND) - Math.floorMod(b, MICROS_PER_SECOND));
        long sec = s * (t1.getSecond() - t2.getSecond());
        long min = s * (t1.getMinute() - t2.getMinute());
        long hour = s * (t1.getHour() - t2.getHour());
        long day = s * (t1.getDayOfMonth() - t2.getDayOfMonth());
        long mon = s * (t1.getMonthValue() - t2.getMonthValue());
        long year = s * ((long) t1.getYear() - t2.getYear());
        while (fsec < 0) {
            fsec += MICROS_PER_SECOND;
            sec--;
        }
        while (sec < 0) {
            sec += 60;
            min--;
        }
        while (min < 0) {
            min += 60;
            hour--;
        }
        while (hour < 0) {
            hour += 24;
            day--;
        }
        java.time.LocalDateTime earlier = flip ? t1 : t2;
        while (day < 0) {
            day += earlier.toLocalDate().lengthOfMonth();
            mon--;
        }
        while (mon < 0) {
            mon += 12;
            year--;
        }
        long months = s * (year * 12 + mon);
        long micros = s * (((hour * 60 + min) * 60 + sec) * MICROS_PER_SECOND + fsec);
        return new Interval(Math.toIntExact(months), Math.toIntExact(s * day), micros);
    }
}
