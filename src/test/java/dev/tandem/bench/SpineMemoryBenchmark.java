package dev.tandem.bench;

import dev.tandem.trace.Spine;
import dev.tandem.trace.TraceSnapshot;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Memory per update after consolidation: a spine of 10 M distinct {@code (int64, int64)} updates is
 * built and compacted fully, then measured two ways — the packed size the batches report
 * ({@code TraceSnapshot.byteSize() / records()}) and the live-heap growth between a full GC before
 * the build and one after it, divided by the records kept. Both are printed and reported as the
 * secondary results {@code packedBytesPerUpdate} and {@code heapBytesPerUpdate}; the primary score is
 * the time to build and compact. One measured build: the footprint does not depend on warm-up, and JMH
 * sums secondary results over iterations.
 *
 * <p>Run with {@code bin/dev jmh SpineMemoryBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 0)
@Measurement(iterations = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g"})
public class SpineMemoryBenchmark {

    static final int UPDATES = 10_000_000;

    private UpdateStream stream;

    @Setup
    public void packRows() {
        stream = UpdateStream.of(UpdateStream.Shape.INT64_INT64, UPDATES);
    }

    /** The two per-update figures of the last invocation, as JMH secondary results. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Footprint {
        public double packedBytesPerUpdate;
        public double heapBytesPerUpdate;

        @Setup(Level.Iteration)
        public void clear() {
            packedBytesPerUpdate = 0;
            heapBytesPerUpdate = 0;
        }
    }

    @Benchmark
    public Spine buildAndCompact(Footprint footprint) {
        long before = liveHeap();
        Spine spine = SpineWorkload.build(stream);
        spine.compactFully();
        long after = liveHeap();
        TraceSnapshot snap = spine.snapshot();
        footprint.packedBytesPerUpdate = (double) snap.byteSize() / snap.records();
        footprint.heapBytesPerUpdate = (double) (after - before) / snap.records();
        System.out.printf("%n[memory] %d records in %d batches: packed %.2f B/update, heap delta %.2f B/update%n",
                snap.records(), snap.batches().size(), footprint.packedBytesPerUpdate, footprint.heapBytesPerUpdate);
        return spine;
    }

    /** Heap in use after full collections have settled. */
    static long liveHeap() {
        Runtime rt = Runtime.getRuntime();
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 4; i++) {
            System.gc();
            used = Math.min(used, rt.totalMemory() - rt.freeMemory());
        }
        return used;
    }
}
