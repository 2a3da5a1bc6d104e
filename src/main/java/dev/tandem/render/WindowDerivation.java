package dev.tandem.render;

import dev.tandem.plan.Plan;
import dev.tandem.row.DatumType;
import dev.tandem.row.RowPacker;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * Derives the window functions' outputs for a run of positions of a partition, each from the copies around it
 * and from the state the copy before the run keeps (its outputs and its running aggregates), so a run costs
 * the rows it reads, not the partition.
 */
final class WindowDerivation {

    private final Plan.Window window;
    private final List<DatumType> outTypes;
    private final int inArity;
    private final WindowShape shape;
    private final LongAdder work;

    WindowDerivation(Plan.Window window, List<DatumType> outTypes, WindowShape shape, LongAdder work) {
        this.window = window;
        this.outTypes = outTypes;
        this.inArity = outTypes.size() - window.functions().size();
        this.shape = shape;
        this.work = work;
    }

    /** Derives the outputs of the copies at positions {@code [from, to)} of {@code tree}, in order. */
    void derive(WindowTree tree, int from, int to) {
        if (from >= to) {
            return;
        }
        int n = tree.size();
        List<Plan.WindowFunc> fns = window.functions();
        int count = fns.size();
        WindowTree.Cursor[] extend = new WindowTree.Cursor[count];
        long[] extendAt = new long[count];
        WindowTree.Node prev = from > 0 ? tree.get(from - 1) : null;
        long examined = prev == null ? 0 : 1;
        int groupStart = from;
        int groupEnd = from;
        WindowTree.Cursor cursor = tree.from(from);
        for (int i = from; i < to; i++) {
            WindowTree.Node cur = cursor.next();
            examined++;
            boolean peerOfPrev = prev != null && shape.peers(prev.row, cur.row);
            if (i == from && peerOfPrev && shape.needsGroupStart) {
                while (groupStart > 0 && shape.peers(tree.get(groupStart - 1).row, cur.row)) {
                    groupStart--;
                    examined++;
                }
            } else if (!peerOfPrev) {
                groupStart = i;
            }
            if (i >= groupEnd && shape.needsGroupEnd) {
                groupEnd = i + 1;
                for (WindowTree.Cursor c = tree.from(i + 1); c.hasNext() && shape.peers(cur.row, c.next().row); ) {
                    groupEnd++;
                    examined++;
                }
            }
            boolean overflow = false;
            for (int f = 0; f < count; f++) {
                Plan.WindowFunc fn = fns.get(f);
                Object v;
                switch (fn.kind()) {
                    case ROW_NUMBER -> v = (long) i + 1;
                    case RANK -> v = peerOfPrev ? prev.out[f] : (Object) ((long) i + 1);
                    case DENSE_RANK -> v = prev == null ? 1L : peerOfPrev ? prev.out[f] : (Object) ((Long) prev.out[f] + 1);
                    case PERCENT_RANK -> v = n == 1 ? 0.0 : (double) groupStart / (n - 1);
                    case CUME_DIST -> v = (double) groupEnd / n;
                    case NTILE -> v = ntile(i, n, fn.offset());
                    case LAG, LEAD -> {
                        long j = fn.kind() == Plan.WindowKind.LAG ? i - fn.offset() : i + fn.offset();
                        if (j >= 0 && j < n) {
                            v = tree.get((int) j).args[f];
                            examined++;
                        } else {
                            v = fn.fallback() == null ? null : fn.fallback().eval(cur.values);
                        }
                    }
                    case FIRST_VALUE, LAST_VALUE, NTH_VALUE -> {
                        long s = frameStart(fn.frame(), i, groupStart, tree, cur);
                        long e = frameEnd(fn.frame(), i, groupEnd, n, tree, cur);
                        long at = fn.kind() == Plan.WindowKind.FIRST_VALUE ? s : fn.kind() == Plan.WindowKind.LAST_VALUE ? e : s + fn.offset() - 1;
                        if (fn.frame().exclude() != Plan.Exclude.NO_OTHERS) {
                            at = pick(fn, s, e, i, groupStart, groupEnd);
                            examined += at < 0 ? Math.max(0, e - s + 1) : fn.kind() == Plan.WindowKind.LAST_VALUE ? e - at + 1 : at - s + 1;
                        }
                        if (s <= e && at >= s && at <= e) {
                            v = tree.get((int) at).args[f];
                            examined++;
                        } else {
                            v = null;
                        }
                    }
                    default -> {
                        DatumType type = outTypes.get(inArity + f);
                        long e = frameEnd(fn.frame(), i, groupEnd, n, tree, cur);
                        WindowAccumulator acc;
                        Plan.Exclude exclude = fn.frame().exclude();
                        if (fn.frame().start() == null && exclude == Plan.Exclude.NO_OTHERS) {
                            if (extend[f] == null) {
                                acc = prev == null ? WindowAccumulator.EMPTY : prev.acc[f];
                                extendAt[f] = prev == null ? 0 : prev.accEnd[f] + 1;
                                extend[f] = tree.from((int) extendAt[f]);
                            } else {
                                acc = prev.acc[f];
                            }
                            for (; extendAt[f] <= e; extendAt[f]++) {
                                acc = acc.add(fn.kind(), type, extend[f].next().args[f]);
                                examined++;
                            }
                            cur.accEnd[f] = extendAt[f] - 1;
                        } else {
                            acc = WindowAccumulator.EMPTY;
                            long s = frameStart(fn.frame(), i, groupStart, tree, cur);
                            if (s <= e) {
                                WindowTree.Cursor c = tree.from((int) s);
                                for (long j = s; j <= e; j++) {
                                    Object arg = c.next().args[f];
                                    if (!excluded(exclude, j, i, groupStart, groupEnd)) {
                                        acc = acc.add(fn.kind(), type, arg);
                                    }
                                    examined++;
                                }
                            }
                        }
                        cur.acc[f] = acc;
                        v = acc.result(fn.kind());
                        overflow |= v == WindowAccumulator.OVERFLOW;
                    }
                }
                cur.out[f] = v;
            }
            cur.overflow = overflow;
            cur.outRow = overflow ? null : pack(cur);
            prev = cur;
        }
        work.add(examined);
    }

    private dev.tandem.row.Row pack(WindowTree.Node node) {
        RowPacker p = new RowPacker();
        for (int c = 0; c < inArity; c++) {
            p.push(outTypes.get(c), node.values[c]);
        }
        for (int f = 0; f < node.out.length; f++) {
            p.push(outTypes.get(inArity + f), node.out[f]);
        }
        return p.finish();
    }

    /** Whether position {@code j} is taken out of the frame of position {@code i} (of peers {@code [groupStart, groupEnd)}) by {@code exclude}. */
    private static boolean excluded(Plan.Exclude exclude, long j, int i, int groupStart, int groupEnd) {
        return switch (exclude) {
            case NO_OTHERS -> false;
            case CURRENT_ROW -> j == i;
            case GROUP -> j >= groupStart && j < groupEnd;
            case TIES -> j != i && j >= groupStart && j < groupEnd;
        };
    }

    /**
     * The position first_value, last_value or nth_value reads in the frame {@code [s, e]} of position {@code i} less
     * its exclusion: the first, last or n-th position left; -1 when there is none.
     */
    private static long pick(Plan.WindowFunc fn, long s, long e, int i, int groupStart, int groupEnd) {
        Plan.Exclude exclude = fn.frame().exclude();
        if (fn.kind() == Plan.WindowKind.LAST_VALUE) {
            for (long j = e; j >= s; j--) {
                if (!excluded(exclude, j, i, groupStart, groupEnd)) {
                    return j;
                }
            }
            return -1;
        }
        long wanted = fn.kind() == Plan.WindowKind.FIRST_VALUE ? 1 : fn.offset();
        for (long j = s; j <= e; j++) {
            if (!excluded(exclude, j, i, groupStart, groupEnd) && --wanted == 0) {
                return j;
            }
        }
        return -1;
    }

    /** The first position of a frame, clipped to the partition (possibly after its end, when empty); a by-value bound is found in O(log n). */
    private long frameStart(Plan.Frame frame, int i, int groupStart, WindowTree tree, WindowTree.Node cur) {
        if (frame.start() == null) {
            return 0;
        }
        if (frame.startAt() != null) {
            work.add(32 - Integer.numberOfLeadingZeros(tree.size()));
            return shape.valueStart(tree, frame, cur);
        }
        return frame.rows() ? Math.max(0, i + frame.start()) : groupStart;
    }

    /** The last position of a frame, clipped to the partition (possibly before its start, when empty). */
    private long frameEnd(Plan.Frame frame, int i, int groupEnd, int n, WindowTree tree, WindowTree.Node cur) {
        if (frame.end() == null) {
            return n - 1;
        }
        if (frame.endAt() != null) {
            work.add(32 - Integer.numberOfLeadingZeros(tree.size()));
            return shape.valueEnd(tree, frame, cur);
        }
        return frame.rows() ? Math.min(n - 1, i + frame.end()) : groupEnd - 1;
    }

    /** The bucket of position {@code i} of {@code n} dealt into {@code buckets}: the first n % buckets take one more row. */
    private static long ntile(long i, long n, long buckets) {
        long base = n / buckets;
        long extra = n % buckets;
        if (base == 0) {
            return i + 1;
        }
        long big = extra * (base + 1);
        return i < big ? i / (base + 1) + 1 : extra + (i - big) / base + 1;
    }
}
