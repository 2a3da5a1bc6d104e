package dev.tandem.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

import dev.tandem.controller.Controller;
import dev.tandem.metrics.Workload;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * End to end with a real Prometheus (the binary named by {@code PROMETHEUS_BINARY}, else
 * {@code prometheus} on the {@code PATH}, else {@code /usr/bin/prometheus} from the Debian package
 * {@code prometheus}, which {@code .ci/run} installs): Prometheus scrapes a running Tandem on loopback
 * every second while a small workload runs, then every Grafana panel's query, evaluated through
 * Prometheus' HTTP API, returns data. When no binary is found outside CI the test is skipped with a loud
 * message on standard error (and {@code bin/dev test} says so before the build); on CI
 * ({@code CI=true}) its absence fails.
 */
// Closed after the class: a cached context would keep a server (and its shared fate) running through later tests.
@DirtiesContext
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "server.address=127.0.0.1", "tandem.storage.fsync=false",
        "tandem.compute.maintenance-workers=2", "tandem.compute.interactive-workers=1"})
class PrometheusDashboardTest {

    static final Path PROMETHEUS = locatePrometheus();

    /** The Prometheus binary to run: {@code PROMETHEUS_BINARY}, the {@code PATH}, or the Debian package's path. */
    static Path locatePrometheus() {
        String named = System.getenv("PROMETHEUS_BINARY");
        if (named != null && !named.isBlank()) {
            return Path.of(named);
        }
        for (String entry : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            if (!entry.isEmpty() && Files.isExecutable(Path.of(entry, "prometheus"))) {
                return Path.of(entry, "prometheus");
            }
        }
        return Path.of("/usr/bin/prometheus");
    }
    static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    static Path dir;

    @DynamicPropertySource
    static void dataDir(DynamicPropertyRegistry registry) {
        registry.add("tandem.storage.data-dir", () -> dir.resolve("data").toString());
    }

    @BeforeAll
    static void prometheusIsInstalled() {
        if (!Files.isExecutable(PROMETHEUS)) {
            String why = PROMETHEUS + " is missing: install the Debian package 'prometheus' (.ci/run does) or set PROMETHEUS_BINARY"
                    + " to a Prometheus binary to check the dashboard against it";
            if ("true".equalsIgnoreCase(System.getenv("CI"))) {
                fail(why);
            }
            System.err.println();
            System.err.println("!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!");
            System.err.println("!!! SKIPPED PrometheusDashboardTest: the Grafana dashboard was NOT checked against Prometheus.");
            System.err.println("!!! " + why);
            System.err.println("!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!");
            System.err.println();
            Assumptions.abort(why);
        }
    }

    @Value("${local.server.port}")
    int port;

    @Autowired
    Controller controller;

    final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @Test
    void everyPanelQueryReturnsDataFromARealPrometheus() throws Exception {
        Workload workload = new Workload(controller).setUp();
        workload.round();
        System.gc(); // so the GC panels have a pause to show, whatever the heap did so far

        int prometheusPort = freePort();
        Path config = Files.writeString(dir.resolve("prometheus.yml"), """
                global:
                  scrape_interval: 1s
                  evaluation_interval: 1s
                scrape_configs:
                  - job_name: tandem
                    metrics_path: /actuator/prometheus
                    scrape_interval: 1s
                    scrape_timeout: 1s
                    static_configs:
                      - targets: ['127.0.0.1:%d']
                """.formatted(port));
        Path log = dir.resolve("prometheus.log");
        Process prometheus = new ProcessBuilder(PROMETHEUS.toString(),
                "--config.file=" + config,
                "--storage.tsdb.path=" + Files.createDirectories(dir.resolve("tsdb")),
                "--web.listen-address=127.0.0.1:" + prometheusPort,
                "--log.level=warn")
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        String base = "http://127.0.0.1:" + prometheusPort;
        try {
            await("Prometheus ready (log: " + log + ")").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                    .until(() -> prometheus.isAlive() && status(base + "/-/ready") == 200);
            await("Tandem scraped").atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(250))
                    .until(() -> targetHealth(base).equals("up"));

            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(6);
            while (System.nanoTime() < until) {
                workload.round();
            }

            Map<String, String> queries = GrafanaDashboardTest.panelQueries();
            Map<String, String> missing = new LinkedHashMap<>();
            await("every panel has data").atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofSeconds(1)).until(() -> {
                missing.clear();
                workload.round();
                queries.forEach((title, query) -> {
                    // Kafka sources' panels have data only while a source exists (no broker here): Prometheus
                    // must accept their queries; SourceReplicasTest checks their series on a live replica.
                    boolean sourcePanel = GrafanaDashboardTest.SOURCE_METRICS.containsAll(GrafanaDashboardTest.metricNames(query));
                    String problem = queryProblem(base, query, sourcePanel);
                    if (problem != null) {
                        missing.put(title, problem);
                    }
                });
                return missing.isEmpty();
            });
            assertThat(missing).isEmpty();
            assertThat(queries).hasSizeGreaterThanOrEqualTo(15);
        } finally {
            prometheus.destroy();
            if (!prometheus.waitFor(10, TimeUnit.SECONDS)) {
                prometheus.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    /** Why {@code query} fails or (unless {@code mayBeEmpty}) returns no data, or null when it does. */
    private String queryProblem(String base, String query, boolean mayBeEmpty) {
        try {
            JsonNode body = get(base + "/api/v1/query?query=" + URLEncoder.encode(query, StandardCharsets.UTF_8));
            if (!"success".equals(body.path("status").asString())) {
                return "status " + body.path("status").asString() + ": " + body.path("error").asString();
            }
            return !mayBeEmpty && body.path("data").path("result").isEmpty() ? "no data for " + query : null;
        } catch (IOException | InterruptedException e) {
            return e.toString();
        }
    }

    private String targetHealth(String base) throws IOException, InterruptedException {
        JsonNode targets = get(base + "/api/v1/targets").path("data").path("activeTargets");
        return targets.size() == 1 ? targets.path(0).path("health").asString() : "none";
    }

    private int status(String url) {
        try {
            return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(2)).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException | InterruptedException e) {
            return -1;
        }
    }

    private JsonNode get(String url) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
                HttpResponse.BodyHandlers.ofString());
        return JSON.readTree(r.body());
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
