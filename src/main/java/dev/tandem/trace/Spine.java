package dev.tandem.trace;

import dev.tandem.row.Row;
import dev.tandem.time.Frontier;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A trace: a log-structured list of immutable batches that merges in the background.
 *
 * <h2>Merging</h2>
 * Batches are kept oldest first. When the newest two complete batches are within a factor of two in
 * size they start merging; merges are <em>fuelled</em>: each insert of {@code n} updates grants
 * {@code FUEL_PER_UPDATE * n} units of merge work to each merge in progress, so no single
 * insert pays for a huge merge and the number of batches stays logarithmic in the trace size.
 *
 * <h2>Compaction</h2>
 * The logical compaction frontier {@code since} is the meet of all live {@link ReadHold}s, or the
 * write frontier when there are none (the trace then compacts freely). Merges advance times before
 * {@code since} to {@code since} and drop updates that sum to zero, so memory tracks the distinct
 * {@code (key, val, time)} at and after {@code since}.
 *
 * <h2>Concurrency</h2>
 * One thread owns the spine and calls {@link #insert}, {@link #advanceUpper} and {@link #work}. Any
 * thread may call {@link #snapshot()} (a volatile read of an immutable {@link TraceSnapshot}: no
 * locks, no copies; a merge in progress shows its two inputs, which stay valid) and may acquire,
 * downgrade and release holds. A snapshot's {@code since} is the frontier the trace had promised when
 * it was taken; every batch in it is exact at or after that frontier.
 */
public final class Spine {

    /** Units of merge work granted per inserted update. */
    static final int FUEL_PER_UPDATE = 4;
    /** Units of merge work granted to each merge by an insert with no updates (an idle tick). */
    static final int IDLE_FUEL = 65_536;

    private final String name;
    private final List<Object> slots = new ArrayList<>();
    private final Set<Hold> holds = ConcurrentHashMap.newKeySet();
    private final Object holdLock = new Object();
    private Frontier upper;
    private volatile Frontier since;
    private volatile TraceSnapshot snapshot;

    public Spine(String name, Frontier lower) {
        this.name = name;
        this.upper = lower;
        this.since = lower;
        publish();
    }

    public String name() {
        return name;
    }

    /** The current snapshot; safe from any thread. */
    public TraceSnapshot snapshot() {
        return snapshot;
    }

    public Frontier upper() {
        return upper;
    }

    public Frontier since() {
        return since;
    }

    /** Appends a batch whose {@code lower} is the current upper; the upper advances to its upper. */
    public void insert(Batch batch) {
        if (!batch.lower().equals(upper)) {
            throw new IllegalStateException(name + ": batch lower " + batch.lower() + " does not match upper " + upper);
        }
        upper = batch.upper();
        refreshSince();
        if (!batch.isEmpty()) {
            slots.add(batch);
            work((long) FUEL_PER_UPDATE * batch.updateCount());
            startMerges(false);
        } else {
            work(IDLE_FUEL);
            startMerges(true);
        }
        publish();
    }

    /** Advances the upper with no updates. */
    public void advanceUpper(Frontier newUpper) {
        if (newUpper.compareTo(upper) > 0) {
            upper = newUpper;
            refreshSince();
            publish();
        }
    }

    /**
     * Grants every merge in progress up to {@code fuel} units of work (so small recent merges are not
     * starved by large old ones); returns whether merges remain in progress.
     */
    public boolean work(long fuel) {
        boolean changed = false;
        for (int i = 0; i < slots.size(); i++) {
            if (slots.get(i) instanceof BatchMerger m) {
                m.work(fuel);
                if (m.done()) {
                    slots.set(i, m.finish());
                    changed = true;
                }
            }
        }
        if (changed) {
            startMerges(false);
            publish();
        }
        for (Object s : slots) {
            if (s instanceof BatchMerger) {
                return true;
            }
        }
        return false;
    }

    /** Completes every merge in progress and merges everything mergeable down (for tests and idle time). */
    public void compactFully() {
        refreshSince();
        Frontier target = since;
        while (compactStep(Long.MAX_VALUE, target)) {
            // keep stepping until everything is merged down
        }
    }

    /**
     * One bounded step of {@link #compactFully}: grants every merge in progress {@code fuel} units of work
     * and, when none is left in progress, starts merging the newest two adjacent batches, or re-compacts a
     * lone batch compacted to before {@code target}. Returns whether work remains, so a caller can merge a
     * large trace down in steps and let others in between. Pass as {@code target} the {@link #since()}
     * when the steps began: a since that keeps moving meanwhile then cannot keep them going forever.
     */
    public boolean compactStep(long fuel, Frontier target) {
        refreshSince();
        if (work(fuel)) {
            return true;
        }
        for (int i = slots.size() - 1; i > 0; i--) {
            if (slots.get(i - 1) instanceof Batch a && slots.get(i) instanceof Batch b) {
                slots.set(i - 1, new BatchMerger(a, b, since));
                slots.remove(i);
                return true;
            }
        }
        if (slots.size() == 1 && slots.get(0) instanceof Batch only && only.since().compareTo(target.meet(since)) < 0) {
            slots.set(0, new BatchMerger(only, Batch.empty(only.upper(), only.upper(), since), since));
            return true;
        }
        publish();
        return false;
    }

    /**
     * Starts merges of adjacent complete batches whose sizes are within a factor of two. When
     * {@code idle} (no new updates), also merges batches that lie wholly behind {@code since} whatever
     * their sizes, and re-compacts a lone batch that compaction has overtaken, so history folds into
     * the live data once writes stop.
     */
    private void startMerges(boolean idle) {
        boolean started = true;
        while (started) {
            started = false;
            for (int i = slots.size() - 1; i > 0; i--) {
                if (slots.get(i - 1) instanceof Batch a && slots.get(i) instanceof Batch b
                        && (a.updateCount() <= 2L * b.updateCount() + 16 || idle && b.upper().compareTo(since) <= 0)) {
                    slots.set(i - 1, new BatchMerger(a, b, since));
                    slots.remove(i);
                    started = true;
                    break;
                }
            }
        }
        if (idle) {
            for (int i = 0; i < slots.size(); i++) {
                if (slots.get(i) instanceof Batch x && x.since().compareTo(x.upper()) < 0 && x.upper().compareTo(since) <= 0) {
                    slots.set(i, new BatchMerger(x, Batch.empty(x.upper(), x.upper(), since), since));
                }
            }
        }
    }

    private void publish() {
        List<Batch> batches = new ArrayList<>(slots.size() + 2);
        for (Object s : slots) {
            if (s instanceof Batch b) {
                batches.add(b);
            } else {
                BatchMerger m = (BatchMerger) s;
                batches.add(m.older());
                batches.add(m.newer());
            }
        }
        snapshot = new TraceSnapshot(batches, upper, since);
    }

    /** Recomputes {@code since} as the meet of the holds (or the upper when there are none). */
    private void refreshSince() {
        synchronized (holdLock) {
            Frontier target = upper;
            for (Hold h : holds) {
                target = target.meet(h.frontier);
            }
            if (target.compareTo(since) > 0) {
                since = target;
            }
        }
    }

    /**
     * Acquires a hold at {@code frontier}. If the trace already compacted past it, the hold starts at
     * the current {@code since} instead (reads before it were already impossible).
     */
    public ReadHold acquireHold(String holder, Frontier frontier) {
        synchronized (holdLock) {
            Hold h = new Hold(holder, frontier.join(since));
            holds.add(h);
            return h;
        }
    }

    /** The live holds, for introspection. */
    public List<ReadHold> holds() {
        return List.copyOf(holds);
    }

    private final class Hold implements ReadHold {
        private final String holder;
        private volatile Frontier frontier;
        private volatile boolean released;

        Hold(String holder, Frontier frontier) {
            this.holder = holder;
            this.frontier = frontier;
        }

        @Override
        public String holder() {
            return holder;
        }

        @Override
        public Frontier frontier() {
            return frontier;
        }

        @Override
        public void downgrade(Frontier to) {
            synchronized (holdLock) {
                if (!released && to.compareTo(frontier) > 0) {
                    frontier = to;
                }
            }
        }

        @Override
        public void release() {
            synchronized (holdLock) {
                released = true;
                holds.remove(this);
            }
        }

        @Override
        public String toString() {
            return holder + "@" + frontier;
        }
    }

    /** Convenience for tests and single-threaded callers: the accumulation of {@code (key, val)} at {@code t}. */
    public long accumulate(Row key, Row val, long t) {
        long[] sum = new long[1];
        snapshot.lookup(key, t, (v, d) -> {
            if (v.equals(val)) {
                sum[0] += d;
            }
        });
        return sum[0];
    }
}
