package dev.tandem.render;

import dev.tandem.expr.Expr;
import dev.tandem.plan.AggregateFunc;
import dev.tandem.plan.GroupFunctions;
import dev.tandem.plan.Plan;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.LongAdder;

/**
 * Throughput and allocation of one reduce shard alone, fed the update stream of
 * {@link RenderBenchmark}'s count-by-key scenario (batches of {@value RenderBenchmark#BATCH} updates at
 * one time each, three quarters inserts over 100,000 keys, one quarter retractions of earlier
 * inserts): the incremental {@link ReduceOperator} against the recomputing {@link GroupOperator}, for
 * {@code count(*)} and for {@code sum(v), min(v), max(v)}. Without storage, exchange or export, so it
 * isolates the operator; allocation is per thread and does not depend on the machine's load. Not a
 * test: it asserts nothing.
 *
 * <p>Run from the repository root (argument: updates per run, default 2000000):
 *
 * <pre>
 * source bin/jdk.sh &amp;&amp; mvn -B -o -q test-compile dependency:build-classpath \
 *     -Dmdep.outputFile=target/test-classpath.txt -Dmdep.includeScope=test \
 *   &amp;&amp; java -Xmx4g -cp target/classes:target/test-classes:$(cat target/test-classpath.txt) \
 *     dev.tandem.render.ReduceShardBenchmark 2000000
 * </pre>
 */
public final class ReduceShardBenchmark {

    private static final List<DatumType> KV = List.of(DatumType.INT64, DatumType.INT64);

    private ReduceShardBenchmark() {
    }

    public static void main(String[] args) {
        int updates = args.length > 0 ? Integer.parseInt(args[0]) : 2_000_000;
        List<Updates> batches = batches(updates);
        Plan.Reduce count = new Plan.Reduce(Plan.get("t"), List.of(0), List.of(new Plan.Aggregate(AggregateFunc.COUNT, null)));
        Plan.Reduce sumMinMax = new Plan.Reduce(Plan.get("t"), List.of(0), List.of(new Plan.Aggregate(AggregateFunc.SUM, Expr.col(1)),
                new Plan.Aggregate(AggregateFunc.MIN, Expr.col(1)), new Plan.Aggregate(AggregateFunc.MAX, Expr.col(1))));
        for (int rep = 0; rep < 3; rep++) {
            for (Plan.Reduce r : List.of(count, sumMinMax)) {
                String name = r == count ? "count(*)" : "sum,min,max";
                for (boolean incremental : new boolean[] {false, true}) {
                    run(name, r, incremental, batches, updates);
                }
            }
        }
    }

    private static void run(String name, Plan.Reduce r, boolean incremental, List<Updates> batches, int updates) {
        List<DatumType> outTypes = r.types(id -> KV, "");
        List<Expr> exprs = r.aggregates().stream().map(Plan.Aggregate::expr).filter(e -> e != null).toList();
        Operator op = incremental
                ? new ReduceOperator(null, r, outTypes, 0, false)
                : new GroupOperator("reduce", null, new int[] {0}, exprs, (k, members) -> GroupFunctions.reduce(r, outTypes, k, members), 0);
        Operator.Shard shard = op.shard(0);
        Updates out = new Updates();
        Updates errs = new Updates();
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long allocated = threads.getCurrentThreadAllocatedBytes();
        long outputs = 0;
        long start = System.nanoTime();
        for (int b = 0; b < batches.size(); b++) {
            shard.step(new Updates[] {batches.get(b)}, new Operator.Round(b, b + 1, b == 0, new LongAdder()), out, errs);
            outputs += out.size;
            out.clear();
            errs.clear();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        long bytes = threads.getCurrentThreadAllocatedBytes() - allocated;
        System.out.printf("%-12s %-11s %,10.0f updates/s  %,7.1f bytes allocated/update  (%,d outputs)%n",
                name, incremental ? "incremental" : "recompute", updates / seconds, (double) bytes / updates, outputs);
    }

    /** The count-by-key stream: batch {@code b} at time {@code b}. */
    private static List<Updates> batches(int count) {
        SplittableRandom rnd = new SplittableRandom(2);
        List<Updates> batches = new ArrayList<>();
        List<Row> twoBack = List.of();
        List<Row> oneBack = List.of();
        long v = 0;
        for (int done = 0; done < count; ) {
            int n = Math.min(RenderBenchmark.BATCH, count - done);
            Updates batch = new Updates();
            List<Row> inserted = new ArrayList<>(n);
            int retract = Math.min(n / 4, twoBack.size());
            for (int i = 0; i < retract; i++) {
                batch.add(twoBack.get(i), batches.size(), -1);
            }
            for (int i = retract; i < n; i++) {
                Row row = Row.of(rnd.nextLong(100_000), v++);
                batch.add(row, batches.size(), 1);
                inserted.add(row);
            }
            batches.add(batch);
            twoBack = oneBack;
            oneBack = inserted;
            done += n;
        }
        return batches;
    }
}
