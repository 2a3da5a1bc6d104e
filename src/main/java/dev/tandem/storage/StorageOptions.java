package dev.tandem.storage;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import reactor.core.scheduler.Scheduler;

/**
 * How a {@link TableStorage} keeps time and commits.
 *
 * @param clockMillis the wall clock, in milliseconds since the epoch, that timestamps follow
 * @param tickerNanos a monotonic nanosecond ticker, for spacing the probes of an unavailable log and a
 *     replica's checks of the shared log's end (by default the scheduler's, which for Reactor's own
 *     schedulers is {@link System#nanoTime} and for a virtual-time scheduler its virtual time)
 * @param scheduler runs the periodic tick and the periodic log compaction check
 * @param tickInterval how often the upper advances when no write does (default 10 ms)
 * @param compactionInterval how often the log is checked for growth worth a compaction (default 30 s)
 * @param fsync whether commits are forced to disk before being acknowledged (default on; turning it
 *     off is for benchmarks and tests only: an acknowledged write may then be lost in a crash)
 * @param checkDeletes whether a delete of a row that is not there is refused (default on; off only for
 *     an internal writer that retracts nothing but rows it inserted, such as the introspection log,
 *     which then skips a lookup per retracted row)
 */
public record StorageOptions(LongSupplier clockMillis, LongSupplier tickerNanos, Scheduler scheduler, Duration tickInterval,
                             Duration compactionInterval, boolean fsync, boolean checkDeletes) {

    public StorageOptions {
        Objects.requireNonNull(clockMillis, "clockMillis");
        Objects.requireNonNull(tickerNanos, "tickerNanos");
        Objects.requireNonNull(scheduler, "scheduler");
        if (tickInterval.isNegative() || tickInterval.isZero()) {
            throw new IllegalArgumentException("tickInterval must be positive, got " + tickInterval);
        }
        if (compactionInterval.isNegative() || compactionInterval.isZero()) {
            throw new IllegalArgumentException("compactionInterval must be positive, got " + compactionInterval);
        }
    }

    /** Defaults: the system clock, the scheduler's ticker, 10 ms ticks, compaction checks every 30 s, fsync on. */
    public static StorageOptions defaults(Scheduler scheduler) {
        return new StorageOptions(System::currentTimeMillis, () -> scheduler.now(TimeUnit.NANOSECONDS), scheduler, Duration.ofMillis(10),
                Duration.ofSeconds(30), true, true);
    }

    public StorageOptions withClock(LongSupplier clock) {
        return new StorageOptions(clock, tickerNanos, scheduler, tickInterval, compactionInterval, fsync, checkDeletes);
    }

    public StorageOptions withTicker(LongSupplier ticker) {
        return new StorageOptions(clockMillis, ticker, scheduler, tickInterval, compactionInterval, fsync, checkDeletes);
    }

    public StorageOptions withTickInterval(Duration interval) {
        return new StorageOptions(clockMillis, tickerNanos, scheduler, interval, compactionInterval, fsync, checkDeletes);
    }

    public StorageOptions withCompactionInterval(Duration interval) {
        return new StorageOptions(clockMillis, tickerNanos, scheduler, tickInterval, interval, fsync, checkDeletes);
    }

    /** Turns fsync on or off; off is for benchmarks and tests only. */
    public StorageOptions withFsync(boolean on) {
        return new StorageOptions(clockMillis, tickerNanos, scheduler, tickInterval, compactionInterval, on, checkDeletes);
    }

    /** Turns the check of deletes off (only for a writer that retracts nothing but rows it inserted) or on. */
    public StorageOptions withDeleteChecks(boolean on) {
        return new StorageOptions(clockMillis, tickerNanos, scheduler, tickInterval, compactionInterval, fsync, on);
    }
}
