package dev.tandem.bench;

import dev.tandem.row.Row;
import dev.tandem.trace.Batch;
import dev.tandem.trace.Cursor;
import dev.tandem.trace.Spine;
import dev.tandem.trace.TraceSnapshot;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Point-lookup latency: {@code TraceSnapshot.lookup(key, t, ...)} of a random existing key at the
 * latest readable time, on a spine of 10 M {@code (int64, int64)} updates, either as the inserts left
 * it ({@code live}: several batches, merges in progress) or after {@code compactFully} ({@code compacted}:
 * one batch). In {@code upserts} the spine is live and as large, but every batch after the first also
 * overwrites {@value #UPSERTS} random earlier keys (a retraction and an insertion each), as a table
 * updated in place feeds its index; some keys are then held by two batches whose values a lookup merges
 * (the setup prints how many). Each key is a fresh copy, as a request would bring it.
 *
 * <p>Run with {@code bin/dev jmh SpineLookupBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g"})
public class SpineLookupBenchmark {

    static final int UPDATES = 10_000_000;
    static final int PROBES = 1 << 20;
    /** Keys overwritten per batch in the {@code upserts} state: a fifth of each batch's updates. */
    static final int UPSERTS = 1_000;
    /** Probes checked for keys held by several batches, for the setup's report. */
    private static final int HOLDERS_SAMPLE = 1 << 16;

    @Param({"live", "compacted", "upserts"})
    public String state;

    private TraceSnapshot snapshot;
    private long readTime;
    private Row[] probes;
    private int next;
    private final Sink sink = new Sink();

    @Setup
    public void buildSpine() {
        boolean upserting = state.equals("upserts");
        // as many updates either way: with upserts, fewer keys, each batch's new keys among its overwrites
        int keys = upserting ? UPDATES / SpineWorkload.BATCH * (SpineWorkload.BATCH - 2 * UPSERTS) : UPDATES;
        UpdateStream stream = UpdateStream.of(UpdateStream.Shape.INT64_INT64, keys);
        Spine spine = SpineWorkload.build(stream, upserting ? UPSERTS : 0);
        if (state.equals("compacted")) {
            spine.compactFully();
        }
        snapshot = spine.snapshot();
        readTime = snapshot.upper().time() - 1;
        SplittableRandom random = new SplittableRandom(42);
        probes = new Row[PROBES];
        for (int i = 0; i < PROBES; i++) {
            Row key = stream.key(random.nextInt(keys));
            probes[i] = Row.of(key.get(0));
        }
        System.out.printf("%n[lookup] %s spine: %d batches, %d records, %.1f %% of probes held by several batches%n",
                state, snapshot.batches().size(), snapshot.records(), 100.0 * heldBySeveral() / HOLDERS_SAMPLE);
    }

    /** How many of the first {@link #HOLDERS_SAMPLE} probes more than one batch holds. */
    private int heldBySeveral() {
        int several = 0;
        for (int i = 0; i < HOLDERS_SAMPLE; i++) {
            int holders = 0;
            for (Batch b : snapshot.batches()) {
                Cursor c = b.cursor();
                c.seekKey(probes[i]);
                if (c.keyValid() && c.key().equals(probes[i])) {
                    holders++;
                }
            }
            several += holders > 1 ? 1 : 0;
        }
        return several;
    }

    @Benchmark
    public long lookup() {
        Row key = probes[next++ & (PROBES - 1)];
        sink.sum = 0;
        snapshot.lookup(key, readTime, sink);
        return sink.sum;
    }

    /** Sums what a lookup reports, so that nothing is optimised away. */
    static final class Sink implements Cursor.ValDiff {
        long sum;

        @Override
        public void accept(Row val, long diff) {
            sum += diff + val.byteSize();
        }
    }
}
