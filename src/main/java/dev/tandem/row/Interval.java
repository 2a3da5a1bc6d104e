package dev.tandem.row;

/**
 * An {@code interval} datum: months, days and microseconds, kept apart as PostgreSQL keeps them ({@code 1 mon} is not
 * {@code 30 days}, though they compare equal). Ordered by {@link #span}, then by months, days and microseconds.
 */
public record Interval(int months, int days, long micros) implements Comparable<Interval> {

    public static final long MICROS_PER_DAY = 86_400_000_000L;

    /** The span as a signed 128-bit number of microseconds: {high, low (unsigned)}. */
    public long[] span() {
        long dayCount = months * 30L + days;
        long hi = Math.multiplyHigh(dayCount, MICROS_PER_DAY);
        long lo = dayCount * MICROS_PER_DAY;
        long sum = lo + micros;
        long carry = Long.compareUnsigned(sum, lo) < 0 ? 1 : 0;
        return new long[] {hi + (micros >> 63) + carry, sum};
    }

    /** PostgreSQL's comparison: by span alone ({@code 1 mon = 30 days}). */
    public int compareSpan(Interval o) {
        long[] a = span();
        long[] b = o.span();
        int c = Long.compare(a[0], b[0]);
        return c != 0 ? c : Long.compareUnsigned(a[1], b[1]);
    }

    @Override
    public int compareTo(Interval o) {
        int c = compareSpan(o);
        if (c != 0) {
            return c;
        }
        c = Integer.compare(months, o.months);
        if (c != 0) {
            return c;
        }
        c = Integer.compare(days, o.days);
        return c != 0 ? c : Long.compare(micros, o.micros);
    }

    /** ISO-8601 as its three parts, {@code P14M3DT14706.5S}: months, days and seconds, each signed. */
    @Override
    public String toString() {
        java.math.BigDecimal seconds = java.math.BigDecimal.valueOf(micros, 6).stripTrailingZeros();
        return "P" + months + "M" + days + "DT" + (seconds.signum() == 0 ? "0" : seconds.toPlainString()) + "S";
    }

    /** Reads {@link #toString}'s form; throws {@link IllegalArgumentException}. */
    public static Interval parse(String s) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("P(-?\\d+)M(-?\\d+)DT(-?\\d+(?:\\.\\d{1,6})?)S").matcher(s);
        if (!m.matches()) {
            throw new IllegalArgumentException("not an interval as P<months>M<days>DT<seconds>S: '" + s + "'");
        }
        try {
            return new Interval(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)),
                    new java.math.BigDecimal(m.group(3)).movePointRight(6).longValueExact());
        } catch (ArithmeticException | NumberFormatException e) {
            throw new IllegalArgumentException("interval out of range: '" + s + "'");
        }
    }
}
