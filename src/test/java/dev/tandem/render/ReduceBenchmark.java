package dev.tandem.render;

import dev.tandem.expr.Expr;
import dev.tandem.plan.AggregateFunc;
import dev.tandem.plan.Plan;
import dev.tandem.row.DatumType;
import dev.tandem.storage.RowDiff;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
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
 * Maintenance's reduce step alone, in updates per second on one thread: one {@link ReduceOperator}
 * shard grouping {@code (k, v)} rows of two int64 columns by {@code k} is fed, round by round as the
 * dataflow's rounds feed it, the first million updates of {@link RenderBenchmark}'s count-by-key stream
 * (the same seed: keys below 100,000, about ten rows per group; writes of
 * {@value RenderBenchmark#BATCH} updates, each at its own time, three quarters inserts and one quarter
 * retractions of rows inserted two writes earlier). The output of each round is counted and cleared, as
 * the runtime clears it once passed on. The aggregate is a parameter: {@code count(*)}, {@code sum(v)},
 * or {@code min(v), max(v)}.
 *
 * <p>Each invocation starts from a new, empty shard (as the count-by-key scenario starts from an empty
 * table), so every invocation does the same work: the state grows to about 510,000 distinct rows in
 * 100,000 groups, and its growth (array doubling) is part of the figure. Storage, exchange and export
 * are not. With {@code -prof gc}, {@code gc.alloc.rate.norm} is the bytes allocated per update: the
 * shard's state and output rows, and the growth of the output buffer (cleared each round) included.
 *
 * <p>Run with {@code bin/dev jmh ReduceBenchmark -prof gc}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@OperationsPerInvocation(ReduceBenchmark.UPDATES)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g"})
public class ReduceBenchmark {

    static final int UPDATES = 1_000_000;
    private static final List<DatumType> KV = List.of(DatumType.INT64, DatumType.INT64);

    /** The aggregates of {@code SELECT k, ... FROM t GROUP BY k}. */
    @Param({"count", "sum", "minmax"})
    public String aggregate;

    private ReduceOperator reduce;
    /** The rounds' inputs: write {@code b} at time {@code b}. */
    private Updates[][] rounds;
    private final Updates out = new Updates();
    private final Updates errs = new Updates();
    private final LongAdder processed = new LongAdder();

    @Setup
    public void prepare() {
        List<Plan.Aggregate> aggregates = switch (aggregate) {
            case "count" -> List.of(new Plan.Aggregate(AggregateFunc.COUNT, null));
            case "sum" -> List.of(new Plan.Aggregate(AggregateFunc.SUM, Expr.col(1)));
            case "minmax" -> List.of(new Plan.Aggregate(AggregateFunc.MIN, Expr.col(1)), new Plan.Aggregate(AggregateFunc.MAX, Expr.col(1)));
            default -> throw new IllegalArgumentException(aggregate);
        };
        Plan.Reduce plan = new Plan.Reduce(Plan.get("t"), List.of(0), aggregates);
        reduce = new ReduceOperator(null, plan, plan.types(id -> KV, ""), 0, false);
        List<List<RowDiff>> writes = RenderBenchmark.stream("t", UPDATES, 100_000, 2).writes();
        rounds = new Updates[writes.size()][];
        for (int b = 0; b < writes.size(); b++) {
            Updates in = new Updates();
            for (RowDiff d : writes.get(b)) {
                in.add(d.row(), b, d.diff());
            }
            rounds[b] = new Updates[] {in};
        }
    }

    /** Runs every round through a new shard; returns the number of output updates. */
    @Benchmark
    public long reduce() {
        Operator.Shard shard = reduce.shard(0);
        long outputs = 0;
        for (int b = 0; b < rounds.length; b++) {
            shard.step(rounds[b], new Operator.Round(b, b + 1, b == 0, processed), out, errs);
            outputs += out.size + errs.size;
            out.clear();
            errs.clear();
        }
        return outputs;
    }
}
