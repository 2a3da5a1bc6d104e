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
 * <p>With bulk lanes, each worker has a second {@link Scheduler.Worker} (a thread of its own) for bulk
 * tasks, the hydration rounds that take a whole snapshot at once: a hydrated dataflow's next round, a few
 * writes' worth, then waits for the kernel to share the CPU between the two lanes rather than for the
 * hydration to finish. A dataflow's rounds run one at a time, so its shard's state is never touched by
 * both lanes at once (the round's completion orders one lane's writes before the other's reads).
 */
public final class SchedulerWorkerPool implements WorkerPool, Disposable {

    private final String name;
    private final Scheduler scheduler;
    private final Scheduler.Worker[] workers;
    /** Each worker's bulk lane, or the worker itself in a pool without bulk lanes. */
    private final Scheduler.Worker[] bulk;
    private volatile boolean bulkLanes;
    private final FatalErrorHandler fatal;
    private final java.util.concurrent.atomic.AtomicLong queued = new java.util.concurrent.atomic.AtomicLong();
    /** The nice value each worker thread takes before its first task (0: left alone); see {@link ThreadNice}. */
    private volatile int nice;
    /** The nice value of the bulk lanes' threads (when the pool has bulk lanes). */
    private volatile int bulkNice;

    public SchedulerWorkerPool(String name, Scheduler scheduler, int size, FatalErrorHandler fatal) {
        this(name, scheduler, size, false, fatal);
    }

    /** A pool of {@code size} workers, each with a bulk lane if {@code bulkLanes} (the scheduler must then allow 2 × size threads). */
    public SchedulerWorkerPool(String name, Scheduler scheduler, int size, boolean bulkLanes, FatalErrorHandler fatal) {
        this.name = name;
        this.scheduler = scheduler;
        this.fatal = fatal;
        this.workers = new Scheduler.Worker[size];
        this.bulk = new Scheduler.Worker[size];
        for (int w = 0; w < size; w++) {
            workers[w] = scheduler.createWorker();
        }
        for (int w = 0; w < size; w++) {
            bulk[w] = bulkLanes ? scheduler.createWorker() : workers[w];
        }
        this.bulkLanes = bulkLanes;
        // Each worker's thread starts now at normal priority and lowers itself with its first task, rather
        // than inherit the nice value of whichever thread schedules that task (a lowered one, often).
        List<Scheduler.Worker> all = new ArrayList<>(List.of(workers));
        if (bulkLanes) {
            all.addAll(List.of(bulk));
        }
        ThreadNice.startThreads(all);
    }

    /** Turns the bulk lanes off (or back on, if the pool was made with them); before any task. */
    public void setBulkLanes(boolean on) {
        this.bulkLanes = on;
    }

    @Override
    public int size() {
        return workers.length;
    }

    @Override
    public Mono<Void> run(int worker, Runnable task) {
        return run(worker, task, false);
    }

    @Override
    public Mono<Void> run(int worker, Runnable task, boolean bulkTask) {
        boolean onBulkLane = bulkTask && bulkLanes;
        return call(onBulkLane ? bulk[worker] : workers[worker], onBulkLane ? bulkNice : nice, worker, () -> {
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
        scheduler.dispose();
    }

    @Override
    public boolean isDisposed() {
        return scheduler.isDisposed();
    }
}
