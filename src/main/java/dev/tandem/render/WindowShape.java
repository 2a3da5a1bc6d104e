package dev.tandem.render;

import dev.tandem.expr.Datums;
import dev.tandem.plan.Plan;
import dev.tandem.row.Row;
import java.util.List;

/**
 * Which rows of a window partition a change can affect, from the window's functions: a function of the whole
 * partition (percent_rank, cume_dist, ntile, a frame to UNBOUNDED FOLLOWING) affects every row; one of the
 * rows before (row_number, rank, dense_rank, a frame from UNBOUNDED PRECEDING) every row from the change on;
 * others (lag, lead, a frame of bounded ROWS or of peers) the rows within their reach of the change, and a RANGE
 * frame bounded by values the rows whose frame holds a changed value.
 */
final class WindowShape {

    final boolean whole;
    final boolean prefix;
    /** How far after a row its functions read (a change reaches this many rows before it). */
    final long following;
    /** How far before a row its functions read (a change reaches this many rows after it). */
    final long preceding;
    /** Whether a function reads a row's later peers (a change reaches its earlier peers). */
    final boolean peersAfter;
    /** Whether a function reads a row's earlier peers (a change reaches its later peers). */
    final boolean peersBefore;
    /** Whether a derivation needs each row's first peer (percent_rank, a RANGE frame from CURRENT ROW, EXCLUDE GROUP or TIES). */
    final boolean needsGroupStart;
    /** Whether a derivation needs each row's last peer (cume_dist, a RANGE frame to CURRENT ROW, EXCLUDE GROUP or TIES). */
    final boolean needsGroupEnd;
    /** The frames bounded by values ({@link Plan.Frame#byValue}): a change reaches the rows whose frame holds its value. */
    final List<Plan.Frame> byValue;
    private final List<Plan.Ordering> orderBy;

    WindowShape(Plan.Window w) {
        boolean whole = false;
        boolean prefix = false;
        long following = 0;
        long preceding = 0;
        boolean peersAfter = false;
        boolean peersBefore = false;
        for (Plan.WindowFunc f : w.functions()) {
            switch (f.kind()) {
                case ROW_NUMBER, RANK, DENSE_RANK -> prefix = true;
                case PERCENT_RANK, CUME_DIST, NTILE -> whole = true;
                case LAG -> preceding = Math.max(preceding, f.offset());
                case LEAD -> following = Math.max(following, f.offset());
                default -> {
                    Plan.Frame frame = f.frame();
                    if (frame.end() == null) {
                        whole = true;
                    } else if (frame.rows()) {
                        following = Math.max(following, Math.max(frame.end(), 0));
                        if (frame.start() == null) {
                            prefix = true;
                        } else {
                            preceding = Math.max(preceding, Math.max(-frame.start(), 0));
                        }
                    } else {
                        peersAfter = true;
                        if (frame.start() == null) {
                            prefix = true;
                        } else {
                            peersBefore = true;
                        }
                    }
                }
            }
        }
        this.whole = whole;
        this.prefix = prefix;
        this.following = following;
        this.preceding = preceding;
        this.peersAfter = peersAfter;
        this.peersBefore = peersBefore;
        this.orderBy = w.orderBy();
        this.byValue = w.functions().stream().map(Plan.WindowFunc::frame).filter(f -> f != null && f.byValue()).toList();
        boolean excludesPeers = w.functions().stream()
                .anyMatch(f -> f.frame() != null && (f.frame().exclude() == Plan.Exclude.GROUP || f.frame().exclude() == Plan.Exclude.TIES));
        this.needsGroupStart = peersBefore || excludesPeers || w.functions().stream().anyMatch(f -> f.kind() == Plan.WindowKind.PERCENT_RANK);
        this.needsGroupEnd = peersAfter || excludesPeers || w.functions().stream().anyMatch(f -> f.kind() == Plan.WindowKind.CUME_DIST);
    }

    /** The ordering column's value on {@code row} (for a window of one ordering). */
    Object key(Row row) {
        return row.get(orderBy.get(0).col());
    }

    /**
     * Where the ordering column's value {@code x} sorts beside {@code y} (either may be NULL) in the window's one ordering:
     * negative before it, 0 level, positive after.
     */
    int place(Object x, Object y) {
        Plan.Ordering o = orderBy.get(0);
        if (x == null || y == null) {
            return x == y ? 0 : (x == null) == o.nullsLast() ? 1 : -1;
        }
        int c = Datums.sqlCompare(x, y);
        return o.desc() ? -c : c;
    }

    /** The first position of a by-value frame's start on the copy {@code node}: the first copy not sorting before the bound. */
    int valueStart(WindowTree tree, Plan.Frame frame, WindowTree.Node node) {
        Object bound = frame.startAt().eval(node.values);
        return tree.countWhile(n -> place(key(n.row), bound) < 0);
    }

    /** The last position of a by-value frame's end on the copy {@code node}: the last copy not sorting after the bound (-1 if none). */
    int valueEnd(WindowTree tree, Plan.Frame frame, WindowTree.Node node) {
        Object bound = frame.endAt().eval(node.values);
        return tree.countWhile(n -> place(key(n.row), bound) <= 0) - 1;
    }

    /** Whether two rows are peers: equal (NULLs alike) on every ordering. */
    boolean peers(Row a, Row b) {
        for (Plan.Ordering o : orderBy) {
            Object x = a.get(o.col());
            Object y = b.get(o.col());
            if (x == null || y == null ? x != y : Datums.sqlCompare(x, y) != 0) {
                return false;
            }
        }
        return true;
    }
}
