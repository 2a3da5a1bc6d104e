package dev.tandem.bench;

import dev.tandem.trace.Spine;
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
 * beforehand, so the figure is the engine's cost alone.
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

    @Param({"INT64_INT64", "STRING_3COL"})
    public String shape;

    private UpdateStream stream;

    @Setup
    public void packRows() {
        stream = UpdateStream.of(UpdateStream.Shape.valueOf(shape), UPDATES);
    }

    @Benchmark
    public Spine insertAndMerge() {
        return SpineWorkload.build(stream);
    }
}
