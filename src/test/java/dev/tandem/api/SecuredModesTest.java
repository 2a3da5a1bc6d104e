package dev.tandem.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.socket.client.ReactorNettyWebSocketClient;
import reactor.netty.http.client.HttpClient;
import tools.jackson.databind.JsonNode;

/**
 * Credentials in the two deployments beside the default one: the actuator on its own management port
 * (probes and Prometheus open, health details and everything else for admin only) and replica mode
 * ({@code /v1/compute} only for the replica role; anonymous callers cannot take the controller's slot).
 */
class SecuredModesTest {

    @TempDir
    Path dir;

    @Test
    void onASeparateManagementPortTheActuatorIsProtectedAsOnTheApiPort() {
        // The test classpath also holds Tomcat (for the config server of ConfigServerTest); the jar has only Netty.
        try (SecuredServer s = new SecuredServer(dir, Map.of("management.server.port", 0, "spring.autoconfigure.exclude",
                "org.springframework.boot.tomcat.autoconfigure.actuate.web.server.TomcatReactiveManagementContextAutoConfiguration"))) {
            String port = s.server.context.getEnvironment().getProperty("local.management.port");
            assertThat(port).isNotNull().isNotEqualTo(Integer.toString(s.server.port));
            WebClient management = WebClient.builder().baseUrl("http://127.0.0.1:" + port)
                    .clientConnector(new ReactorClientHttpConnector(HttpClient.create().keepAlive(false))).build();

            assertThat(status(management, null, HttpMethod.GET, "/actuator/health/readiness")).isEqualTo(200);
            assertThat(status(management, null, HttpMethod.GET, "/actuator/prometheus")).isEqualTo(200);
            assertThat(body(management, null, "/actuator/health/storage")).doesNotContain("details");
            assertThat(body(management, "admin", s, "/actuator/health/storage")).contains("details");
            assertThat(status(management, null, HttpMethod.POST, "/actuator/refresh")).isEqualTo(401);
            assertThat(status(management, s.secrets.get("reader"), HttpMethod.POST, "/actuator/refresh")).isEqualTo(403);
            assertThat(status(management, s.secrets.get("reader"), HttpMethod.GET, "/actuator")).isEqualTo(403);
            assertThat(status(management, s.secrets.get("admin"), HttpMethod.POST, "/actuator/refresh")).isEqualTo(200);
            assertThat(status(management, s.secrets.get("admin"), HttpMethod.GET, "/actuator")).isEqualTo(200);
            // The API port keeps its own rules.
            assertThat(status(s.as(null), null, HttpMethod.GET, "/v1/tables")).isEqualTo(401);
        }
    }

    @Test
    void inReplicaModeOnlyTheReplicaRoleDrivesTheComputeEndpoint() {
        try (SecuredServer s = new SecuredServer(dir, Map.of("tandem.mode", "replica"))) {
            int port = s.server.port;
            assertThat(status(s.as(null), null, HttpMethod.GET, "/v1/compute")).isEqualTo(401);
            for (String role : new String[] {"reader", "writer", "admin"}) {
                assertThat(status(s.as(role), null, HttpMethod.GET, "/v1/compute")).as(role).isEqualTo(403);
            }
            assertThat(status(s.as("replica"), null, HttpMethod.GET, "/v1/tables")).as("the replica role reads nothing").isEqualTo(403);

            // Anonymous and wrong-role handshakes never open, so they cannot hold the controller's slot.
            for (String caller : new String[] {null, "admin"}) {
                try (SocketClient refused = new SocketClient(URI.create("ws://127.0.0.1:" + port + "/v1/compute"), s.bearer(caller),
                        new ReactorNettyWebSocketClient())) {
                    assertThat(refused.closed.asMono().block(Duration.ofSeconds(30))).isNotNull();
                    assertThat(refused.received).isEmpty();
                }
            }
            try (SocketClient replica = new SocketClient(URI.create("ws://127.0.0.1:" + port + "/v1/compute"), s.bearer("replica"),
                    new ReactorNettyWebSocketClient())) {
                replica.send("{\"type\":\"Bogus\"}");
                JsonNode error = replica.await(n -> "Status".equals(n.path("type").asString()));
                assertThat(error.path("kind").asString()).as("the session is open and speaks the protocol").isEqualTo("protocol_error");
            }
        }
    }

    private static int status(WebClient http, String secret, HttpMethod method, String uri) {
        WebClient.RequestHeadersSpec<?> spec = http.method(method).uri(uri);
        if (secret != null) {
            spec = spec.header(HttpHeaders.AUTHORIZATION, "Bearer " + secret);
        }
        return spec.exchangeToMono(r -> r.releaseBody().thenReturn(r.statusCode().value())).block(Duration.ofSeconds(30));
    }

    private static String body(WebClient http, String secret, String uri) {
        WebClient.RequestHeadersSpec<?> spec = http.get().uri(uri);
        if (secret != null) {
            spec = spec.header(HttpHeaders.AUTHORIZATION, "Bearer " + secret);
        }
        return spec.exchangeToMono(r -> r.bodyToMono(String.class).defaultIfEmpty("")).block(Duration.ofSeconds(30));
    }

    private static String body(WebClient http, String token, SecuredServer s, String uri) {
        return body(http, s.secrets.get(token), uri);
    }
}
