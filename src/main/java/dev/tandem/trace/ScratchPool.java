package dev.tandem.trace;

import java.util.ArrayList;
import java.util.List;

/**
 * The {@link BuilderScratch} kept between builds, so that a builder arranging a large batch again
 * allocates nothing for its working arrays. Builders on any thread share one pool; it keeps at most
 * {@code budget} bytes of arrays (by capacity) in all and drops what would not fit, so a builder
 * that once built a huge batch leaves nothing larger than the budget behind, however many builders
 * there are. A scratch in use belongs to its builder alone and counts against no budget: it is what
 * the pending updates need.
 */
final class ScratchPool {

    /** The pool every builder uses unless given another: a sixty-fourth of the maximum heap, at least 4 MiB. */
    static final ScratchPool SHARED = new ScratchPool(Math.max(4L << 20, Runtime.getRuntime().maxMemory() / 64));

    private final long budget;
    private final List<BuilderScratch> free = new ArrayList<>();
    private long freeBytes;

    ScratchPool(long budget) {
        this.budget = budget;
    }

    /**
     * A kept scratch for about {@code updates} updates: the smallest with room for them, else the largest
     * (so a small build does not take the arrays a large one will need); a new small one when none is kept.
     */
    synchronized BuilderScratch take(int updates) {
        BuilderScratch best = null;
        for (BuilderScratch s : free) {
            if (best == null || fitsBetter(s, best, updates)) {
                best = s;
            }
        }
        if (best == null) {
            return new BuilderScratch();
        }
        free.remove(best);
        freeBytes -= best.byteSize();
        return best;
    }

    /** Whether {@code a} suits {@code updates} better than {@code b}: room for them, then as little spare as may be. */
    private static boolean fitsBetter(BuilderScratch a, BuilderScratch b, int updates) {
        boolean aFits = a.capacity() >= updates;
        boolean bFits = b.capacity() >= updates;
        if (aFits != bFits) {
            return aFits;
        }
        return aFits ? a.capacity() < b.capacity() : a.capacity() > b.capacity();
    }

    /** Takes {@code s} back emptied, keeping it if it fits in the budget beside what is kept already. */
    void give(BuilderScratch s) {
        s.reset();
        long bytes = s.byteSize();
        synchronized (this) {
            if (freeBytes + bytes <= budget) {
                free.add(s);
                freeBytes += bytes;
            }
        }
    }

    /** Heap bytes of the scratch kept for later builds; never more than the budget. */
    synchronized long retainedBytes() {
        return freeBytes;
    }

    long budget() {
        return budget;
    }
}
