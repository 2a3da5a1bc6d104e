package dev.tandem.runtime;

import java.time.Duration;
import java.util.Objects;
import java.util.function.LongSupplier;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * The time and threads a compute runtime uses, handed to it rather than reached for, so tests can drive
 * them: the wall clock that stamps introspection, a ticker for durations, the factory of its schedulers
 * (the introspection timer is the one {@link SchedulerFactory#newSingle single} scheduler), and the
 * introspection intervals.
 *
 * @param clockMillis wall-clock milliseconds since the epoch
 * @param tickerNanos a monotonic nanosecond ticker, for measured durations (peek latency)
 * @param schedulers makes the command, worker, fast-lane and timer schedulers
 * @param introspectionInterval how often maintenance samples its state into the introspection collections
 * @param introspectionTick how often the introspection log's upper advances when no sample changes anything
 */
public record RuntimeResources(LongSupplier clockMillis, LongSupplier tickerNanos, SchedulerFactory schedulers,
                               Duration introspectionInterval, Duration introspectionTick) {

    /** Makes the schedulers of a runtime; {@link #REACTOR} makes Reactor's own. */
    public interface SchedulerFactory {
        /** A single-threaded scheduler for timed work (the introspection sampler and its log's tick). */
        Scheduler newSingle(String name);

        /** A fixed pool of non-blocking threads. */
        Scheduler newParallel(String name, int threads);

        /** At most {@code threads} threads that may block. */
        Scheduler newBoundedElastic(String name, int threads);

        /**
         * Reactor's schedulers. The fixed ones (single, parallel) start their threads at once, at normal
         * priority ({@link ThreadNice#startThreads(Scheduler, int)}); a bounded-elastic scheduler's threads
         * start with the workers taken from it ({@link SchedulerWorkerPool} starts its own).
         */
        SchedulerFactory REACTOR = new SchedulerFactory() {
            @Override
            public Scheduler newSingle(String name) {
                return ThreadNice.startThreads(Schedulers.newSingle(name), 1);
            }

            @Override
            public Scheduler newParallel(String name, int threads) {
                return ThreadNice.startThreads(Schedulers.newParallel(name, threads), threads);
            }

            @Override
            public Scheduler newBoundedElastic(String name, int threads) {
                return Schedulers.newBoundedElastic(threads, Integer.MAX_VALUE, name);
            }
        };
    }

    public RuntimeResources {
        Objects.requireNonNull(clockMillis, "clockMillis");
        Objects.requireNonNull(tickerNanos, "tickerNanos");
        Objects.requireNonNull(schedulers, "schedulers");
        if (introspectionInterval.isNegative() || introspectionInterval.isZero()) {
            throw new IllegalArgumentException("introspectionInterval must be positive, got " + introspectionInterval);
        }
        if (introspectionTick.isNegative() || introspectionTick.isZero()) {
            throw new IllegalArgumentException("introspectionTick must be positive, got " + introspectionTick);
        }
    }

    /** Production resources over {@code clockMillis}: {@link System#nanoTime}, Reactor's schedulers, 100 ms sampling, 20 ms ticks. */
    public static RuntimeResources of(LongSupplier clockMillis) {
        return new RuntimeResources(clockMillis, System::nanoTime, SchedulerFactory.REACTOR, Duration.ofMillis(100), Duration.ofMillis(20));
    }

    public RuntimeResources withSchedulers(SchedulerFactory factory) {
        return new RuntimeResources(clockMillis, tickerNanos, factory, introspectionInterval, introspectionTick);
    }

    public RuntimeResources withIntrospectionInterval(Duration interval) {
        return new RuntimeResources(clockMillis, tickerNanos, schedulers, interval, introspectionTick);
    }
}
