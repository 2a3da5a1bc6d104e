package dev.tandem.time;

/**
 * A lower bound on future timestamps. With totally ordered time a frontier is either {@code {t}} or
 * the empty frontier {@code {}}, after which nothing more will ever happen.
 */
public record Frontier(long time, boolean isEmpty) implements Comparable<Frontier> {

    /** The empty frontier: closed. */
    public static final Frontier EMPTY = new Frontier(Long.MAX_VALUE, true);
    /** The minimal frontier {@code {0}}. */
    public static final Frontier MIN = new Frontier(0, false);

    public Frontier {
        if (isEmpty && time != Long.MAX_VALUE) {
            throw new IllegalArgumentException("the empty frontier has no time");
        }
    }

    public static Frontier at(long t) {
        return new Frontier(t, false);
    }

    /** The single time of a non-empty frontier; throws for the empty frontier. */
    public long time() {
        if (isEmpty) {
            throw new IllegalStateException("the empty frontier has no time");
        }
        return time;
    }

    /** Whether {@code t} is not yet complete: some element of the frontier is {@code <= t}. */
    public boolean lessEqual(long t) {
        return !isEmpty && time <= t;
    }

    /** Whether every time at or beyond {@code other} is at or beyond this frontier. */
    public boolean lessEqual(Frontier other) {
        return compareTo(other) <= 0;
    }

    /** The lesser of the two frontiers (greatest lower bound). */
    public Frontier meet(Frontier other) {
        return compareTo(other) <= 0 ? this : other;
    }

    /** The greater of the two frontiers (least upper bound). */
    public Frontier join(Frontier other) {
        return compareTo(other) >= 0 ? this : other;
    }

    /** Whether a read at {@code t} is complete: every time {@code <= t} has been seen. */
    public boolean isPast(long t) {
        return !lessEqual(t);
    }

    @Override
    public int compareTo(Frontier o) {
        int c = Long.compare(time, o.time);
        return c != 0 ? c : Boolean.compare(isEmpty, o.isEmpty);
    }

    @Override
    public String toString() {
        return isEmpty ? "{}" : "{" + time + "}";
    }
}
