package dev.tandem.metrics;

import dev.tandem.multiplex.Multiplexer;
import dev.tandem.runtime.ReadPath;
import dev.tandem.runtime.Role;
import dev.tandem.runtime.RuntimeObserver;
import dev.tandem.sharing.ArrangementSharingRegistry;
import dev.tandem.storage.TableStorage;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * Tandem's Micrometer meters and the three places they are measured: a {@link RuntimeObserver} (peek,
 * operator step and hydration timings, pushed by the runtimes), gauges over the runtimes' state
 * (read when scraped), and a count of the updates written through {@link TableStorage}.
 *
 * <p>Runtime meters carry a {@code role} tag ({@code solo}, {@code maintenance}, {@code interactive});
 * every meter is registered when it is bound, so each series exists (at zero) from start-up.
 */
public final class TandemMeters {

    /** Timer: one answered peek, tagged {@code role}, {@code path} and {@code outcome}. */
    public static final String PEEK_DURATION = "tandem.peek.duration";
    /** Gauge: peeks a runtime is working on. */
    public static final String PEEKS_PENDING = "tandem.peeks.pending";
    /** Timer: one step of one operator shard. */
    public static final String OPERATOR_STEP_DURATION = "tandem.operator.step.duration";
    /** Gauge: tasks queued or running on a runtime's worker pool. */
    public static final String SCHEDULER_QUEUE_DEPTH = "tandem.scheduler.queue.depth";
    /** Gauge: records in the arrangements a runtime hosts. */
    public static final String ARRANGEMENT_RECORDS = "tandem.arrangement.records";
    /** Gauge: estimated bytes of the arrangements a runtime hosts. */
    public static final String ARRANGEMENT_BYTES = "tandem.arrangement.bytes";
    /** Gauge: dataflows of a runtime that have not hydrated yet. */
    public static final String DATAFLOWS_HYDRATING = "tandem.dataflows.hydrating";
    /** Timer: from schedule to hydration of one dataflow. */
    public static final String HYDRATION_DURATION = "tandem.hydration.duration";
    /** Gauge (seconds): the wall clock minus the upper of a runtime's slowest maintained export. */
    public static final String FRONTIER_LAG = "tandem.frontier.lag";
    /** Counter: updates (row, diff) written durably through storage. */
    public static final String INGESTED_UPDATES = "tandem.ingested.updates";
    /** Gauge (seconds): the largest distance of a shared index's upper ahead of the interactive standing hold. */
    public static final String STANDING_HOLD_GAP = "tandem.standing.hold.gap";
    public static final String RESERVE_SHARE = "tandem.maintenance.reserve.share";
    public static final String RESERVE_LIMIT = "tandem.maintenance.reserve.peek.limit";
    public static final String RESERVE_WAITING = "tandem.maintenance.reserve.waiting.peeks";
    public static final String RESERVE_HELD = "tandem.maintenance.reserve.held.peeks";

    /** Counter: responses and publications that could not be emitted, tagged {@code source} (multiplexer, sharing, or a runtime's role). */
    public static final String EMIT_FAILURES = "tandem.emit.failures";
    /** Gauge: reads the controller has admitted and not yet answered. */
    public static final String READS_PENDING = "tandem.reads.pending";
    /** Counter: index events dropped for a subscriber too slow to take them. */
    public static final String EVENTS_DROPPED = "tandem.events.dropped";

    /** The paths a runtime's peeks take, whose tags are the {@code path} tag values of {@link #PEEK_DURATION}. */
    public static final List<ReadPath> PATHS = List.of(ReadPath.FAST, ReadPath.SLOW);
    /** The {@code outcome} tag values of {@link #PEEK_DURATION}. */
    public static final List<String> OUTCOMES = List.of("rows", "error", "canceled");

    private TandemMeters() {
    }

    /** The roles of the runtimes in one or two-runtime mode. */
    public static List<Role> roles(boolean twoRuntimes) {
        return twoRuntimes ? List.of(Role.MAINTENANCE, Role.INTERACTIVE) : List.of(Role.SOLO);
    }

    /** An observer recording the runtimes' timings on {@code registry}; its timers are registered now. */
    public static RuntimeObserver observer(MeterRegistry registry, boolean twoRuntimes) {
        return new RuntimeTimers(registry, roles(twoRuntimes));
    }

    /** Registers the gauges over the compute side's state; reading them costs a sum over arrangement snapshots. */
    public static void bindRuntimeGauges(MeterRegistry registry, Multiplexer compute, ArrangementSharingRegistry sharing,
            LongSupplier clockMillis) {
        RuntimeGauges.bind(registry, compute, sharing, clockMillis);
    }

    /** Registers the controller's meters: pending reads and dropped index events. */
    public static void bindControllerMeters(MeterRegistry registry, IntSupplier pendingReads, LongSupplier droppedEvents) {
        io.micrometer.core.instrument.Gauge.builder(READS_PENDING, pendingReads::getAsInt)
                .description("Reads the controller has admitted and not yet answered")
                .strongReference(true)
                .register(registry);
        io.micrometer.core.instrument.FunctionCounter.builder(EVENTS_DROPPED, droppedEvents, LongSupplier::getAsLong)
                .description("Index events dropped for a subscriber too slow to take them")
                .register(registry);
    }

    /** {@code storage} counting the updates of every successful write into {@link #INGESTED_UPDATES}. */
    public static TableStorage countingIngest(TableStorage storage, MeterRegistry registry) {
        return IngestCountingStorage.wrap(storage, registry);
    }
}
