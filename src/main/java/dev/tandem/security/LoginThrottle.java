package dev.tandem.security;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Ticker;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * Slows repeated failed logins, as PostgreSQL's {@code auth_delay} does, but growing: each failure from a
 * client address or for a user name doubles the delay owed (from {@code base} up to {@code max}), and a
 * failure is forgotten {@code forget} after the last one.
 *
 * <ul>
 *   <li>Every attempt from an address with recent failures waits {@link #beforeAttempt} before its credentials
 *       are even checked, so a flood from one address gains nothing by opening more connections or giving
 *       up on slow answers. A success from the address forgets its failures.
 *   <li>A failed attempt's answer also waits what the user name owes ({@link #failed}), so guessing one
 *       user's password from many addresses is slowed too, while that user logging in correctly from an
 *       address without failures is not delayed at all.
 * </ul>
 *
 * The delays are owed, not slept: callers wait on a timer (never on a thread other logins need). Memory
 * is bounded: at most {@code maxEntries} addresses and as many user names are remembered.
 */
public final class LoginThrottle {

    /** A listener told of each failure (to count them as a metric), by surface and reason. */
    public interface Failures {
        void failed(String surface, String reason);
    }

    /** Failures of one key: how many in a row, forgotten together once {@code forget} passes without another. */
    private record Strikes(int count) {
    }

    private final Duration base;
    private final Duration max;
    private final Cache<String, Strikes> byAddress;
    private final Cache<String, Strikes> byUser;
    private final Failures failures;

    /**
     * A throttle whose first delay is {@code base} (zero: no delays, failures still counted), doubling to
     * {@code max}; {@code nanos} is the clock failures are forgotten by.
     */
    public LoginThrottle(Duration base, Duration max, Duration forget, int maxEntries, LongSupplier nanos, Failures failures) {
        if (base.isNegative() || max.compareTo(base) < 0) {
            throw new IllegalArgumentException("login delays must be 0 <= base <= max, got " + base + " and " + max);
        }
        this.base = base;
        this.max = max;
        this.failures = failures;
        Ticker ticker = nanos::getAsLong;
        this.byAddress = Caffeine.newBuilder().expireAfterWrite(forget).maximumSize(maxEntries).ticker(ticker).build();
        this.byUser = Caffeine.newBuilder().expireAfterWrite(forget).maximumSize(maxEntries).ticker(ticker).build();
    }

    /** No delays, nothing counted. */
    public static LoginThrottle none() {
        return new LoginThrottle(Duration.ZERO, Duration.ZERO, Duration.ofMinutes(1), 1, System::nanoTime, (s, r) -> { });
    }

    /** What an attempt from {@code address} waits before its credentials are checked. */
    public Duration beforeAttempt(String address) {
        return delay(byAddress.getIfPresent(address));
    }

    /**
     * Records a failed attempt (counted by {@code surface} and {@code reason}) and answers what its refusal
     * waits before it is sent: what {@code user} owes after this failure ({@code user} may be null when
     * none was named).
     */
    public Duration failed(String surface, String reason, String address, String user) {
        failures.failed(surface, reason);
        byAddress.asMap().merge(address, new Strikes(1), (a, b) -> new Strikes(Math.min(a.count() + 1, 62)));
        if (user == null) {
            return Duration.ZERO;
        }
        return delay(byUser.asMap().merge(user, new Strikes(1), (a, b) -> new Strikes(Math.min(a.count() + 1, 62))));
    }

    /** A successful login from {@code address}: its failures are forgotten (the user name's are kept). */
    public void succeeded(String address) {
        byAddress.invalidate(address);
    }

    private Duration delay(Strikes strikes) {
        if (strikes == null || base.isZero()) {
            return Duration.ZERO;
        }
        int doublings = Math.min(strikes.count() - 1, 30);
        long nanos = base.toNanos() << doublings;
        return nanos <= 0 || nanos > max.toNanos() ? max : Duration.ofNanos(nanos);
    }
}
