package dev.tandem.sql;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * Where and for how long statements are planned: a light lane and a heavy lane (by {@link StatementCost}),
 * so a burst of heavy statements never queues a light one, each planning admitted against its caller's
 * {@link PlanningAdmission}, bounded by the {@link SqlLimits} before it starts and by the planning timeout
 * while it runs ({@code 54000} either way).
 */
final class PlanningLanes {

    private final SqlLimits limits;
    private final Scheduler planning;
    private final Scheduler heavyPlanning;
    private final Scheduler timer;
    /** The deadline (in {@code timer}'s nanoseconds) of the planning running on this thread, or null outside one. */
    private final ThreadLocal<Long> deadline = new ThreadLocal<>();

    PlanningLanes(SqlLimits limits, Scheduler planning, Scheduler heavyPlanning, Scheduler timer) {
        this.limits = limits;
        this.planning = planning;
        this.heavyPlanning = heavyPlanning;
        this.timer = timer;
    }

    /** How long the planning on this thread may still run: until its deadline, or the planning timeout outside one. */
    long remainingNanos() {
        Long until = deadline.get();
        return until == null ? limits.planningTimeout().toNanos() : until - timer.now(TimeUnit.NANOSECONDS);
    }

    /**
     * Waits for another session's planning to end ({@code ended}), on no lane and within the planning timeout;
     * completes empty however it ends (the waiter then looks for the plan and plans itself if there is none).
     */
    Mono<Void> awaitOther(java.util.concurrent.CompletableFuture<?> ended) {
        return Mono.fromFuture(ended, true).timeout(limits.planningTimeout(), timer).onErrorResume(e -> Mono.empty()).then();
    }

    /**
     * Runs {@code work}, the planning of {@code sql}, on its lane: refused first when the statement is over
     * a bound or its caller at its limit of planning; answered {@code 54000} when the planning timeout
     * passes (the work then finishes unused, and its caller's admission is given back only then).
     */
    <T> Mono<T> planned(String sql, reactor.util.context.ContextView context, java.util.function.Supplier<T> work) {
        StatementCost cost;
        Runnable admitted;
        try {
            cost = bounded(sql);
            admitted = PlanningAdmission.of(context).plan();
        } catch (SqlException e) {
            return Mono.error(e);
        }
        AtomicBoolean released = new AtomicBoolean();
        Runnable release = () -> {
            if (released.compareAndSet(false, true)) {
                admitted.run();
            }
        };
        AtomicBoolean claimed = new AtomicBoolean();
        long until = timer.now(TimeUnit.NANOSECONDS) + limits.planningTimeout().toNanos();
        Mono<T> planning = Mono.fromCallable(() -> {
            if (!claimed.compareAndSet(false, true)) {
                return null;
            }
            deadline.set(until);
            try {
                return SqlErrors.guarded(() -> {
                    checkDeadline();
                    return work.get();
                });
            } finally {
                deadline.remove();
                release.run();
            }
        });
        return planning.subscribeOn(cost.heavy() ? heavyPlanning : this.planning)
                .timeout(limits.planningTimeout(), Mono.error(() -> planningTooLong()), timer)
                .doFinally(signal -> {
                    // not started yet (cancelled or timed out in the queue): it never will, and its admission is given back now
                    if (claimed.compareAndSet(false, true)) {
                        release.run();
                    }
                });
    }

    /** Refuses ({@code 54000}) a statement over its bounds of text and literals; else its cost. */
    StatementCost bounded(String sql) {
        StatementCost cost = StatementCost.of(sql, limits);
        SqlException refusal = cost.refusal(limits);
        if (refusal != null) {
            throw refusal;
        }
        return cost;
    }

    /** Whether the planning on this thread is past its deadline. */
    boolean pastDeadline() {
        Long until = deadline.get();
        return until != null && timer.now(TimeUnit.NANOSECONDS) > until;
    }

    /** Stops ({@code 54000}) the planning on this thread once past its deadline; nothing planned is kept. */
    void checkDeadline() {
        if (pastDeadline()) {
            throw planningTooLong();
        }
    }

    private SqlException planningTooLong() {
        return SqlException.tooComplex(SqlLimits.Bound.PLANNING_TIME, "more than " + limits.planningTimeout().toMillis() + " ms");
    }
}
