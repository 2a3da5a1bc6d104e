package dev.tandem.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.controller.ControllerSettings;
import java.lang.reflect.RecordComponent;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/** The {@code tandem.*} property names, their defaults, and the split into start-up-only and live settings. */
public class TandemPropertiesTest {

    /** The live settings: every other property is start-up only. */
    static final Set<String> LIVE = Set.of("tandem.compaction.window", "tandem.peek.max-result-rows", "tandem.peek.max-pending",
            "tandem.peek.default-timeout");

    /** Every property {@link TandemProperties} binds, in kebab case, from its record components. */
    public static Set<String> propertyNames() {
        Set<String> names = new TreeSet<>();
        collect("tandem", TandemProperties.class, names);
        return names;
    }

    private static void collect(String prefix, Class<?> type, Set<String> out) {
        for (RecordComponent c : type.getRecordComponents()) {
            String name = prefix + "." + c.getName().replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase();
            if (c.getType().isRecord()) {
                collect(name, c.getType(), out);
            } else {
                out.add(name);
            }
        }
    }

    private static TandemProperties bind(Map<String, String> properties) {
        return new Binder(new MapConfigurationPropertySource(properties)).bindOrCreate("tandem", TandemProperties.class);
    }

    @Test
    void propertyNamesFollowTheRecords() {
        assertThat(propertyNames()).containsExactly(
                "tandem.compaction.window",
                "tandem.compute.dataflow-memory-budget",
                "tandem.compute.fresh-round-updates",
                "tandem.compute.hydration-lanes",
                "tandem.compute.hydration-nice",
                "tandem.compute.interactive-runtime.enabled",
                "tandem.compute.interactive-workers",
                "tandem.compute.jit-nice",
                "tandem.compute.maintenance-nice",
                "tandem.compute.maintenance-reserve",
                "tandem.compute.maintenance-workers",
                "tandem.http.idle-timeout",
                "tandem.http.max-connections",
                "tandem.http.max-connections-per-address",
                "tandem.http.read-timeout",
                "tandem.http.request-body-timeout",
                "tandem.http.request-head-timeout",
                "tandem.mode",
                "tandem.peek.default-timeout",
                "tandem.peek.max-pending",
                "tandem.peek.max-result-rows",
                "tandem.pgwire.authentication-timeout",
                "tandem.pgwire.host",
                "tandem.pgwire.idle-in-transaction-session-timeout",
                "tandem.pgwire.idle-session-timeout",
                "tandem.pgwire.max-connections",
                "tandem.pgwire.port",
                "tandem.pgwire.reserved-admin-connections",
                "tandem.pgwire.warm-up-reads",
                "tandem.sql.max-literals",
                "tandem.sql.max-recursion-iterations",
                "tandem.sql.max-recursion-rows",
                "tandem.sql.max-statement-bytes",
                "tandem.sql.plan-cache-bytes",
                "tandem.sql.planning-timeout",
                "tandem.storage.backend",
                "tandem.storage.data-dir",
                "tandem.storage.fsync",
                "tandem.storage.kafka.bootstrap-servers",
                "tandem.storage.kafka.replication-factor",
                "tandem.storage.kafka.timeout",
                "tandem.storage.kafka.topic",
                "tandem.storage.repair",
                "tandem.storage.tick-interval");
    }

    @Test
    void everyPropertyIsEitherStartupOnlyOrLive() {
        Set<String> startup = bind(Map.of()).startupSettings().keySet();

        assertThat(startup).doesNotContainAnyElementsOf(LIVE);
        Set<String> all = new TreeSet<>(startup);
        all.addAll(LIVE);
        assertThat(all).isEqualTo(propertyNames());
    }

    @Test
    void liveSettingsReachTheController() {
        TandemProperties p = bind(Map.of("tandem.compaction.window", "250ms", "tandem.peek.max-result-rows", "7",
                "tandem.peek.max-pending", "3", "tandem.peek.default-timeout", "2s"));

        assertThat(TandemConfiguration.settings(p)).isEqualTo(new ControllerSettings(Duration.ofMillis(250), 3, 7, Duration.ofSeconds(2)));
    }

    @Test
    void defaultsBindWithoutAnyProperty() {
        TandemProperties p = bind(Map.of());

        assertThat(p.mode()).isEqualTo(TandemProperties.Mode.STANDALONE);
        assertThat(p.compute().interactiveRuntime().enabled()).isTrue();
        assertThat(p.storage().fsync()).isTrue();
        assertThat(p.storage().tickInterval()).isEqualTo(Duration.ofMillis(10));
        assertThat(TandemConfiguration.settings(p)).isEqualTo(ControllerSettings.DEFAULTS);
        assertThat(p.sql().limits()).isEqualTo(dev.tandem.sql.SqlLimits.DEFAULTS);
    }

    @Test
    void sqlBoundsBindFromTheirProperties() {
        TandemProperties p = bind(Map.of("tandem.sql.max-statement-bytes", "1MB", "tandem.sql.max-literals", "5000",
                "tandem.sql.planning-timeout", "2s", "tandem.sql.plan-cache-bytes", "0"));

        assertThat(p.sql().limits()).isEqualTo(new dev.tandem.sql.SqlLimits(1 << 20, 5000, Duration.ofSeconds(2), 0));
    }
}
