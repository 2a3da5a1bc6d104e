package dev.tandem;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.reactive.function.client.WebClient;

/** Boots the real server on a random port (data in a temporary directory) and checks the actuator endpoints. */
// Closed after the class: a cached context would keep a server (and its shared fate) running through later tests.
@DirtiesContext
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class TandemApplicationTest {

    @TempDir
    static Path dataDir;

    @DynamicPropertySource
    static void storage(DynamicPropertyRegistry registry) {
        registry.add("tandem.storage.data-dir", dataDir::toString);
        registry.add("tandem.storage.fsync", () -> "false");
    }

    @Value("${local.server.port}")
    int port;

    @Test
    void healthIsUpAndPrometheusIsServed() {
        WebClient client = WebClient.create("http://localhost:" + port);
        String health = client.get().uri("/actuator/health").retrieve().bodyToMono(String.class).block();
        assertThat(health).contains("\"status\":\"UP\"");
        String metrics = client.get().uri("/actuator/prometheus").retrieve().bodyToMono(String.class).block();
        assertThat(metrics).contains("jvm_memory_used_bytes");
    }
}
