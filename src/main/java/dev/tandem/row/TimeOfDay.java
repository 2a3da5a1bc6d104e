package dev.tandem.row;

import java.util.Locale;

/**
 * A {@code time} (without time zone) datum: microseconds since midnight, from {@code 00:00:00} to {@code 24:00:00}
 * inclusive, as PostgreSQL's {@code time} holds it.
 */
public record TimeOfDay(long micros) implements Comparable<TimeOfDay> {

    /** Microseconds in a day: {@code 24:00:00}, the largest time. */
    public static final long MICROS_PER_DAY = 86_400_000_000L;

    public TimeOfDay {
        if (micros < 0 || micros > MICROS_PER_DAY) {
            throw new IllegalArgumentException("a time of day out of range: " + micros + " microseconds");
        }
    }

    private static final java.util.regex.Pattern ISO = java.util.regex.Pattern.compile("(\\d{2}):(\\d{2})(?::(\\d{2})(?:\\.(\\d{1,6}))?)?");

    /** Parses ISO-8601's extended time of day ({@code 12:34}, {@code 12:34:56.789}, up to {@code 24:00:00}); throws {@link IllegalArgumentException}. */
    public static TimeOfDay parse(String iso) {
        java.util.regex.Matcher m = ISO.matcher(iso);
        if (m.matches()) {
            long h = Long.parseLong(m.group(1));
            long min = Long.parseLong(m.group(2));
            long s = m.group(3) == null ? 0 : Long.parseLong(m.group(3));
            long f = m.group(4) == null ? 0 : Long.parseLong((m.group(4) + "00000").substring(0, 6));
            long micros = ((h * 60 + min) * 60 + s) * 1_000_000L + f;
            if (min < 60 && s < 60 && micros <= MICROS_PER_DAY) {
                return new TimeOfDay(micros);
            }
        }
        throw new IllegalArgumentException("not an ISO-8601 time of day (\"12:34:56.789\", up to \"24:00:00\"): '" + iso + "'");
    }

    @Override
    public int compareTo(TimeOfDay o) {
        return Long.compare(micros, o.micros);
    }

    /** PostgreSQL's output of the time ({@code 12:34:56.789}: a fraction only when there is one, without trailing zeros). */
    @Override
    public String toString() {
        long seconds = micros / 1_000_000L;
        int fraction = (int) (micros % 1_000_000L);
        String s = String.format(Locale.ROOT, "%02d:%02d:%02d", seconds / 3600, seconds / 60 % 60, seconds % 60);
        return fraction == 0 ? s : s + "." + String.format(Locale.ROOT, "%06d", fraction).replaceAll("0+$", "");
    }
}
