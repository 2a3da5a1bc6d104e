package dev.tandem.metrics;

import dev.tandem.runtime.ReadPath;
import dev.tandem.runtime.Role;
import dev.tandem.runtime.RuntimeObserver;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/** The runtimes' latency histograms, fed by their {@link RuntimeObserver} callbacks. */
final class RuntimeTimers implements RuntimeObserver {

    private final MeterRegistry registry;
    private final Map<PeekKey, Timer> peeks = new ConcurrentHashMap<>();
    private final Map<Role, Timer> steps = new ConcurrentHashMap<>();
    private final Map<Role, Timer> hydrations = new ConcurrentHashMap<>();

    /** Registers the timers of {@code roles} (the last one answers peeks) so their series exist from the start. */
    RuntimeTimers(MeterRegistry registry, List<Role> roles) {
        this.registry = registry;
        for (Role role : roles) {
            stepTimer(role);
            hydrationTimer(role);
        }
        Role reader = roles.getLast();
        for (ReadPath path : TandemMeters.PATHS) {
            for (String outcome : TandemMeters.OUTCOMES) {
                peekTimer(reader, path, outcome);
            }
        }
    }

    private Timer stepTimer(Role role) {
        return steps.computeIfAbsent(role, r -> Timer.builder(TandemMeters.OPERATOR_STEP_DURATION)
                .description("Time of one step of one operator shard")
                .tag("role", r.tag())
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofNanos(1_000))
                .maximumExpectedValue(Duration.ofSeconds(10))
                .register(registry));
    }

    private Timer hydrationTimer(Role role) {
        return hydrations.computeIfAbsent(role, r -> Timer.builder(TandemMeters.HYDRATION_DURATION)
                .description("Time from scheduling a dataflow to its hydration")
                .tag("role", r.tag())
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofMillis(1))
                .maximumExpectedValue(Duration.ofMinutes(30))
                .register(registry));
    }

    /** A peek timer's tags (no text is built on a read's way out). */
    private record PeekKey(Role role, ReadPath path, String outcome) {
    }

    private Timer peekTimer(Role role, ReadPath path, String outcome) {
        PeekKey key = new PeekKey(role, path, outcome);
        Timer timer = peeks.get(key);
        return timer != null ? timer : peeks.computeIfAbsent(key, k -> Timer.builder(TandemMeters.PEEK_DURATION)
                .description("Time from a peek's arrival at the runtime to its answer")
                .tag("role", role.tag())
                .tag("path", path.tag())
                .tag("outcome", outcome)
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofNanos(1_000))
                .maximumExpectedValue(Duration.ofSeconds(60))
                .register(registry));
    }

    @Override
    public void peekCompleted(Role role, ReadPath path, String outcome, long nanos) {
        peekTimer(role, path, outcome).record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void stepCompleted(Role role, String dataflow, String operator, int worker, long nanos) {
        stepTimer(role).record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void dataflowHydrated(Role role, String dataflow, long millis) {
        hydrationTimer(role).record(Math.max(0, millis), TimeUnit.MILLISECONDS);
    }
}
