package dev.tandem.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Bulk lanes: a hydrated dataflow's round does not queue behind a hydration on the same worker, while a
 * pool without them keeps one queue per worker (tasks in order).
 */
class SchedulerWorkerPoolTest {

    private static final FatalErrorHandler FATAL = (where, t) -> {
        throw new AssertionError(where, t);
    };

    @Test
    void aShortTaskRunsWhileABulkTaskHoldsItsWorkersBulkLane() throws Exception {
        Scheduler scheduler = Schedulers.newBoundedElastic(2, 100, "lanes-test");
        SchedulerWorkerPool pool = new SchedulerWorkerPool("lanes-test", scheduler, 1, true, FATAL);
        try {
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch bulkStarted = new CountDownLatch(1);
            Mono<Void> bulk = pool.run(0, () -> {
                bulkStarted.countDown();
                await(release);
            }, true).cache();
            bulk.subscribe();
            assertThat(bulkStarted.await(10, TimeUnit.SECONDS)).isTrue();
            // The hydration still runs; a short round on the same worker completes meanwhile.
            pool.run(0, () -> { }, false).block(Duration.ofSeconds(10));
            assertThat(release.getCount()).isEqualTo(1);
            release.countDown();
            bulk.block(Duration.ofSeconds(10));
        } finally {
            pool.dispose();
        }
    }

    @Test
    void withoutBulkLanesAWorkersTasksRunInOrder() {
        Scheduler scheduler = Schedulers.newBoundedElastic(1, 100, "one-lane-test");
        SchedulerWorkerPool pool = new SchedulerWorkerPool("one-lane-test", scheduler, 1, FATAL);
        try {
            List<String> ran = new CopyOnWriteArrayList<>();
            CountDownLatch release = new CountDownLatch(1);
            Mono<Void> bulk = pool.run(0, () -> {
                await(release);
                ran.add("bulk");
            }, true).cache();
            bulk.subscribe();
            Mono<Void> shortTask = pool.run(0, () -> ran.add("short"), false).cache();
            shortTask.subscribe();
            release.countDown();
            Mono.when(bulk, shortTask).block(Duration.ofSeconds(10));
            assertThat(ran).containsExactly("bulk", "short");
        } finally {
            pool.dispose();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(30, TimeUnit.SECONDS)) {
                throw new AssertionError("never released");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
