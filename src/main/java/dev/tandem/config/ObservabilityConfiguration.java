package dev.tandem.config;

import dev.tandem.controller.Controller;
import dev.tandem.metrics.TandemMeters;
import dev.tandem.multiplex.Multiplexer;
import dev.tandem.runtime.RuntimeObserver;
import dev.tandem.sharing.ArrangementSharingRegistry;
import dev.tandem.storage.TableStorage;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/** Metrics, health and live configuration of the engine wired by {@link TandemConfiguration}. */
@Configuration(proxyBeanMethods = false)
public class ObservabilityConfiguration {

    @Bean
    RuntimeObserver runtimeObserver(MeterRegistry registry, TandemProperties props) {
        return TandemMeters.observer(registry, props.compute().interactiveRuntime().enabled());
    }

    /** Bound by Spring Boot once every singleton exists, so it may depend on the compute side. */
    @Bean
    MeterBinder tandemRuntimeGauges(Multiplexer compute, ArrangementSharingRegistry sharing) {
        return registry -> TandemMeters.bindRuntimeGauges(registry, compute, sharing, TandemConfiguration.WALL_CLOCK);
    }

    /** The controller's meters (standalone mode only: a replica has no controller). */
    @Bean
    MeterBinder tandemControllerMeters(ObjectProvider<Controller> controller) {
        return registry -> controller.ifAvailable(c -> TandemMeters.bindControllerMeters(registry, c::pendingReads, c::droppedEvents));
    }

    /** Warns at start-up about each {@code tandem.*} property no setting binds, naming the closest valid key. */
    @Bean
    org.springframework.boot.ApplicationRunner tandemUnknownPropertyWarning(Environment environment) {
        return args -> UnknownPropertyCheck.warn(environment);
    }

    @Bean
    TandemSettingsRefresher tandemSettingsRefresher(Environment environment, TandemProperties props, ObjectProvider<Controller> controller) {
        return new TandemSettingsRefresher(environment, props, controller);
    }

    @Bean
    TandemHealthIndicator tandemHealthIndicator(TandemProperties props, Multiplexer compute, TandemSettingsRefresher refresher) {
        return new TandemHealthIndicator(props, compute, refresher);
    }

    @Bean
    StorageHealthIndicator storageHealthIndicator(TableStorage storage) {
        return new StorageHealthIndicator(storage);
    }

    @Bean
    HydrationHealthIndicator hydrationHealthIndicator(ObjectProvider<Controller> controller) {
        return new HydrationHealthIndicator(controller.getIfAvailable());
    }
}
