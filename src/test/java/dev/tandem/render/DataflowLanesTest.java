package dev.tandem.render;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.plan.DataflowDescription;
import dev.tandem.plan.Plan;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.runtime.SchedulerWorkerPool;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The lane of each round, as a dataflow asks its pool: its first round (the hydration) on the bulk lane;
 * then a round of a few table updates on the fresh lane and one of many on the steady lane; every round of
 * a dataflow that reads another index on the steady lane, and a round after an expensive one too. Each
 * round's tasks all run on the lane asked for.
 */
class DataflowLanesTest {

    /** One round as the dataflow described it to the pool, and the lanes its tasks ran on. */
    private record Asked(boolean first, long updates, boolean readsIndexes, long previousNanos, WorkerPool.Lane lane) {
    }

    /** Delegates to a pool with lanes and records what each round asked for. */
    private static final class RecordingPool implements WorkerPool {
        final SchedulerWorkerPool pool;
        final List<Asked> asked = new CopyOnWriteArrayList<>();
        final List<Lane> ran = new CopyOnWriteArrayList<>();

        RecordingPool(SchedulerWorkerPool pool) {
            this.pool = pool;
        }

        @Override
        public int size() {
            return pool.size();
        }

        @Override
        public Mono<Void> run(int worker, Runnable task) {
            return run(worker, task, Lane.STEADY);
        }

        @Override
        public Mono<Void> run(int worker, Runnable task, Lane lane) {
            ran.add(lane);
            return pool.run(worker, task, lane);
        }

        @Override
        public Lane laneFor(boolean first, long updates, boolean readsIndexes, long previousNanos) {
            Lane lane = pool.laneFor(first, updates, readsIndexes, previousNanos);
            asked.add(new Asked(first, updates, readsIndexes, previousNanos, lane));
            return lane;
        }

        void clear() {
            asked.clear();
            ran.clear();
        }
    }

    @Test
    void hydrationSmallRoundsLargeRoundsAndIndexReadersEachTakeTheirLane() {
        try (RenderHarness h = new RenderHarness(1)) {
            SchedulerWorkerPool lanes = new SchedulerWorkerPool("lanes", Schedulers.newBoundedElastic(6, 100_000, "lanes"), 2, true,
                    (where, t) -> h.fatal.add(t));
            // What rounds cost is the machine's; the lanes by size are checked first, by cost at the end.
            lanes.setFreshRoundNanos(Long.MAX_VALUE);
            RecordingPool pool = new RecordingPool(lanes);
            List<Dataflow> dataflows = new CopyOnWriteArrayList<>();
            try {
                long limit = SchedulerWorkerPool.DEFAULT_FRESH_ROUND_UPDATES;
                h.createTable("u1", List.of(DatumType.INT64, DatumType.INT64));
                long t0 = h.write("u1", rows(0, 10));
                DataflowDescription desc = new DataflowDescription(Map.of("u1", h.schemas.get("u1")), Map.of(),
                        List.of(new DataflowDescription.BuildDesc("o1", Plan.get("u1"))),
                        List.of(new DataflowDescription.IndexExport("u2", "o1", List.of(0))), t0, null);
                Dataflow index = start(h, pool, "u2", desc, dataflows);
                h.awaitSealed(index, t0);
                assertThat(pool.asked).first().satisfies(a -> {
                    assertThat(a.first()).isTrue();
                    assertThat(a.lane()).isEqualTo(WorkerPool.Lane.BULK);
                });
                assertThat(pool.ran).first().isEqualTo(WorkerPool.Lane.BULK);

                // One row: a small round, on the fresh lane, with every task of it.
                pool.clear();
                long t1 = h.write("u1", rows(100, 1));
                h.awaitSealed(index, t1);
                assertThat(pool.asked).anySatisfy(a -> assertThat(a.updates()).isEqualTo(1));
                assertThat(pool.asked).allSatisfy(a -> {
                    assertThat(a.first()).isFalse();
                    assertThat(a.updates()).isLessThanOrEqualTo(limit);
                    assertThat(a.lane()).isEqualTo(WorkerPool.Lane.FRESH);
                });
                assertThat(pool.ran).isNotEmpty().containsOnly(WorkerPool.Lane.FRESH);

                // More rows in one write than a fresh round takes: that round runs on the steady lane.
                pool.clear();
                long t2 = h.write("u1", rows(1_000, (int) limit + 1));
                h.awaitSealed(index, t2);
                assertThat(pool.asked).anySatisfy(a -> {
                    assertThat(a.updates()).isEqualTo(limit + 1);
                    assertThat(a.lane()).isEqualTo(WorkerPool.Lane.STEADY);
                });
                assertThat(pool.ran).contains(WorkerPool.Lane.STEADY);

                // A dataflow reading the index: hydrated on the bulk lane, then steady whatever its size.
                pool.clear();
                DataflowDescription readerDesc = new DataflowDescription(Map.of(),
                        Map.of("u2", new DataflowDescription.IndexImport("u1", List.of(0), h.schemas.get("u1"))),
                        List.of(new DataflowDescription.BuildDesc("o3", Plan.get("u2"))),
                        List.of(new DataflowDescription.IndexExport("u3", "o3", List.of(0))), t2, null);
                Dataflow reader = start(h, pool, "u3", readerDesc, dataflows);
                h.awaitSealed(reader, t2);
                long t3 = h.write("u1", rows(5_000, 1));
                h.awaitSealed(reader, t3);
                h.awaitSealed(index, t3);
                List<Asked> readers = pool.asked.stream().filter(Asked::readsIndexes).toList();
                assertThat(readers).first().satisfies(a -> assertThat(a.lane()).isEqualTo(WorkerPool.Lane.BULK));
                assertThat(readers.subList(1, readers.size())).isNotEmpty()
                        .allSatisfy(a -> assertThat(a.lane()).isEqualTo(WorkerPool.Lane.STEADY));
                assertThat(RenderHarness.read(reader.exports().get(0), t3).rows()).hasSize(10 + 1 + (int) limit + 1 + 1);

                // Each round is told what its dataflow's previous round cost; a costly one makes the next steady.
                assertThat(pool.asked).filteredOn(a -> !a.first()).allSatisfy(a -> assertThat(a.previousNanos()).isNotNegative());
                assertThat(pool.asked).filteredOn(a -> !a.first()).anySatisfy(a -> assertThat(a.previousNanos()).isPositive());
                reader.drop();
                lanes.setFreshRoundNanos(0);
                pool.clear();
                long t4 = h.write("u1", rows(6_000, 1));
                h.awaitSealed(index, t4);
                assertThat(pool.asked).anySatisfy(a -> assertThat(a.updates()).isEqualTo(1));
                assertThat(pool.asked).allSatisfy(a -> assertThat(a.lane()).isEqualTo(WorkerPool.Lane.STEADY));
            } finally {
                dataflows.forEach(Dataflow::drop);
                lanes.dispose();
            }
        }
    }

    /** Renders and schedules {@code desc} on {@code pool}; it joins {@code started}, to be dropped at the end. */
    private static Dataflow start(RenderHarness h, WorkerPool pool, String id, DataflowDescription desc, List<Dataflow> started) {
        Dataflow df = Dataflow.render(id, desc, new Dataflow.Env(pool, h.storage, h.registry, DataflowListener.NONE, System::currentTimeMillis,
                Dataflow.StepObserver.NONE));
        started.add(df);
        df.schedule();
        return df;
    }

    /** {@code n} rows {@code (k, k)} from key {@code from}, each once. */
    private static Map<Row, Long> rows(long from, int n) {
        Map<Row, Long> rows = new HashMap<>();
        for (long k = from; k < from + n; k++) {
            rows.put(Row.of(k, k), 1L);
        }
        return rows;
    }
}
