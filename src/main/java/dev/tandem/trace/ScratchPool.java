package dev.tandem.trace;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The {@link BuilderScratch} kept between builds, so that a builder arranging a large batch again
 * allocates nothing for its working arrays. Builders on any thread share one pool; it keeps at most
 * {@code budget} bytes of arrays (by capacity) in all and drops what would not fit, so a builder
 * that once built a huge batch leaves nothing larger than the budget behind, however many builders
 * there are. A scratch in use belongs to its builder alone and counts against no budget: it is what
 * the pending updates need.
 *
 * <p>What is kept is for builds that follow soon (a hydration's rounds, the next index): a scratch given
 * back and not taken again within {@link #MAX_IDLE} is dropped ({@link #trimIdle}, which the shared pool
 * runs every second on a daemon thread), so a server at rest keeps none. Small builds never take a scratch
 * many times their size ({@link #OVERSIZE}): they would keep a hydration's arrays in use, and alive, for as
 * long as small builds go on (the introspection log builds one every tenth of a second).
 */
final class ScratchPool {

    /** The pool every builder uses unless given another: a sixty-fourth of the maximum heap, at least 4 MiB. */
    static final ScratchPool SHARED = startTrimming(new ScratchPool(Math.max(4L << 20, Runtime.getRuntime().maxMemory() / 64), System::nanoTime));

    /** A build of {@code n} updates takes no scratch with room for more than this many times {@code max(n, }{@value #SMALL}{@code )}. */
    static final int OVERSIZE = 16;
    static final int SMALL = 4096;

    /** How long a kept scratch may go untaken before it is dropped. */
    static final Duration MAX_IDLE = Duration.ofSeconds(5);

    private record Kept(BuilderScratch scratch, long since) {
    }

    private final long budget;
    private final LongSupplier clock;
    private final List<Kept> free = new ArrayList<>();
    private long freeBytes;

    ScratchPool(long budget) {
        this(budget, System::nanoTime);
    }

    /** A pool keeping at most {@code budget} bytes, telling idle time by {@code clock} (nanoseconds). */
    ScratchPool(long budget, LongSupplier clock) {
        this.budget = budget;
        this.clock = clock;
    }

    private static ScratchPool startTrimming(ScratchPool pool) {
        ScheduledExecutorService trimmer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "tandem-scratch-trim");
            t.setDaemon(true);
            return t;
        });
        trimmer.scheduleWithFixedDelay(pool::trimIdle, 1, 1, TimeUnit.SECONDS);
        return pool;
    }

    /** Drops every kept scratch given back at least {@link #MAX_IDLE} ago. */
    synchronized void trimIdle() {
        long now = clock.getAsLong();
        free.removeIf(k -> {
            boolean idle = now - k.since() >= MAX_IDLE.toNanos();
            if (idle) {
                freeBytes -= k.scratch().byteSize();
            }
            return idle;
        });
    }

    /**
     * A kept scratch for about {@code updates} updates: the smallest with room for them, else the largest
     * (so a small build does not take the arrays a large one will need); a new small one when none is kept,
     * or when the best kept is oversized for the build (see the class comment).
     */
    synchronized BuilderScratch take(int updates) {
        Kept best = null;
        for (Kept k : free) {
            if (best == null || fitsBetter(k.scratch(), best.scratch(), updates)) {
                best = k;
            }
        }
        if (best == null || best.scratch().capacity() > (long) OVERSIZE * Math.max(updates, SMALL)) {
            return new BuilderScratch();
        }
        free.remove(best);
        freeBytes -= best.scratch().byteSize();
        return best.scratch();
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
                free.add(new Kept(s, clock.getAsLong()));
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
