package dev.tandem.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

/** Unknown {@code tandem.*} properties are reported with the closest valid key; valid ones in any relaxed form are not. */
class UnknownPropertyCheckTest {

    @Test
    void validKeysComeFromTheSettingsRecords() {
        assertThat(UnknownPropertyCheck.validKeys()).contains("tandem.mode", "tandem.compute.interactive-runtime.enabled",
                "tandem.storage.data-dir", "tandem.storage.tick-interval", "tandem.peek.max-pending", "tandem.api.max-body-bytes",
                "tandem.config-server.url");
    }

    @Test
    void aTypoIsReportedWithTheClosestValidKey() {
        StandardEnvironment env = new StandardEnvironment();
        // only what the test sets: the real environment of the build may hold anything
        env.getPropertySources().remove(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME);
        env.getPropertySources().remove(StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME);
        Map<String, Object> props = new LinkedHashMap<>();
        props.put("tandem.storage.data-dri", "/tmp/x");
        props.put("tandem.peek.maxPendin", "3");
        props.put("tandem.storage.fsyn", "false");
        props.put("tandem.storage.fsync", "false");
        props.put("tandem.compute.maintenanceWorkers", "2");
        props.put("tandem.compaction.window", "2s");
        props.put("other.thing", "1");
        env.getPropertySources().addFirst(new MapPropertySource("test", props));
        env.getPropertySources().addFirst(new MapPropertySource("env-like", Map.of("TANDEM_STORAGE_TICK_INTERVAL", "5ms")));

        assertThat(UnknownPropertyCheck.warnings(env)).containsExactly(
                "unknown setting 'tandem.peek.maxpendin' is ignored; did you mean 'tandem.peek.max-pending'?",
                "unknown setting 'tandem.storage.data-dri' is ignored; did you mean 'tandem.storage.data-dir'?",
                "unknown setting 'tandem.storage.fsyn' is ignored; did you mean 'tandem.storage.fsync'?");
    }

    @Test
    void editDistance() {
        assertThat(UnknownPropertyCheck.distance("kitten", "sitting")).isEqualTo(3);
        assertThat(UnknownPropertyCheck.distance("", "abc")).isEqualTo(3);
        assertThat(UnknownPropertyCheck.distance("same", "same")).isZero();
    }
}
