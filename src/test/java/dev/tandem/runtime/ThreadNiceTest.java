package dev.tandem.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tandem.sharing.ArrangementSharingRegistry;
import dev.tandem.storage.StorageOptions;
import dev.tandem.storage.TableStorage;
import dev.tandem.storage.TableStorages;
import dev.tandem.protocol.ComputeCommand;
import dev.tandem.protocol.ComputeParameters;
import dev.tandem.render.WorkerPool.Lane;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/** Maintenance's workers, hydration lanes and command thread take their configured nice values; other threads keep theirs. */
class ThreadNiceTest {

    @Test
    void aPoolsWorkersRunAtItsNiceValueAndOtherThreadsDoNot() {
        assumeTrue(ThreadNice.current().isPresent(), "per-thread nice values are readable only on Linux");
        int before = ThreadNice.current().orElseThrow();
        SchedulerWorkerPool pool = new SchedulerWorkerPool("nice-test", Schedulers.newBoundedElastic(2, 100, "nice-test"), 2,
                (where, t) -> { });
        try {
            pool.setNice(before + 7);
            Optional<Integer> first = pool.call(0, ThreadNice::current).block(Duration.ofSeconds(30));
            Optional<Integer> second = pool.call(1, ThreadNice::current).block(Duration.ofSeconds(30));
            assertThat(first).contains(before + 7);
            assertThat(second).contains(before + 7);
        } finally {
            pool.dispose();
        }
        assertThat(ThreadNice.current()).contains(before);
    }

    @Test
    void hydrationLanesRunAtTheirOwnNiceValue() {
        assumeTrue(ThreadNice.current().isPresent(), "per-thread nice values are readable only on Linux");
        int before = ThreadNice.current().orElseThrow();
        SchedulerWorkerPool pool = new SchedulerWorkerPool("lanes-test", Schedulers.newBoundedElastic(3, 100, "lanes-test"), 1, true,
                (where, t) -> { });
        try {
            pool.setNice(before + 3, before + 8);
            AtomicReference<Optional<Integer>> steady = new AtomicReference<>();
            AtomicReference<Optional<Integer>> bulk = new AtomicReference<>();
            AtomicReference<Optional<Integer>> fresh = new AtomicReference<>();
            pool.run(0, () -> steady.set(ThreadNice.current()), Lane.STEADY).block(Duration.ofSeconds(30));
            pool.run(0, () -> bulk.set(ThreadNice.current()), Lane.BULK).block(Duration.ofSeconds(30));
            pool.run(0, () -> fresh.set(ThreadNice.current()), Lane.FRESH).block(Duration.ofSeconds(30));
            assertThat(steady.get()).contains(before + 3);
            assertThat(bulk.get()).contains(before + 8);
            // Small rounds of hydrated indexes keep the process's own priority.
            assertThat(fresh.get()).contains(before);
        } finally {
            pool.dispose();
        }
    }

    @Test
    void maintenanceCommandsRunAtTheHydrationNiceValue() {
        assumeTrue(ThreadNice.current().isPresent(), "per-thread nice values are readable only on Linux");
        int before = ThreadNice.current().orElseThrow();
        try (RuntimeStack stack = new RuntimeStack(Role.MAINTENANCE, before + 2, before + 5)) {
            CompletableFuture<Optional<Integer>> onCommandThread = new CompletableFuture<>();
            stack.runtime.runAfterCommands(() -> onCommandThread.complete(ThreadNice.current()));
            assertThat(onCommandThread.orTimeout(30, TimeUnit.SECONDS).join()).contains(before + 5);
        }
        assertThat(ThreadNice.current()).contains(before);
    }

    @Test
    void zeroLeavesTheThreadAlone() {
        assumeTrue(ThreadNice.current().isPresent(), "per-thread nice values are readable only on Linux");
        int inherited = ThreadNice.current().orElseThrow();
        SchedulerWorkerPool pool = new SchedulerWorkerPool("plain", Schedulers.newBoundedElastic(1, 100, "plain"), 1, (where, t) -> { });
        try {
            assertThat(pool.call(0, ThreadNice::current).block(Duration.ofSeconds(30))).contains(inherited);
        } finally {
            pool.dispose();
        }
    }

    /**
     * The premise, and the remedy: a thread starts with its creator's nice value, so a pool whose first task a
     * lowered thread schedules would run lowered for life; pools and fixed schedulers made by a lowered thread
     * through {@link ThreadNice} start their threads at normal priority instead.
     */
    @Test
    void threadsALoweredThreadBringsAboutStartAtNormalPriority() throws Exception {
        assumeTrue(ThreadNice.current().isPresent(), "per-thread nice values are readable only on Linux");
        int before = ThreadNice.current().orElseThrow();
        CompletableFuture<List<Optional<Integer>>> seen = new CompletableFuture<>();
        Thread lowered = new Thread(() -> {
            ThreadNice.ensure(before + 6);
            Scheduler plain = Schedulers.newSingle("inherits");
            Scheduler fixed = RuntimeResources.SchedulerFactory.REACTOR.newParallel("started", 2);
            SchedulerWorkerPool pool = new SchedulerWorkerPool("pool", Schedulers.newBoundedElastic(1, 100, "pool"), 1, (where, t) -> { });
            try {
                seen.complete(List.of(
                        Mono.fromCallable(ThreadNice::current).subscribeOn(plain).block(Duration.ofSeconds(30)),
                        Mono.fromCallable(ThreadNice::current).subscribeOn(fixed).block(Duration.ofSeconds(30)),
                        pool.call(0, ThreadNice::current).block(Duration.ofSeconds(30)),
                        ThreadNice.atNormalPriority(ThreadNice::current)));
            } finally {
                plain.dispose();
                fixed.dispose();
                pool.dispose();
            }
        }, "lowered");
        lowered.start();
        List<Optional<Integer>> nice = seen.orTimeout(60, TimeUnit.SECONDS).join();
        assertThat(nice.get(0)).as("a thread a lowered thread started").contains(before + 6);
        assertThat(nice.get(1)).as("a fixed scheduler's thread").contains(before);
        assertThat(nice.get(2)).as("a pool's worker").contains(before);
        assertThat(nice.get(3)).as("work run at normal priority").contains(before);
    }

    /**
     * Maintenance lowers its command thread, which builds the introspection logging, and its workers, which
     * produce frontier reports. The logging's sampler runs at the workers' nice value, not the command
     * thread's; the thread that delivers every response keeps normal priority, so no read answer queues
     * behind a thread the OS deschedules.
     */
    @Test
    void maintenanceResponsesKeepNormalPriorityAndLoggingTakesTheWorkersNice() throws InterruptedException {
        assumeTrue(ThreadNice.current().isPresent(), "per-thread nice values are readable only on Linux");
        int before = ThreadNice.current().orElseThrow();
        try (RuntimeStack stack = new RuntimeStack(Role.MAINTENANCE, before + 2, before + 5)) {
            ComputeRuntime runtime = stack.runtime;
            Set<Optional<Integer>> deliveredAt = ConcurrentHashMap.newKeySet();
            CountDownLatch responses = new CountDownLatch(5);
            stack.subscribed = runtime.responses().subscribe(r -> {
                deliveredAt.add(ThreadNice.current());
                responses.countDown();
            });
            CompletableFuture<Optional<Integer>> sampled = new CompletableFuture<>();
            runtime.addIntrospectionSource(Introspection.SUBSCRIPTIONS.id(), () -> {
                sampled.complete(ThreadNice.current());
                return List.of();
            });
            runtime.send(new ComputeCommand.CreateInstance(Map.of(), ComputeParameters.DEFAULTS));
            assertThat(sampled.orTimeout(30, TimeUnit.SECONDS).join()).as("the logging's sampler").contains(before + 2);
            assertThat(responses.await(30, TimeUnit.SECONDS)).as("frontier reports arrived").isTrue();
            assertThat(deliveredAt).as("where responses are delivered").containsOnly(Optional.of(before));
        }
    }

    /**
     * The interactive runtime's responses are delivered at normal priority even when a lowered maintenance
     * thread brings them about: its mirrors of the introspection collections follow the publications that
     * maintenance's lowered logging thread makes, and report them.
     */
    @Test
    void interactiveResponsesBroughtAboutByALoweredThreadAreDeliveredAtNormalPriority() throws Exception {
        assumeTrue(ThreadNice.current().isPresent(), "per-thread nice values are readable only on Linux");
        int before = ThreadNice.current().orElseThrow();
        try (RuntimeStack stack = new RuntimeStack(Role.INTERACTIVE, 0, 0)) {
            ComputeRuntime interactive = stack.runtime;
            ArrangementSharingRegistry registry = stack.registry;
            CompletableFuture<Optional<Integer>> deliveredAt = new CompletableFuture<>();
            stack.subscribed = interactive.responses().subscribe(r -> deliveredAt.complete(ThreadNice.current()));
            interactive.send(new ComputeCommand.CreateInstance(Map.of(), ComputeParameters.DEFAULTS));
            CompletableFuture<Void> published = new CompletableFuture<>();
            Thread lowered = new Thread(() -> {
                ThreadNice.ensure(before + 4);
                String id = Introspection.DATAFLOWS.id();
                registry.publish(new dev.tandem.sharing.SharedArrangement(id, Introspection.DATAFLOWS.schema(), Introspection.DATAFLOWS.key(),
                        List.of(new dev.tandem.trace.Spine(id, dev.tandem.time.Frontier.at(0))),
                        List.of(new dev.tandem.trace.Spine(id + " errs", dev.tandem.time.Frontier.at(0)))), dev.tandem.time.Frontier.at(5), false);
                published.complete(null);
            }, "lowered-publisher");
            // the mirrors subscribe once the command is applied on the command thread
            interactive.runAfterCommands(lowered::start);
            published.orTimeout(30, TimeUnit.SECONDS).join();
            assertThat(deliveredAt.orTimeout(30, TimeUnit.SECONDS).join()).as("where the mirror's report is delivered").contains(before);
        }
    }

    /**
     * A runtime of one role over an in-memory storage (maintenance shares with a reader), its workers at
     * {@code nice} and its hydrations and commands at {@code hydrationNice}, closed with it.
     */
    private static final class RuntimeStack implements AutoCloseable {
        final Scheduler ticks = Schedulers.newSingle("nice-ticks");
        final TableStorage storage = TableStorages.inMemory(StorageOptions.defaults(ticks));
        final ArrangementSharingRegistry registry = new ArrangementSharingRegistry();
        final ComputeRuntime runtime;
        /** A subscription to the runtime's responses, ended first. */
        Disposable subscribed;

        RuntimeStack(Role role, int nice, int hydrationNice) {
            runtime = ComputeRuntime.builder().role(role).storage(storage).registry(registry).shareWithReader(role == Role.MAINTENANCE)
                    .fatalErrorHandler((where, t) -> { }).workerNice(nice, hydrationNice).build();
        }

        @Override
        public void close() {
            if (subscribed != null) {
                subscribed.dispose();
            }
            runtime.close();
            storage.close();
            ticks.dispose();
        }
    }
}
