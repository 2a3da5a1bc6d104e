package dev.tandem.trace;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.row.Row;
import dev.tandem.time.Frontier;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Builders keep their working arrays in a pool between builds, and the pool keeps no more than its
 * budget: a builder that built a batch too large for it leaves nothing behind, an empty builder holds
 * nothing, and building again reuses what was kept rather than keeping more.
 */
class ScratchPoolTest {

    private static final long BUDGET = 1 << 20;

    @Test
    void aBuildLargerThanTheBudgetKeepsNothingAndASmallOneIsKeptForTheNext() {
        ScratchPool pool = new ScratchPool(BUDGET);
        BatchBuilder b = new BatchBuilder(pool);

        build(b, 200_000);
        assertThat(b.byteSize()).isZero();
        assertThat(pool.retainedBytes()).isZero();

        build(b, 1_000);
        long kept = pool.retainedBytes();
        assertThat(kept).isPositive().isLessThanOrEqualTo(BUDGET);
        assertThat(b.byteSize()).isZero();

        // the next build takes the kept scratch and gives it back: nothing more is kept
        build(b, 1_000);
        assertThat(pool.retainedBytes()).isEqualTo(kept);
    }

    @Test
    void aScratchNotTakenAgainWithinTheIdleTimeIsDropped() {
        java.util.concurrent.atomic.AtomicLong now = new java.util.concurrent.atomic.AtomicLong();
        ScratchPool pool = new ScratchPool(BUDGET, now::get);
        BatchBuilder b = new BatchBuilder(pool);
        build(b, 1_000);
        long kept = pool.retainedBytes();
        assertThat(kept).isPositive();

        now.addAndGet(ScratchPool.MAX_IDLE.toNanos() - 1);
        pool.trimIdle();
        assertThat(pool.retainedBytes()).as("not idle long enough yet").isEqualTo(kept);

        build(b, 1_000); // taken and given back: idle from now on
        now.addAndGet(ScratchPool.MAX_IDLE.toNanos() - 1);
        pool.trimIdle();
        assertThat(pool.retainedBytes()).isEqualTo(kept);
        now.addAndGet(1);
        pool.trimIdle();
        assertThat(pool.retainedBytes()).as("idle for the whole time: dropped").isZero();
        build(b, 1_000);
        assertThat(pool.retainedBytes()).as("a build after that keeps one again").isEqualTo(kept);
    }

    @Test
    void scratchInUseBelongsToItsBuilderAndWhatIsGivenBackStaysWithinTheBudget() {
        ScratchPool pool = new ScratchPool(BUDGET);
        List<BatchBuilder> builders = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            BatchBuilder b = new BatchBuilder(pool);
            add(b, 5_000);
            assertThat(b.byteSize()).isPositive();
            builders.add(b);
        }
        assertThat(pool.retainedBytes()).isZero();
        long given = 0;
        for (BatchBuilder b : builders) {
            given += b.byteSize();
            b.build(Frontier.at(0), Frontier.at(1), Frontier.at(0));
            assertThat(pool.retainedBytes()).isLessThanOrEqualTo(BUDGET);
        }
        assertThat(given).isGreaterThan(BUDGET);
        assertThat(pool.retainedBytes()).isPositive();
    }

    @Test
    void aBuildTakesTheSmallestKeptScratchWithRoomForItsUpdatesElseTheLargest() {
        ScratchPool pool = new ScratchPool(64L << 20);
        BuilderScratch small = scratchFor(100);
        BuilderScratch large = scratchFor(100_000);
        BuilderScratch larger = scratchFor(200_000);
        pool.give(large);
        pool.give(small);
        pool.give(larger);

        assertThat(pool.take(0)).isSameAs(small);
        assertThat(pool.take(50_000)).isSameAs(large);
        pool.give(small);
        pool.give(large);
        assertThat(pool.take(1_000_000)).isSameAs(larger);
        assertThat(pool.retainedBytes()).isEqualTo(small.byteSize() + large.byteSize());
    }

    @Test
    void aSmallBuildDoesNotTakeAScratchManyTimesItsSizeSoThatOneCanGoIdle() {
        java.util.concurrent.atomic.AtomicLong now = new java.util.concurrent.atomic.AtomicLong();
        ScratchPool pool = new ScratchPool(64L << 20, now::get);
        BuilderScratch large = scratchFor(200_000);
        pool.give(large);
        for (int i = 0; i < 10; i++) {
            now.addAndGet(ScratchPool.MAX_IDLE.toNanos() / 4);
            BuilderScratch small = pool.take(10);
            assertThat(small).as("a small build gets a scratch of its own").isNotSameAs(large);
            pool.give(small);
            pool.trimIdle();
        }
        assertThat(pool.take(100_000)).as("the large one went idle and was dropped").isNotSameAs(large);
        BuilderScratch medium = scratchFor(100_000);
        pool.give(medium);
        assertThat(pool.take(20_000)).as("five times the build is not oversized").isSameAs(medium);
    }

    @Test
    void theSharedPoolKeepsAtMostASixtyFourthOfTheHeapOrFourMebibytes() {
        assertThat(ScratchPool.SHARED.budget())
                .isEqualTo(Math.max(4L << 20, Runtime.getRuntime().maxMemory() / 64));
    }

    private static BuilderScratch scratchFor(int n) {
        BuilderScratch s = new BuilderScratch();
        s.keys.reserve(0, n);
        s.reserveUpdates(n);
        s.reserveSort(n);
        return s;
    }

    private static void build(BatchBuilder b, int n) {
        add(b, n);
        assertThat(b.build(Frontier.at(0), Frontier.at(1), Frontier.at(0)).updateCount()).isEqualTo(n);
    }

    private static void add(BatchBuilder b, int n) {
        for (int i = 0; i < n; i++) {
            Row row = Row.of((long) i * 7919 % n, (long) i);
            b.addKeyedBy(new int[] {0}, row, 0, 1);
        }
    }
}
