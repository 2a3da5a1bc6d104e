package dev.tandem.storage;

import java.io.IOException;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The commit thread: drains the admitted changes in batches, stamps every write in a batch from the
 * oracle, frames and appends the whole batch, forces it once (group commit), then applies it to the
 * tables, advances the upper to the last timestamp plus one, publishes to subscribers and completes
 * the callers. Control operations in the queue (compaction, probes, stop) run between batches.
 *
 * <p>A batch that cannot be logged (a full disk) is cut back out of the log by the journal; its
 * callers and every change admitted after it fail with {@link StorageFullException}, admission restarts
 * from the applied tables, and while the storage is unavailable the tick asks for a probe about once a
 * second until the log takes writes again.
 *
 * <p>Threading: one thread, {@code tandem-storage-commit}, runs the loop and is the only one to append
 * to the journal or change the applied tables; {@link #probeIfUnavailable} runs on the storage's
 * scheduler and only enqueues; {@link #await} runs on callers' threads (never this one). A committed
 * batch's callers are completed in commit order on a second thread, {@code tandem-storage-acks}: what
 * a caller does next (an HTTP answer, the next statement of a script) runs there, so the next batch
 * never waits for it. (Under a thousand writes a second, answering them took two fifths of the commit
 * thread.) Failures are completed where they are found.
 */
final class GroupCommit {

    private static final int MAX_BATCH = 4096;
    private static final long PROBE_INTERVAL_NANOS = 1_000_000_000L;

    private final Journal journal;
    private final AppliedTables applied;
    private final TableSubscriptions subscriptions;
    private final WriteAdmission admission;
    private final LogCompaction compaction;
    private final StorageHealth health;
    private final Thread committer;
    private final ThreadPoolExecutor acks;
    private volatile Thread acksThread;
    private final AtomicBoolean probeQueued = new AtomicBoolean();
    private volatile long lastProbeNanos;

    private final AtomicLong records = new AtomicLong();
    private final AtomicLong commits = new AtomicLong();
    private final AtomicLong syncs = new AtomicLong();

    /** Monotonic nanoseconds (the storage options' ticker), for spacing the probes of an unavailable log. */
    private final java.util.function.LongSupplier nanos;

    GroupCommit(Journal journal, AppliedTables applied, TableSubscriptions subscriptions, WriteAdmission admission,
            LogCompaction compaction, StorageHealth health, java.util.function.LongSupplier nanos) {
        this.nanos = nanos;
        this.journal = journal;
        this.applied = applied;
        this.subscriptions = subscriptions;
        this.admission = admission;
        this.compaction = compaction;
        this.health = health;
        this.committer = new Thread(this::commitLoop, "tandem-storage-commit");
        committer.setDaemon(true);
        this.acks = new ThreadPoolExecutor(1, 1, 0, TimeUnit.NANOSECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "tandem-storage-acks");
            t.setDaemon(true);
            acksThread = t;
            return t;
        });
    }

    /** Starts both threads here, so they run at this thread's priority (a thread inherits its creator's). */
    void start() {
        committer.start();
        acks.prestartCoreThread();
    }

    /** Records logged. */
    long records() {
        return records.get();
    }

    /** Batches committed. */
    long commits() {
        return commits.get();
    }

    /** Batches forced to disk. */
    long syncs() {
        return syncs.get();
    }

    /** Waits (uninterruptibly) for the commit thread to stop and the callers it committed to be completed, unless called on either. */
    void join() {
        if (onStorageThread()) {
            return;
        }
        boolean interrupted = false;
        while (committer.isAlive()) {
            try {
                committer.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        while (!acks.isTerminated()) {
            try {
                acks.awaitTermination(1, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits for {@code op} to be committed, rethrowing its failure. */
    void await(CommitOp op) {
        if (onStorageThread()) {
            throw new IllegalStateException("a blocking storage call on the storage's " + Thread.currentThread().getName()
                    + " thread would deadlock; hand off to another scheduler");
        }
        try {
            op.done.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw e;
        }
    }

    private boolean onStorageThread() {
        Thread t = Thread.currentThread();
        return t == committer || t == acksThread;
    }

    private void commitLoop() {
        BlockingQueue<CommitOp> queue = admission.queue();
        List<CommitOp> batch = new ArrayList<>();
        LogCodec.FrameBuffer frames = new LogCodec.FrameBuffer();
        try {
            boolean running = true;
            while (running) {
                try {
                    batch.add(queue.take());
                } catch (InterruptedException e) {
                    continue;
                }
                queue.drainTo(batch, MAX_BATCH - 1);
                int from = 0;
                RuntimeException abandoned = null;
                for (int i = 0; i < batch.size(); i++) {
                    CommitOp op = batch.get(i);
                    if (!op.logged()) {
                        abandoned = commitOrFail(batch.subList(from, i), frames, abandoned);
                        from = i + 1;
                        switch (op.kind) {
                            case COMPACT -> compaction.compactNow(op);
                            case PROBE -> probeNow(op);
                            default -> {
                                // after every caller committed before it
                                running = false;
                                acks.execute(() -> op.done.complete(0L));
                            }
                        }
                    }
                }
                commitOrFail(batch.subList(from, batch.size()), frames, abandoned);
                batch.clear();
            }
        } finally {
            acks.shutdown();
        }
    }

    /**
     * Commits a segment, unless an earlier segment of the same batch failed ({@code abandoned}): then
     * it fails too, since it was admitted against changes that never happened. Returns the failure, if any.
     */
    private RuntimeException commitOrFail(List<CommitOp> segment, LogCodec.FrameBuffer frames, RuntimeException abandoned) {
        if (abandoned != null) {
            segment.forEach(op -> op.done.completeExceptionally(abandoned));
            return abandoned;
        }
        return commit(segment, frames);
    }

    /** Stamps, appends, forces and applies a batch of log changes, then completes their callers; returns a failure or null. */
    private RuntimeException commit(List<CommitOp> segment, LogCodec.FrameBuffer frames) {
        if (segment.isEmpty()) {
            return null;
        }
        StorageException failure = health.failure();
        if (failure != null) {
            segment.forEach(op -> op.done.completeExceptionally(failure));
            return null;
        }
        long maxTime = -1;
        synchronized (applied.lock) {
            applied.committing = true;
            for (CommitOp op : segment) {
                if (op.kind == CommitOp.Kind.WRITE) {
                    op.time = applied.oracle.next(applied.upper);
                    if (op.parts == null) {
                        op.record = new LogRecord.Write(op.table, op.time, op.updates, op.swap);
                    } else {
                        List<LogRecord.Write> parts = new ArrayList<>(op.parts.size());
                        for (CommitOp part : op.parts) {
                            parts.add(new LogRecord.Write(part.table, op.time, part.updates));
                        }
                        op.record = new LogRecord.WriteTables(op.time, parts, op.swap);
                    }
                    maxTime = op.time;
                }
            }
        }
        try {
            frames.reset();
            for (CommitOp op : segment) {
                frames.frame(op.record);
            }
            if (journal.appendAndSync(frames.array(), frames.length())) {
                syncs.incrementAndGet();
            }
        } catch (StorageException e) {
            health.fail(e);
            synchronized (applied.lock) {
                applied.committing = false;
            }
            segment.forEach(op -> op.done.completeExceptionally(e));
            return null;
        } catch (IOException | RuntimeException e) {
            StorageFullException full = new StorageFullException("the log could not be written (" + e.getMessage()
                    + "); nothing of this change was kept. The storage retries and accepts changes again once it can write"
                    + " (free space on the data directory's file system)", e);
            health.writeFailed(full);
            synchronized (applied.lock) {
                applied.committing = false;
            }
            segment.forEach(op -> op.done.completeExceptionally(full));
            admission.restart(full);
            return full;
        }
        health.writable();
        records.addAndGet(segment.size());
        commits.incrementAndGet();
        Map<StoredTable, PackedUpdates.Builder> fresh = new IdentityHashMap<>();
        // Admission counts a row in the published history, which carries the sequence number of the last
        // write applied to it, and in the writes in flight after that number: exactly once, so admission
        // need not wait while a segment applies. Deletes in flight are forgotten only after publication.
        long appliedSeq = -1;
        for (CommitOp op : segment) {
            appliedSeq = Math.max(appliedSeq, op.seq);
        }
        synchronized (applied.lock) {
            for (CommitOp op : segment) {
                applied.apply(op.record, fresh, subscriptions::dropped);
            }
            long seq = appliedSeq;
            applied.tables.values().forEach(t -> t.flush(seq));
            applied.committing = false;
            subscriptions.advance(Math.max(applied.upper, maxTime + 1), fresh);
        }
        admission.applied(segment);
        CommitOp[] committed = segment.toArray(CommitOp[]::new);
        acks.execute(() -> {
            for (CommitOp op : committed) {
                op.done.complete(op.time);
            }
        });
        return null;
    }

    /** While unavailable, asks the commit thread about once a second whether the log takes writes again. */
    void probeIfUnavailable() {
        if (!health.isUnavailable() || nanos.getAsLong() - lastProbeNanos < PROBE_INTERVAL_NANOS) {
            return;
        }
        if (probeQueued.compareAndSet(false, true)) {
            lastProbeNanos = nanos.getAsLong();
            if (!admission.controlIfOpen(CommitOp.Kind.PROBE)) {
                probeQueued.set(false);
            }
        }
    }

    private void probeNow(CommitOp op) {
        probeQueued.set(false);
        if (health.isUnavailable()) {
            try {
                journal.probe();
                health.writable();
            } catch (IOException | RuntimeException e) {
                health.probeFailed();
            }
        }
        op.done.complete(0L);
    }
}
