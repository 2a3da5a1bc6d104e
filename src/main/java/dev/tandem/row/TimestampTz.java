package dev.tandem.row;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;

/** A {@code timestamp with time zone} datum: an instant, in microseconds since the Unix epoch (UTC). */
public record TimestampTz(long micros) implements Comparable<TimestampTz> {

    public static TimestampTz of(Instant instant) {
        return new TimestampTz(Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1_000));
    }

    /** Parses ISO-8601 with an offset ({@code 2024-01-02T03:04:05.123456Z}, {@code ...+02:00}); throws {@link IllegalArgumentException}. */
    public static TimestampTz parse(String iso) {
        try {
            return of(OffsetDateTime.parse(iso).toInstant());
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("not an ISO-8601 timestamp with an offset: '" + iso + "'");
        }
    }

    public Instant toInstant() {
        return Instant.EPOCH.plus(micros, ChronoUnit.MICROS);
    }

    @Override
    public int compareTo(TimestampTz o) {
        return Long.compare(micros, o.micros);
    }

    /** The instant in ISO-8601, in UTC ({@code 2024-01-02T03:04:05Z}). */
    @Override
    public String toString() {
        return toInstant().toString();
    }
}
