package dev.tandem.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tandem.controller.Controller;
import dev.tandem.controller.ReadResult;
import dev.tandem.deploy.GrafanaDashboardTest;
import dev.tandem.multiplex.Multiplexer;
import dev.tandem.runtime.RuntimeObserver;
import dev.tandem.sharing.ArrangementSharingRegistry;
import dev.tandem.storage.StorageOptions;
import dev.tandem.storage.TableStorage;
import dev.tandem.storage.TableStorages;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/** After a small workload in two-runtime mode, {@code /actuator/prometheus} has every series the Grafana dashboard queries. */
// Closed after the class: a cached context would keep a server (and its shared fate) running through later tests.
@DirtiesContext
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "tandem.storage.fsync=false", "tandem.compute.maintenance-workers=2", "tandem.compute.interactive-workers=1"})
class MetricsTest {

    private static final Pattern SERIES = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{([^}]*)})? (\\S+)", Pattern.MULTILINE);

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

    @Test
    void everySeriesThePanelsQueryExistsWithTheRolesOfTwoRuntimeMode() {
        Workload workload = new Workload(controller).setUp();
        for (int i = 0; i < 5; i++) {
            List<ReadResult> reads = workload.round();
            assertThat(reads).extracting(ReadResult::path).containsExactly("fast", "slow");
            assertThat(reads).extracting(ReadResult::runtime).containsOnly("interactive");
        }

        // JVM GC pause series appear with the first collection; a running server has had many, this test maybe none.
        System.gc();
        WebClient client = WebClient.create("http://127.0.0.1:" + port);
        String scrape = await().atMost(Duration.ofSeconds(10)).until(
                () -> client.get().uri("/actuator/prometheus").retrieve().bodyToMono(String.class).block(),
                body -> body.contains("jvm_gc_pause_seconds_sum{"));
        Map<String, List<Map<String, String>>> series = parse(scrape);

        Set<String> wanted = new TreeSet<>();
        GrafanaDashboardTest.panelQueries().values().forEach(q -> wanted.addAll(GrafanaDashboardTest.metricNames(q)));
        // Source series exist once a Kafka source does; SourceReplicasTest checks them against a real broker.
        wanted.removeAll(GrafanaDashboardTest.SOURCE_METRICS);
        assertThat(wanted).hasSizeGreaterThanOrEqualTo(14);
        assertThat(series.keySet()).containsAll(wanted);

        for (String gauge : List.of("tandem_peeks_pending", "tandem_scheduler_queue_depth", "tandem_arrangement_records",
                "tandem_arrangement_bytes", "tandem_dataflows_hydrating", "tandem_frontier_lag_seconds")) {
            assertThat(roles(series, gauge)).as(gauge).containsExactlyInAnyOrder("maintenance", "interactive");
        }
        assertThat(roles(series, "tandem_operator_step_duration_seconds_count")).containsExactlyInAnyOrder("maintenance", "interactive");
        assertThat(roles(series, "tandem_hydration_duration_seconds_count")).containsExactlyInAnyOrder("maintenance", "interactive");
        assertThat(roles(series, "tandem_peek_duration_seconds_count")).containsExactly("interactive");
        assertThat(roles(series, "tandem_standing_hold_gap_seconds")).containsExactly("interactive");
        assertThat(series.get("tandem_peek_duration_seconds_count")).extracting(l -> l.get("path") + "/" + l.get("outcome"))
                .contains("fast/rows", "slow/rows", "fast/error", "slow/canceled");

        // The workload shows: rows ingested, reads counted by path, arrangements hosted by maintenance, hydrations timed.
        assertThat(value(series, "tandem_ingested_updates_total", Map.of())).isEqualTo(5 + 5);
        assertThat(value(series, "tandem_peek_duration_seconds_count", Map.of("path", "fast", "outcome", "rows"))).isEqualTo(5);
        assertThat(value(series, "tandem_peek_duration_seconds_count", Map.of("path", "slow", "outcome", "rows"))).isEqualTo(5);
        assertThat(value(series, "tandem_arrangement_records", Map.of("role", "maintenance"))).isGreaterThanOrEqualTo(3 + 5 + 2);
        assertThat(value(series, "tandem_arrangement_bytes", Map.of("role", "maintenance"))).isPositive();
        // Two user indexes, plus maintenance's introspection (logging) dataflows.
        assertThat(value(series, "tandem_hydration_duration_seconds_count", Map.of("role", "maintenance")))
                .isEqualTo(2 + dev.tandem.runtime.Introspection.ALL.size());
        assertThat(value(series, "tandem_hydration_duration_seconds_count", Map.of("role", "interactive"))).isEqualTo(5);
        assertThat(value(series, "tandem_operator_step_duration_seconds_count", Map.of("role", "maintenance"))).isPositive();

        assertThat(series).containsKeys("tandem_reads_pending", "tandem_events_dropped_total", "tandem_emit_failures_total");
        assertThat(value(series, "tandem_emit_failures_total", Map.of())).isZero();
        assertThat(value(series, "tandem_reads_pending", Map.of())).isZero();

        series.forEach((name, list) -> {
            if (name.startsWith("tandem_") || name.startsWith("jvm_")) {
                assertThat(list).as(name).allSatisfy(labels -> assertThat(labels).containsEntry("application", "tandem"));
            }
        });
    }

    @Test
    void everyGaugeExistsAtZeroBeforeAnyWork(@TempDir Path dir) {
        for (boolean twoRuntimes : List.of(false, true)) {
            Scheduler timer = Schedulers.newSingle("metrics-test-timer");
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            TableStorage storage = TandemMeters.countingIngest(
                    TableStorages.durable(dir.resolve("d" + twoRuntimes), StorageOptions.defaults(timer).withFsync(false)), registry);
            ArrangementSharingRegistry sharing = new ArrangementSharingRegistry();
            RuntimeObserver observer = TandemMeters.observer(registry, twoRuntimes);
            List<Throwable> fatal = new java.util.concurrent.CopyOnWriteArrayList<>();
            try (Multiplexer mux = Multiplexer.start(twoRuntimes, 1, 1, storage, sharing, (w, e) -> fatal.add(e),
                    System::currentTimeMillis, observer)) {
                TandemMeters.bindRuntimeGauges(registry, mux, sharing, System::currentTimeMillis);

                Set<String> roles = twoRuntimes ? Set.of("maintenance", "interactive") : Set.of("solo");
                for (String name : List.of(TandemMeters.PEEKS_PENDING, TandemMeters.SCHEDULER_QUEUE_DEPTH, TandemMeters.ARRANGEMENT_RECORDS,
                        TandemMeters.ARRANGEMENT_BYTES, TandemMeters.DATAFLOWS_HYDRATING, TandemMeters.FRONTIER_LAG)) {
                    assertThat(registry.find(name).gauges()).as(name).extracting(g -> g.getId().getTag("role"))
                            .containsExactlyInAnyOrderElementsOf(roles);
                    assertThat(registry.find(name).gauges()).as(name).extracting(Gauge::value).containsOnly(0.0);
                }
                assertThat(registry.get(TandemMeters.STANDING_HOLD_GAP).gauge().value()).isZero();
                assertThat(registry.get(TandemMeters.STANDING_HOLD_GAP).gauge().getId().getTag("role"))
                        .isEqualTo(twoRuntimes ? "interactive" : "solo");
                assertThat(registry.get(TandemMeters.INGESTED_UPDATES).functionCounter().count()).isZero();
                assertThat(registry.find(TandemMeters.PEEK_DURATION).timers()).hasSize(6)
                        .extracting(t -> t.getId().getTag("role")).containsOnly(twoRuntimes ? "interactive" : "solo");
                assertThat(registry.find(TandemMeters.OPERATOR_STEP_DURATION).timers()).extracting(t -> t.getId().getTag("role"))
                        .containsExactlyInAnyOrderElementsOf(roles);
                assertThat(registry.find(TandemMeters.HYDRATION_DURATION).timers()).extracting(Meter::getId)
                        .extracting(id -> id.getTag("role")).containsExactlyInAnyOrderElementsOf(roles);
                assertThat(registry.find(TandemMeters.EMIT_FAILURES).functionCounters()).extracting(c -> c.getId().getTag("source"))
                        .containsExactlyInAnyOrderElementsOf(twoRuntimes ? List.of("multiplexer", "sharing", "maintenance", "interactive")
                                : List.of("multiplexer", "sharing", "solo"));
                assertThat(registry.find(TandemMeters.EMIT_FAILURES).functionCounters()).extracting(c -> c.count()).containsOnly(0.0);
                assertThat(fatal).as("fatal errors on runtime threads").isEmpty();
            } finally {
                storage.close();
                timer.dispose();
            }
        }
    }

    /** Series name to the label sets of its samples. */
    static Map<String, List<Map<String, String>>> parse(String scrape) {
        Map<String, List<Map<String, String>>> out = new TreeMap<>();
        Matcher m = SERIES.matcher(scrape);
        while (m.find()) {
            Map<String, String> labels = new TreeMap<>();
            if (m.group(3) != null) {
                Matcher l = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"").matcher(m.group(3));
                while (l.find()) {
                    labels.put(l.group(1), l.group(2));
                }
            }
            labels.put("__value__", m.group(4));
            out.computeIfAbsent(m.group(1), k -> new java.util.ArrayList<>()).add(labels);
        }
        return out;
    }

    static Set<String> roles(Map<String, List<Map<String, String>>> series, String name) {
        Set<String> roles = new TreeSet<>();
        for (Map<String, String> labels : series.getOrDefault(name, List.of())) {
            roles.add(labels.get("role"));
        }
        return roles;
    }

    /** The sum of the samples of {@code name} whose labels include {@code match}. */
    static double value(Map<String, List<Map<String, String>>> series, String name, Map<String, String> match) {
        double sum = 0;
        for (Map<String, String> labels : series.getOrDefault(name, List.of())) {
            if (labels.entrySet().containsAll(match.entrySet())) {
                sum += Double.parseDouble(labels.get("__value__"));
            }
        }
        return sum;
    }
}
