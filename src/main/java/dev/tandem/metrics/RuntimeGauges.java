package dev.tandem.metrics;

import dev.tandem.multiplex.Multiplexer;
import dev.tandem.render.Dataflow;
import dev.tandem.runtime.ComputeRuntime;
import dev.tandem.runtime.Role;
import dev.tandem.sharing.ArrangementSharingRegistry;
import dev.tandem.sharing.SharedArrangement;
import dev.tandem.time.Frontier;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.function.LongSupplier;
import java.util.function.ToDoubleFunction;

/**
 * Gauges over the state of each compute runtime, computed when scraped: pending peeks and queue depth
 * are counters the runtime keeps; arrangement sizes sum the current snapshots of the runtime's exports
 * (no scan of their contents); lags compare frontiers with the wall clock (timestamps are milliseconds).
 */
final class RuntimeGauges {

    private RuntimeGauges() {
    }

    static void bind(MeterRegistry registry, Multiplexer compute, ArrangementSharingRegistry sharing, LongSupplier clockMillis) {
        bindRuntime(registry, compute.maintenance(), clockMillis);
        if (compute.twoRuntimes()) {
            bindRuntime(registry, compute.reader(), clockMillis);
        }
        emitFailures(registry, "multiplexer", compute, Multiplexer::emitFailures);
        emitFailures(registry, "sharing", sharing, ArrangementSharingRegistry::emitFailures);
        emitFailures(registry, compute.maintenance().role().tag(), compute.maintenance(), ComputeRuntime::emitFailures);
        if (compute.twoRuntimes()) {
            emitFailures(registry, compute.reader().role().tag(), compute.reader(), ComputeRuntime::emitFailures);
        }
        ComputeRuntime maintenance = compute.maintenance();
        Role holder = compute.twoRuntimes() ? Role.INTERACTIVE : Role.SOLO;
        Gauge.builder(TandemMeters.STANDING_HOLD_GAP, () -> compute.twoRuntimes() ? standingHoldGapMillis(maintenance, sharing) / 1000.0 : 0.0)
                .description("Largest distance of a shared index's upper ahead of the interactive runtime's standing hold")
                .tags(Tags.of("role", holder.tag()))
                .baseUnit("seconds")
                .strongReference(true)
                .register(registry);
        dev.tandem.runtime.MaintenanceReserve reserve = compute.maintenanceReserve();
        if (reserve != null) {
            Gauge.builder(TandemMeters.RESERVE_SHARE, reserve, dev.tandem.runtime.MaintenanceReserve::share)
                    .description("Maintenance's share of the CPU time it waited for, over the last quarter second (1 when idle)")
                    .register(registry);
            Gauge.builder(TandemMeters.RESERVE_LIMIT, reserve, dev.tandem.runtime.MaintenanceReserve::peekLimitPerSecond)
                    .description("Peeks per second admitted at most to keep maintenance's reserve (NaN: no limit)")
                    .register(registry);
            Gauge.builder(TandemMeters.RESERVE_WAITING, reserve, dev.tandem.runtime.MaintenanceReserve::waitingPeeks)
                    .description("Peeks waiting for admission under the maintenance reserve")
                    .register(registry);
            FunctionCounter.builder(TandemMeters.RESERVE_HELD, reserve, r -> r.heldPeeks())
                    .description("Peeks that waited for the maintenance reserve's gate")
                    .register(registry);
        }
    }

    private static <T> void emitFailures(MeterRegistry registry, String source, T obj, ToDoubleFunction<T> count) {
        FunctionCounter.builder(TandemMeters.EMIT_FAILURES, obj, count)
                .description("Responses and publications that could not be emitted")
                .tags(Tags.of("source", source))
                .register(registry);
    }

    private static void bindRuntime(MeterRegistry registry, ComputeRuntime runtime, LongSupplier clockMillis) {
        Tags role = Tags.of("role", runtime.role().tag());
        gauge(registry, TandemMeters.PEEKS_PENDING, role, runtime, ComputeRuntime::pendingPeeks, null,
                "Peeks the runtime is working on");
        gauge(registry, TandemMeters.SCHEDULER_QUEUE_DEPTH, role, runtime, ComputeRuntime::queueDepth, null,
                "Tasks queued or running on the runtime's worker pool");
        gauge(registry, TandemMeters.ARRANGEMENT_RECORDS, role, runtime, r -> arrangementSum(r, false), null,
                "Records in the arrangements the runtime hosts");
        gauge(registry, TandemMeters.ARRANGEMENT_BYTES, role, runtime, r -> arrangementSum(r, true), null,
                "Estimated size of the arrangements the runtime hosts");
        gauge(registry, TandemMeters.DATAFLOWS_HYDRATING, role, runtime, RuntimeGauges::hydrating, null,
                "Dataflows of the runtime that have not hydrated yet");
        gauge(registry, TandemMeters.FRONTIER_LAG, role, runtime, r -> frontierLagMillis(r, clockMillis.getAsLong()) / 1000.0, "seconds",
                "Wall clock minus the upper of the runtime's slowest maintained export");
    }

    private static void gauge(MeterRegistry registry, String name, Tags tags, ComputeRuntime runtime,
            ToDoubleFunction<ComputeRuntime> value, String unit, String description) {
        Gauge.builder(name, runtime, value).tags(tags).baseUnit(unit).description(description).strongReference(true).register(registry);
    }

    private static Set<Dataflow> distinct(ComputeRuntime runtime) {
        Set<Dataflow> out = Collections.newSetFromMap(new IdentityHashMap<>());
        out.addAll(runtime.dataflows().values());
        return out;
    }

    private static double arrangementSum(ComputeRuntime runtime, boolean bytes) {
        long sum = 0;
        for (Dataflow df : distinct(runtime)) {
            for (SharedArrangement a : df.exports()) {
                SharedArrangement.Snapshot s = a.snapshot();
                sum += bytes ? s.byteSize() : s.records();
            }
        }
        return sum;
    }

    private static double hydrating(ComputeRuntime runtime) {
        int n = 0;
        for (Dataflow df : distinct(runtime)) {
            if (!df.hydrated() && !df.isDropped()) {
                n++;
            }
        }
        return n;
    }

    /** Wall clock minus the least upper among maintained (unbounded) dataflows; 0 when there are none. */
    static long frontierLagMillis(ComputeRuntime runtime, long now) {
        long least = Long.MAX_VALUE;
        for (Dataflow df : distinct(runtime)) {
            if (df.description().until() != null || df.isDropped()) {
                continue;
            }
            Frontier upper = df.upper();
            if (!upper.isEmpty()) {
                least = Math.min(least, upper.time());
            }
        }
        return least == Long.MAX_VALUE ? 0 : Math.max(0, now - least);
    }

    /** The largest {@code upper - standing hold} over the maintenance runtime's exports that the reader holds. */
    static long standingHoldGapMillis(ComputeRuntime maintenance, ArrangementSharingRegistry sharing) {
        long gap = 0;
        for (var e : maintenance.dataflows().entrySet()) {
            Frontier hold = sharing.standingHold(e.getKey());
            Frontier upper = e.getValue().upper();
            if (hold != null && !hold.isEmpty() && !upper.isEmpty()) {
                gap = Math.max(gap, upper.time() - hold.time());
            }
        }
        return gap;
    }
}
