package dev.tandem.controller;

import dev.tandem.time.Frontier;
import java.util.function.LongSupplier;

/**
 * One index's compaction frontier ({@code since}) and the read holds that keep it back, consistent
 * without a lock: a point read never waits for compaction or for other reads.
 *
 * <p>A read chooses a time, adds its hold, then reads {@code since} again and chooses anew if it moved
 * past. Compaction publishes its new {@code since} first, then looks at the holds again and steps back to
 * the earliest it finds. Each side writes, then reads what the other writes, so whichever runs second
 * sees the first: compaction sees the hold, or the read sees the new {@code since}. So the frontier
 * compaction returns (what compute may compact to) never passes a held time. While one compaction is
 * between its two looks, {@code since} may stand a moment past a hold it then steps back to; a read
 * choosing in that moment only chooses later, and an explicit {@code as_of} in that gap is refused as
 * before {@code since}, as it would be a moment later.
 */
final class HeldFrontier {

    final Holds holds = new Holds();
    private volatile Frontier since;

    HeldFrontier(Frontier since) {
        this.since = since;
    }

    Frontier since() {
        return since;
    }

    /**
     * Chooses a read time with {@code choose} (which reads {@link #since()}, and may throw to refuse the
     * read) and holds it; returns the time and the hold's id, for {@link Holds#remove}.
     */
    long[] chooseAndHold(LongSupplier choose) {
        while (true) {
            long t = choose.getAsLong();
            long id = holds.add(t);
            if (since.time() <= t) {
                return new long[] {t, id};
            }
            holds.remove(id);
        }
    }

    /**
     * Moves {@code since} towards {@code limit}, never past a read hold; returns the new frontier, or null
     * if it did not move. Compactions and {@link #raise} must not run concurrently with each other (the
     * {@link ReadPolicy} calls both under its lock); reads may.
     */
    Frontier compactTo(long limit) {
        long old = since.time();
        long target = Math.min(limit, holds.min());
        if (target <= old) {
            return null;
        }
        since = Frontier.at(target);
        long settled = Math.max(old, Math.min(target, holds.min()));
        if (settled != target) {
            // a read took a hold between the two looks: compaction stops at it
            since = Frontier.at(settled);
        }
        return settled > old ? Frontier.at(settled) : null;
    }

    /** Raises {@code since} to {@code to} if it is later (an introspection index's first report). */
    void raise(Frontier to) {
        if (to.compareTo(since) > 0) {
            since = to;
        }
    }
}
