package dev.tandem.row;

import java.time.Instant;
import java.time.temporal.ChronoUnit;

/** A {@code timestamp} datum: microseconds since the Unix epoch. */
public record Timestamp(long micros) implements Comparable<Timestamp> {

    public static Timestamp of(Instant instant) {
        return new Timestamp(Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1_000));
    }

    /** Parses ISO-8601 ({@code 2024-01-02T03:04:05.123456Z}); throws {@link IllegalArgumentException}. */
    public static Timestamp parse(String iso) {
        try {
            return of(Instant.parse(iso));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("not an ISO-8601 timestamp: '" + iso + "'");
        }
    }

    public Instant toInstant() {
        return Instant.EPOCH.plus(micros, ChronoUnit.MICROS);
    }

    @Override
    public int compareTo(Timestamp o) {
        return Long.compare(micros, o.micros);
    }

    @Override
    public String toString() {
        return toInstant().toString();
    }
}
