package dev.tandem.expr;

import java.util.ArrayList;
import java.util.List;

/**
 * PostgreSQL's {@code to_char} templates, for dates, timestamps and intervals ({@code 'YYYY-MM-DD HH24:MI'}) and for
 * numbers ({@code 'FM999,999.00'}), read and applied as PostgreSQL's formatting.c does in the C locale: the same
 * keywords matched at each position (case as written, the longest first), the {@code FM} prefix, the {@code TH}/{@code th}
 * suffix, quoted literal text, a backslash before a double quote, every other character copied. A keyword Tandem does not
 * compute is refused (an {@link EvalError} {@code not supported: ...}), never copied as text.
 *
 * <p>This class reads a template into its keywords and text; {@link DatetimeTemplates} and {@link NumberTemplates}
 * apply it to a value.
 */
public final class FormatTemplates {

    private FormatTemplates() {
    }

    /** A piece of a parsed template: a keyword with its prefix and suffix flags, or literal text. */
    record Node(String keyword, boolean fm, String th, String text) {
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

    /** Parses a template as PostgreSQL's parse_format does; {@code datetime} chooses the keywords and allows prefixes and suffixes. */
    static List<Node> parse(String template, boolean datetime) {
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
        return DatetimeTemplates.unsupported(template, interval);
    }

    /** Why Tandem refuses a number template, or null when it computes it. */
    public static String unsupportedNumber(String template) {
        return NumberTemplates.unsupported(template);
    }

    /** PostgreSQL's {@code to_char} of a date, timestamp, timestamptz or interval (see {@link DatetimeTemplates}). */
    static String datetime(Object value, String template) {
        return DatetimeTemplates.format(value, template);
    }

    /** PostgreSQL's {@code to_char} of a date, timestamp, timestamp with time zone or interval in the session's time zone {@code zone}. */
    static String datetime(Object value, String template, java.time.ZoneId zone) {
        return DatetimeTemplates.format(value, template, zone);
    }

    /** PostgreSQL's {@code to_char} of a bigint, double precision or numeric (see {@link NumberTemplates}). */
    static String number(Object value, String template) {
        return NumberTemplates.format(value, template);
    }
}
