package dev.tandem.expr;

import dev.tandem.row.Interval;
import dev.tandem.row.Timestamp;
import dev.tandem.row.TimestampTz;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.IsoFields;
import java.util.ArrayList;
import java.util.List;

/**
 * PostgreSQL's {@code to_char} templates, for dates, timestamps and intervals ({@code 'YYYY-MM-DD HH24:MI'}) and for
 * numbers ({@code 'FM999,999.00'}), read and applied as PostgreSQL's formatting.c does in the C locale: the same
 * keywords matched at each position (case as written, the longest first), the {@code FM} prefix, the {@code TH}/{@code th}
 * suffix, quoted literal text, a backslash before a double quote, every other character copied. A keyword Tandem does not
 * compute is refused (an {@link EvalError} {@code not supported: ...}), never copied as text.
 */
public final class FormatTemplates {

    private FormatTemplates() {
    }

    /** A piece of a parsed template: a keyword with its prefix and suffix flags, or literal text. */
    private record Node(String keyword, boolean fm, String th, String text) {
    }

    /** PostgreSQL 15's datetime keywords in its search order: for one first character, the longest first. */
    private static final List<String> DATETIME_KEYWORDS = List.of(
            "A.D.", "A.M.", "AD", "AM", "B.C.", "BC", "CC", "DAY", "DDD", "DD", "DY", "Day", "Dy", "D",
            "FF1", "FF2", "FF3", "FF4", "FF5", "FF6", "FX", "HH24", "HH12", "HH", "IDDD", "ID", "IW", "IYYY", "IYY", "IY", "I", "J",
            "MI", "MM", "MONTH", "MON", "MS", "Month", "Mon", "OF", "P.M.", "PM", "Q", "RM", "SSSSS", "SSSS", "SS", "TZH", "TZM", "TZ",
            "US", "WW", "W", "Y,YYY", "YYYY", "YYY", "YY", "Y",
            "a.d.", "a.m.", "ad", "am", "b.c.", "bc", "cc", "day", "ddd", "dd", "dy", "d",
            "ff1", "ff2", "ff3", "ff4", "ff5", "ff6", "fx", "hh24", "hh12", "hh", "iddd", "id", "iw", "iyyy", "iyy", "iy", "i", "j",
            "mi", "mm", "month", "mon", "ms", "of", "p.m.", "pm", "q", "rm", "sssss", "ssss", "ss", "tzh", "tzm", "tz",
            "us", "ww", "w", "y,yyy", "yyyy", "yyy", "yy", "y");

    /** PostgreSQL's number keywords in its search order. */
    private static final List<String> NUMBER_KEYWORDS = List.of(
            ",", ".", "0", "9", "B", "C", "D", "EEEE", "FM", "G", "L", "MI", "PL", "PR", "RN", "SG", "SP", "S", "TH", "V",
            "b", "c", "d", "eeee", "fm", "g", "l", "mi", "pl", "pr", "rn", "sg", "sp", "s", "th", "v");

    private static final String[] MONTHS = {"January", "February", "March", "April", "May", "June", "July", "August", "September",
        "October", "November", "December"};
    private static final String[] DAYS = {"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"};
    private static final String[] ROMAN_MONTHS = {"I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII"};

    /** Parses a template as PostgreSQL's parse_format does; {@code datetime} chooses the keywords and allows prefixes and suffixes. */
    private static List<Node> parse(String template, boolean datetime) {
        List<String> keywords = datetime ? DATETIME_KEYWORDS : NUMBER_KEYWORDS;
        List<Node> nodes = new ArrayList<>();
        int i = 0;
        int n = template.length();
        while (i < n) {
            boolean fm = false;
            if (datetime && (template.startsWith("FM", i) || template.startsWith("fm", i))) {
                fm = true;
                i += 2;
            } else if (datetime && (template.startsWith("TM", i) || template.startsWith("tm", i))) {
                throw new EvalError(EvalError.Code.NOT_SUPPORTED, "not supported: the TM prefix in a to_char template (localized names)");
            }
            String keyword = null;
            if (i < n) {
                for (String k : keywords) {
                    if (template.startsWith(k, i)) {
                        keyword = k;
                        break;
                    }
                }
            }
            if (keyword != null) {
                i += keyword.length();
                String th = null;
                if (datetime && i < n) {
                    if (template.startsWith("TH", i) || template.startsWith("th", i)) {
                        th = template.substring(i, i + 2);
                        i += 2;
                    } else if (template.startsWith("SP", i)) {
                        i += 2;
                    }
                }
                nodes.add(new Node(keyword, fm, th, null));
            } else if (i < n) {
                char c = template.charAt(i);
                if (c == '"') {
                    i++;
                    StringBuilder text = new StringBuilder();
                    while (i < n) {
                        char q = template.charAt(i);
                        if (q == '"') {
                            i++;
                            break;
                        }
                        if (q == '\\' && i + 1 < n) {
                            i++;
                        }
                        int cp = template.codePointAt(i);
                        text.appendCodePoint(cp);
                        i += Character.charCount(cp);
                    }
                    nodes.add(new Node(null, false, null, text.toString()));
                } else {
                    if (c == '\\' && i + 1 < n && template.charAt(i + 1) == '"') {
                        i++;
                    }
                    int cp = template.codePointAt(i);
                    nodes.add(new Node(null, false, null, new String(Character.toChars(cp))));
                    i += Character.charCount(cp);
                }
            }
        }
        return nodes;
    }

    /** Why Tandem refuses a datetime template, or null when it computes it (checked ahead of evaluation for a constant one). */
    public static String unsupportedDatetime(String template, boolean interval) {
        try {
            for (Node node : parse(template, true)) {
                if (node.keyword != null) {
                    String why = unsupported(node.keyword, interval);
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

    private static String unsupported(String keyword, boolean interval) {
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
    static String datetime(Object value, String template) {
        if (template.isEmpty()) {
            return null;
        }
        Fields f = fields(value);
        StringBuilder out = new StringBuilder();
        for (Node node : parse(template, true)) {
            if (node.keyword == null) {
                out.append(node.text);
                continue;
            }
            String why = unsupported(node.keyword, f.interval);
            if (why != null) {
                throw new EvalError(EvalError.Code.NOT_SUPPORTED, "not supported: " + why);
            }
            String s = field(node, f);
            if (node.th != null && numeric(node.keyword)) {
                s = s + ordinal(s, node.th.equals("TH"));
            }
            out.append(s);
        }
        return out.toString();
    }

    /** The broken-down fields of a value, as PostgreSQL's {@code pg_tm}. */
    private record Fields(boolean interval, long year, long month, long day, long hour, long minute, long second, long micros,
            int weekday, long yearDay, LocalDate date, String zone) {
    }

    private static Fields fields(Object value) {
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
                yield new Fields(true, year, month, v.days(), hour, minute, second, micros, 0, (year * 12 + month) * 30 + v.days(), null, null);
            }
            case LocalDate d -> timestampFields(d.atStartOfDay(), 0, "UTC");
            case Timestamp t -> timestampFields(LocalDateTime.ofEpochSecond(Math.floorDiv(t.micros(), 1_000_000L), 0, ZoneOffset.UTC),
                    Math.floorMod(t.micros(), 1_000_000L), "");
            case TimestampTz t -> timestampFields(LocalDateTime.ofEpochSecond(Math.floorDiv(t.micros(), 1_000_000L), 0, ZoneOffset.UTC),
                    Math.floorMod(t.micros(), 1_000_000L), "UTC");
            default -> throw new EvalError(EvalError.Code.DATA_EXCEPTION, "to_char of " + value.getClass().getSimpleName());
        };
    }

    private static Fields timestampFields(LocalDateTime t, long micros, String zone) {
        return new Fields(false, t.getYear(), t.getMonthValue(), t.getDayOfMonth(), t.getHour(), t.getMinute(), t.getSecond(), micros,
                t.getDayOfWeek().getValue() % 7, t.getDayOfYear(), t.toLocalDate(), zone);
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

    private static String field(Node node, Fields f) {
        boolean fm = node.fm;
        String k = node.keyword;
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
                    case "TZH", "tzh" -> "+00";
                    case "TZM", "tzm" -> "00";
                    case "OF", "of" -> fm ? "+0" : "+00";
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

    // ---- numbers ----

    /** A number template's description, as PostgreSQL's NUMDesc: digits before and after the point, and its flags. */
    private static final class NumberSpec {
        int pre;
        int post;
        boolean decimal;
        boolean zero;
        int zeroStart;
        int zeroEnd;
        boolean fill;
        boolean minus;
        boolean plus;
        boolean lsign;
        boolean lsignPost;
        int preLsign;
        boolean eeee;
    }

    /** Why Tandem refuses a number template, or null when it computes it. */
    public static String unsupportedNumber(String template) {
        try {
            spec(parse(template, false));
            return null;
        } catch (EvalError e) {
            return e.code() == EvalError.Code.NOT_SUPPORTED ? e.getMessage().replaceFirst("^not supported: ", "") : null;
        }
    }

    private static NumberSpec spec(List<Node> nodes) {
        NumberSpec num = new NumberSpec();
        for (Node node : nodes) {
            if (node.keyword == null) {
                continue;
            }
            if (num.eeee && !node.keyword.equalsIgnoreCase("EEEE")) {
                throw new EvalError(EvalError.Code.TEMPLATE_SYNTAX_ERROR, "\"EEEE\" must be the last pattern used");
            }
            switch (node.keyword.toUpperCase(java.util.Locale.ROOT)) {
                case "9" -> {
                    if (num.decimal) {
                        num.post++;
                    } else {
                        num.pre++;
                    }
                }
                case "0" -> {
                    if (!num.zero && !num.decimal) {
                        num.zero = true;
                        num.zeroStart = num.pre + 1;
                    }
                    if (num.decimal) {
                        num.post++;
                    } else {
                        num.pre++;
                    }
                    num.zeroEnd = num.pre + num.post;
                }
                case "D", "." -> {
                    if (num.decimal) {
                        throw new EvalError(EvalError.Code.TEMPLATE_SYNTAX_ERROR, "multiple decimal points");
                    }
                    num.decimal = true;
                }
                case "FM" -> num.fill = true;
                case "S" -> {
                    if (num.lsign) {
                        throw new EvalError(EvalError.Code.TEMPLATE_SYNTAX_ERROR, "cannot use \"S\" twice");
                    }
                    if (num.plus || num.minus) {
                        throw new EvalError(EvalError.Code.TEMPLATE_SYNTAX_ERROR, "cannot use \"S\" and \"PL\"/\"MI\"/\"SG\"/\"PR\" together");
                    }
                    if (!num.decimal) {
                        num.lsign = true;
                        num.preLsign = num.pre;
                    } else {
                        num.lsign = true;
                        num.lsignPost = true;
                    }
                }
                case "MI" -> {
                    if (num.lsign) {
                        throw new EvalError(EvalError.Code.TEMPLATE_SYNTAX_ERROR, "cannot use \"S\" and \"MI\" together");
                    }
                    num.minus = true;
                }
                case "PL" -> {
                    if (num.lsign) {
                        throw new EvalError(EvalError.Code.TEMPLATE_SYNTAX_ERROR, "cannot use \"S\" and \"PL\" together");
                    }
                    num.plus = true;
                }
                case "SG" -> {
                    if (num.lsign) {
                        throw new EvalError(EvalError.Code.TEMPLATE_SYNTAX_ERROR, "cannot use \"S\" and \"SG\" together");
                    }
                    num.minus = true;
                    num.plus = true;
                }
                case "EEEE" -> {
                    if (num.eeee) {
                        throw new EvalError(EvalError.Code.TEMPLATE_SYNTAX_ERROR, "cannot use \"EEEE\" twice");
                    }
                    num.eeee = true;
                }
                case "," -> {
                }
                case "G" -> {
                }
                default -> throw new EvalError(EvalError.Code.NOT_SUPPORTED, "not supported: \"" + node.keyword + "\" in a to_char number template");
            }
        }
        if (num.eeee && (num.fill || num.lsign || num.minus || num.plus || nodes.stream().anyMatch(
                n -> n.keyword != null && (n.keyword.equals(",") || n.keyword.equalsIgnoreCase("G"))))) {
            throw new EvalError(EvalError.Code.NOT_SUPPORTED, "not supported: \"EEEE\" with other patterns than digits and a decimal point in a to_char template");
        }
        return num;
    }

    /** PostgreSQL's {@code to_char} of a bigint, double precision or numeric. */
    static String number(Object value, String template) {
        if (template.isEmpty()) {
            return "";
        }
        List<Node> nodes = parse(template, false);
        NumberSpec num = spec(nodes);
        String numstr;
        char sign;
        int outPreSpaces = 0;
        if (num.eeee) {
            String sci;
            if (value instanceof Double d && (d.isNaN() || d.isInfinite())) {
                StringBuilder s = new StringBuilder("#".repeat(num.pre + num.post + 6));
                s.setCharAt(0, ' ');
                s.setCharAt(num.pre + 1, '.');
                return s.toString();
            }
            sci = value instanceof Double d ? scientific(new BigDecimal(d), num.post, RoundingMode.HALF_EVEN)
                    : scientific(value instanceof Long l ? BigDecimal.valueOf(l) : (BigDecimal) value, num.post, RoundingMode.HALF_UP);
            return sci.startsWith("-") ? sci : " " + sci;
        }
        String plain;
        boolean negative;
        switch (value) {
            case Long l -> {
                negative = l < 0;
                String digits = l == Long.MIN_VALUE ? "9223372036854775808" : Long.toString(Math.abs(l));
                plain = num.post > 0 ? digits + "." + "0".repeat(num.post) : digits;
            }
            case BigDecimal b -> {
                BigDecimal r = b.setScale(num.post, RoundingMode.HALF_UP);
                negative = r.signum() < 0;
                plain = r.abs().toPlainString();
            }
            case Double d -> {
                if (d.isNaN() || d.isInfinite()) {
                    throw new EvalError(EvalError.Code.NOT_SUPPORTED, "not supported: to_char of a NaN or infinite double precision");
                }
                int post = num.post;
                String whole = new BigDecimal(Math.abs(d)).setScale(0, RoundingMode.HALF_EVEN).toPlainString();
                if (whole.length() >= 15) {
                    post = 0;
                } else if (whole.length() + post > 15) {
                    post = 15 - whole.length();
                }
                // as PostgreSQL, the template's digits after the point shrink to double precision's 15 significant ones
                num.post = post;
                BigDecimal r = new BigDecimal(d).setScale(post, RoundingMode.HALF_EVEN);
                negative = d < 0 || (d == 0 && 1 / d < 0);
                plain = r.abs().toPlainString();
            }
            default -> throw new EvalError(EvalError.Code.DATA_EXCEPTION, "to_char of " + value.getClass().getSimpleName());
        }
        sign = negative ? '-' : '+';
        int point = plain.indexOf('.');
        int preLen = point < 0 ? plain.length() : point;
        numstr = plain;
        if (preLen < num.pre) {
            outPreSpaces = num.pre - preLen;
        } else if (preLen > num.pre) {
            StringBuilder s = new StringBuilder("#".repeat(num.pre + num.post + 1));
            s.setCharAt(num.pre, '.');
            numstr = s.toString();
        }
        return new NumberWriter(nodes, num, numstr, outPreSpaces, sign).write();
    }

    /** {@code x} as PostgreSQL's numeric_out_sci: one digit before the point, {@code scale} after, {@code e+XX}. */
    private static String scientific(BigDecimal x, int scale, RoundingMode rounding) {
        int exponent = x.signum() == 0 ? 0 : x.precision() - x.scale() - 1;
        BigDecimal significand = x.movePointLeft(exponent).setScale(scale, rounding);
        if (rounding == RoundingMode.HALF_EVEN && significand.abs().compareTo(BigDecimal.TEN) >= 0) {
            // C's %e renormalizes a significand rounded up to 10
            exponent++;
            significand = x.movePointLeft(exponent).setScale(scale, rounding);
        }
        String e = Integer.toString(Math.abs(exponent));
        return significand.toPlainString() + "e" + (exponent < 0 ? "-" : "+") + (e.length() < 2 ? "0" + e : e);
    }

    /** PostgreSQL's NUM_processor writing a number: its digits into the template's positions. */
    private static final class NumberWriter {
        private final List<Node> nodes;
        private final NumberSpec num;
        private final String number;
        private final int outPreSpaces;
        private final char sign;
        private final StringBuilder out = new StringBuilder();
        private boolean signWrote;
        private int numCount;
        private int numCurr;
        private int numberP;
        private int lastRelevant = -1;
        private boolean numIn;
        private boolean lsignPost;
        private int zeroStart;
        /** Where PostgreSQL's output string ends: it writes a NUL for a digit past the number's last. */
        private int cut = -1;

        NumberWriter(List<Node> nodes, NumberSpec num, String number, int outPreSpaces, char sign) {
            this.nodes = nodes;
            this.num = num;
            this.number = number;
            this.outPreSpaces = outPreSpaces;
            this.sign = sign;
        }

        private char at(int i) {
            return i < number.length() ? number.charAt(i) : '\0';
        }

        String write() {
            zeroStart = num.zeroStart > 0 ? num.zeroStart - 1 : 0;
            lsignPost = num.lsignPost;
            if (num.plus || num.minus) {
                signWrote = !(num.plus && !num.minus);
            } else {
                signWrote = sign == '+' && num.fill && !num.lsign;
                if (num.lsign && !lsignPost && num.pre == num.preLsign) {
                    lsignPost = true;
                }
            }
            numCount = num.post + num.pre - 1;
            if (num.fill && num.decimal) {
                lastRelevant = lastRelevantDecimal();
                if (lastRelevant >= 0 && num.zeroEnd > outPreSpaces) {
                    int lastZero = Math.min(number.length() - 1, num.zeroEnd - outPreSpaces);
                    if (lastRelevant < lastZero) {
                        lastRelevant = lastZero;
                    }
                }
            }
            if (!signWrote && outPreSpaces == 0) {
                numCount++;
            }
            for (Node node : nodes) {
                if (node.keyword == null) {
                    out.append(node.text);
                    continue;
                }
                switch (node.keyword.toUpperCase(java.util.Locale.ROOT)) {
                    case "9", "0", ".", "D" -> digit(node.keyword.toUpperCase(java.util.Locale.ROOT));
                    case ",", "G" -> {
                        if (!numIn) {
                            if (!num.fill) {
                                out.append(' ');
                            }
                        } else {
                            out.append(',');
                        }
                    }
                    case "MI" -> {
                        if (sign == '-') {
                            out.append('-');
                        } else if (!num.fill) {
                            out.append(' ');
                        }
                    }
                    case "PL" -> {
                        if (sign == '+') {
                            out.append('+');
                        } else if (!num.fill) {
                            out.append(' ');
                        }
                    }
                    case "SG" -> out.append(sign);
                    default -> {
                    }
                }
            }
            return cut >= 0 ? out.substring(0, cut) : out.toString();
        }

        private int lastRelevantDecimal() {
            int p = number.indexOf('.');
            if (p < 0) {
                return -1;
            }
            int result = p;
            for (int i = p + 1; i < number.length(); i++) {
                if (number.charAt(i) != '0') {
                    result = i;
                }
            }
            return result;
        }

        private boolean predecSpace() {
            return !num.zero && numberP == 0 && at(0) == '0' && num.post != 0;
        }

        private void digit(String id) {
            numIn = false;
            if (!signWrote && (numCurr >= outPreSpaces || (num.zero && zeroStart == numCurr))
                    && (!predecSpace() || (lastRelevant >= 0 && at(lastRelevant) == '.'))) {
                if (num.lsign) {
                    if (!lsignPost) {
                        out.append(sign == '-' ? '-' : '+');
                        signWrote = true;
                    }
                } else if (sign == '+') {
                    if (!num.fill) {
                        out.append(' ');
                    }
                    signWrote = true;
                } else {
                    out.append('-');
                    signWrote = true;
                }
            }
            if (numCurr < outPreSpaces && (zeroStart > numCurr || !num.zero)) {
                if (!num.fill) {
                    out.append(' ');
                }
            } else if (num.zero && numCurr < outPreSpaces && zeroStart <= numCurr) {
                out.append('0');
                numIn = true;
            } else {
                if (at(numberP) == '.') {
                    if (lastRelevant < 0 || at(lastRelevant) != '.') {
                        out.append('.');
                    } else if (num.fill) {
                        out.append('.');
                    }
                } else {
                    if (lastRelevant >= 0 && numberP > lastRelevant && !id.equals("0")) {
                        // a trailing zero FM drops
                    } else if (predecSpace()) {
                        if (!num.fill) {
                            out.append(' ');
                        } else if (lastRelevant >= 0 && at(lastRelevant) == '.') {
                            out.append('0');
                        }
                    } else {
                        char c = at(numberP);
                        if (c != '\0') {
                            out.append(c);
                        } else if (cut < 0) {
                            cut = out.length();
                        }
                        numIn = true;
                    }
                }
                if (numberP < number.length()) {
                    numberP++;
                }
            }
            int end = numCount + (outPreSpaces > 0 ? 1 : 0) + (num.decimal ? 1 : 0);
            if (lastRelevant >= 0 && lastRelevant == numberP) {
                end = numCurr;
            }
            if (numCurr + 1 == end && num.lsign && lsignPost) {
                out.append(sign == '-' ? '-' : '+');
            }
            numCurr++;
        }
    }
}
