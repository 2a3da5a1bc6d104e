package dev.tandem.bench;

import dev.tandem.trace.Spine;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Insert and merge throughput, in updates per second on one thread: each invocation builds a spine of
 * 10 M updates with distinct keys from batches of 10 k (sorted and consolidated by a
 * {@code BatchBuilder}, then inserted with fuelled merging behind a lagging read hold). Rows are packed
 * beforehand, so the figure is the engine's cost alone. Each invocation also prints its rate per second of
 * the benchmark thread's CPU time, which a shared machine disturbs less than the wall-clock score.
 *
 * <p>Run with {@code bin/dev jmh SpineInsertBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@OperationsPerInvocation(SpineInsertBenchmark.UPDATES)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms6g", "-Xmx6g"})
public class SpineInsertBenchmark {

    static final int UPDATES = 10_000_000;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    @Param({"INT64_INT64", "STRING_3COL"})
    public String shape;

    private UpdateStream stream;

    @Setup
    public void packRows() {
        stream = UpdateStream.of(UpdateStream.Shape.valueOf(shape), UPDATES);
    }

    @Benchmark
    public Spine insertAndMerge() {
        long cpu = THREADS.getCurrentThreadCpuTime();
        long wall = System.nanoTime();
        Spine spine = SpineWorkload.build(stream);
        cpu = THREADS.getCurrentThreadCpuTime() - cpu;
        wall = System.nanoTime() - wall;
        // On a shared machine the wall-clock score includes time the thread waited for a core.
        System.out.printf("[insert] %s: %.2f M updates/s wall, %.2f M updates/s of thread CPU time%n", shape,
                UPDATES / (wall / 1e3), UPDATES / (cpu / 1e3));
        return spine;
    }
}
