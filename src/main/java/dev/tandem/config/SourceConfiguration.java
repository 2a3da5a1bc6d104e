package dev.tandem.config;

import dev.tandem.controller.Controller;
import dev.tandem.metrics.PgSourceMeters;
import dev.tandem.metrics.SourceMeters;
import dev.tandem.multiplex.Multiplexer;
import dev.tandem.runtime.Introspection;
import dev.tandem.source.SourceCoordination;
import dev.tandem.source.SourceManager;
import dev.tandem.source.postgres.PgSourceManager;
import dev.tandem.sql.SqlEngine;
import dev.tandem.storage.TableStorage;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Arrays;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * Wires the Kafka sources (standalone mode): the manager resumes every stored source at start-up; its
 * status and refused records feed {@code tandem_sources} and {@code tandem_source_errors}, its lag the
 * {@code tandem.source.*} meters. On the Kafka storage backend the replicas pick each source's ingester
 * through consumer groups on the log's cluster.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(SourceProperties.class)
public class SourceConfiguration {

    @Bean(destroyMethod = "close")
    @ConditionalOnProperty(name = "tandem.mode", havingValue = "standalone", matchIfMissing = true)
    SourceManager sourceManager(Controller controller, TableStorage storage, Multiplexer multiplexer, SourceProperties props,
            TandemProperties tandem, ObjectProvider<MeterRegistry> meters) {
        TandemProperties.Storage st = tandem.storage();
        SourceCoordination coordination = st.backend() == TandemProperties.Backend.KAFKA
                ? new SourceCoordination(st.kafka().bootstrapServers(), st.kafka().topic(), props.failoverTimeout())
                : null;
        MeterRegistry registry = meters.getIfAvailable();
        SourceMeters sourceMeters = registry == null ? null : new SourceMeters(registry);
        SourceManager sources = new SourceManager(controller, storage, props.bootstrapServers(),
                sourceMeters == null ? dev.tandem.source.SourceListener.NONE : sourceMeters, coordination);
        if (sourceMeters != null) {
            sourceMeters.bind(sources);
        }
        multiplexer.maintenance().addIntrospectionSource(Introspection.SOURCES.id(), () -> sources.list().stream()
                .map(s -> Arrays.<Object>asList(s.definition().name(), s.definition().topic(), s.definition().envelope().jsonName(),
                        (long) s.partitions(), json(s.offsets()), json(s.endOffsets()), s.lag(), s.records(), s.errors(), s.state(), s.detail(), s.ingesting(), s.decoded()))
                .toList());
        multiplexer.maintenance().addIntrospectionSource(Introspection.SOURCE_ERRORS.id(), () -> sources.errors().stream()
                .map(e -> Arrays.<Object>asList(e.source(), (long) e.partition(), e.offset(), e.error(), e.value()))
                .toList());
        return sources;
    }

    /**
     * The PostgreSQL sources (standalone mode): resumed at start-up, created and dropped in SQL (the
     * engine's {@code CREATE SOURCE ... FROM POSTGRES} and {@code DROP SOURCE}); a password is read from
     * {@code tandem.secrets.<name>} each time a source connects; their status feeds {@code tandem_pg_sources}.
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnProperty(name = "tandem.mode", havingValue = "standalone", matchIfMissing = true)
    PgSourceManager pgSourceManager(Controller controller, TableStorage storage, SqlEngine engine, Environment environment,
            Multiplexer multiplexer, ObjectProvider<MeterRegistry> meters) {
        MeterRegistry registry = meters.getIfAvailable();
        PgSourceMeters pgMeters = registry == null ? null : new PgSourceMeters(registry);
        PgSourceManager sources = new PgSourceManager(controller, storage, name -> environment.getProperty(UnknownPropertyCheck.SECRETS + name),
                pgMeters == null ? dev.tandem.source.SourceListener.NONE : pgMeters);
        if (pgMeters != null) {
            pgMeters.bind(sources);
        }
        engine.sources(sources);
        multiplexer.maintenance().addIntrospectionSource(Introspection.PG_SOURCES.id(), () -> sources.list().stream()
                .map(s -> Arrays.<Object>asList(s.name(), s.publication(), s.slot(), String.join(", ", s.tables()), s.state(), s.detail(),
                        s.lsn(), s.rowsCopied(), s.transactions(), s.lagSeconds(), s.bytesBehind(), jsonText(s.tableErrors())))
                .toList());
        return sources;
    }

    /** Offsets by partition as JSON ({@code {"0":12}}). */
    private static String json(java.util.Map<Integer, Long> offsets) {
        StringBuilder b = new StringBuilder("{");
        offsets.forEach((p, o) -> b.append(b.length() > 1 ? "," : "").append('"').append(p).append("\":").append(o));
        return b.append('}').toString();
    }

    /** A map as a JSON object. */
    private static String jsonText(java.util.Map<String, String> map) {
        return dev.tandem.json.StrictJson.MAPPER.writeValueAsString(map);
    }
}
