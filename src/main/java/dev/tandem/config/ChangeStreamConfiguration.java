package dev.tandem.config;

import dev.tandem.metrics.ChangeStreamMeters;
import dev.tandem.multiplex.Multiplexer;
import dev.tandem.runtime.Introspection;
import dev.tandem.sharing.ArrangementSharingRegistry;
import dev.tandem.stream.ChangeStreams;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Arrays;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.scheduler.Schedulers;

/**
 * Wires the change-stream server (standalone mode): it serves subscriptions on the reading runtime's
 * own threads (the interactive fast lane, or the solo runtime's first worker), within
 * {@code tandem.subscribe.*}.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(SubscribeProperties.class)
public class ChangeStreamConfiguration {

    @Bean(destroyMethod = "close")
    @ConditionalOnProperty(name = "tandem.mode", havingValue = "standalone", matchIfMissing = true)
    ChangeStreams changeStreams(Multiplexer multiplexer, ArrangementSharingRegistry registry, SubscribeProperties props) {
        ChangeStreams streams = new ChangeStreams(registry, Schedulers.fromExecutor(multiplexer.reader()::execute), props.limits());
        multiplexer.maintenance().addIntrospectionSource(Introspection.SUBSCRIPTIONS.id(), () -> streams.active().stream()
                .map(s -> Arrays.<Object>asList(s.id(), s.index(), s.subscriber(), s.delivered(), s.lagMillis(), s.buffered(), s.messages(), s.bytes()))
                .toList());
        return streams;
    }

    @Bean
    @ConditionalOnProperty(name = "tandem.mode", havingValue = "standalone", matchIfMissing = true)
    MeterBinder changeStreamMeters(ChangeStreams streams) {
        return registry -> ChangeStreamMeters.bind(registry, streams);
    }
}
