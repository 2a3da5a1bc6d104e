package dev.tandem.expr;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * PostgreSQL's time zones as its {@code TimeZone} setting reads them — IANA names in any case, {@code UTC}, a number of
 * hours east of Greenwich, POSIX specifications whose offset counts west ({@code 'UTC+3'} and {@code '+02:00'} are
 * three and two hours west) — and the conversions between instants and local times in a zone that PostgreSQL makes.
 */
public final class TimeZones {

    /** A time zone as a session holds it: the zone and the name {@code SHOW TimeZone} answers. */
    public record Zone(ZoneId id, String name) {

        /** The session's default zone, UTC. */
        public static final Zone UTC = new Zone(ZoneOffset.UTC, "UTC");

        /** Whether this zone is UTC, where local times and instants agree. */
        public boolean utc() {
            return id.getRules().isFixedOffset() && id.getRules().getOffset(Instant.EPOCH).getTotalSeconds() == 0;
        }

        /** The zone as an expression's zone argument names it ({@link #of(String)} reads it back). */
        public String key() {
            return id.getId();
        }
    }

    private static final Map<String, String> NAMES = new ConcurrentHashMap<>();
    private static final Map<String, ZoneId> KEYS = new ConcurrentHashMap<>();
    /** A POSIX specification: a name of three or more letters (or quoted in angle brackets, or none) and an offset west. */
    private static final Pattern POSIX = Pattern.compile("(?:<([^>]*)>|([A-Za-z]{3,}))?([+-]?)(\\d{1,2})(?::(\\d{1,2})(?::(\\d{1,2}))?)?");
    private static final Pattern NUMBER = Pattern.compile("[+-]?(\\d+(\\.\\d*)?|\\.\\d+)");
    private static final DateTimeFormatter ABBREVIATION = DateTimeFormatter.ofPattern("zzz", Locale.US);

    static {
        for (String id : ZoneId.getAvailableZoneIds()) {
            NAMES.put(id.toLowerCase(Locale.ROOT), id);
        }
    }

    private TimeZones() {
    }

    /** The zone an expression's zone argument names (a zone's {@link Zone#key}). */
    public static ZoneId of(String key) {
        return KEYS.computeIfAbsent(key, ZoneId::of);
    }

    /** The zone a {@code SET TimeZone} value names, or {@code 22023} as PostgreSQL answers an unknown one. */
    public static Zone setting(String value) {
        String v = value.trim();
        if (v.equalsIgnoreCase("utc")) {
            return Zone.UTC;
        }
        String name = NAMES.get(v.toLowerCase(Locale.ROOT));
        if (name != null) {
            ZoneId id = ZoneId.of(name);
            // a zone of one offset (Etc/UTC, GMT, Etc/GMT-14) computes as that offset
            return new Zone(id.getRules().isFixedOffset() ? id.getRules().getOffset(Instant.EPOCH) : id, name);
        }
        if (NUMBER.matcher(v).matches()) {
            return hours(new java.math.BigDecimal(v));
        }
        return posix(v, value);
    }

    /** The zone of a POSIX specification ({@code UTC+3}, {@code +02:00}, {@code <+05>-05}), whose offset counts west. */
    private static Zone posix(String v, String value) {
        Matcher m = POSIX.matcher(v);
        if (m.matches() && !v.isEmpty()) {
            int seconds = Integer.parseInt(m.group(4)) * 3600 + (m.group(5) == null ? 0 : Integer.parseInt(m.group(5)) * 60)
                    + (m.group(6) == null ? 0 : Integer.parseInt(m.group(6)));
            if (seconds <= 24 * 3600) {
                ZoneOffset offset;
                try {
                    offset = ZoneOffset.ofTotalSeconds(m.group(3).equals("-") ? seconds : -seconds);
                } catch (DateTimeException e) {
                    throw invalid(value);
                }
                String abbreviation = m.group(1) != null ? m.group(1) : m.group(2) != null ? m.group(2) : "";
                String upper = abbreviation.toUpperCase(Locale.ROOT);
                if (upper.equals("UTC") || upper.equals("GMT")) {
                    // named as Java names such a zone, whose abbreviation (to_char's TZ) is the name
                    return new Zone(offset.getTotalSeconds() == 0 ? ZoneOffset.UTC : ZoneId.ofOffset(upper, offset), v);
                }
                if (abbreviation.isEmpty() && m.group(1) == null) {
                    // no name ('+02:00'): its abbreviation is empty, as Java's UT-prefixed zones are taken to mean here
                    return new Zone(ZoneId.ofOffset("UT", offset), v);
                }
                if (!abbreviation.isEmpty() && !abbreviation.equals(offsetText(offset.getTotalSeconds()))) {
                    throw new EvalError(EvalError.Code.NOT_SUPPORTED, "not supported: the time zone \"" + value + "\" (a POSIX specification"
                            + " naming its zone other than UTC or GMT; write an IANA name, 'Etc/GMT+3', or a number of hours east, SET TIME ZONE -3)");
                }
                return new Zone(offset, v);
            }
        }
        throw invalid(value);
    }

    /**
     * The zone {@code AT TIME ZONE} names: a zone name or a POSIX specification, as for {@link #setting}; an unknown one
     * (among them the abbreviations, {@code 'PST'}, which PostgreSQL reads from its table of them) is {@code 22023}.
     */
    public static ZoneId atTimeZone(String name) {
        try {
            String v = name.trim();
            if (NUMBER.matcher(v).matches()) {
                // a number here is a POSIX offset, west of Greenwich
                return posix(v, name).id();
            }
            return setting(name).id();
        } catch (EvalError e) {
            throw new EvalError(EvalError.Code.INVALID_PARAMETER_VALUE, "time zone \"" + name + "\" not recognized");
        }
    }

    /** The zone {@code hours} east of Greenwich ({@code SET TIME ZONE 5.5}), named as PostgreSQL shows it ({@code <+05:30>-05:30}). */
    public static Zone hours(java.math.BigDecimal hours) {
        java.math.BigDecimal seconds = hours.multiply(java.math.BigDecimal.valueOf(3600)).setScale(0, java.math.RoundingMode.HALF_EVEN);
        if (seconds.abs().compareTo(java.math.BigDecimal.valueOf(18 * 3600)) > 0) {
            throw invalid(hours.toPlainString());
        }
        return offset(seconds.intValueExact());
    }

    /** The fixed zone {@code seconds} east of Greenwich, named as PostgreSQL shows it ({@code <+02>-02}). */
    public static Zone offset(int seconds) {
        String east = offsetText(seconds);
        String west = offsetText(-seconds);
        return new Zone(ZoneOffset.ofTotalSeconds(seconds), "<" + east + ">" + west);
    }

    private static EvalError invalid(String value) {
        return new EvalError(EvalError.Code.INVALID_PARAMETER_VALUE, "invalid value for parameter \"TimeZone\": \"" + value + "\"");
    }

    /** An offset east of Greenwich as PostgreSQL prints it after a time ({@code +01}, {@code +05:30}, {@code -03:30}). */
    public static String offsetText(int seconds) {
        int a = Math.abs(seconds);
        StringBuilder s = new StringBuilder(seconds < 0 ? "-" : "+");
        s.append(two(a / 3600));
        if (a % 3600 != 0) {
            s.append(':').append(two(a % 3600 / 60));
            if (a % 60 != 0) {
                s.append(':').append(two(a % 60));
            }
        }
        return s.toString();
    }

    private static String two(int n) {
        return n < 10 ? "0" + n : Integer.toString(n);
    }

    /** The offset of {@code zone} at the instant {@code micros} (since the epoch), in seconds east. */
    public static int offsetAt(long micros, ZoneId zone) {
        if (zone instanceof ZoneOffset o) {
            return o.getTotalSeconds();
        }
        return zone.getRules().getOffset(Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L))).getTotalSeconds();
    }

    /** The local time, in microseconds since the local epoch, of the instant {@code micros} in {@code zone}. */
    public static long local(long micros, ZoneId zone) {
        return micros + offsetAt(micros, zone) * 1_000_000L;
    }

    /**
     * The instant of the local time {@code local} (microseconds since the local epoch) in {@code zone}, as PostgreSQL
     * resolves it: a time skipped by a spring-forward transition is read with the offset before it, a time repeated by
     * a fall-back transition with the offset after it.
     */
    public static long instant(long local, ZoneId zone) {
        if (zone instanceof ZoneOffset o) {
            return local - o.getTotalSeconds() * 1_000_000L;
        }
        LocalDateTime t = LocalDateTime.ofEpochSecond(Math.floorDiv(local, 1_000_000L), 0, ZoneOffset.UTC);
        // in a gap Java moves the time forward by the gap (the offset before it); in an overlap it takes the later offset
        ZonedDateTime z = ZonedDateTime.ofLocal(t, zone, null).withLaterOffsetAtOverlap();
        return z.toEpochSecond() * 1_000_000L + Math.floorMod(local, 1_000_000L);
    }

    /** {@code zone}'s abbreviation at the instant {@code micros}, as {@code to_char}'s {@code TZ} prints it ({@code CET}, {@code +02}). */
    public static String abbreviation(long micros, ZoneId zone) {
        if (zone instanceof ZoneOffset o) {
            return o.getTotalSeconds() == 0 ? "UTC" : offsetText(o.getTotalSeconds());
        }
        String id = zone.getId();
        if (id.startsWith("UT") && !id.startsWith("UTC")) {
            return "";
        }
        if (id.matches("(UTC|GMT)[+-].*")) {
            return id.substring(0, 3);
        }
        String a = ABBREVIATION.format(Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L)).atZone(zone));
        return a.startsWith("GMT") && a.length() > 3 || a.startsWith("UTC") && a.length() > 3 ? offsetText(offsetAt(micros, zone)) : a;
    }
}
