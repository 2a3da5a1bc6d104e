package dev.tandem.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import dev.tandem.render.WorkerPool.Lane;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Lanes: a hydrated dataflow's round does not queue behind a hydration on the same worker, nor a small
 * round behind a large one; which round takes which lane; a pool without lanes keeps one queue per worker
 * (tasks in order).
 */
class SchedulerWorkerPoolTest {

    private static final FatalErrorHandler FATAL = (where, t) -> {
        throw new AssertionError(where, t);
    };

    @Test
    void aShortTaskRunsWhileABulkTaskHoldsItsWorkersBulkLane() throws Exception {
        Scheduler scheduler = Schedulers.newBoundedElastic(3, 100, "lanes-test");
        SchedulerWorkerPool pool = new SchedulerWorkerPool("lanes-test", scheduler, 1, true, FATAL);
        try {
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch bulkStarted = new CountDownLatch(1);
            Mono<Void> bulk = pool.run(0, () -> {
                bulkStarted.countDown();
                await(release);
            }, Lane.BULK).cache();
            bulk.subscribe();
            assertThat(bulkStarted.await(10, TimeUnit.SECONDS)).isTrue();
            // The hydration still runs; a short round on the same worker completes meanwhile, on either lane.
            pool.run(0, () -> { }, Lane.STEADY).block(Duration.ofSeconds(10));
            pool.run(0, () -> { }, Lane.FRESH).block(Duration.ofSeconds(10));
            assertThat(release.getCount()).isEqualTo(1);
            release.countDown();
            bulk.block(Duration.ofSeconds(10));
        } finally {
            pool.dispose();
        }
    }

    @Test
    void aFreshRoundRunsWhileASteadyRoundHoldsItsWorker() throws Exception {
        SchedulerWorkerPool pool = new SchedulerWorkerPool("lanes-test", Schedulers.newBoundedElastic(3, 100, "lanes-test"), 1, true, FATAL);
        try {
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch steadyStarted = new CountDownLatch(1);
            List<String> threads = new CopyOnWriteArrayList<>();
            Mono<Void> steady = pool.run(0, () -> {
                threads.add(Thread.currentThread().getName());
                steadyStarted.countDown();
                await(release);
            }, Lane.STEADY).cache();
            steady.subscribe();
            assertThat(steadyStarted.await(10, TimeUnit.SECONDS)).isTrue();
            pool.run(0, () -> threads.add(Thread.currentThread().getName()), Lane.FRESH).block(Duration.ofSeconds(10));
            assertThat(release.getCount()).isEqualTo(1);
            release.countDown();
            steady.block(Duration.ofSeconds(10));
            assertThat(threads).hasSize(2).doesNotHaveDuplicates();
        } finally {
            pool.dispose();
        }
    }

    @Test
    void hydrationsTakeTheBulkLaneSmallTableRoundsTheFreshOneAndTheRestTheSteadyOne() {
        SchedulerWorkerPool pool = new SchedulerWorkerPool("lanes-test", Schedulers.newBoundedElastic(3, 100, "lanes-test"), 1, true, FATAL);
        try {
            long limit = SchedulerWorkerPool.DEFAULT_FRESH_ROUND_UPDATES;
            assertThat(pool.laneFor(true, 5, false, 0)).isEqualTo(Lane.BULK);
            assertThat(pool.laneFor(true, 5, true, 0)).isEqualTo(Lane.BULK);
            assertThat(pool.laneFor(false, 0, false, 0)).isEqualTo(Lane.FRESH);
            assertThat(pool.laneFor(false, limit, false, 0)).isEqualTo(Lane.FRESH);
            assertThat(pool.laneFor(false, limit + 1, false, 0)).isEqualTo(Lane.STEADY);
            // A round reading another index cannot count its updates before it runs.
            assertThat(pool.laneFor(false, 0, true, 0)).isEqualTo(Lane.STEADY);
            // Nor is a round fresh after an expensive one (merges, a join's fan-out).
            long cost = SchedulerWorkerPool.DEFAULT_FRESH_ROUND_NANOS;
            assertThat(pool.laneFor(false, 0, false, cost)).isEqualTo(Lane.FRESH);
            assertThat(pool.laneFor(false, 0, false, cost + 1)).isEqualTo(Lane.STEADY);
            pool.setFreshRoundNanos(cost * 10);
            assertThat(pool.laneFor(false, 0, false, cost + 1)).isEqualTo(Lane.FRESH);

            pool.setFreshRoundUpdates(10);
            assertThat(pool.laneFor(false, 10, false, 0)).isEqualTo(Lane.FRESH);
            assertThat(pool.laneFor(false, 11, false, 0)).isEqualTo(Lane.STEADY);
            pool.setFreshRoundUpdates(0);
            assertThat(pool.laneFor(false, 0, false, 0)).isEqualTo(Lane.STEADY);
            pool.setBulkLanes(false);
            assertThat(pool.laneFor(true, 5, false, 0)).isEqualTo(Lane.STEADY);
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> pool.setFreshRoundUpdates(-1))
                    .isInstanceOf(IllegalArgumentException.class);
        } finally {
            pool.dispose();
        }
    }

    @Test
    void aPoolWithoutLanesHasOneLaneOnly() {
        SchedulerWorkerPool pool = new SchedulerWorkerPool("one-lane-test", Schedulers.newBoundedElastic(1, 100, "one-lane-test"), 1, FATAL);
        try {
            pool.setFreshRoundUpdates(100);
            assertThat(pool.laneFor(true, 5, false, 0)).isEqualTo(Lane.STEADY);
            assertThat(pool.laneFor(false, 5, false, 0)).isEqualTo(Lane.STEADY);
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
            }, Lane.BULK).cache();
            bulk.subscribe();
            Mono<Void> shortTask = pool.run(0, () -> ran.add("short"), Lane.STEADY).cache();
            shortTask.subscribe();
            Mono<Void> freshTask = pool.run(0, () -> ran.add("fresh"), Lane.FRESH).cache();
            freshTask.subscribe();
            release.countDown();
            Mono.when(bulk, shortTask, freshTask).block(Duration.ofSeconds(10));
            assertThat(ran).containsExactly("bulk", "short", "fresh");
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
