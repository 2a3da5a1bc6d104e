package dev.tandem.config;

import dev.tandem.multiplex.Multiplexer;
import java.util.Map;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The {@code tandem} health component: the mode and runtimes Tandem runs with, and whether a changed
 * start-up-only setting waits for a restart ({@code restartRequired}, with the changed keys).
 */
final class TandemHealthIndicator implements HealthIndicator {

    private final TandemProperties running;
    private final Multiplexer compute;
    private final TandemSettingsRefresher refresher;

    TandemHealthIndicator(TandemProperties running, Multiplexer compute, TandemSettingsRefresher refresher) {
        this.running = running;
        this.compute = compute;
        this.refresher = refresher;
    }

    @Override
    public Health health() {
        Map<String, String> pending = refresher.restartRequired();
        Health.Builder health = Health.up()
                .withDetail("mode", running.mode().name().toLowerCase())
                .withDetail("runtimes", compute.twoRuntimes() ? "maintenance+interactive" : "solo")
                .withDetail("restartRequired", !pending.isEmpty());
        if (!pending.isEmpty()) {
            health.withDetail("changedSettings", pending);
        }
        if (refresher.rejected() != null) {
            health.withDetail("rejectedSettings", refresher.rejected());
        }
        return health.build();
    }
}
