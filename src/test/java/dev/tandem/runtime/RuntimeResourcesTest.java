package dev.tandem.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tandem.protocol.ComputeCommand;
import dev.tandem.protocol.ComputeParameters;
import dev.tandem.sharing.ArrangementSharingRegistry;
import dev.tandem.sharing.Publication;
import dev.tandem.storage.StorageOptions;
import dev.tandem.storage.TableStorage;
import dev.tandem.storage.TableStorages;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * A runtime takes its time from {@link RuntimeResources}: with a virtual-time timer and a manual clock,
 * introspection is sampled exactly when the test advances time by the sampling interval, never before.
 */
class RuntimeResourcesTest {

    @Test
    void introspectionIsSampledOnTheInjectedTimer() {
        VirtualTimeScheduler time = VirtualTimeScheduler.create();
        AtomicLong clock = new AtomicLong(1_000_000);
        RuntimeResources.SchedulerFactory schedulers = virtualSingle(time);
        Duration interval = Duration.ofSeconds(10);
        RuntimeResources resources = RuntimeResources.of(clock::get).withSchedulers(schedulers).withIntrospectionInterval(interval);
        try (Solo solo = new Solo(time, clock, resources)) {
            ArrangementSharingRegistry registry = solo.registry;
            solo.initialize();
            // Nothing has sampled yet: the sampler runs only on the virtual timer, which has not moved.
            time.advanceTimeBy(interval.minusMillis(1));
            assertThat(records(registry)).as("rows before the first interval").isZero();

            // One more millisecond completes the interval: one sample lists the six logging dataflows.
            time.advanceTimeBy(Duration.ofMillis(1));
            await().atMost(Duration.ofSeconds(20)).until(() -> {
                clock.incrementAndGet();
                time.advanceTimeBy(resources.introspectionTick());
                return records(registry) > 0;
            });
            assertThat(records(registry)).as("one row per logging dataflow and worker").isEqualTo(Introspection.ALL.size());
            assertThat(solo.fatal).isEmpty();
        }
    }

    @Test
    void anExpensiveSampleSpacesTheNextOneOutToKeepTheSamplersCostSmall() {
        VirtualTimeScheduler time = VirtualTimeScheduler.create();
        AtomicLong clock = new AtomicLong(1_000_000);
        // The ticker follows virtual time, plus one second for every sample: as if each sample took a second.
        AtomicLong extra = new AtomicLong();
        AtomicInteger samples = new AtomicInteger();
        Duration interval = Duration.ofSeconds(10);
        RuntimeResources resources = new RuntimeResources(clock::get, () -> time.now(TimeUnit.NANOSECONDS) + extra.get(),
                virtualSingle(time), interval, Duration.ofMillis(20));
        try (Solo solo = new Solo(time, clock, resources)) {
            solo.runtime.addIntrospectionSource(Introspection.SUBSCRIPTIONS.id(), () -> {
                samples.incrementAndGet();
                extra.addAndGet(1_000_000_000L);
                return List.of();
            });
            solo.initialize();
            assertThat(samples).hasValue(0);
            time.advanceTimeBy(interval);
            assertThat(samples).as("the first sample, an interval in").hasValue(1);
            // It took a second: the next comes after 50 seconds, not after the 10 s interval.
            time.advanceTimeBy(Duration.ofSeconds(50).minusMillis(1));
            assertThat(samples).hasValue(1);
            time.advanceTimeBy(Duration.ofMillis(1));
            assertThat(samples).hasValue(2);
            assertThat(solo.fatal).isEmpty();
        }
        assertThat(IntrospectionLogger.nextDelay(100, 1)).as("a cheap sample keeps the interval").isEqualTo(100);
        assertThat(IntrospectionLogger.nextDelay(100, 10)).isEqualTo(10 * IntrospectionLogger.COST_SHARE);
    }

    /** A solo runtime over in-memory storage, on {@code resources}; closing it stops the runtime, the storage and the timers. */
    private static final class Solo implements AutoCloseable {
        final VirtualTimeScheduler time;
        final Scheduler ticks = Schedulers.newSingle("test-ticks");
        final TableStorage storage;
        final ArrangementSharingRegistry registry = new ArrangementSharingRegistry();
        final List<Throwable> fatal = new CopyOnWriteArrayList<>();
        final ComputeRuntime runtime;

        Solo(VirtualTimeScheduler time, AtomicLong clock, RuntimeResources resources) {
            this.time = time;
            this.storage = TableStorages.inMemory(StorageOptions.defaults(ticks).withClock(clock::get));
            this.runtime = ComputeRuntime.builder().role(Role.SOLO).storage(storage).registry(registry).fatalErrorHandler((w, e) -> fatal.add(e))
                    .resources(resources).build();
        }

        /** Brings the runtime up as the controller would, and waits until its introspection indexes are published. */
        void initialize() {
            runtime.send(new ComputeCommand.Hello("test"));
            runtime.send(new ComputeCommand.CreateInstance(Map.of(), ComputeParameters.DEFAULTS));
            runtime.send(new ComputeCommand.InitializationComplete());
            await().atMost(Duration.ofSeconds(20)).until(() -> registry.current(Introspection.DATAFLOWS.id()).published());
        }

        @Override
        public void close() {
            runtime.close();
            storage.close();
            ticks.dispose();
            time.dispose();
        }
    }

    /** Schedulers whose single-threaded timers are {@code time}; the rest are Reactor's. */
    private static RuntimeResources.SchedulerFactory virtualSingle(VirtualTimeScheduler time) {
        return new RuntimeResources.SchedulerFactory() {
            @Override
            public Scheduler newSingle(String name) {
                return time;
            }

            @Override
            public Scheduler newParallel(String name, int threads) {
                return RuntimeResources.SchedulerFactory.REACTOR.newParallel(name, threads);
            }

            @Override
            public Scheduler newBoundedElastic(String name, int threads) {
                return RuntimeResources.SchedulerFactory.REACTOR.newBoundedElastic(name, threads);
            }
        };
    }

    private static long records(ArrangementSharingRegistry registry) {
        Publication p = registry.current(Introspection.DATAFLOWS.id());
        return p.published() ? p.arrangement().snapshot().records() : 0;
    }
}
