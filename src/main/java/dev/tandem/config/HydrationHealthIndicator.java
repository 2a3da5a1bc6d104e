package dev.tandem.config;

import dev.tandem.controller.Controller;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The {@code hydration} health component, part of the readiness group: {@code OUT_OF_SERVICE} until
 * every index recovered at start-up has hydrated; in replica mode (no controller) always up.
 */
final class HydrationHealthIndicator implements HealthIndicator {

    private final Controller controller;

    /** {@code controller} is null in replica mode. */
    HydrationHealthIndicator(Controller controller) {
        this.controller = controller;
    }

    @Override
    public Health health() {
        if (controller == null) {
            return Health.up().withDetail("mode", "replica").build();
        }
        return controller.ready()
                ? Health.up().withDetail("recoveredIndexes", "hydrated").build()
                : Health.outOfService().withDetail("recoveredIndexes", "hydrating").build();
    }
}
