package dev.tandem.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.tandem.runtime.MaintenanceReserve.RunWait;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;

/**
 * The maintenance reserve, driven by made-up run and wait times and ticks called by hand: while
 * maintenance gets less than its reserve of the CPU it waits for, peeks beyond a shrinking budget per
 * tick wait for later ticks, first come first served; as the share recovers the budget grows and the
 * limit lifts; an idle maintenance never limits anything.
 */
class MaintenanceReserveTest {

    private static final double MS = 1_000_000;

    /** A source whose totals advance by what each {@link #tick} says, and a reserve over it. */
    private static final class Rig {
        final AtomicReference<RunWait> total = new AtomicReference<>(RunWait.NONE);
        final MaintenanceReserve reserve;

        Rig(double r) {
            reserve = new MaintenanceReserve(r, total::get, 2);
        }

        /** One tick in which maintenance ran {@code runMs} and waited {@code waitMs} for a CPU. */
        void tick(double runMs, double waitMs) {
            RunWait t = total.get();
            total.set(new RunWait(t.runNanos() + (long) (runMs * MS), t.waitNanos() + (long) (waitMs * MS)));
            reserve.tick();
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
    void aStarvedMaintenanceGetsABudgetBelowWhatReadersAskForAndTheRestWaitsInOrder() {
        Rig rig = new Rig(0.7);
        assertThat(admitted(rig.ask(100))).isEqualTo(100);
        rig.tick(2, 18); // share 0.1: the budget starts at 90 % of the 100 asked
        assertThat(rig.reserve.share()).isCloseTo(0.1, Offset.offset(1e-9));
        assertThat(rig.reserve.peekLimitPerSecond()).isCloseTo(90 / 0.025, Offset.offset(1e-6));

        List<AtomicBoolean> first = rig.ask(100);
        assertThat(admitted(first)).isEqualTo(90);
        assertThat(first.subList(0, 90)).allMatch(AtomicBoolean::get);
        assertThat(rig.reserve.waitingPeeks()).isEqualTo(10);
        assertThat(rig.reserve.heldPeeks()).isEqualTo(10);

        // Still short: the budget shrinks again (to 90 % of the 90 it was) and the waiting peeks go first.
        List<AtomicBoolean> second = rig.ask(5);
        rig.tick(2, 18);
        assertThat(rig.reserve.peekLimitPerSecond()).isCloseTo(81 / 0.025, Offset.offset(1e-6));
        assertThat(admitted(first)).isEqualTo(100);
        assertThat(admitted(second)).isEqualTo(5);
        assertThat(rig.reserve.waitingPeeks()).isZero();

        // Short ticks without readers leave the budget as it is: reads are not what starves maintenance then.
        rig.tick(2, 18);
        assertThat(rig.reserve.peekLimitPerSecond()).isCloseTo(81 / 0.025, Offset.offset(1e-6));

        // Many short ticks with readers asking: the budget bottoms out at one peek a tick.
        for (int i = 0; i < 100; i++) {
            rig.ask(10);
            rig.tick(2, 18);
        }
        assertThat(rig.reserve.peekLimitPerSecond()).isCloseTo(1 / 0.025, Offset.offset(1e-6));
        // The readers asked for more than they got: they queue, and each tick admits one of them.
        int waiting = rig.reserve.waitingPeeks();
        assertThat(waiting).isPositive();
        assertThat(admitted(rig.ask(3))).isZero();
        rig.tick(2, 18);
        assertThat(rig.reserve.waitingPeeks()).isEqualTo(waiting + 3 - 1);
    }

    @Test
    void theBudgetGrowsBackAndTheLimitLiftsOnceTheShareRecovers() {
        Rig rig = new Rig(0.7);
        rig.ask(100);
        rig.tick(2, 18);
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
    void aCancelledWaitingPeekGivesItsPlaceUp() {
        Rig rig = new Rig(0.7);
        rig.ask(10);
        rig.tick(2, 18); // budget 9
        rig.ask(9);
        AtomicBoolean cancelledIn = new AtomicBoolean();
        Disposable cancelled = rig.reserve.admission().doOnSuccess(v -> cancelledIn.set(true)).subscribe();
        List<AtomicBoolean> after = rig.ask(1);
        cancelled.dispose();
        rig.tick(2, 18); // budget 8: the cancelled peek is skipped, the one after it admitted
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
        assertThatThrownBy(() -> new MaintenanceReserve(0.95, () -> RunWait.NONE, 2)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tandem.compute.maintenance-reserve");
        assertThatThrownBy(() -> new MaintenanceReserve(-0.1, () -> RunWait.NONE, 2)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theKernelReportsTheRunTimeOfALoweredThread() throws Exception {
        assumeThat(KernelRunWait.available()).as("Linux per-thread scheduler statistics").isTrue();
        KernelRunWait source = new KernelRunWait();
        AtomicReference<RunWait> before = new AtomicReference<>();
        AtomicReference<RunWait> after = new AtomicReference<>();
        Thread t = Thread.ofPlatform().start(() -> {
            if (!ThreadNice.apply(5)) {
                return;
            }
            before.set(source.get());
            long x = 0;
            for (long i = 0; i < 50_000_000L; i++) {
                x += i ^ (x >>> 3);
            }
            after.set(source.get());
            if (x == 42) {
                System.out.println(x);
            }
        });
        assertThat(t.join(Duration.ofSeconds(60))).isTrue();
        assumeThat(before.get()).as("this platform lowers no thread").isNotNull();
        assertThat(after.get().runNanos()).as("the lowered thread's CPU time is counted").isGreaterThan(before.get().runNanos());
    }
}
