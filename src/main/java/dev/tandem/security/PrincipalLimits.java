package dev.tandem.security;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;

/**
 * Per-principal limits on work held at once (peeks in flight, subscriptions), so that one client
 * cannot starve the others. A holder takes a permit and closes it when the work ends.
 */
public final class PrincipalLimits {

    /** A kind of work that is limited per principal. */
    public enum Kind { PEEKS, SUBSCRIPTIONS }

    /** A held unit of work; closing it more than once releases it once. */
    public interface Permit extends AutoCloseable {
        @Override
        void close();
    }

    private final ConcurrentHashMap<String, AtomicInteger> held = new ConcurrentHashMap<>();
    private final BiConsumer<String, Kind> refused;
    private volatile int maxPeeks;
    private volatile int maxSubscriptions;

    /** Limits per principal; 0 means unlimited. */
    public PrincipalLimits(int maxPeeks, int maxSubscriptions) {
        this(maxPeeks, maxSubscriptions, (principal, kind) -> { });
    }

    /** Limits per principal; {@code refused} hears of each refusal (to count it by principal). */
    public PrincipalLimits(int maxPeeks, int maxSubscriptions, BiConsumer<String, Kind> refused) {
        this.refused = refused;
        setLimits(maxPeeks, maxSubscriptions);
    }

    /** Changes the limits (a live setting); work already held is not revoked. */
    public void setLimits(int maxPeeks, int maxSubscriptions) {
        this.maxPeeks = maxPeeks;
        this.maxSubscriptions = maxSubscriptions;
    }

    /** A permit for one unit of {@code kind} by {@code principal}, or null when the principal is at its limit. */
    public Permit tryAcquire(String principal, Kind kind) {
        int limit = limit(kind);
        AtomicInteger count = held.computeIfAbsent(kind + "/" + principal, k -> new AtomicInteger());
        if (count.incrementAndGet() > limit && limit > 0) {
            count.decrementAndGet();
            refused.accept(principal, kind);
            return null;
        }
        AtomicInteger once = new AtomicInteger();
        return () -> {
            if (once.getAndIncrement() == 0) {
                count.decrementAndGet();
            }
        };
    }

    /** The current limit of {@code kind} (0: unlimited). */
    public int limit(Kind kind) {
        return kind == Kind.PEEKS ? maxPeeks : maxSubscriptions;
    }

    /** Units of {@code kind} that {@code principal} holds now. */
    public int held(String principal, Kind kind) {
        AtomicInteger c = held.get(kind + "/" + principal);
        return c == null ? 0 : c.get();
    }
}
