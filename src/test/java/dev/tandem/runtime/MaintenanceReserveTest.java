package dev.tandem.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.tandem.runtime.MaintenanceReserve.Sample;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;

/**
 * The maintenance reserve, driven by made-up run, wait and reader times and ticks called by hand: while
 * reads take more than their part of the CPU maintenance wants, peeks beyond a shrinking budget per
 * tick wait for later ticks, first come first served; as the share recovers the budget grows and the
 * limit lifts; an idle maintenance, or one kept waiting by something other than reads, never limits
 * anything.
 */
class MaintenanceReserveTest {

    private static final double MS = 1_000_000;

    /** A source whose totals advance by what each {@link #tick} says, and a reserve over it. */
    private static final class Rig {
        final AtomicReference<Sample> total;
        final MaintenanceReserve reserve;

        Rig(double r) {
            this(r, Sample.NONE);
        }

        Rig(double r, Sample start) {
            total = new AtomicReference<>(start);
            reserve = new MaintenanceReserve(r, total::get, 2);
        }

        /** One tick in which maintenance ran {@code runMs} and waited {@code waitMs} for a CPU that readers had. */
        void tick(double runMs, double waitMs) {
            tick(runMs, waitMs, waitMs);
        }

        /** One tick in which maintenance ran {@code runMs} and waited {@code waitMs}, and readers ran {@code readMs}. */
        void tick(double runMs, double waitMs, double readMs) {
            Sample t = total.get();
            total.set(new Sample(t.runNanos() + (long) (runMs * MS), t.waitNanos() + (long) (waitMs * MS),
                    t.readerRunNanos() + (long) (readMs * MS)));
            reserve.tick();
        }

        /**
         * One tick in which maintenance ran {@code runMs} and waited {@code waitMs}, readers ran {@code readMs},
         * and everything else on the machine (the collector, a client, another process) {@code otherMs}.
         */
        void tick(double runMs, double waitMs, double readMs, double otherMs) {
            Sample t = total.get();
            long machine = t.machineRunNanos() + (long) ((runMs + readMs + otherMs) * MS);
            total.set(new Sample(t.runNanos() + (long) (runMs * MS), t.waitNanos() + (long) (waitMs * MS),
                    t.readerRunNanos() + (long) (readMs * MS), machine));
            reserve.tick();
        }

        /** Enough busy ticks for a limit, each with 100 peeks and maintenance getting a tenth of what it wants. */
        void starve() {
            for (int i = 0; i < MaintenanceReserve.MIN_EVIDENCE_TICKS; i++) {
                ask(100);
                tick(2, 18);
            }
        }

        /** Asks for {@code n} admissions; returns a flag per peek that is set once it is admitted. */
        List<AtomicBoolean> ask(int n) {
            List<AtomicBoolean> flags = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                AtomicBoolean in = new AtomicBoolean();
                reserve.admission().doOnSuccess(v -> in.set(true)).subscribe();
                flags.add(in);
            }
            return flags;
        }
    }

    private static long admitted(List<AtomicBoolean> flags) {
        return flags.stream().filter(AtomicBoolean::get).count();
    }

    @Test
    void anIdleOrWellServedMaintenanceNeverLimitsReads() {
        Rig rig = new Rig(0.7);
        for (int i = 0; i < 20; i++) {
            assertThat(admitted(rig.ask(100))).isEqualTo(100);
            rig.tick(i % 2 == 0 ? 0.1 : 20, i % 2 == 0 ? 0.5 : 2); // idle, or 91 % of what it waits for
        }
        assertThat(rig.reserve.peekLimitPerSecond()).isNaN();
        assertThat(rig.reserve.heldPeeks()).isZero();
    }

    @Test
    void aStarvedMaintenanceGetsTheBudgetThatWouldHaveKeptReadsWithinTheirPartAndTheRestWaitsInOrder() {
        Rig rig = new Rig(0.7);
        // Maintenance runs 10 ms a tick and readers take 20 of the 30 it waits: share 1/3. Fewer busy
        // ticks than the evidence needs limit nothing.
        for (int i = 0; i < MaintenanceReserve.MIN_EVIDENCE_TICKS; i++) {
            assertThat(rig.reserve.peekLimitPerSecond()).isNaN();
            assertThat(admitted(rig.ask(100))).isEqualTo(100);
            rig.tick(10, 30, 20);
        }
        assertThat(rig.reserve.share()).isCloseTo(1.0 / 3, Offset.offset(1e-9));
        // Reads may take 30 * 0.3 / 0.7 = 12.9 ms of the window, so of the 100 peeks a tick that cost 20 ms,
        // 21 a tick; but the budget falls by halves at most: 50 after the 100 of the last tick.
        assertThat(rig.reserve.peekLimitPerSecond()).isCloseTo(50 / 0.025, Offset.offset(1e-6));

        List<AtomicBoolean> first = rig.ask(60);
        assertThat(admitted(first)).isEqualTo(50);
        assertThat(first.subList(0, 50)).allMatch(AtomicBoolean::get);
        assertThat(rig.reserve.waitingPeeks()).isEqualTo(10);
        assertThat(rig.reserve.heldPeeks()).isEqualTo(10);

        // The 50 peeks cost 10 ms: the window (run 40, taken 70, 350 peeks over four ticks) asks for
        // 87.5 * (40 * 3 / 7) / 70 = 21.4 a tick, and the budget halves to 25; the waiting peeks go first.
        List<AtomicBoolean> second = rig.ask(5);
        rig.tick(10, 30, 10);
        assertThat(rig.reserve.peekLimitPerSecond()).isCloseTo(25 / 0.025, Offset.offset(1e-6));
        assertThat(admitted(first)).isEqualTo(60);
        assertThat(admitted(second)).isEqualTo(5);
        assertThat(rig.reserve.waitingPeeks()).isZero();

        // 15 ran in that tick (5 ms); then the window's 21 a tick is the budget.
        rig.ask(40);
        rig.tick(10, 30, 5);
        assertThat(rig.reserve.peekLimitPerSecond()).isCloseTo(21 / 0.025, Offset.offset(1e-6));
    }

    @Test
    void aHydrationsFirstTicksAloneNeverLimitReads() {
        Rig rig = new Rig(0.7);
        for (int round = 0; round < 20; round++) {
            // maintenance's threads woken and waiting behind the readers before they have run, then idle
            for (int i = 0; i < MaintenanceReserve.MIN_EVIDENCE_TICKS - 1; i++) {
                assertThat(admitted(rig.ask(50))).isEqualTo(50);
                rig.tick(0.1, 40, 25);
            }
            rig.tick(0, 0, 25);
        }
        assertThat(rig.reserve.heldPeeks()).isZero();
        assertThat(rig.reserve.peekLimitPerSecond()).isNaN();
    }

    /**
     * A closed model of the machine: two cores, maintenance wanting both, readers asking 200 peeks a tick
     * at 0.5 ms of CPU each and served first. Left alone, reads would take everything; the reserve settles
     * where reads take their part of what maintenance wants (0.3 of it: 15 ms a tick, 30 peeks) and
     * neither starves: the budget neither collapses to one peek nor swings between extremes.
     */
    @Test
    void underASteadyFloodTheBudgetSettlesWhereReadsTakeTheirPart() {
        Rig rig = new Rig(0.7);
        List<AtomicBoolean> all = new ArrayList<>();
        long before = 0;
        List<Long> perTick = new ArrayList<>();
        List<Double> shares = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            all.addAll(rig.ask(200));
            long now = admitted(all); // peeks admitted at the last tick and in this one ran in this one
            long ran = now - before;
            before = now;
            double readMs = Math.min(50, ran * 0.5);
            rig.tick(50 - readMs, readMs, readMs);
            perTick.add(ran);
            shares.add(rig.reserve.share());
        }
        List<Long> settled = perTick.subList(100, 200);
        double mean = settled.stream().mapToLong(Long::longValue).average().orElseThrow();
        assertThat(mean).as("peeks a tick once settled").isBetween(25.0, 35.0);
        assertThat(settled).as("no collapse to one peek a tick, no flood").allMatch(n -> n >= 15 && n <= 60);
        assertThat(shares.subList(100, 200)).allMatch(x -> x > 0.6 && x < 0.8);
    }

    @Test
    void theBudgetGrowsBackAndTheLimitLiftsOnceTheShareRecovers() {
        Rig rig = new Rig(0.7);
        rig.starve();
        assertThat(rig.reserve.peekLimitPerSecond()).isNotNaN();
        int ticks = 0;
        while (!Double.isNaN(rig.reserve.peekLimitPerSecond()) && ticks < 200) {
            rig.ask(10);
            rig.tick(20, 1); // well served again
            ticks++;
        }
        assertThat(rig.reserve.peekLimitPerSecond()).isNaN();
        // The window still holds the short tick at first: a few ticks pass before the share is above the reserve.
        assertThat(ticks).isGreaterThan(1);
        assertThat(admitted(rig.ask(1000))).isEqualTo(1000);
    }

    @Test
    void anIdleTickLiftsTheLimitAndAdmitsEveryWaitingPeek() {
        Rig rig = new Rig(0.7);
        rig.starve();
        List<AtomicBoolean> waiting = rig.ask(150);
        assertThat(admitted(waiting)).isLessThan(150);
        rig.tick(0, 0);
        assertThat(rig.reserve.peekLimitPerSecond()).isNaN();
        assertThat(admitted(waiting)).isEqualTo(150);
    }

    @Test
    void theShareIsMeasuredOverTheWindowAndAnIdleTickStartsItAfresh() {
        Rig rig = new Rig(0.5);
        for (int i = 0; i < MaintenanceReserve.WINDOW_TICKS; i++) {
            rig.tick(1, 19);
        }
        assertThat(rig.reserve.share()).isCloseTo(0.05, Offset.offset(1e-9));
        rig.tick(0, 0); // idle
        assertThat(rig.reserve.share()).isEqualTo(1.0);
        rig.tick(15, 5);
        assertThat(rig.reserve.share()).as("only the tick after the idle one counts").isCloseTo(0.75, Offset.offset(1e-9));
    }

    @Test
    void maintenanceThreadsWaitingForEachOtherAreNotHeldAgainstTheReads() {
        Rig rig = new Rig(0.7);
        rig.ask(100);
        // Three threads busy for the whole tick on two cores: 50 ms run, 25 ms waiting, all the machine could give.
        rig.tick(50, 25);
        assertThat(rig.reserve.share()).isEqualTo(1.0);
        assertThat(rig.reserve.peekLimitPerSecond()).isNaN();
        // The same threads getting one core of the two while readers ask: short.
        rig.ask(100);
        rig.tick(25, 50);
        assertThat(rig.reserve.share()).isCloseTo(75.0 / 100, Offset.offset(1e-9));
        rig.ask(100);
        rig.tick(20, 55);
        assertThat(rig.reserve.share()).isCloseTo(95.0 / 150, Offset.offset(1e-9));
        assertThat(rig.reserve.peekLimitPerSecond()).isNotNaN();
    }

    @Test
    void waitingForAnythingButTheReadsIsNotHeldAgainstThem() {
        Rig rig = new Rig(0.7);
        for (int i = 0; i < 3 * MaintenanceReserve.WINDOW_TICKS; i++) {
            assertThat(admitted(rig.ask(100))).isEqualTo(100);
            // Maintenance gets a fifth of what it wants, but readers ran 1 ms a tick: the compiler, the
            // collector or another process took the rest, and holding reads back would not give it back.
            rig.tick(5, 20, 1);
        }
        assertThat(rig.reserve.share()).isCloseTo(5.0 / 6, Offset.offset(1e-9));
        assertThat(rig.reserve.peekLimitPerSecond()).isNaN();
        assertThat(rig.reserve.heldPeeks()).isZero();
    }

    @Test
    void maintenancesWaitIsSharedOutAmongEverythingThatRanWhenTheMachinesRunTimeIsKnown() {
        Rig known = new Rig(0.5, new Sample(0, 0, 0, 0));
        Rig unknown = new Rig(0.5);
        for (int i = 0; i < 2 * MaintenanceReserve.WINDOW_TICKS; i++) {
            // Maintenance ran 10 ms and waited 40 (all it could have had on two cores); readers ran 15 ms and
            // a client on the same machine 25. Without the machine's figure the whole 15 ms is held against
            // the reads: 10 / 25, short of a half. With it, reads took 15 / 40 of the 15 ms wait they could
            // account for: 10 / (10 + 5.625).
            known.ask(100);
            known.tick(10, 40, 15, 25);
            unknown.ask(100);
            unknown.tick(10, 40, 15);
        }
        assertThat(unknown.reserve.share()).isCloseTo(10.0 / 25, Offset.offset(1e-9));
        assertThat(unknown.reserve.peekLimitPerSecond()).as("held against the reads alone: limited").isNotNaN();
        assertThat(known.reserve.share()).isCloseTo(10.0 / (10 + 15 * 15.0 / 40), Offset.offset(1e-6));
        assertThat(known.reserve.peekLimitPerSecond()).isNaN();
        assertThat(known.reserve.heldPeeks()).isZero();

        // Nothing else ran: the reads took what maintenance waited for, and are held back as before.
        Rig alone = new Rig(0.5, new Sample(0, 0, 0, 0));
        for (int i = 0; i < 2 * MaintenanceReserve.WINDOW_TICKS; i++) {
            alone.ask(100);
            alone.tick(10, 40, 15, 0);
        }
        assertThat(alone.reserve.share()).isCloseTo(10.0 / 25, Offset.offset(1e-9));
        assertThat(alone.reserve.peekLimitPerSecond()).isNotNaN();
    }

    @Test
    void readsTakingATinyPartOfTheMachineAreNeverHeld() {
        Rig rig = new Rig(0.5);
        for (int i = 0; i < 3 * MaintenanceReserve.WINDOW_TICKS; i++) {
            assertThat(admitted(rig.ask(10))).isEqualTo(10);
            // Maintenance ran 1 ms and waited 20 while readers ran 4 ms (8 % of the machine's 50 ms a tick): its
            // share is short (1 / 5), but holding reads could give it at most those 4 ms.
            rig.tick(1, 20, 4);
        }
        assertThat(rig.reserve.share()).isCloseTo(1.0 / 5, Offset.offset(1e-9));
        assertThat(rig.reserve.peekLimitPerSecond()).isNaN();
        assertThat(rig.reserve.heldPeeks()).isZero();
        // The same shortfall with readers at 6 ms a tick (12 % of the machine) is theirs: limited.
        for (int i = 0; i < MaintenanceReserve.WINDOW_TICKS; i++) {
            rig.ask(10);
            rig.tick(1, 20, 6);
        }
        assertThat(rig.reserve.peekLimitPerSecond()).isNotNaN();
    }

    @Test
    void whatReadsTakeIsAtMostWhatTheyRanAndAtMostWhatMaintenanceWaited() {
        Rig rig = new Rig(0.7);
        for (int i = 0; i < MaintenanceReserve.MIN_EVIDENCE_TICKS; i++) {
            rig.ask(100);
            rig.tick(10, 20, 8); // readers ran 8 of the 20 ms maintenance waited: 10 / (10 + 8)
        }
        assertThat(rig.reserve.share()).isCloseTo(10.0 / 18, Offset.offset(1e-9));
        assertThat(rig.reserve.peekLimitPerSecond()).as("short of 0.7: limited").isNotNaN();
        rig.tick(10, 2, 40); // readers ran 40, but maintenance waited only 2: (30 + 10) / (40 + 24 + 2)
        assertThat(rig.reserve.share()).isCloseTo(40.0 / 66, Offset.offset(1e-9));
    }

    @Test
    void aCancelledWaitingPeekGivesItsPlaceUp() {
        Rig rig = new Rig(0.5);
        for (int i = 0; i < MaintenanceReserve.MIN_EVIDENCE_TICKS; i++) {
            rig.ask(10);
            rig.tick(10, 12, 12); // share 10/22; reads may take 10 ms of the 12: 10 * 10 / 12 = 8 a tick
        }
        assertThat(admitted(rig.ask(8))).isEqualTo(8);
        AtomicBoolean cancelledIn = new AtomicBoolean();
        Disposable cancelled = rig.reserve.admission().doOnSuccess(v -> cancelledIn.set(true)).subscribe();
        List<AtomicBoolean> after = rig.ask(1);
        cancelled.dispose();
        rig.tick(10, 12, 12); // budget 9.5 * 40 / 48 = 7: the cancelled peek is skipped, the one after it admitted
        assertThat(rig.reserve.peekLimitPerSecond()).isCloseTo(7 / 0.025, Offset.offset(1e-6));
        assertThat(cancelledIn).isFalse();
        assertThat(admitted(after)).isEqualTo(1);
    }

    @Test
    void aReserveOfZeroNeverLimitsAndOneOutOfRangeIsRefused() {
        Rig rig = new Rig(0);
        for (int i = 0; i < 50; i++) {
            assertThat(admitted(rig.ask(20))).isEqualTo(20);
            rig.tick(0.5, 24);
        }
        assertThat(rig.reserve.peekLimitPerSecond()).isNaN();
        assertThatThrownBy(() -> new MaintenanceReserve(0.95, () -> Sample.NONE, 2)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tandem.compute.maintenance-reserve");
        assertThatThrownBy(() -> new MaintenanceReserve(-0.1, () -> Sample.NONE, 2)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theMachinesBusyTimeIsSummedOverTheProcessorsThisProcessMayUse() throws Exception {
        String stat = """
                cpu  300 10 100 5000 40 0 5 0 0 0
                cpu0 100 5 50 2500 20 0 2 0 0 0
                cpu1 200 5 50 2500 20 0 3 1 0 0
                cpu2 999 0 0 0 0 0 0 0 0 0
                intr 12345
                ctxt 67890
                """;
        assertThat(KernelCpuTimes.cpuList("0-1")).isEqualTo(KernelCpuTimes.cpuList(" 0,1\n"));
        assertThat(KernelCpuTimes.cpuList("0-3,8,10-11").cardinality()).isEqualTo(7);
        // cpu0: user 100 + nice 5 + system 50 + irq 0 + softirq 2 + steal 0 (idle and I/O wait left out)
        assertThat(KernelCpuTimes.busyClockTicks(stat, KernelCpuTimes.cpuList("0"))).isEqualTo(157);
        assertThat(KernelCpuTimes.busyClockTicks(stat, KernelCpuTimes.cpuList("0-1"))).isEqualTo(157 + 259);
        assertThat(KernelCpuTimes.busyClockTicks(stat, KernelCpuTimes.cpuList("5"))).as("none of them").isEqualTo(-1);

        assumeThat(KernelCpuTimes.available()).as("Linux per-thread scheduler statistics").isTrue();
        KernelCpuTimes source = new KernelCpuTimes();
        long before = source.get().machineRunNanos();
        Thread t = Thread.ofPlatform().start(MaintenanceReserveTest::spin);
        assertThat(t.join(Duration.ofSeconds(60))).isTrue();
        assertThat(before).isGreaterThanOrEqualTo(0);
        assertThat(source.get().machineRunNanos()).as("spinning a thread makes the machine busier").isGreaterThan(before);
    }

    @Test
    void theKernelReportsTheRunTimeOfALoweredThread() throws Exception {
        assumeThat(KernelCpuTimes.available()).as("Linux per-thread scheduler statistics").isTrue();
        KernelCpuTimes source = new KernelCpuTimes();
        AtomicReference<Sample> before = new AtomicReference<>();
        AtomicReference<Sample> after = new AtomicReference<>();
        Thread t = Thread.ofPlatform().start(() -> {
            if (!ThreadNice.apply(5)) {
                return;
            }
            before.set(source.get());
            spin();
            after.set(source.get());
        });
        assertThat(t.join(Duration.ofSeconds(60))).isTrue();
        assumeThat(before.get()).as("this platform lowers no thread").isNotNull();
        assertThat(after.get().runNanos()).as("the lowered thread's CPU time is counted").isGreaterThan(before.get().runNanos());
    }

    @Test
    void theKernelReportsTheRunTimeOfTheThreadsThatServeReads() throws Exception {
        assumeThat(KernelCpuTimes.available()).as("Linux per-thread scheduler statistics").isTrue();
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch measured = new CountDownLatch(1);
        CountDownLatch spun = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        KernelCpuTimes source = new KernelCpuTimes();
        Thread reader = Thread.ofPlatform().name("tandem-interactive-test").start(() -> {
            started.countDown();
            try {
                if (measured.await(60, TimeUnit.SECONDS)) {
                    spin();
                    spun.countDown();
                    done.await(60, TimeUnit.SECONDS); // an ended thread's times drop out: stay until measured
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertThat(started.await(60, TimeUnit.SECONDS)).isTrue();
        Sample before = source.get(); // the first sample looks the readers up by name
        measured.countDown();
        assertThat(spun.await(60, TimeUnit.SECONDS)).isTrue();
        Sample after = source.get();
        done.countDown();
        assertThat(reader.join(Duration.ofSeconds(60))).isTrue();
        assertThat(after.readerRunNanos() - before.readerRunNanos()).as("the reader's spin is counted").isGreaterThan(1_000_000);
        assertThat(KernelCpuTimes.threadsNamed(List.of("no-such-thread-"))).isEmpty();
    }

    private static void spin() {
        long x = 0;
        for (long i = 0; i < 50_000_000L; i++) {
            x += i ^ (x >>> 3);
        }
        if (x == 42) {
            System.out.println(x);
        }
    }
}
