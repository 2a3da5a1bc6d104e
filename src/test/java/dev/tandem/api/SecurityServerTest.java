package dev.tandem.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tandem.TandemApplication;
import dev.tandem.security.AuditLog;
import dev.tandem.security.TokenHash;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.Disposable;

/**
 * Security at the process level: loopback only (or refusal to start) without credentials; token
 * rotation through {@code /actuator/refresh} from a mounted token file; the management surface;
 * per-principal peek limits (429); the audit trail.
 */
class SecurityServerTest {

    static final SecureRandom RANDOM = new SecureRandom();

    @TempDir
    Path dir;

    @Test
    @ExtendWith(OutputCaptureExtension.class)
    void withoutCredentialsTheServerListensOnLoopbackOnlyAndRefusesAnyOtherAddress(CapturedOutput output) {
        assertThatThrownBy(() -> start("--server.address=0.0.0.0"))
                .hasStackTraceContaining("server.address=0.0.0.0 is not a loopback address")
                .hasStackTraceContaining("tandem.security.tokens");
        try (ConfigurableApplicationContext open = start()) {
            assertThat(open.getEnvironment().getProperty("server.address")).isEqualTo("127.0.0.1");
            assertThat(output.getAll()).as("said at start-up").contains("no credentials are configured",
                    "Tandem listens on loopback only (127.0.0.1)");
            assertThat(WebClient.create("http://127.0.0.1:" + port(open)).get().uri("/v1/tables").retrieve().toBodilessEntity()
                    .block(Duration.ofSeconds(30)).getStatusCode().value()).as("open on loopback, as before").isEqualTo(200);
        }
    }

    @Test
    void aTokenRemovedFromTheMountedFileStopsWorkingOnRefreshAndAdminCallsAreAudited() throws IOException {
        String admin = TokenHash.newSecret(RANDOM);
        String oldReader = TokenHash.newSecret(RANDOM);
        String newReader = TokenHash.newSecret(RANDOM);
        Path tokens = dir.resolve("tokens.properties");
        Files.writeString(tokens, token(0, "admin", admin, "admin") + token(1, "old", oldReader, "reader"));
        try (ConfigurableApplicationContext tandem = start("--spring.config.additional-location=optional:file:" + tokens,
                "--tandem.security.limits.max-concurrent-peeks=1")) {
            WebClient http = WebClient.create("http://127.0.0.1:" + port(tandem));
            assertThat(status(http, oldReader, "GET", "/v1/tables", null)).isEqualTo(200);
            assertThat(status(http, newReader, "GET", "/v1/tables", null)).isEqualTo(401);

            // Management: probes and metrics open; health details to authenticated callers; every other endpoint only to admin.
            assertThat(status(http, null, "GET", "/actuator/health/readiness", null)).isEqualTo(200);
            assertThat(status(http, null, "GET", "/actuator/prometheus", null)).isEqualTo(200);
            assertThat(body(http, null, "/actuator/health/storage")).doesNotContain("details");
            assertThat(body(http, oldReader, "/actuator/health/storage")).as("a reader is authenticated").contains("details");
            assertThat(body(http, admin, "/actuator/health/storage")).contains("details");
            assertThat(status(http, oldReader, "GET", "/actuator/env", null)).isEqualTo(403);
            assertThat(status(http, null, "GET", "/actuator/env", null)).isEqualTo(401);
            assertThat(status(http, oldReader, "POST", "/actuator/refresh", null)).isEqualTo(403);

            Files.writeString(tokens, token(0, "admin", admin, "admin") + token(1, "new", newReader, "reader"));
            assertThat(status(http, admin, "POST", "/actuator/refresh", null)).isEqualTo(200);
            assertThat(status(http, oldReader, "GET", "/v1/tables", null)).as("the removed token").isEqualTo(401);
            assertThat(status(http, newReader, "GET", "/v1/tables", null)).as("the added token").isEqualTo(200);

            // One peek in flight per principal: a peek waiting for a future time holds the slot.
            assertThat(status(http, admin, "POST", "/v1/tables", "{\"name\":\"t\",\"columns\":[{\"name\":\"id\",\"type\":\"int64\"}]}"))
                    .isEqualTo(201);
            long future = System.currentTimeMillis() + 600_000;
            Disposable waiting = request(http, newReader, "POST", "/v1/peek", "{\"from\":\"t\",\"as_of\":" + future + ",\"timeout_ms\":100000}")
                    .retrieve().toBodilessEntity().subscribe(x -> { }, e -> { });
            try {
                org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() ->
                        tandem.getBean(dev.tandem.security.PrincipalLimits.class).held("new", dev.tandem.security.PrincipalLimits.Kind.PEEKS) == 1);
                var limited = request(http, newReader, "POST", "/v1/peek", "{\"from\":\"t\"}").exchangeToMono(r -> r.toEntity(String.class))
                        .block(Duration.ofSeconds(30));
                assertThat(limited.getStatusCode().value()).isEqualTo(429);
                assertThat(limited.getHeaders().getFirst(HttpHeaders.RETRY_AFTER)).isEqualTo("1");
                assertThat(limited.getHeaders().getContentType().isCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)).isTrue();
                assertThat(status(http, admin, "POST", "/v1/peek", "{\"from\":\"t\"}")).as("another principal is not limited").isEqualTo(200);
                assertThat(tandem.getBean(MeterRegistry.class).counter("tandem.principal.limited", "principal", "new", "kind", "peeks").count())
                        .isEqualTo(1.0);
            } finally {
                waiting.dispose();
            }

            assertThat(status(http, admin, "DELETE", "/v1/tables/t", null)).isEqualTo(204);
            assertThat(status(http, "not-a-token-at-all-000", "GET", "/v1/tables", null)).isEqualTo(401);
            var audit = tandem.getBean(AuditLog.class).recent();
            assertThat(audit).anySatisfy(e -> assertThat(e.toString()).contains("principal=admin", "action=POST", "target=/v1/tables", "outcome=201"));
            assertThat(audit).anySatisfy(e -> assertThat(e.toString()).contains("principal=admin", "action=DELETE", "target=/v1/tables/t"));
            assertThat(audit).anySatisfy(e -> assertThat(e.toString()).contains("principal=admin", "target=/actuator/refresh", "outcome=200"));
            assertThat(audit).anySatisfy(e -> assertThat(e.toString()).contains("principal=old", "target=/actuator/refresh", "forbidden"));
            assertThat(audit).anySatisfy(e -> assertThat(e.toString()).contains("action=authenticate", "address=127.0.0.1", "refused"));
            assertThat(status(http, newReader, "GET", "/v1/introspection/tandem_audit", null)).isEqualTo(403);
            String recent = body(http, admin, "/v1/introspection/tandem_audit?limit=3");
            assertThat(TandemServer.json(recent).get("rows")).hasSize(3);
            assertThat(TandemServer.json(recent).get("columns").toString()).isEqualTo(
                    "[\"time\",\"principal\",\"address\",\"action\",\"target\",\"outcome\"]");
            assertThat(recent).contains("/v1/introspection/tandem_audit", "forbidden");
        }
    }

    private static String token(int i, String name, String secret, String roles) {
        String p = "tandem.security.tokens[" + i + "].";
        return p + "name=" + name + "\n" + p + "hash=" + TokenHash.hash(secret, RANDOM) + "\n" + p + "roles=" + roles + "\n";
    }

    private ConfigurableApplicationContext start(String... extra) {
        String[] args = new String[extra.length + 5];
        args[0] = "--server.port=0";
        args[1] = "--tandem.storage.data-dir=" + dir.resolve("data");
        args[2] = "--tandem.storage.fsync=false";
        args[3] = "--tandem.compute.maintenance-workers=1";
        args[4] = "--tandem.compute.interactive-workers=1";
        System.arraycopy(extra, 0, args, 5, extra.length);
        return new SpringApplicationBuilder(TandemApplication.class).run(args);
    }

    private static int port(ConfigurableApplicationContext c) {
        return ((WebServerApplicationContext) c).getWebServer().getPort();
    }

    private static WebClient.RequestHeadersSpec<?> request(WebClient http, String secret, String method, String uri, String body) {
        WebClient.RequestBodySpec spec = http.method(org.springframework.http.HttpMethod.valueOf(method)).uri(uri);
        if (secret != null) {
            spec.header(HttpHeaders.AUTHORIZATION, "Bearer " + secret);
        }
        return body == null ? spec : spec.contentType(MediaType.APPLICATION_JSON).bodyValue(body);
    }

    private static int status(WebClient http, String secret, String method, String uri, String body) {
        return request(http, secret, method, uri, body).exchangeToMono(r -> r.releaseBody().thenReturn(r.statusCode().value()))
                .block(Duration.ofSeconds(30));
    }

    private static String body(WebClient http, String secret, String uri) {
        return request(http, secret, "GET", uri, null).exchangeToMono(r -> r.bodyToMono(String.class)).block(Duration.ofSeconds(30));
    }
}
