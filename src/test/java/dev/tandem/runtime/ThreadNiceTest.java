package dev.tandem.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tandem.sharing.ArrangementSharingRegistry;
import dev.tandem.storage.StorageOptions;
import dev.tandem.storage.TableStorage;
import dev.tandem.storage.TableStorages;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
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
        SchedulerWorkerPool pool = new SchedulerWorkerPool("lanes-test", Schedulers.newBoundedElastic(2, 100, "lanes-test"), 1, true,
                (where, t) -> { });
        try {
            pool.setNice(before + 3, before + 8);
            AtomicReference<Optional<Integer>> steady = new AtomicReference<>();
            AtomicReference<Optional<Integer>> bulk = new AtomicReference<>();
            pool.run(0, () -> steady.set(ThreadNice.current()), false).block(Duration.ofSeconds(30));
            pool.run(0, () -> bulk.set(ThreadNice.current()), true).block(Duration.ofSeconds(30));
            assertThat(steady.get()).contains(before + 3);
            assertThat(bulk.get()).contains(before + 8);
        } finally {
            pool.dispose();
        }
    }

    @Test
    void maintenanceCommandsRunAtTheHydrationNiceValue() {
        assumeTrue(ThreadNice.current().isPresent(), "per-thread nice values are readable only on Linux");
        int before = ThreadNice.current().orElseThrow();
        Scheduler ticks = Schedulers.newSingle("nice-ticks");
        TableStorage storage = TableStorages.inMemory(StorageOptions.defaults(ticks));
        ComputeRuntime runtime = ComputeRuntime.create(Role.MAINTENANCE, 1, storage, new ArrangementSharingRegistry(), true,
                (where, t) -> { }, System::currentTimeMillis, RuntimeObserver.NONE);
        try {
            runtime.setWorkerNice(before + 2, before + 5);
            CompletableFuture<Optional<Integer>> onCommandThread = new CompletableFuture<>();
            runtime.runAfterCommands(() -> onCommandThread.complete(ThreadNice.current()));
            assertThat(onCommandThread.orTimeout(30, TimeUnit.SECONDS).join()).contains(before + 5);
        } finally {
            runtime.close();
            storage.close();
            ticks.dispose();
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
}
