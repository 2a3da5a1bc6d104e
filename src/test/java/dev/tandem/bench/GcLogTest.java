package dev.tandem.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link GcLog} counts the pauses of G1, Serial and generational ZGC and ZGC's allocation stalls, and nothing concurrent. */
class GcLogTest {

    @Test
    void g1PausesByKindAndNotItsConcurrentCycleOrPhases() {
        GcLog.Pauses p = GcLog.parse(List.of(
                "[0.020s][info][gc] Using G1",
                "[0.199s][info][gc,phases] GC(0)   Evacuate Collection Set: 11.43ms",
                "[0.199s][info][gc       ] GC(0) Pause Young (Normal) (G1 Evacuation Pause) 15M->4M(64M) 14.380ms",
                "[0.480s][info][gc       ] GC(7) Concurrent Mark Cycle",
                "[0.511s][info][gc       ] GC(7) Pause Remark 53M->53M(64M) 2.240ms",
                "[0.562s][info][gc,phases] GC(21) Phase 1: Mark live objects 7.170ms",
                "[0.569s][info][gc       ] GC(21) Pause Full (G1 Compaction Pause) 62M->33M(64M) 16.419ms",
                "[0.569s][info][gc       ] GC(7) Pause Cleanup 33M->33M(64M) 0.008ms",
                "[0.571s][info][gc       ] GC(7) Concurrent Mark Cycle 90.292ms"));
        assertThat(p.all().count).isEqualTo(4);
        assertThat(p.all().totalMs).isCloseTo(14.380 + 2.240 + 16.419 + 0.008, within(1e-9));
        assertThat(p.all().maxMs).isEqualTo(16.419);
        assertThat(p.kinds()).containsOnlyKeys("Young", "Remark", "Full", "Cleanup");
        assertThat(p.stalls().count).isZero();
    }

    @Test
    void zgcPausesAndAllocationStallsApart() {
        GcLog.Pauses p = GcLog.parse(List.of(
                "[0.055s][info][gc] Using The Z Garbage Collector",
                "[0.888s][info][gc] GC(0) Major Collection (Warmup)",
                "[0.889s][info][gc,phases] GC(0) Y: Pause Mark Start (Major) 0.028ms",
                "[0.892s][info][gc,phases] GC(0) Y: Pause Mark End 0.009ms",
                "[0.893s][info][gc,phases] GC(0) O: Pause Relocate Start 0.005ms",
                "[0.908s][info][gc       ] GC(0) Major Collection (Warmup) 8M(12%)->10M(16%) 0.020s",
                "[0.864s][info][gc       ] Allocation Stall (main) 2.332ms",
                "[0.882s][info][gc       ] GC(7) Minor Collection (Allocation Stall)",
                "[0.886s][info][gc       ] GC(7) Minor Collection (Allocation Stall) 24M(100%)->24M(100%) 0.004s",
                "[0.901s][info][gc       ] Allocation Stall (tandem-maintenance-0) 10.085ms"));
        assertThat(p.all().count).isEqualTo(3);
        assertThat(p.kinds()).containsOnlyKeys("Mark Start", "Mark End", "Relocate Start");
        assertThat(p.stalls().count).isEqualTo(2);
        assertThat(p.stalls().totalMs).isCloseTo(12.417, within(1e-9));
        assertThat(p.stalls().maxMs).isEqualTo(10.085);
    }

    @Test
    void readsOnlyCompleteLinesAfterTheOffset(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("gc.log");
        GcLog log = new GcLog(file);
        assertThat(log.offset()).isZero();
        Files.writeString(file, "[0.010s][info][gc] Using Serial\n[0.665s][info][gc] GC(0) Pause Young (Allocation Failure) 18M->5M(61M) 81.421ms\n");
        long offset = log.offset();
        Files.writeString(file, Files.readString(file) + "[1.405s][info][gc       ] GC(9) Pause Full (System.gc()) 56M->43M(61M) 89.138ms\n"
                + "[1.418s][info][gc       ] GC(10) Pause Full (Allocation Failure) 59M->47M(61M) 11.5");
        assertThat(log.collector()).isEqualTo("Serial");
        GcLog.Pauses p = log.since(offset);
        assertThat(p.all().count).isEqualTo(1);
        assertThat(p.all().maxMs).isEqualTo(89.138);
        assertThat(log.since(0).all().count).isEqualTo(2);
    }
}
