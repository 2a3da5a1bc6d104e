package dev.tandem.runtime;

import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;

/**
 * A floor under maintenance's share of the CPU when reads saturate the machine (two-runtime mode).
 * Maintenance runs at a lowered OS priority, so reads are served first; a flood of reads alone would
 * then leave it almost nothing, and indexes would fall behind without bound. With a reserve {@code r},
 * the interactive runtime admits fewer new peeks whenever, over the last {@link #WINDOW_TICKS} busy
 * ticks, <em>reads</em> took more than {@code 1 - r} of the CPU time maintenance wanted.
 *
 * <p>The measure is the kernel's own ({@link Sample}): for every lowered thread, the time it ran and the
 * time it was runnable but waiting for a CPU; for the threads that serve reads (the network event loops
 * and the interactive runtime), the time they ran. Maintenance's waiting is capped per tick at what the
 * machine's cores could give in a tick (its threads waiting for each other are not held against the
 * reads). What reads cost maintenance in a tick is at most what they ran and at most what maintenance
 * waited: {@code taken = min(readers' run, maintenance's wait)}; maintenance's <em>share</em> over the window
 * is {@code run / (run + taken)}. Maintenance waiting for anything else (the JIT compiler, the collector,
 * other processes) is not the reads' doing, and a reserve that throttled reads for it would cost their
 * latency and give maintenance nothing; so it does not count. Where the kernel says how busy the machine's
 * processors were ({@link Sample#machineRunNanos}), everything that ran besides maintenance and the readers
 * (the collector's and compiler's threads, the clients on the same machine, other processes) is known, and
 * the wait is shared out: over the window, reads are held to have taken {@code taken * read / (read + other)}
 * — maintenance waited behind everything that ran, in proportion to how much of it ran. A tick in which maintenance wanted less
 * than {@link #BUSY_FRACTION} of a tick of CPU is idle: it says nothing and the window starts afresh. Reads
 * that took less than {@link #MIN_READ_FRACTION} of the machine over the window are never held.
 *
 * <p>The lever is a budget of peeks admitted per tick. While the share is short over a window of at least
 * {@link #MIN_EVIDENCE_TICKS} busy ticks, the budget is set to
 * what would have kept reads within their part over the window: the peeks admitted per tick over the
 * window, scaled by {@code allowed / taken}, where {@code allowed = run * (1 - r) / r} (a peek's cost is
 * taken as the window's reader time per peek, so the budget follows the readers' real cost, not a guess,
 * and does not compound: the same window measured again gives the same budget), but never below half of
 * the peeks that ran in the last tick, so a budget falls by halves at most. While the share is not
 * short, the same rule lets the budget grow, by at least a quarter (and one) a tick, and once it is {@link #LIFT_FACTOR}
 * times what readers ask for with nobody waiting, or maintenance goes idle, the limit lifts. A window with
 * no peek in it keeps the budget as it is (reads were not what took maintenance's CPU). A peek over the
 * tick's budget waits (no thread blocks) for a later tick, first come first served; a cancelled one gives
 * its place up. Closed-loop readers then send less, which gives maintenance its CPU back; an open-loop
 * flood queues and meets the peek admission limit (503).
 */
public final class MaintenanceReserve {

    /**
     * CPU nanoseconds since some fixed start: maintenance's threads' run and wait (runnable, not running)
     * times, the run time of the threads that serve reads, and the run time of every thread of every
     * process on the processors this process may use ({@code machineRunNanos}; negative when unknown).
     */
    public record Sample(long runNanos, long waitNanos, long readerRunNanos, long machineRunNanos) {
        public static final Sample NONE = new Sample(0, 0, 0, -1);

        /** A sample without the machine's run time: a wait is held against the reads up to what they ran. */
        public Sample(long runNanos, long waitNanos, long readerRunNanos) {
            this(runNanos, waitNanos, readerRunNanos, -1);
        }
    }

    /** How often the share is measured and the budget adjusted. */
    public static final Duration TICK = Duration.ofMillis(25);
    /** The share is measured over this many busy ticks (a quarter second). */
    static final int WINDOW_TICKS = 10;
    /**
     * A window of fewer busy ticks than this never limits: the first ticks of a hydration see its threads
     * woken and waiting for a CPU before they have run, which says nothing about what reads take.
     */
    static final int MIN_EVIDENCE_TICKS = 3;
    /** The limit lifts once the budget is this many times what readers asked for in a tick, with nobody waiting. */
    static final long LIFT_FACTOR = 4;
    /**
     * Reads that took less than this fraction of the machine over the window are never held, however short
     * maintenance's share: holding them could give maintenance at most that much, and would cost every
     * held read a tick of latency (at modest read rates a short share comes from the collector, the
     * compiler or another process, and from a hydration's first moments, not from the reads).
     */
    static final double MIN_READ_FRACTION = 0.1;
    /** Below this much CPU wanted in a tick (as a fraction of the tick), maintenance counts as idle. */
    static final double BUSY_FRACTION = 0.05;
    static final long UNLIMITED = Long.MAX_VALUE;
    public static final double MAX_RESERVE = 0.9;

    private final double reserve;
    private final Supplier<Sample> source;
    private final long capacityPerTick;
    private final long[] runs = new long[WINDOW_TICKS];
    private final long[] waits = new long[WINDOW_TICKS];
    /** Per tick, what reads took of maintenance's wait: the lesser of the two. */
    private final long[] taken = new long[WINDOW_TICKS];
    /** Per tick, the reader threads' run time. */
    private final long[] reads = new long[WINDOW_TICKS];
    /**
     * Per tick, what ran on the machine besides maintenance and the readers (may be negative: the kernel
     * counts the machine's time by timer ticks, so a tick's figure is rough; the window's sum is not), or
     * {@link Long#MIN_VALUE} when unknown.
     */
    private final long[] others = new long[WINDOW_TICKS];
    /** Per tick, the peeks admitted. */
    private final long[] peeks = new long[WINDOW_TICKS];
    private final ConcurrentLinkedQueue<Waiter> waiting = new ConcurrentLinkedQueue<>();
    /** Peeks admitted in the current tick. */
    private final AtomicLong admitted = new AtomicLong();
    /** Peeks that asked for admission in the current tick. */
    private final AtomicLong arrivals = new AtomicLong();
    private final AtomicLong held = new AtomicLong();
    private Sample last;
    private int filled;
    private int next;
    private volatile long budget = UNLIMITED;
    private volatile double share = 1.0;

    private record Waiter(MonoSink<Void> sink, AtomicBoolean cancelled) {
    }

    /**
     * @param reserve the share maintenance is guaranteed while busy, in [0, {@value #MAX_RESERVE}]; 0 never limits
     * @param source maintenance's run and wait times so far (see {@link KernelSample})
     * @param cores the processors the process may use
     */
    public MaintenanceReserve(double reserve, Supplier<Sample> source, int cores) {
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
        Sample now = source.get();
        long run = Math.max(0, now.runNanos() - last.runNanos());
        long wait = Math.max(0, now.waitNanos() - last.waitNanos());
        long read = Math.max(0, now.readerRunNanos() - last.readerRunNanos());
        long other = now.machineRunNanos() < 0 || last.machineRunNanos() < 0 ? Long.MIN_VALUE
                : now.machineRunNanos() - last.machineRunNanos() - run - read;
        last = now;
        long asked = arrivals.getAndSet(0);
        long started = admitted.getAndSet(0);
        if (run + wait < BUSY_FRACTION * TICK.toNanos()) {
            filled = 0;
            next = 0;
            share = 1.0;
            budget = UNLIMITED;
            release();
            return;
        }
        runs[next] = run;
        taken[next] = Math.min(Math.max(0, Math.min(run + wait, capacityPerTick) - run), read);
        reads[next] = read;
        others[next] = other;
        peeks[next] = started;
        next = (next + 1) % WINDOW_TICKS;
        filled = Math.min(WINDOW_TICKS, filled + 1);
        long r = 0;
        long t = 0;
        long p = 0;
        long readers = 0;
        long o = 0;
        boolean machineKnown = true;
        for (int i = 0; i < filled; i++) {
            r += runs[i];
            t += taken[i];
            p += peeks[i];
            readers += reads[i];
            machineKnown &= others[i] != Long.MIN_VALUE;
            o += machineKnown ? others[i] : 0;
        }
        if (machineKnown && o > 0 && readers > 0) {
            t = (long) (t * (readers / (double) (readers + o)));
        }
        share = r / (double) (r + t);
        // The peeks per tick that would have kept what reads took within their part over the window.
        double allowed = r * (1 - reserve) / reserve;
        double target = t == 0 ? Double.MAX_VALUE : p / (double) filled * allowed / t;
        long b = budget;
        if (share < reserve && filled >= MIN_EVIDENCE_TICKS && t >= MIN_READ_FRACTION * capacityPerTick * filled) {
            if (p > 0) {
                // Never below half of what ran in the last tick: a short window's misjudgement must not
                // collapse the budget to one peek and leave readers queued while it grows back.
                budget = Math.max(Math.max(1, (long) target), started / 2);
            }
        } else if (b != UNLIMITED) {
            long grown = (long) Math.max(b + Math.max(1, b / 4), Math.min(target, UNLIMITED / 2));
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
        return admitNow() ? Mono.empty() : admitLater();
    }

    /**
     * Admits a peek now if this tick's budget allows and no earlier peek is waiting (counting its arrival
     * either way); if not, the peek is to wait for {@link #admitLater}.
     */
    public boolean admitNow() {
        arrivals.incrementAndGet();
        if (waiting.isEmpty()) {
            if (admitted.incrementAndGet() <= budget) {
                return true;
            }
            admitted.decrementAndGet();
        }
        return false;
    }

    /** Completes when a later tick admits a peek that {@link #admitNow} did not; first come, first served. */
    public Mono<Void> admitLater() {
        return Mono.create(sink -> {
            AtomicBoolean cancelled = new AtomicBoolean();
            sink.onCancel(() -> cancelled.set(true));
            held.incrementAndGet();
            waiting.add(new Waiter(sink, cancelled));
        });
    }

    /** Maintenance's share over the window against reads: run / (run + what reads took of its wait); 1 when idle. */
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
