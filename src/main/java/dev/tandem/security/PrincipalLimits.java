package dev.tandem.security;

import dev.tandem.controller.ControllerException;
import dev.tandem.controller.ReadAdmission;
import dev.tandem.sql.PlanningAdmission;
import dev.tandem.sql.SqlException;
import dev.tandem.sql.SqlState;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;

/**
 * Per-principal limits on work held at once (reads in flight, slow-path reads' transient dataflows,
 * subscriptions, SQL statements being planned), so that one client cannot starve the others. A holder takes a permit and closes it
 * when the work ends.
 */
public final class PrincipalLimits {

    /** A kind of work that is limited per principal, with the property that sets its limit. */
    public enum Kind {
        /** Reads in flight: peeks, index lookups, introspection reads and SQL queries, over every surface. */
        PEEKS("max-concurrent-peeks"),
        /** Slow-path reads whose transient dataflow is pending on compute (a subset of the reads in flight). */
        DATAFLOWS("max-pending-dataflows"),
        /** Change streams held open: WebSocket subscriptions, SSE streams, wire-protocol SUBSCRIBEs. */
        SUBSCRIPTIONS("max-subscriptions"),
        /** SQL statements being planned (those the plan cache does not hold), over every surface. */
        PLANS("max-concurrent-plans");

        private final String property;

        Kind(String property) {
            this.property = property;
        }

        /** The property that sets this limit. */
        public String property() {
            return "tandem.security.limits." + property;
        }
    }

    /** The refusal of one more subscription to {@code who}, which holds as many as its limit allows. */
    public String subscriptionsExhausted(String who) {
        return "'" + who + "' holds " + limit(Kind.SUBSCRIPTIONS) + " subscriptions, its limit (" + Kind.SUBSCRIPTIONS.property()
                + "); close one first";
    }

    /** A held unit of work; closing it more than once releases it once. */
    public interface Permit extends AutoCloseable {
        @Override
        void close();
    }

    private static final Permit UNCOUNTED = () -> { };

    /** Units held, by kind and principal; a principal holding nothing has no entry (the map holds no history). */
    private final ConcurrentHashMap<String, Integer> held = new ConcurrentHashMap<>();
    private final BiConsumer<String, Kind> refused;
    private volatile int maxPeeks;
    private volatile int maxDataflows;
    private volatile int maxSubscriptions;
    private volatile int maxPlans;

    /** Limits per principal; 0 means unlimited (planning too). */
    public PrincipalLimits(int maxPeeks, int maxDataflows, int maxSubscriptions) {
        this(maxPeeks, maxDataflows, maxSubscriptions, 0, (principal, kind) -> { });
    }

    /** Limits per principal, planning unlimited; {@code refused} hears of each refusal (to count it by principal). */
    public PrincipalLimits(int maxPeeks, int maxDataflows, int maxSubscriptions, BiConsumer<String, Kind> refused) {
        this(maxPeeks, maxDataflows, maxSubscriptions, 0, refused);
    }

    /** Limits per principal, {@code maxPlans} statements being planned among them; {@code refused} hears of each refusal. */
    public PrincipalLimits(int maxPeeks, int maxDataflows, int maxSubscriptions, int maxPlans, BiConsumer<String, Kind> refused) {
        this.refused = refused;
        setLimits(maxPeeks, maxDataflows, maxSubscriptions, maxPlans);
    }

    /** Changes the limits but planning's (a live setting); work already held is not revoked (nor counted, when it was taken unlimited). */
    public void setLimits(int maxPeeks, int maxDataflows, int maxSubscriptions) {
        setLimits(maxPeeks, maxDataflows, maxSubscriptions, maxPlans);
    }

    /** Changes the limits (a live setting); work already held is not revoked (nor counted, when it was taken unlimited). */
    public void setLimits(int maxPeeks, int maxDataflows, int maxSubscriptions, int maxPlans) {
        this.maxPeeks = maxPeeks;
        this.maxDataflows = maxDataflows;
        this.maxSubscriptions = maxSubscriptions;
        this.maxPlans = maxPlans;
    }

    /**
     * A permit for one unit of {@code kind} by {@code principal}, or null when the principal is at its
     * limit. While {@code kind} is unlimited nothing is counted (open mode's every read would otherwise
     * contend on one anonymous counter).
     */
    public Permit tryAcquire(String principal, Kind kind) {
        int limit = limit(kind);
        if (limit <= 0) {
            return UNCOUNTED;
        }
        String key = kind + "/" + principal;
        boolean[] admitted = {false};
        held.compute(key, (k, n) -> {
            int count = n == null ? 0 : n;
            if (count >= limit) {
                return n;
            }
            admitted[0] = true;
            return count + 1;
        });
        if (!admitted[0]) {
            refused.accept(principal, kind);
            return null;
        }
        AtomicInteger once = new AtomicInteger();
        return () -> {
            if (once.getAndIncrement() == 0) {
                held.computeIfPresent(key, (k, n) -> n <= 1 ? null : n - 1);
            }
        };
    }

    /**
     * The admission of {@code principal}'s reads: each takes a {@link Kind#PEEKS} permit, and each
     * slow-path read's dataflow a {@link Kind#DATAFLOWS} permit; at a limit the read is refused with
     * {@link ControllerException.Kind#LIMITED} naming the property (HTTP 429, SQLSTATE 53400).
     */
    public ReadAdmission admission(String principal) {
        return new ReadAdmission() {
            @Override
            public Runnable read() {
                return acquire(principal, Kind.PEEKS, "reads in flight");
            }

            @Override
            public Runnable dataflow() {
                return acquire(principal, Kind.DATAFLOWS, "slow-path reads with a dataflow pending");
            }
        };
    }

    /**
     * The admission of {@code principal}'s SQL planning: each statement the plan cache does not hold takes
     * a {@link Kind#PLANS} permit while it is planned; at the limit it is refused with {@code 53400} naming
     * the property (HTTP 429), as its reads are.
     */
    public PlanningAdmission planning(String principal) {
        return () -> {
            Permit permit = tryAcquire(principal, Kind.PLANS);
            if (permit == null) {
                throw new SqlException(SqlState.CONFIGURATION_LIMIT_EXCEEDED, "'" + principal + "' has " + limit(Kind.PLANS) + " statements being planned, its limit ("
                        + Kind.PLANS.property() + "); retry when some finish");
            }
            return permit::close;
        };
    }

    private Runnable acquire(String principal, Kind kind, String what) {
        Permit permit = tryAcquire(principal, kind);
        if (permit == null) {
            throw new ControllerException(ControllerException.Reason.LIMITED, "'" + principal + "' has " + limit(kind) + " " + what
                    + ", its limit (" + kind.property() + "); retry when some finish");
        }
        return permit::close;
    }

    /** The current limit of {@code kind} (0: unlimited). */
    public int limit(Kind kind) {
        return switch (kind) {
            case PEEKS -> maxPeeks;
            case DATAFLOWS -> maxDataflows;
            case SUBSCRIPTIONS -> maxSubscriptions;
            case PLANS -> maxPlans;
        };
    }

    /** Units of {@code kind} that {@code principal} holds now. */
    public int held(String principal, Kind kind) {
        Integer n = held.get(kind + "/" + principal);
        return n == null ? 0 : n;
    }

    /** How many (kind, principal) pairs hold something now: what the limits keep in memory. */
    public int holders() {
        return held.size();
    }
}
