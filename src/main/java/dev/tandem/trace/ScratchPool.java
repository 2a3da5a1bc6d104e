package dev.tandem.trace;

import java.util.ArrayDeque;

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
    private final ArrayDeque<BuilderScratch> free = new ArrayDeque<>();
    private long freeBytes;

    ScratchPool(long budget) {
        this.budget = budget;
    }

    /** The scratch given back last, or a new small one when none is kept. */
    synchronized BuilderScratch take() {
        BuilderScratch s = free.pollLast();
        if (s == null) {
            return new BuilderScratch();
        }
        freeBytes -= s.byteSize();
        return s;
    }

    /** Takes {@code s} back emptied, keeping it if it fits in the budget beside what is kept already. */
    void give(BuilderScratch s) {
        s.reset();
        long bytes = s.byteSize();
        synchronized (this) {
            if (freeBytes + bytes <= budget) {
                free.addLast(s);
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
