package dev.tandem.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The login throttle's delays, on an injected clock. */
class LoginThrottleTest {

    final AtomicLong nanos = new AtomicLong();
    final List<String> counted = new ArrayList<>();
    final LoginThrottle throttle = new LoginThrottle(Duration.ofMillis(250), Duration.ofSeconds(2), Duration.ofMinutes(15), 1000, nanos::get,
            (surface, reason) -> counted.add(surface + "/" + reason));

    @Test
    void anAddressOwesNothingUntilItFailsThenADelayThatDoublesUpToTheMaximum() {
        assertThat(throttle.beforeAttempt("10.0.0.1")).isZero();
        List<Duration> before = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            throttle.failed("pgwire", "password", "10.0.0.1", "alice");
            before.add(throttle.beforeAttempt("10.0.0.1"));
        }
        assertThat(before).containsExactly(Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(2),
                Duration.ofSeconds(2), Duration.ofSeconds(2));
        assertThat(counted).hasSize(6).containsOnly("pgwire/password");
    }

    @Test
    void aFailuresRefusalWaitsWhatItsUserOwesFromWhereverItComes() {
        assertThat(throttle.failed("pgwire", "password", "10.0.0.1", "alice")).isEqualTo(Duration.ofMillis(250));
        assertThat(throttle.failed("pgwire", "password", "10.0.0.2", "alice")).isEqualTo(Duration.ofMillis(500));
        assertThat(throttle.failed("pgwire", "password", "10.0.0.3", "alice")).isEqualTo(Duration.ofSeconds(1));
        // another user name owes nothing yet; a bearer token names none
        assertThat(throttle.failed("pgwire", "password", "10.0.0.3", "bob")).isEqualTo(Duration.ofMillis(250));
        assertThat(throttle.failed("http", "token", "10.0.0.3", null)).isZero();
        // an address without failures is never held before its attempt: a right password from there goes through at once
        assertThat(throttle.beforeAttempt("10.0.0.9")).isZero();
    }

    @Test
    void aLoginFromAnAddressForgetsItsFailuresAndFailuresAreForgottenAfterAWhile() {
        throttle.failed("pgwire", "password", "10.0.0.1", "alice");
        throttle.failed("pgwire", "password", "10.0.0.1", "alice");
        throttle.succeeded("10.0.0.1");
        assertThat(throttle.beforeAttempt("10.0.0.1")).isZero();
        // the user name's failures stay until they are forgotten
        assertThat(throttle.failed("pgwire", "password", "10.0.0.1", "alice")).isEqualTo(Duration.ofSeconds(1));

        nanos.addAndGet(Duration.ofMinutes(14).toNanos());
        assertThat(throttle.beforeAttempt("10.0.0.1")).isEqualTo(Duration.ofMillis(250));
        nanos.addAndGet(Duration.ofMinutes(2).toNanos());
        assertThat(throttle.beforeAttempt("10.0.0.1")).isZero();
        assertThat(throttle.failed("pgwire", "password", "10.0.0.2", "alice")).isEqualTo(Duration.ofMillis(250));
    }

    @Test
    void aZeroBaseDelaysNothingButStillCountsAndBadSettingsAreRefused() {
        LoginThrottle off = new LoginThrottle(Duration.ZERO, Duration.ZERO, Duration.ofMinutes(1), 10, nanos::get,
                (surface, reason) -> counted.add(reason));
        for (int i = 0; i < 5; i++) {
            assertThat(off.failed("pgwire", "password", "10.0.0.1", "alice")).isZero();
        }
        assertThat(off.beforeAttempt("10.0.0.1")).isZero();
        assertThat(counted).hasSize(5);
        assertThatThrownBy(() -> new LoginThrottle(Duration.ofSeconds(2), Duration.ofSeconds(1), Duration.ofMinutes(1), 10, nanos::get,
                (s, r) -> { })).isInstanceOf(IllegalArgumentException.class);
    }
}
