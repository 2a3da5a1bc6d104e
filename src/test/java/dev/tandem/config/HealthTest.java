package dev.tandem.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.controller.Controller;
import java.nio.file.Path;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.reactive.function.client.WebClient;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The actuator probe groups: liveness, and readiness that includes the hydration of recovered indexes
 * and the storage; details shown as an operator who asked for them ({@code show-details=always}) sees
 * them (by default they are shown to authorized callers only, see {@code HealthDetailsTest}).
 */
// Closed after the class: a cached context would keep a server (and its shared fate) running through later tests.
@DirtiesContext
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "tandem.storage.fsync=false", "tandem.compute.interactive-runtime.enabled=false", "tandem.compute.maintenance-workers=1",
        "management.endpoint.health.show-details=always"})
class HealthTest {

    @TempDir
    static Path dataDir;

    @DynamicPropertySource
    static void dataDir(DynamicPropertyRegistry registry) {
        registry.add("tandem.storage.data-dir", () -> dataDir.toString());
    }

    @Value("${local.server.port}")
    int port;

    @Autowired
    Controller controller;

    @Autowired
    HydrationHealthIndicator hydration;

    private JsonNode get(String path) {
        return JsonMapper.builder().build().readTree(WebClient.create("http://127.0.0.1:" + port).get().uri(path)
                .retrieve().bodyToMono(String.class).block());
    }

    @Test
    void probesReportLivenessAndReadinessWithHydration() {
        assertThat(get("/actuator/health/liveness").path("status").asString()).isEqualTo("UP");

        JsonNode readiness = get("/actuator/health/readiness");
        assertThat(readiness.path("status").asString()).isEqualTo("UP");
        assertThat(StreamSupport.stream(readiness.path("components").propertyNames().spliterator(), false).toList())
                .containsExactlyInAnyOrder("readinessState", "hydration", "storage");
        assertThat(readiness.path("components").path("hydration").path("details").path("recoveredIndexes").asString()).isEqualTo("hydrated");
        assertThat(controller.ready()).isTrue();

        JsonNode tandem = get("/actuator/health/tandem");
        assertThat(tandem.path("details").path("mode").asString()).isEqualTo("standalone");
        assertThat(tandem.path("details").path("runtimes").asString()).isEqualTo("solo");
        assertThat(tandem.path("details").path("restartRequired").asBoolean(true)).isFalse();
    }

    @Test
    void replicaModeIsReadyOnceStarted() {
        assertThat(new HydrationHealthIndicator(null).health().getStatus()).isEqualTo(Status.UP);
        assertThat(hydration.health().getDetails()).containsEntry("recoveredIndexes", "hydrated");
    }
}
