package dev.tandem.runtime;

import dev.tandem.render.WorkerPool;
import java.util.ArrayList;
import java.util.List;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * A {@link WorkerPool} of {@code W} {@link Scheduler.Worker}s taken from one scheduler: each worker
 * runs its tasks one at a time, in order. An exception escaping a task is fatal.
 *
 * <p>With lanes, each worker has three {@link Scheduler.Worker}s (each a thread of its own), one per
 * {@link WorkerPool.Lane}, each at its own OS priority ({@link ThreadNice}):
 * <ul>
 *   <li>the <b>bulk</b> lane (at {@code bulkNice}) runs hydrations, the first rounds that take a whole
 *       snapshot at once, so a hydrated dataflow's next round does not wait for one to finish;</li>
 *   <li>the <b>fresh</b> lane (at normal priority) runs the small rounds of hydrated dataflows, at most
 *       {@code freshRoundUpdates} table updates, no other index read, and a previous round of the dataflow
 *       that cost at most {@code freshRoundNanos} (an idle round grants an arrangement's merges work, which
 *       after a hydration takes tens of milliseconds a round): what keeps an index fresh for
 *       reads at a write's timestamp and for change streams. A lowered thread that the kernel preempts
 *       waits behind every runnable thread of normal priority (in the change-stream fan-out, rounds of a
 *       millisecond's work took 100 ms and more of wall time, for almost no CPU time);</li>
 *   <li>the <b>steady</b> lane (at {@code nice}) runs the other rounds: maintenance work large enough to
 *       compete with reads.</li>
 * </ul>
 * A dataflow's rounds run one at a time, so its shard's state is never touched by two lanes at once (the
 * round's completion orders one lane's writes before the other's reads).
 */
public final class SchedulerWorkerPool implements WorkerPool, Disposable {

    private final String name;
    private final Scheduler scheduler;
    private final Scheduler.Worker[] workers;
    /** Each worker's bulk lane, or the worker itself in a pool without lanes. */
    private final Scheduler.Worker[] bulk;
    /** Each worker's fresh lane, or the worker itself in a pool without lanes. */
    private final Scheduler.Worker[] fresh;
    private final boolean lanes;
    private volatile boolean bulkLanes;
    private volatile long freshRoundUpdates;
    private volatile long freshRoundNanos = DEFAULT_FRESH_ROUND_NANOS;
    private final FatalErrorHandler fatal;
    private final java.util.concurrent.atomic.AtomicLong queued = new java.util.concurrent.atomic.AtomicLong();
    /** The nice value each worker thread takes before its first task (0: left alone); see {@link ThreadNice}. */
    private volatile int nice;
    /** The nice value of the bulk lanes' threads (when the pool has bulk lanes). */
    private volatile int bulkNice;

    public SchedulerWorkerPool(String name, Scheduler scheduler, int size, FatalErrorHandler fatal) {
        this(name, scheduler, size, false, fatal);
    }

    /**
     * A pool of {@code size} workers, each with a bulk and a fresh lane if {@code lanes} (the scheduler must
     * then allow 3 × size threads); fresh rounds take at most {@link #DEFAULT_FRESH_ROUND_UPDATES} updates
     * until {@link #setFreshRoundUpdates} says otherwise.
     */
    public SchedulerWorkerPool(String name, Scheduler scheduler, int size, boolean lanes, FatalErrorHandler fatal) {
        this.name = name;
        this.scheduler = scheduler;
        this.fatal = fatal;
        this.workers = new Scheduler.Worker[size];
        this.bulk = new Scheduler.Worker[size];
        this.fresh = new Scheduler.Worker[size];
        for (int w = 0; w < size; w++) {
            workers[w] = scheduler.createWorker();
        }
        for (int w = 0; w < size; w++) {
            bulk[w] = lanes ? scheduler.createWorker() : workers[w];
            fresh[w] = lanes ? scheduler.createWorker() : workers[w];
        }
        this.lanes = lanes;
        this.bulkLanes = lanes;
        this.freshRoundUpdates = lanes ? DEFAULT_FRESH_ROUND_UPDATES : 0;
        // Each worker's thread starts now at normal priority and lowers itself with its first task, rather
        // than inherit the nice value of whichever thread schedules that task (a lowered one, often).
        List<Scheduler.Worker> all = new ArrayList<>(List.of(workers));
        if (lanes) {
            all.addAll(List.of(bulk));
            all.addAll(List.of(fresh));
        }
        ThreadNice.startThreads(all);
    }

    /** The largest round (in table updates) of a hydrated dataflow that runs on a fresh lane, by default. */
    public static final long DEFAULT_FRESH_ROUND_UPDATES = 1000;

    /** Turns the bulk lanes off (or back on, if the pool was made with lanes); before any task. */
    public void setBulkLanes(boolean on) {
        this.bulkLanes = on && lanes;
    }

    /**
     * Rounds of hydrated dataflows with at most {@code updates} table updates (and no index read) run on
     * the fresh lanes, at normal priority; 0: none does. Only a pool made with lanes has them.
     */
    public void setFreshRoundUpdates(long updates) {
        if (updates < 0) {
            throw new IllegalArgumentException("fresh round updates must be 0 (none) or more, got " + updates);
        }
        this.freshRoundUpdates = lanes ? updates : 0;
    }

    /** A round whose dataflow's previous round cost more than this (step time) is not a fresh one, by default. */
    public static final long DEFAULT_FRESH_ROUND_NANOS = 5_000_000;

    /**
     * Rounds whose dataflow's previous round's steps ran longer than {@code nanos} (merges granted work by
     * an idle round, a join's fan-out) run on the steady lane, not the fresh one: a fresh lane is one thread
     * per worker, and a watched index's round would queue behind them.
     */
    public void setFreshRoundNanos(long nanos) {
        this.freshRoundNanos = nanos;
    }

    @Override
    public Lane laneFor(boolean first, long updates, boolean readsIndexes, long previousRoundNanos) {
        if (first) {
            return bulkLanes ? Lane.BULK : Lane.STEADY;
        }
        long limit = freshRoundUpdates;
        return limit > 0 && !readsIndexes && updates <= limit && previousRoundNanos <= freshRoundNanos ? Lane.FRESH : Lane.STEADY;
    }

    @Override
    public int size() {
        return workers.length;
    }

    @Override
    public Mono<Void> run(int worker, Runnable task) {
        return run(worker, task, Lane.STEADY);
    }

    @Override
    public Mono<Void> run(int worker, Runnable task, Lane lane) {
        Scheduler.Worker thread = switch (lane) {
            case BULK -> bulkLanes ? bulk[worker] : workers[worker];
            case FRESH -> fresh[worker];
            case STEADY -> workers[worker];
        };
        int laneNice = thread == workers[worker] ? nice : lane == Lane.BULK ? bulkNice : 0;
        return call(thread, laneNice, worker, () -> {
            task.run();
            return Boolean.TRUE;
        }).then();
    }

    /**
     * Lowers the OS priority of this pool's threads to {@code nice} (from their next task on), so that
     * on a saturated machine the kernel prefers other threads (the interactive runtime's) to these.
     */
    public void setNice(int nice) {
        setNice(nice, nice);
    }

    /**
     * As {@link #setNice(int)}, with the bulk lanes' threads at {@code bulkNice}: each lane is a thread of
     * its own, so a hydration can yield to the rounds that keep hydrated indexes fresh. A lane's nice
     * value is set before any task (a thread's nice value can be raised, not lowered, without privilege).
     */
    public void setNice(int nice, int bulkNice) {
        this.nice = nice;
        this.bulkNice = bulkNice;
    }

    /** Tasks submitted and not yet finished. */
    public long queued() {
        return queued.get();
    }

    /** Computes {@code task} on worker {@code worker}; an exception from it is fatal. */
    public <T> Mono<T> call(int worker, java.util.concurrent.Callable<T> task) {
        return call(workers[worker], nice, worker, task);
    }

    private <T> Mono<T> call(Scheduler.Worker lane, int laneNice, int worker, java.util.concurrent.Callable<T> task) {
        return Mono.create(sink -> {
            queued.incrementAndGet();
            lane.schedule(() -> {
                ThreadNice.ensure(laneNice);
                T value;
                try {
                    value = task.call();
                } catch (Throwable t) {
                    queued.decrementAndGet();
                    fatal.fatal(name + " worker " + worker, t);
                    sink.error(t);
                    return;
                }
                queued.decrementAndGet();
                sink.success(value);
            });
        });
    }

    /** Schedules {@code task} on worker {@code worker} without waiting for it. */
    public void execute(int worker, Runnable task) {
        workers[worker].schedule(() -> {
            ThreadNice.ensure(nice);
            try {
                task.run();
            } catch (Throwable t) {
                fatal.fatal(name + " worker " + worker, t);
            }
        });
    }

    public Scheduler scheduler() {
        return scheduler;
    }

    @Override
    public void dispose() {
        for (Scheduler.Worker w : workers) {
            w.dispose();
        }
        for (Scheduler.Worker w : bulk) {
            w.dispose();
        }
        for (Scheduler.Worker w : fresh) {
            w.dispose();
        }
        scheduler.dispose();
    }

    @Override
    public boolean isDisposed() {
        return scheduler.isDisposed();
    }
}
