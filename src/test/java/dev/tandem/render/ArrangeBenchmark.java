package dev.tandem.render;

import dev.tandem.row.Row;
import dev.tandem.time.Frontier;
import dev.tandem.trace.Batch;
import dev.tandem.trace.BatchBuilder;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Hydration's arrange step alone, in updates per second on one thread: one million rows
 * {@code (id, g, v)} of three int64 columns in an update buffer (as a table snapshot arrives) are keyed
 * by {@code id}, sorted, consolidated and written into one batch, as an index export does. With
 * {@code -prof gc}, {@code gc.alloc.rate.norm} is the bytes allocated per update, the output batch
 * included: its value bytes (about 13) and their lengths (1.25: a byte each and the start of every 16th
 * value, see {@code Batch.Rows}), its key filter and key index (about 1.6), 15.9 bytes an update here. The
 * keys, each the leading column of its value, are views of the value column and cost nothing; one time and
 * no diffs are stored for a snapshot; the builder's working arrays are reused.
 *
 * <p>Run with {@code bin/dev jmh ArrangeBenchmark -prof gc}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@OperationsPerInvocation(ArrangeBenchmark.ROWS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g"})
public class ArrangeBenchmark {

    static final int ROWS = 1_000_000;
    private static final int[] KEY = {0};

    private Updates snapshot;
    private final BatchBuilder builder = new BatchBuilder();

    @Setup
    public void packRows() {
        snapshot = new Updates();
        for (long i = 0; i < ROWS; i++) {
            // ids in a scrambled order, so the sort has work to do
            long id = (i * 0x9E3779B97F4A7C15L) >>> 44;
            snapshot.add(Row.of(id * ROWS + i, i % 10_000, i * 7919 % 1_000_000), 5, 1);
        }
    }

    @Benchmark
    public Batch arrange() {
        snapshot.arrangeInto(builder, KEY, n -> { });
        return builder.build(Frontier.at(5), Frontier.at(6), Frontier.at(5));
    }
}
