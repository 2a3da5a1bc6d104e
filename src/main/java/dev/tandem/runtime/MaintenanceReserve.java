package dev.tandem.runtime;

import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;

/**
 * A floor under maintenance's share of the CPU when reads saturate the machine (two-runtime mode, off by
 * default). Maintenance runs at a lowered OS priority, so reads are served first; a flood of reads alone
 * would then leave it almost nothing, and indexes would fall behind without bound. With a reserve
 * {@code r}, the interactive runtime admits fewer new peeks whenever maintenance, over the last
 * {@link #WINDOW_TICKS} busy ticks, got less than {@code r} of the CPU time it was waiting for.
 *
 * <p>The measure is the kernel's own: for every lowered thread, the time it ran and the time it was
 * runnable but waiting for a CPU ({@link RunWait}). Maintenance's <em>share</em> is run / (run + wait),
 * with run + wait capped per tick at what the machine's cores could give in a tick (maintenance's threads
 * waiting for each other are not held against the reads); one minus it is roughly what contention costs its
 * throughput. A tick in which maintenance wanted less
 * than {@link #BUSY_FRACTION} of a tick of CPU is idle: it says nothing and the window starts afresh.
 *
 * <p>The lever is a budget of peeks admitted per tick, adjusted every tick: while the share is short it
 * starts at what readers asked for in the last tick and shrinks by {@link #DECREASE} (it stays put in a tick
 * with no reader, which reads cannot have caused); while it is not, it grows
 * by {@link #INCREASE} (and one) until it is well above what readers ask for, and the limit lifts. A peek
 * over the tick's budget waits (no thread blocks) for a later tick, first come first served; a cancelled
 * one gives its place up. Closed-loop readers then send less, which gives maintenance its CPU back; an
 * open-loop flood queues and meets the peek admission limit (503).
 */
public final class MaintenanceReserve {

    /** Run and wait nanoseconds summed over maintenance's threads since some fixed start. */
    public record RunWait(long runNanos, long waitNanos) {
        public static final RunWait NONE = new RunWait(0, 0);
    }

    /** How often the share is measured and the budget adjusted. */
    public static final Duration TICK = Duration.ofMillis(25);
    /** The share is measured over this many busy ticks (a quarter second). */
    static final int WINDOW_TICKS = 10;
    static final double DECREASE = 0.9;
    static final double INCREASE = 1.1;
    /** The limit lifts once the budget is this many times what readers asked for in a tick, with nobody waiting. */
    static final long LIFT_FACTOR = 4;
    /** Below this much CPU wanted in a tick (as a fraction of the tick), maintenance counts as idle. */
    static final double BUSY_FRACTION = 0.05;
    static final long UNLIMITED = Long.MAX_VALUE;
    public static final double MAX_RESERVE = 0.9;

    private final double reserve;
    private final Supplier<RunWait> source;
    private final long capacityPerTick;
    private final long[] runs = new long[WINDOW_TICKS];
    private final long[] waits = new long[WINDOW_TICKS];
    private final ConcurrentLinkedQueue<Waiter> waiting = new ConcurrentLinkedQueue<>();
    /** Peeks admitted in the current tick (counted only while there is a limit). */
    private final AtomicLong admitted = new AtomicLong();
    /** Peeks that asked for admission in the current tick. */
    private final AtomicLong arrivals = new AtomicLong();
    private final AtomicLong held = new AtomicLong();
    private RunWait last;
    private int filled;
    private int next;
    private volatile long budget = UNLIMITED;
    private volatile double share = 1.0;

    private record Waiter(MonoSink<Void> sink, AtomicBoolean cancelled) {
    }

    /**
     * @param reserve the share maintenance is guaranteed while busy, in [0, {@value #MAX_RESERVE}]; 0 never limits
     * @param source maintenance's run and wait times so far (see {@link KernelRunWait})
     * @param cores the processors the process may use
     */
    public MaintenanceReserve(double reserve, Supplier<RunWait> source, int cores) {
        this.reserve = requireValid(reserve);
        this.source = source;
        this.capacityPerTick = Math.max(1, cores) * TICK.toNanos();
        this.last = source.get();
    }

    /** Returns {@code reserve} if it is a valid {@code tandem.compute.maintenance-reserve}, else throws saying why. */
    public static double requireValid(double reserve) {
        if (!(reserve >= 0 && reserve <= MAX_RESERVE)) {
            throw new IllegalArgumentException("tandem.compute.maintenance-reserve must be between 0 (off) and " + MAX_RESERVE + ", got " + reserve);
        }
        return reserve;
    }

    /** Measures the last tick, adjusts the budget and admits waiting peeks within it; called every {@link #TICK}, on one thread. */
    public synchronized void tick() {
        RunWait now = source.get();
        long run = Math.max(0, now.runNanos() - last.runNanos());
        long wait = Math.max(0, now.waitNanos() - last.waitNanos());
        last = now;
        long asked = arrivals.getAndSet(0);
        admitted.set(0);
        boolean starved = false;
        if (run + wait < BUSY_FRACTION * TICK.toNanos()) {
            filled = 0;
            next = 0;
            share = 1.0;
        } else {
            runs[next] = run;
            waits[next] = Math.max(0, Math.min(run + wait, capacityPerTick) - run);
            next = (next + 1) % WINDOW_TICKS;
            filled = Math.min(WINDOW_TICKS, filled + 1);
            long r = 0;
            long w = 0;
            for (int i = 0; i < filled; i++) {
                r += runs[i];
                w += waits[i];
            }
            share = r / (double) (r + w);
            starved = share < reserve;
        }
        long b = budget;
        if (starved) {
            // With no reader asking, reads are not what holds maintenance back: the budget stays.
            if (asked > 0) {
                budget = Math.max(1, (long) (Math.min(b, asked) * DECREASE));
            }
        } else if (b != UNLIMITED) {
            long grown = (long) Math.ceil(b * INCREASE) + 1;
            budget = waiting.isEmpty() && grown >= LIFT_FACTOR * Math.max(1, asked) ? UNLIMITED : grown;
        }
        release();
    }

    private void release() {
        long b = budget;
        Waiter w;
        while ((b == UNLIMITED || admitted.get() < b) && (w = waiting.poll()) != null) {
            if (!w.cancelled().get()) {
                admitted.incrementAndGet();
                w.sink().success();
            }
        }
    }

    /** Completes when a peek may run: at once within the tick's budget, else at a later tick. */
    public Mono<Void> admission() {
        arrivals.incrementAndGet();
        long b = budget;
        if (waiting.isEmpty()) {
            if (b == UNLIMITED) {
                return Mono.empty();
            }
            if (admitted.incrementAndGet() <= b) {
                return Mono.empty();
            }
            admitted.decrementAndGet();
        }
        return Mono.create(sink -> {
            AtomicBoolean cancelled = new AtomicBoolean();
            sink.onCancel(() -> cancelled.set(true));
            held.incrementAndGet();
            waiting.add(new Waiter(sink, cancelled));
        });
    }

    /** Maintenance's share over the window (1 when idle). */
    public double share() {
        return share;
    }

    /** Peeks admitted per second at most now, or {@code NaN} when there is no limit. */
    public double peekLimitPerSecond() {
        long b = budget;
        return b == UNLIMITED ? Double.NaN : b / (TICK.toNanos() / 1e9);
    }

    /** Peeks waiting for a tick now. */
    public int waitingPeeks() {
        return waiting.size();
    }

    /** Peeks that had to wait for a later tick so far. */
    public long heldPeeks() {
        return held.get();
    }

    public double reserve() {
        return reserve;
    }
}
