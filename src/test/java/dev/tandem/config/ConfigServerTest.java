package dev.tandem.config;

import dev.tandem.api.JsonRequests;
import dev.tandem.api.ReadJson;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tandem.TandemApplication;
import dev.tandem.controller.Controller;
import dev.tandem.controller.ControllerException;
import dev.tandem.controller.ReadResult;
import dev.tandem.multiplex.Multiplexer;
import dev.tandem.row.Column;
import dev.tandem.row.DatumType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.boot.web.server.reactive.context.ReactiveWebServerApplicationContext;
import org.springframework.cloud.config.server.EnableConfigServer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.PropertySource;
import org.springframework.web.reactive.function.client.WebClient;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Tandem configured by a real Spring Cloud Config server (native backend on a test folder), which runs
 * in its own servlet application context on its own port while Tandem stays reactive.
 */
@ExtendWith(OutputCaptureExtension.class)
class ConfigServerTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    /**
     * The config server application; not a {@code @Configuration}, so Tandem's component scan never
     * picks it up. Spring Security is on the classpath (for Tandem); this test server serves without it.
     */
    @EnableAutoConfiguration(excludeName = {
            "org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration",
            "org.springframework.boot.security.autoconfigure.UserDetailsServiceAutoConfiguration",
            "org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration",
            "org.springframework.boot.security.autoconfigure.web.servlet.SecurityFilterAutoConfiguration",
            "org.springframework.boot.security.autoconfigure.actuate.web.servlet.ManagementWebSecurityAutoConfiguration"})
    @EnableConfigServer
    static class NativeConfigServer {
    }

    @TempDir
    static Path dir;

    static Path served;
    static ConfigurableApplicationContext configServer;
    static int configServerPort;

    @BeforeAll
    static void startConfigServer() throws IOException {
        Path repo = Files.createDirectories(dir.resolve("config-repo"));
        served = repo.resolve("tandem.properties");
        Files.writeString(served, "");
        configServer = new SpringApplicationBuilder(NativeConfigServer.class)
                .web(WebApplicationType.SERVLET)
                .run("--spring.config.name=native-config-server", // not Tandem's application.yaml
                        "--spring.main.web-application-type=servlet",
                        "--spring.application.name=config-server",
                        "--server.address=127.0.0.1",
                        "--server.port=0",
                        "--spring.profiles.active=native",
                        "--spring.cloud.config.server.native.search-locations=" + repo.toUri(),
                        "--spring.cloud.config.enabled=false");
        configServerPort = ((WebServerApplicationContext) configServer).getWebServer().getPort();
    }

    @AfterAll
    static void stopConfigServer() {
        if (configServer != null) {
            configServer.close();
        }
    }

    private static void serve(String properties) throws IOException {
        Files.writeString(served, properties);
    }

    private static String settings(boolean twoRuntimes, int maintenanceWorkers, long maxResultRows, String window) {
        return String.join("\n",
                "tandem.storage.data-dir=" + dir.resolve("data").toString().replace("\\", "/"),
                "tandem.storage.fsync=false",
                "tandem.compute.interactive-runtime.enabled=" + twoRuntimes,
                "tandem.compute.maintenance-workers=" + maintenanceWorkers,
                "tandem.compute.interactive-workers=1",
                "tandem.peek.max-result-rows=" + maxResultRows,
                "tandem.compaction.window=" + window, "");
    }

    private static ConfigurableApplicationContext startTandem(String... args) {
        return new SpringApplicationBuilder(TandemApplication.class).run(args);
    }

    private static int port(ConfigurableApplicationContext tandem) {
        return ((WebServerApplicationContext) tandem).getWebServer().getPort();
    }

    @Test
    void configServerDecidesStartupSettingsAndRefreshAppliesOnlyLiveOnes(CapturedOutput output) throws IOException {
        serve(settings(false, 1, 1000, "1s"));
        try (ConfigurableApplicationContext tandem = startTandem("--server.port=0", "--server.address=127.0.0.1",
                "--spring.cloud.config.enabled=true", "--management.endpoint.health.show-details=always",
                "--tandem.config-server.url=http://127.0.0.1:" + configServerPort)) {
            assertThat(tandem).isInstanceOf(ReactiveWebServerApplicationContext.class);
            assertThat(tandem.getEnvironment().getPropertySources().stream().map(PropertySource::getName))
                    .anyMatch(name -> name.startsWith("configserver:"));

            // (a) The served tandem.compute.interactive-runtime.enabled=false: one SOLO runtime answers reads.
            Multiplexer compute = tandem.getBean(Multiplexer.class);
            Controller controller = tandem.getBean(Controller.class);
            assertThat(compute.twoRuntimes()).isFalse();
            assertThat(compute.reader().role().tag()).isEqualTo("solo");
            assertThat(compute.maintenance().workers()).isEqualTo(1);
            controller.createTable("t", List.of(new Column("id", DatumType.INT64, false)));
            JsonRequests.write(controller, "t", JSON.readTree("[[1],[2],[3]]"), null).block();
            ReadResult all = read(controller);
            assertThat(all.rows()).hasSize(3);
            assertThat(all.runtime()).isEqualTo("solo");
            assertThat(all.path()).isEqualTo("slow");

            // (b) A live setting changed on the server applies on /actuator/refresh, without a restart.
            serve(settings(false, 1, 2, "1s"));
            assertThat(refresh(tandem)).contains("tandem.peek.max-result-rows");
            assertThat(controller.settings().maxResultRows()).isEqualTo(2);
            assertThatThrownBy(() -> read(controller)).isInstanceOfSatisfying(ControllerException.class,
                    e -> assertThat(e.kind()).isEqualTo(ControllerException.Kind.TOO_LARGE));
            assertThat(health(tandem).path("details").path("restartRequired").asBoolean()).isFalse();
            assertThat(output.getOut()).doesNotContain("start-up-only setting");

            // (c) Start-up-only settings changed on the server are reported, not applied; live ones still apply.
            serve(settings(true, 3, 1000, "250ms"));
            assertThat(refresh(tandem)).contains("tandem.compute.interactive-runtime.enabled", "tandem.compute.maintenance-workers");
            assertThat(output.getOut())
                    .contains("WARN")
                    .contains("tandem.compute.interactive-runtime.enabled changed from false to true: it is a start-up-only setting")
                    .contains("tandem.compute.maintenance-workers changed from 1 to 3: it is a start-up-only setting");
            JsonNode health = health(tandem).path("details");
            assertThat(health.path("restartRequired").asBoolean()).isTrue();
            assertThat(StreamSupport.stream(health.path("changedSettings").propertyNames().spliterator(), false).toList())
                    .containsExactly("tandem.compute.interactive-runtime.enabled", "tandem.compute.maintenance-workers");
            assertThat(health.path("changedSettings").path("tandem.compute.maintenance-workers").asString()).isEqualTo("1 -> 3");
            assertThat(health.path("runtimes").asString()).isEqualTo("solo");
            assertThat(tandem.getBean(Multiplexer.class)).isSameAs(compute);
            assertThat(compute.twoRuntimes()).isFalse();
            assertThat(compute.maintenance().workers()).isEqualTo(1);
            assertThat(controller.settings().maxResultRows()).isEqualTo(1000);
            assertThat(controller.settings().compactionWindow()).isEqualTo(Duration.ofMillis(250));
            assertThat(read(controller).runtime()).isEqualTo("solo");
            assertThat(tandem.getBean(TandemProperties.class).compute().interactiveRuntime().enabled()).isFalse();

            // Going back to the running values clears the report.
            serve(settings(false, 1, 1000, "250ms"));
            refresh(tandem);
            assertThat(health(tandem).path("details").path("restartRequired").asBoolean()).isFalse();
            assertThat(health(tandem).path("details").has("changedSettings")).isFalse();
        }
    }

    @Test
    void withoutAConfigServerUrlTandemStartsQuietlyWithoutOne(CapturedOutput output) {
        try (ConfigurableApplicationContext tandem = startTandem("--server.port=0", "--server.address=127.0.0.1",
                "--management.endpoint.health.show-details=always",
                "--tandem.storage.data-dir=" + dir.resolve("quiet"), "--tandem.storage.fsync=false")) {
            assertThat(tandem.getEnvironment().getPropertySources().stream().map(PropertySource::getName))
                    .noneMatch(name -> name.contains("configserver"));
            assertThat(tandem.getBean(Multiplexer.class).twoRuntimes()).isTrue();
            assertThat(health(tandem).path("status").asString()).isEqualTo("UP");
        }
        assertThat(output.getAll())
                .doesNotContain("8888")
                .doesNotContainIgnoringCase("config server")
                .doesNotContain("Could not locate PropertySource")
                .doesNotContain("Connection refused")
                .doesNotContain("Fetching config from server");
    }

    /** A strict (so current) slow-path read of every row of {@code t}. */
    private static ReadResult read(Controller controller) {
        JsonNode plan = JSON.readTree("{\"op\":\"get\",\"name\":\"t\"}");
        return JsonRequests.read(controller, new ReadJson(null, plan, null, null, null, null, null, null, "strict", null, null)).block();
    }

    private static String refresh(ConfigurableApplicationContext tandem) {
        return WebClient.create("http://127.0.0.1:" + port(tandem)).post().uri("/actuator/refresh")
                .retrieve().bodyToMono(String.class).block();
    }

    private static JsonNode health(ConfigurableApplicationContext tandem) {
        String body = WebClient.create("http://127.0.0.1:" + port(tandem)).get().uri("/actuator/health/tandem")
                .retrieve().bodyToMono(String.class).block();
        return JSON.readTree(body);
    }
}
