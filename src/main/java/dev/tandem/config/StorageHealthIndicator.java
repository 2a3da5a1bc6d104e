package dev.tandem.config;

import dev.tandem.storage.TableStorage;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The {@code storage} health component, part of the readiness group: {@code DOWN} while writes cannot
 * be made durable (e.g. the data directory's disk is full), so the server is taken out of rotation
 * until the storage, which retries by itself, can write again.
 */
final class StorageHealthIndicator implements HealthIndicator {

    private final TableStorage storage;

    StorageHealthIndicator(TableStorage storage) {
        this.storage = storage;
    }

    @Override
    public Health health() {
        String why = storage.unavailable();
        return why == null ? Health.up().withDetail("writes", "durable").build() : Health.down().withDetail("writes", why).build();
    }
}
