package dev.tandem.render;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.expr.Expr;
import dev.tandem.expr.Func;
import dev.tandem.plan.Plan;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;

/**
 * The window operator's work (copies read or re-derived, updates emitted) on one-row changes beside a
 * 10,000-row partition: a change re-derives only the rows whose outputs it can change.
 */
class WindowOperatorWorkTest {

    private static final List<DatumType> TYPES = List.of(DatumType.INT64, DatumType.INT64);
    private static final int N = 10_000;

    /** One operator shard driven round by round, with the work and the output of the last round. */
    private static final class Driver {
        final WindowOperator op;
        final Operator.Shard shard;
        long time = 1;
        Updates out;

        Driver(Plan.Window w) {
            op = new WindowOperator(null, w, w.types(id -> TYPES, ""), 0);
            shard = op.shard(0);
        }

        /** Runs one round inserting {@code rows} and returns the work it took. */
        long insert(long[]... rows) {
            Updates in = new Updates();
            for (long[] r : rows) {
                in.add(Row.pack(TYPES, List.of(r[0], r[1])), time, 1);
            }
            out = new Updates();
            long before = op.work();
            shard.step(new Updates[] {in}, new Operator.Round(time, time + 1, time == 1, new LongAdder()), out, new Updates());
            time++;
            return op.work() - before;
        }

        void fill() {
            long[][] rows = new long[N + 1][];
            for (int i = 0; i < N; i++) {
                rows[i] = new long[] {1, 2L * i};
            }
            rows[N] = new long[] {2, 0};
            long work = insert(rows);
            assertThat(out.size).isEqualTo(N + 1);
            assertThat(work).isGreaterThanOrEqualTo(2L * N);
        }
    }

    private static Plan.Window window(Plan.WindowFunc... functions) {
        return new Plan.Window(Plan.get("t"), List.of(0), List.of(new Plan.Ordering(1, false, true)), List.of(functions));
    }

    private static final Plan.Window RUNNING = window(
            new Plan.WindowFunc(Plan.WindowKind.ROW_NUMBER, null, 0),
            new Plan.WindowFunc(Plan.WindowKind.RANK, null, 0),
            new Plan.WindowFunc(Plan.WindowKind.DENSE_RANK, null, 0),
            new Plan.WindowFunc(Plan.WindowKind.LAG, Expr.col(1), 1),
            new Plan.WindowFunc(Plan.WindowKind.LEAD, Expr.col(1), 2),
            new Plan.WindowFunc(Plan.WindowKind.SUM, Expr.col(1), 0),
            new Plan.WindowFunc(Plan.WindowKind.MAX, Expr.col(1), 0, null, new Plan.Frame(true, null, 1L)),
            new Plan.WindowFunc(Plan.WindowKind.COUNT, null, 0, null, new Plan.Frame(true, -1L, 1L)));

    private static final Plan.Window LOCAL = window(
            new Plan.WindowFunc(Plan.WindowKind.LAG, Expr.col(1), 2),
            new Plan.WindowFunc(Plan.WindowKind.LEAD, Expr.col(1), 1, Expr.col(0), null),
            new Plan.WindowFunc(Plan.WindowKind.SUM, Expr.col(1), 0, null, new Plan.Frame(true, -2L, 0L)),
            new Plan.WindowFunc(Plan.WindowKind.FIRST_VALUE, Expr.col(1), 0, null, new Plan.Frame(true, -1L, 1L)),
            new Plan.WindowFunc(Plan.WindowKind.MIN, Expr.col(1), 0, null, new Plan.Frame(false, 0L, 0L)));

    @Test
    void aRowAtTheEndOfARankedPartitionReDerivesOnlyItsNeighbours() {
        Driver d = new Driver(RUNNING);
        d.fill();
        long work = d.insert(new long[] {1, 2L * N});
        assertThat(work).isLessThan(60);
        // the new row, and the two rows before it whose lead, max to one row ahead and count of neighbours change
        assertThat(d.out.size).isLessThanOrEqualTo(1 + 2 * 2);
    }

    @Test
    void aRowAtTheStartOfARankedPartitionReDerivesTheWholeSuffix() {
        Driver d = new Driver(RUNNING);
        d.fill();
        long work = d.insert(new long[] {1, -1});
        // every row's row_number shifts: each is read, re-derived (reading its frames), retracted and re-inserted
        assertThat(d.out.size).isEqualTo(2 * N + 1);
        assertThat(work).isBetween(3L * N, 15L * N);
    }

    @Test
    void aRowInAnotherPartitionLeavesTheLargeOneAlone() {
        Driver d = new Driver(RUNNING);
        d.fill();
        long work = d.insert(new long[] {2, 1});
        assertThat(work).isLessThan(30);
        assertThat(d.out.size).isLessThanOrEqualTo(3);
    }

    @Test
    void aRowInTheMiddleReDerivesOnlyTheRowsWithinReachOfLagLeadAndBoundedFrames() {
        Driver d = new Driver(LOCAL);
        d.fill();
        long work = d.insert(new long[] {1, N + 1});
        assertThat(work).isLessThan(80);
        assertThat(d.out.size).isLessThanOrEqualTo(1 + 2 * 4);
    }

    /** RANGE frames bounded by values (keys 0, 2, 4...): 4 PRECEDING to 2 FOLLOWING, 6 PRECEDING to CURRENT ROW, and excluding the current row. */
    private static final Plan.Window BY_VALUE = window(
            new Plan.WindowFunc(Plan.WindowKind.SUM, Expr.col(1), 0, null, new Plan.Frame(false, 0L, 0L, Plan.Exclude.NO_OTHERS,
                    Expr.call(Func.SUB, Expr.col(1), Expr.lit(4L, DatumType.INT64)), Expr.call(Func.ADD, Expr.col(1), Expr.lit(2L, DatumType.INT64)))),
            new Plan.WindowFunc(Plan.WindowKind.FIRST_VALUE, Expr.col(1), 0, null, new Plan.Frame(false, 0L, 0L, Plan.Exclude.CURRENT_ROW,
                    Expr.call(Func.SUB, Expr.col(1), Expr.lit(6L, DatumType.INT64)), null)));

    @Test
    void aRowInTheMiddleReDerivesOnlyTheRowsWhoseValueBoundedFrameHoldsIt() {
        Driver d = new Driver(BY_VALUE);
        d.fill();
        long work = d.insert(new long[] {1, N + 1});
        // the rows of keys N .. N+6 hold N+1 in one of their frames: each is read and re-derived (binary searches and its
        // frame); the sums of keys N .. N+4 change (their first_values do not), so the new row and those three are emitted
        assertThat(d.out.size).isEqualTo(1 + 2 * 3);
        assertThat(work).isLessThan(400);
    }

    @Test
    void wholePartitionFunctionsReDeriveTheWholePartition() {
        Driver d = new Driver(window(new Plan.WindowFunc(Plan.WindowKind.CUME_DIST, null, 0)));
        d.fill();
        long work = d.insert(new long[] {1, 2L * N});
        assertThat(work).isGreaterThanOrEqualTo(N);
        assertThat(d.out.size).isEqualTo(2 * N + 1);
    }
}
