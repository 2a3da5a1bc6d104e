package dev.tandem.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;
import tools.jackson.databind.JsonNode;

/**
 * {@code tandem bench replicas} end to end at a tiny scale over an embedded KRaft broker; no timing is
 * asserted. It starts eight child servers one after another, too long for the default suite, so it runs
 * on demand: {@code mvn -B test -Dtest=ReplicasScenarioSmokeTest -Dtandem.bench.replicas-smoke=true}.
 */
@EnabledIfSystemProperty(named = "tandem.bench.replicas-smoke", matches = "true")
class ReplicasScenarioSmokeTest {

    @Test
    @Timeout(900)
    void replicasScenarioWritesItsFields(@TempDir Path dir) {
        EmbeddedKafkaKraftBroker broker = new EmbeddedKafkaKraftBroker(1, 1);
        broker.afterPropertiesSet();
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            JsonNode json = BenchMain.run(new PrintStream(out, true, StandardCharsets.UTF_8), "replicas",
                    "--kafka", broker.getBrokersAsString(), "--rows", "20000", "--point-rows", "2000",
                    "--duration", "2s", "--probe", "1s", "--connections", "4", "--heap-mb", "320",
                    "--jvm-arg", "-XX:TieredStopAtLevel=1", "--jvm-arg", "-XX:+UseSerialGC",
                    "--out", dir.resolve("replicas.json").toString());
            assertThat(json.path("arms").propertyNames()).containsExactlyInAnyOrder("local", "kafka_1", "kafka_2", "kafka_3", "catch_up");
            for (String arm : List.of("local", "kafka_1", "kafka_2", "kafka_3")) {
                for (String part : List.of("reads", "writes", "write_to_visible")) {
                    JsonNode p = json.path("arms").path(arm).path(part);
                    assertThat(p.path("count").asLong()).as("%s %s answered", arm, part).isPositive();
                    assertThat(p.path("errors").asLong()).as("%s %s errors in %s", arm, part, p).isZero();
                }
            }
            assertThat(json.path("arms").path("catch_up").path("catch_up_seconds_per_million_rows").isNumber()).isTrue();
            assertThat(out.toString(StandardCharsets.UTF_8)).contains("| kafka_3 reads", "catch-up:");
        } finally {
            broker.destroy();
        }
    }
}
