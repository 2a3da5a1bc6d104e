package dev.tandem.expr;

import dev.tandem.row.Interval;
import dev.tandem.row.Timestamp;
import dev.tandem.row.TimestampTz;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.IsoFields;
import java.util.List;

/**
 * PostgreSQL's {@code to_char} of a date, timestamp, timestamptz or interval: a parsed datetime template's keywords
 * ({@code YYYY}, {@code Month}, {@code HH24}...) computed from the value's broken-down fields, as formatting.c's
 * DCH_to_char does in the C locale.
 */
final class DatetimeTemplates {

    private DatetimeTemplates() {
    }

    private static final String[] MONTHS = {"January", "February", "March", "April", "May", "June", "July", "August", "September",
        "October", "November", "December"};
    private static final String[] DAYS = {"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"};
    private static final String[] ROMAN_MONTHS = {"I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII"};

    /** Why Tandem refuses a datetime template, or null when it computes it (checked ahead of evaluation for a constant one). */
    static String unsupported(String template, boolean interval) {
        try {
            for (FormatTemplates.Node node : FormatTemplates.parse(template, true)) {
                if (node.keyword() != null) {
                    String why = unsupportedKeyword(node.keyword(), interval);
                    if (why != null) {
                        return why;
                    }
                }
            }
            return null;
        } catch (EvalError e) {
            return e.getMessage().replaceFirst("^not supported: ", "");
        }
    }

    private static String unsupportedKeyword(String keyword, boolean interval) {
        String upper = keyword.toUpperCase(java.util.Locale.ROOT);
        if (upper.equals("FX")) {
            return "FX in a to_char template (it only applies to to_date and to_timestamp)";
        }
        if (interval && List.of("D", "ID", "IDDD", "J", "W", "WW", "IW", "IYYY", "IYY", "IY", "I", "Q", "RM", "CC", "Y,YYY").contains(upper)) {
            return "\"" + keyword + "\" in to_char of an interval";
        }
        return null;
    }

    /** PostgreSQL's {@code to_char} of a date, timestamp, timestamptz or interval. */
    static String format(Object value, String template) {
        return format(value, template, ZoneOffset.UTC);
    }

    /** PostgreSQL's {@code to_char} of a date, timestamp, timestamp with time zone or interval, with the session's time zone {@code zone}. */
    static String format(Object value, String template, java.time.ZoneId zone) {
        if (template.isEmpty()) {
            return null;
        }
        Fields f = fields(value, zone);
        StringBuilder out = new StringBuilder();
        for (FormatTemplates.Node node : FormatTemplates.parse(template, true)) {
            if (node.keyword() == null) {
                out.append(node.text());
                continue;
            }
            String why = unsupportedKeyword(node.keyword(), f.interval);
            if (why != null) {
                throw new EvalError(EvalError.Code.NOT_SUPPORTED, "not supported: " + why);
            }
            String s = field(node, f);
            if (node.th() != null && numeric(node.keyword())) {
                s = s + ordinal(s, node.th().equals("TH"));
            }
            out.append(s);
        }
        return out.toString();
    }

    /** The broken-down fields of a value, as PostgreSQL's {@code pg_tm}. */
    private record Fields(boolean interval, long year, long month, long day, long hour, long minute, long second, long micros,
            int weekday, long yearDay, LocalDate date, String zone, int offset) {
    }

    private static Fields fields(Object value, java.time.ZoneId zone) {
        return switch (value) {
            case Interval v -> {
                long t = v.micros();
                long hour = t / 3_600_000_000L;
                t -= hour * 3_600_000_000L;
                long minute = t / 60_000_000L;
                t -= minute * 60_000_000L;
                long second = t / 1_000_000L;
                long micros = t - second * 1_000_000L;
                long year = v.months() / 12;
                long month = v.months() % 12;
                yield new Fields(true, year, month, v.days(), hour, minute, second, micros, 0, (year * 12 + month) * 30 + v.days(), null, null, 0);
            }
            case LocalDate d -> {
                long at = TimeZones.instant(Datetimes.startOfDay(d), zone);
                yield timestampFields(d.atStartOfDay(), 0, TimeZones.abbreviation(at, zone), TimeZones.offsetAt(at, zone));
            }
            case Timestamp t -> timestampFields(LocalDateTime.ofEpochSecond(Math.floorDiv(t.micros(), 1_000_000L), 0, ZoneOffset.UTC),
                    Math.floorMod(t.micros(), 1_000_000L), "", 0);
            case TimestampTz t -> {
                int offset = TimeZones.offsetAt(t.micros(), zone);
                long local = t.micros() + offset * 1_000_000L;
                yield timestampFields(LocalDateTime.ofEpochSecond(Math.floorDiv(local, 1_000_000L), 0, ZoneOffset.UTC),
                        Math.floorMod(local, 1_000_000L), TimeZones.abbreviation(t.micros(), zone), offset);
            }
            default -> throw new EvalError(EvalError.Code.DATA_EXCEPTION, "to_char of " + value.getClass().getSimpleName());
        };
    }

    private static Fields timestampFields(LocalDateTime t, long micros, String zone, int offset) {
        return new Fields(false, t.getYear(), t.getMonthValue(), t.getDayOfMonth(), t.getHour(), t.getMinute(), t.getSecond(), micros,
                t.getDayOfWeek().getValue() % 7, t.getDayOfYear(), t.toLocalDate(), zone, offset);
    }

    /** Whether a keyword prints a number (and so takes the {@code TH} suffix). */
    private static boolean numeric(String keyword) {
        return switch (keyword.toUpperCase(java.util.Locale.ROOT)) {
            case "CC", "DDD", "DD", "D", "FF1", "FF2", "FF3", "FF4", "FF5", "FF6", "HH24", "HH12", "HH", "IDDD", "ID", "IW", "IYYY", "IYY", "IY",
                    "I", "J", "MI", "MM", "MS", "Q", "SSSSS", "SSSS", "SS", "US", "WW", "W", "Y,YYY", "YYYY", "YYY", "YY", "Y" -> true;
            default -> false;
        };
    }

    /** {@code n} zero-padded to {@code width} digits ({@code width + 1} when negative), as C's {@code %0*d}. */
    private static String pad(long n, int width) {
        String digits = Long.toString(Math.abs(n));
        int w = n < 0 ? width - 1 : width;
        StringBuilder s = new StringBuilder(n < 0 ? "-" : "");
        for (int i = digits.length(); i < w; i++) {
            s.append('0');
        }
        return s.append(digits).toString();
    }

    private static String field(FormatTemplates.Node node, Fields f) {
        boolean fm = node.fm();
        String k = node.keyword();
        return switch (k) {
            case "A.M.", "P.M." -> f.hour % 24 >= 12 ? "P.M." : "A.M.";
            case "AM", "PM" -> f.hour % 24 >= 12 ? "PM" : "AM";
            case "a.m.", "p.m." -> f.hour % 24 >= 12 ? "p.m." : "a.m.";
            case "am", "pm" -> f.hour % 24 >= 12 ? "pm" : "am";
            case "A.D.", "B.C.", "AD", "BC", "a.d.", "b.c.", "ad", "bc", "TZ", "tz", "TZH", "tzh", "TZM", "tzm", "OF", "of",
                    "MONTH", "Month", "month", "MON", "Mon", "mon", "DAY", "Day", "day", "DY", "Dy", "dy" -> {
                if (f.interval) {
                    throw new EvalError(EvalError.Code.INVALID_DATETIME_FORMAT, "invalid format specification for an interval value");
                }
                yield switch (k) {
                    case "A.D.", "B.C." -> "A.D.";
                    case "AD", "BC" -> "AD";
                    case "a.d.", "b.c." -> "a.d.";
                    case "ad", "bc" -> "ad";
                    case "TZ" -> f.zone;
                    case "tz" -> f.zone.toLowerCase(java.util.Locale.ROOT);
                    case "TZH", "tzh" -> (f.offset >= 0 ? "+" : "-") + pad(Math.abs(f.offset) / 3600, 2);
                    case "TZM", "tzm" -> pad(Math.abs(f.offset) % 3600 / 60, 2);
                    case "OF", "of" -> (f.offset >= 0 ? "+" : "-") + (fm ? Long.toString(Math.abs(f.offset) / 3600) : pad(Math.abs(f.offset) / 3600, 2))
                            + (Math.abs(f.offset) % 3600 == 0 ? "" : ":" + pad(Math.abs(f.offset) % 3600 / 60, 2));
                    case "MONTH" -> name(MONTHS[(int) f.month - 1].toUpperCase(java.util.Locale.ROOT), fm);
                    case "Month" -> name(MONTHS[(int) f.month - 1], fm);
                    case "month" -> name(MONTHS[(int) f.month - 1].toLowerCase(java.util.Locale.ROOT), fm);
                    case "MON" -> MONTHS[(int) f.month - 1].substring(0, 3).toUpperCase(java.util.Locale.ROOT);
                    case "Mon" -> MONTHS[(int) f.month - 1].substring(0, 3);
                    case "mon" -> MONTHS[(int) f.month - 1].substring(0, 3).toLowerCase(java.util.Locale.ROOT);
                    case "DAY" -> name(DAYS[f.weekday].toUpperCase(java.util.Locale.ROOT), fm);
                    case "Day" -> name(DAYS[f.weekday], fm);
                    case "day" -> name(DAYS[f.weekday].toLowerCase(java.util.Locale.ROOT), fm);
                    case "DY" -> DAYS[f.weekday].substring(0, 3).toUpperCase(java.util.Locale.ROOT);
                    case "Dy" -> DAYS[f.weekday].substring(0, 3);
                    default -> DAYS[f.weekday].substring(0, 3).toLowerCase(java.util.Locale.ROOT);
                };
            }
            case "HH", "HH12", "hh", "hh12" -> pad(f.hour % 12 == 0 ? 12 : f.hour % 12, fm ? 0 : f.hour >= 0 ? 2 : 3);
            case "HH24", "hh24" -> pad(f.hour, fm ? 0 : f.hour >= 0 ? 2 : 3);
            case "MI", "mi" -> pad(f.minute, fm ? 0 : f.minute >= 0 ? 2 : 3);
            case "SS", "ss" -> pad(f.second, fm ? 0 : f.second >= 0 ? 2 : 3);
            case "MS", "ms" -> pad(f.micros / 1000, 3);
            case "US", "us" -> pad(f.micros, 6);
            case "FF1", "FF2", "FF3", "FF4", "FF5", "FF6", "ff1", "ff2", "ff3", "ff4", "ff5", "ff6" -> {
                int digits = k.charAt(2) - '0';
                yield pad(f.micros / (long) Math.pow(10, 6 - digits), digits);
            }
            case "SSSSS", "SSSS", "sssss", "ssss" -> Long.toString(f.hour * 3600 + f.minute * 60 + f.second);
            case "MM", "mm" -> pad(f.month, fm ? 0 : f.month >= 0 ? 2 : 3);
            case "DD", "dd" -> pad(f.day, fm ? 0 : 2);
            case "DDD", "ddd" -> pad(f.yearDay, fm ? 0 : 3);
            case "D", "d" -> Long.toString(f.weekday + 1);
            case "ID", "id" -> Long.toString(f.weekday == 0 ? 7 : f.weekday);
            case "IDDD", "iddd" -> pad((f.date.get(IsoFields.WEEK_OF_WEEK_BASED_YEAR) - 1) * 7L + (f.weekday == 0 ? 7 : f.weekday), fm ? 0 : 3);
            case "IW", "iw" -> pad(f.date.get(IsoFields.WEEK_OF_WEEK_BASED_YEAR), fm ? 0 : 2);
            case "WW", "ww" -> pad((f.yearDay - 1) / 7 + 1, fm ? 0 : 2);
            case "W", "w" -> Long.toString((f.day - 1) / 7 + 1);
            case "Q", "q" -> f.month == 0 ? "" : Long.toString((f.month - 1) / 3 + 1);
            case "J", "j" -> Long.toString(f.date.toEpochDay() + 2_440_588L);
            case "CC", "cc" -> {
                long c = f.interval ? f.year / 100 : (f.year - 1) / 100 + 1;
                yield pad(c, fm ? 0 : c >= 0 ? 2 : 3);
            }
            case "RM" -> name(ROMAN_MONTHS[(int) f.month - 1], fm, 4);
            case "rm" -> name(ROMAN_MONTHS[(int) f.month - 1].toLowerCase(java.util.Locale.ROOT), fm, 4);
            case "Y,YYY", "y,yyy" -> f.year / 1000 + "," + pad(f.year - f.year / 1000 * 1000, 3);
            case "YYYY", "yyyy" -> pad(f.year, fm ? 0 : f.year >= 0 ? 4 : 5);
            case "YYY", "yyy" -> pad(f.year % 1000, fm ? 0 : f.year >= 0 ? 3 : 4);
            case "YY", "yy" -> pad(f.year % 100, fm ? 0 : f.year >= 0 ? 2 : 3);
            case "Y", "y" -> pad(f.year % 10, fm ? 0 : f.year >= 0 ? 1 : 2);
            case "IYYY", "iyyy", "IYY", "iyy", "IY", "iy", "I", "i" -> {
                long y = f.date.get(IsoFields.WEEK_BASED_YEAR);
                int width = k.length();
                yield pad(width == 4 ? y : y % (long) Math.pow(10, width), fm ? 0 : width);
            }
            default -> throw new EvalError(EvalError.Code.NOT_SUPPORTED, "not supported: \"" + k + "\" in a to_char template");
        };
    }

    private static String name(String s, boolean fm) {
        return name(s, fm, 9);
    }

    private static String name(String s, boolean fm, int width) {
        return fm ? s : s + " ".repeat(Math.max(0, width - s.length()));
    }

    /** PostgreSQL's ordinal suffix of the number ending {@code s}: {@code st nd rd th}, {@code th} for the teens. */
    private static String ordinal(String s, boolean upper) {
        int len = s.length();
        char last = s.charAt(len - 1);
        if (len > 1 && s.charAt(len - 2) == '1') {
            last = '0';
        }
        String suffix = switch (last) {
            case '1' -> "st";
            case '2' -> "nd";
            case '3' -> "rd";
            default -> "th";
        };
        return upper ? suffix.toUpperCase(java.util.Locale.ROOT) : suffix;
    }
}
