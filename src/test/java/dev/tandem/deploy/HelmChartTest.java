package dev.tandem.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import com.marcnuri.helm.TemplateCommand;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import dev.tandem.config.TandemProperties;
import dev.tandem.config.TandemPropertiesTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/** The Helm chart under {@code helm/tandem}, linted and rendered by real Helm (helm-java). */
class HelmChartTest {

    static final Path CHART = Path.of("helm", "tandem");

    /**
     * The {@code tandem.*} properties the chart may set in application.yaml; each is a property of
     * {@link TandemProperties} (checked by {@link #chartPropertiesAreTandemProperties}).
     */
    static final Set<String> TANDEM_PROPERTIES = Set.of(
            "tandem.mode",
            "tandem.compute.interactive-runtime.enabled",
            "tandem.compute.maintenance-workers",
            "tandem.compute.interactive-workers",
            "tandem.compute.maintenance-nice",
            "tandem.compute.hydration-nice",
            "tandem.compute.jit-nice",
            "tandem.compute.hydration-lanes",
            "tandem.compute.fresh-round-updates",
            "tandem.compute.maintenance-reserve",
            "tandem.compute.dataflow-memory-budget",
            "tandem.storage.data-dir",
            "tandem.storage.fsync",
            "tandem.storage.tick-interval",
            "tandem.storage.backend",
            "tandem.storage.kafka.bootstrap-servers",
            "tandem.storage.kafka.topic",
            "tandem.storage.kafka.replication-factor",
            "tandem.storage.kafka.timeout",
            "tandem.compaction.window",
            "tandem.peek.max-result-rows",
            "tandem.peek.max-pending");

    /** The properties the chart leaves to their defaults (users set them through {@code extraConfig}). */
    static final Set<String> NOT_IN_CHART = Set.of("tandem.peek.default-timeout", "tandem.storage.repair",
            "tandem.http.request-head-timeout", "tandem.http.read-timeout", "tandem.http.request-body-timeout", "tandem.http.idle-timeout",
            "tandem.pgwire.port", "tandem.pgwire.host", "tandem.pgwire.warm-up-reads", "tandem.pgwire.max-connections",
            "tandem.pgwire.reserved-admin-connections", "tandem.pgwire.authentication-timeout", "tandem.pgwire.idle-session-timeout",
            "tandem.pgwire.idle-in-transaction-session-timeout", "tandem.http.max-connections", "tandem.http.max-connections-per-address",
            "tandem.sql.max-statement-bytes", "tandem.sql.max-literals",
            "tandem.sql.planning-timeout", "tandem.sql.plan-cache-bytes", "tandem.sql.max-recursion-iterations",
            "tandem.sql.max-recursion-rows");

    static final String LIVENESS = "/actuator/health/liveness";
    static final String READINESS = "/actuator/health/readiness";

    @Test
    void chartPropertiesAreTandemProperties() {
        Set<String> all = TandemPropertiesTest.propertyNames();

        assertThat(all).containsAll(TANDEM_PROPERTIES).containsAll(NOT_IN_CHART);
        assertThat(TANDEM_PROPERTIES).doesNotContainAnyElementsOf(NOT_IN_CHART);
        assertThat(TANDEM_PROPERTIES.size() + NOT_IN_CHART.size()).as("every property is in the chart or deliberately left out")
                .isEqualTo(all.size());
    }

    @Test
    void renderedConfigurationBindsToTandemProperties() {
        for (Manifests m : List.of(render(UnaryOperator.identity()), renderAllFeatures())) {
            Map<String, Object> flat = flatten(m.applicationConfig());
            Map<String, Object> tandem = new TreeMap<>();
            flat.forEach((k, v) -> {
                if (k.startsWith("tandem.")) {
                    tandem.put(k, v);
                }
            });

            TandemProperties p = new Binder(new MapConfigurationPropertySource(tandem)).bind("tandem", TandemProperties.class).get();

            assertThat(p.startupSettings()).containsEntry("tandem.storage.data-dir", Path.of("/var/lib/tandem"));
            assertThat(p.startupSettings().get("tandem.compute.interactive-runtime.enabled")).isEqualTo(tandem.get("tandem.compute.interactive-runtime.enabled"));
            assertThat(p.peek().maxResultRows()).isEqualTo(((Number) tandem.get("tandem.peek.max-result-rows")).longValue());
        }
    }

    @Test
    void lintPassesStrictly() {
        LintResult result = new Helm(CHART).lint().strict().call();

        assertThat(result.isFailed()).as("%s", result.getMessages()).isFalse();
    }

    @Test
    void lintFailsWhenValuesBreakTheSchema(@TempDir Path tmp) throws IOException {
        Path chart = copyChart(tmp);
        Path values = chart.resolve("values.yaml");
        Files.writeString(values, Files.readString(values).replace("replicaCount: 1", "replicaCount: \"two\""));

        LintResult result = new Helm(chart).lint().call();

        assertThat(result.isFailed()).isTrue();
        assertThat(String.join("\n", result.getMessages())).contains("replicaCount");
    }

    @Test
    void templateRejectsValuesThatBreakTheSchema() {
        assertThatThrownBy(() -> render(t -> t.set("replicaCount", "two")))
                .hasMessageContaining("replicaCount");
        assertThatThrownBy(() -> render(t -> t.set("compaction.window", "soon")))
                .hasMessageContaining("compaction");
        assertThatThrownBy(() -> render(t -> t.set("mode", "cluster")))
                .hasMessageContaining("mode");
    }

    @Test
    void defaultsRenderTheCoreObjectsOnly() {
        Manifests m = render(UnaryOperator.identity());

        assertThat(m.kinds()).containsExactlyInAnyOrder("ServiceAccount", "ConfigMap", "Service", "Deployment", "NetworkPolicy");
        Map<String, Object> deployment = m.one("Deployment");
        assertThat(m.at(deployment, "spec.replicas")).isEqualTo(1);
        assertThat(m.at(m.container(), "image")).isEqualTo("tandem:0.1.0");
        assertThat(m.volume("data")).containsKey("emptyDir");
    }

    @Test
    void probesHitTheActuatorGroupsOnTheManagementPort() {
        for (Manifests m : List.of(render(UnaryOperator.identity()), renderAllFeatures())) {
            Map<String, Object> container = m.container();

            assertThat(m.at(container, "livenessProbe.httpGet.path")).isEqualTo(LIVENESS);
            assertThat(m.at(container, "livenessProbe.httpGet.port")).isEqualTo("management");
            assertThat(m.at(container, "readinessProbe.httpGet.path")).isEqualTo(READINESS);
            assertThat(m.at(container, "readinessProbe.httpGet.port")).isEqualTo("management");
            assertThat(m.at(container, "startupProbe.httpGet.path")).isEqualTo(LIVENESS);
            assertThat(m.at(container, "startupProbe.httpGet.port")).isEqualTo("management");
        }
    }

    @Test
    void servicePortsMatchTheApplicationConfiguration() {
        for (Manifests m : List.of(
                render(UnaryOperator.identity()),
                render(t -> t.set("ports.http", 9090).set("ports.management", 9091)))) {
            Map<String, Object> config = m.applicationConfig();
            Object serverPort = m.at(config, "server.port");
            Object managementPort = m.at(config, "management.server.port");

            Map<String, Object> servicePorts = byName(m.typed(m.one("Service"), "spec.ports"), "port");
            assertThat(servicePorts).containsExactlyInAnyOrderEntriesOf(
                    Map.of("http", serverPort, "management", managementPort));
            Map<String, Object> targetPorts = byName(m.typed(m.one("Service"), "spec.ports"), "targetPort");
            assertThat(targetPorts).isEqualTo(Map.of("http", "http", "management", "management"));
            Map<String, Object> containerPorts = byName(m.typed(m.container(), "ports"), "containerPort");
            assertThat(containerPorts).isEqualTo(servicePorts);
        }
    }

    @Test
    void applicationYamlSetsOnlyKnownTandemProperties() {
        for (Manifests m : List.of(render(UnaryOperator.identity()), renderAllFeatures())) {
            Map<String, Object> flat = flatten(m.applicationConfig());

            assertThat(flat.keySet().stream().filter(k -> k.startsWith("tandem.")))
                    .isNotEmpty()
                    .allSatisfy(key -> assertThat(TANDEM_PROPERTIES).contains(key));
            assertThat(flat).containsEntry("management.endpoint.health.probes.enabled", true);
        }
    }

    @Test
    void valuesReachTheirProperties() {
        Manifests m = render(t -> t
                .set("mode", "replica")
                .set("twoRuntimes", false)
                .set("workers.maintenance", 6)
                .set("workers.interactive", 2)
                .set("dataflowMemoryBudget", "512MB")
                .set("storage.fsync", false)
                .set("storage.tickInterval", "5ms")
                .set("compaction.window", "250ms")
                .set("peek.maxResultRows", 500)
                .set("peek.maxPending", 64)
                .set("jvm.options", "-XX:MaxRAMPercentage=60.0"));
        Map<String, Object> flat = flatten(m.applicationConfig());

        assertThat(flat).containsAllEntriesOf(Map.of(
                "tandem.mode", "replica",
                "tandem.compute.interactive-runtime.enabled", false,
                "tandem.compute.maintenance-workers", 6,
                "tandem.compute.interactive-workers", 2,
                "tandem.storage.fsync", false,
                "tandem.storage.tick-interval", "5ms",
                "tandem.compaction.window", "250ms",
                "tandem.peek.max-result-rows", 500,
                "tandem.peek.max-pending", 64));
        assertThat(flat).containsEntry("tandem.compute.dataflow-memory-budget", "512MB");
        assertThat(flat).containsEntry("spring.cloud.config.enabled", false).doesNotContainKey("spring.config.import");
        assertThat(m.env()).containsEntry("JAVA_TOOL_OPTIONS", "-XX:MaxRAMPercentage=60.0");
    }

    @Test
    void dataDirectoryIsTheMountedVolume() {
        for (Manifests m : List.of(render(UnaryOperator.identity()), renderAllFeatures())) {
            Object dataDir = flatten(m.applicationConfig()).get("tandem.storage.data-dir");

            assertThat(dataDir).isEqualTo("/var/lib/tandem");
            assertThat(mountPath(m, "data")).isEqualTo(dataDir);
        }
    }

    @Test
    void applicationYamlIsWhereSpringLooksForIt() {
        Manifests m = render(UnaryOperator.identity());

        String location = m.env().get("SPRING_CONFIG_ADDITIONAL_LOCATION");
        assertThat(location).isEqualTo("file:" + mountPath(m, "config") + "/application.yaml");
        assertThat(m.at(m.volume("config"), "configMap.name")).isEqualTo(m.at(m.one("ConfigMap"), "metadata.name"));
    }

    @Test
    void everyOptionalFeatureRenders() {
        Manifests m = renderAllFeatures();

        assertThat(m.kinds()).containsExactlyInAnyOrder(
                "ServiceAccount", "ConfigMap", "ConfigMap", "Service", "Deployment",
                "PersistentVolumeClaim", "ServiceMonitor", "NetworkPolicy");

        Map<String, Object> claim = m.one("PersistentVolumeClaim");
        assertThat(m.at(m.volume("data"), "persistentVolumeClaim.claimName")).isEqualTo(m.at(claim, "metadata.name"));
        assertThat(m.at(claim, "spec.resources.requests.storage")).isEqualTo("20Gi");
        assertThat(m.at(claim, "spec.storageClassName")).isEqualTo("fast-ssd");
        assertThat(m.at(m.one("Deployment"), "spec.strategy.type")).isEqualTo("Recreate");

        Map<String, Object> endpoint = firstOf(m.at(m.one("ServiceMonitor"), "spec.endpoints"));
        assertThat(endpoint).containsEntry("port", "management").containsEntry("path", "/actuator/prometheus");
        assertThat(m.at(m.one("ServiceMonitor"), "spec.selector.matchLabels"))
                .isEqualTo(m.at(m.one("Service"), "spec.selector"));

        Map<String, Object> flat = flatten(m.applicationConfig());
        assertThat(flat)
                .containsEntry("spring.config.import", "optional:configserver:http://config-server:8888")
                .containsEntry("spring.cloud.config.enabled", true);
    }

    @Test
    void serviceMonitorNeedsTheMonitoringApi() {
        Manifests m = render(t -> t.set("serviceMonitor.enabled", true));

        assertThat(m.kinds()).doesNotContain("ServiceMonitor");
    }

    @Test
    void dashboardConfigMapCarriesTheDashboardForTheSidecar() throws IOException {
        Manifests m = render(t -> t.set("dashboards.enabled", true));

        Map<String, Object> dashboards = m.all("ConfigMap").stream()
                .filter(c -> String.valueOf(m.at(c, "metadata.name")).endsWith("-dashboards"))
                .findFirst().orElseThrow();
        assertThat(m.at(dashboards, "metadata.labels.grafana_dashboard")).isEqualTo("1");
        assertThat(m.at(dashboards, "data.tandem.json"))
                .isEqualTo(Files.readString(Path.of("grafana", "tandem.json")).strip());
    }

    @Test
    void chartCarriesAnIdenticalCopyOfTheDashboard() throws IOException {
        assertThat(Files.mismatch(Path.of("grafana", "tandem.json"), CHART.resolve("dashboards/tandem.json")))
                .as("helm/tandem/dashboards/tandem.json must be a copy of grafana/tandem.json")
                .isEqualTo(-1L);
    }

    @Test
    void checksumAnnotationFollowsTheConfigMap() {
        String base = checksum(render(UnaryOperator.identity()));

        assertThat(checksum(render(UnaryOperator.identity()))).isEqualTo(base);
        assertThat(checksum(render(t -> t.set("replicaCount", 3)))).isEqualTo(base);
        assertThat(checksum(render(t -> t.set("compaction.window", "2s")))).isNotEqualTo(base);
        assertThat(checksum(render(t -> t.set("peek.maxPending", 10)))).isNotEqualTo(base);
    }

    @Test
    void tokensAndTlsSecretsAreMountedWhereTheConfigurationReadsThem() {
        Manifests m = render(t -> t.set("security.tokensSecret", "tandem-tokens").set("tls.secret", "tandem-tls")
                .set("security.jwt.issuerUri", "https://issuer.example").set("security.jwt.audience", "tandem"));
        assertThat(m.at(m.volume("tokens"), "secret.secretName")).isEqualTo("tandem-tokens");
        assertThat(m.at(m.volume("tls"), "secret.secretName")).isEqualTo("tandem-tls");
        List<Map<String, Object>> env = m.typed(m.container(), "env");
        String locations = env.stream().filter(e -> "SPRING_CONFIG_ADDITIONAL_LOCATION".equals(e.get("name")))
                .map(e -> (String) e.get("value")).findFirst().orElseThrow();
        assertThat(locations).contains("optional:file:" + mountPath(m, "tokens") + "/tokens.properties");
        Map<String, Object> flat = flatten(m.applicationConfig());
        assertThat(flat)
                .containsEntry("server.ssl.certificate", "file:" + mountPath(m, "tls") + "/tls.crt")
                .containsEntry("server.ssl.certificate-private-key", "file:" + mountPath(m, "tls") + "/tls.key")
                .containsEntry("tandem.security.jwt.issuer-uri", "https://issuer.example")
                .containsEntry("tandem.security.jwt.audience", "tandem")
                .containsEntry("tandem.security.jwt.roles-claim", "roles");
        Map<String, Object> none = flatten(render(UnaryOperator.identity()).applicationConfig());
        assertThat(none.keySet()).noneMatch(k -> k.startsWith("server.ssl") || k.startsWith("tandem.security"));
    }

    @Test
    void theNetworkPolicyAdmitsOnlyTheApiClientsAndTheScraper() {
        Manifests m = render(UnaryOperator.identity());
        Map<String, Object> policy = m.one("NetworkPolicy");
        assertThat(m.at(policy, "spec.podSelector.matchLabels")).isEqualTo(m.at(m.one("Service"), "spec.selector"));
        List<Map<String, Object>> ingress = m.typed(policy, "spec.ingress");
        assertThat(ingress).hasSize(2);
        assertThat(m.at(ingress.get(0), "from")).isEqualTo(List.of(Map.of("podSelector", Map.of())));
        assertThat(firstOf(m.at(ingress.get(0), "ports"))).containsEntry("port", "http");
        assertThat(m.at(ingress.get(1), "from")).isEqualTo(List.of(Map.of("namespaceSelector",
                Map.of("matchLabels", Map.of("kubernetes.io/metadata.name", "monitoring")))));
        assertThat(firstOf(m.at(ingress.get(1), "ports"))).containsEntry("port", "management");
        assertThat(render(t -> t.set("networkPolicy.enabled", false)).kinds()).doesNotContain("NetworkPolicy");
    }

    @Test
    void persistenceRefusesMoreThanOneReplica() {
        assertThatThrownBy(() -> render(t -> t.set("storage.persistence.enabled", true).set("replicaCount", 2)))
                .hasMessageContaining("replicaCount");
    }

    @Test
    void kafkaBackendRendersReplicasAsAStatefulSet() {
        Manifests m = render(t -> t
                .set("replicaCount", 3)
                .set("storage.backend", "kafka")
                .set("storage.kafka.bootstrapServers", "kafka-0.kafka:9092,kafka-1.kafka:9092")
                .set("storage.kafka.topic", "tandem-prod-log"));

        assertThat(m.kinds()).containsExactlyInAnyOrder("NetworkPolicy", "ServiceAccount", "ConfigMap", "Service", "Service", "StatefulSet");
        Map<String, Object> set = m.one("StatefulSet");
        assertThat(m.at(set, "spec.replicas")).isEqualTo(3);
        assertThat(m.at(set, "spec.podManagementPolicy")).isEqualTo("Parallel");
        Map<String, Object> headless = m.all("Service").stream().filter(s -> "None".equals(m.at(s, "spec.clusterIP"))).findFirst().orElseThrow();
        assertThat(m.at(set, "spec.serviceName")).isEqualTo(m.at(headless, "metadata.name"));
        assertThat(m.at(headless, "spec.selector")).isEqualTo(m.at(set, "spec.selector.matchLabels"));
        Map<String, Object> spread = m.all("Service").stream().filter(s -> s != headless).findFirst().orElseThrow();
        assertThat(m.at(spread, "spec.selector")).isEqualTo(m.at(set, "spec.selector.matchLabels"));

        List<Map<String, Object>> containers = m.typed(set, "spec.template.spec.containers");
        assertThat(m.at(containers.getFirst(), "readinessProbe.httpGet.path")).isEqualTo(READINESS);

        Map<String, Object> flat = flatten(m.applicationConfig());
        assertThat(flat).containsAllEntriesOf(Map.of(
                "tandem.storage.backend", "kafka",
                "tandem.storage.kafka.bootstrap-servers", "kafka-0.kafka:9092,kafka-1.kafka:9092",
                "tandem.storage.kafka.topic", "tandem-prod-log",
                "tandem.storage.kafka.replication-factor", 3,
                "tandem.storage.kafka.timeout", "30s"));
        Map<String, Object> tandem = new TreeMap<>();
        flat.forEach((k, v) -> {
            if (k.startsWith("tandem.")) {
                tandem.put(k, v);
            }
        });
        TandemProperties p = new Binder(new MapConfigurationPropertySource(tandem)).bind("tandem", TandemProperties.class).get();
        assertThat(p.storage().backend()).isEqualTo(TandemProperties.Backend.KAFKA);
        assertThat(p.storage().kafka().topic()).isEqualTo("tandem-prod-log");
    }

    @Test
    void kafkaBackendRefusesPersistenceAndBadValues() {
        assertThatThrownBy(() -> render(t -> t.set("storage.backend", "kafka").set("storage.persistence.enabled", true)))
                .hasMessageContaining("persistence");
        assertThatThrownBy(() -> render(t -> t.set("storage.backend", "zookeeper")))
                .hasMessageContaining("backend");
        assertThatThrownBy(() -> render(t -> t.set("storage.kafka.topic", "no spaces")))
                .hasMessageContaining("topic");
    }

    private static String checksum(Manifests m) {
        return (String) m.at(m.one("Deployment"), "spec.template.metadata.annotations.checksum/config");
    }

    private static String mountPath(Manifests m, String volume) {
        List<Map<String, Object>> mounts = m.typed(m.container(), "volumeMounts");
        return mounts.stream().filter(v -> volume.equals(v.get("name")))
                .map(v -> (String) v.get("mountPath")).findFirst().orElseThrow();
    }

    private static Manifests renderAllFeatures() {
        return render(t -> t
                .set("serviceMonitor.enabled", true)
                .set("apiVersions[0]", "monitoring.coreos.com/v1")
                .set("dashboards.enabled", true)
                .set("storage.persistence.enabled", true)
                .set("storage.persistence.size", "20Gi")
                .set("storage.persistence.storageClass", "fast-ssd")
                .set("configServer.url", "http://config-server:8888"));
    }

    private static Manifests render(UnaryOperator<TemplateCommand> values) {
        String out = values.apply(new Helm(CHART).template().withName("tandem").withNamespace("tandem")).call();
        return Manifests.parse(out);
    }

    private static Path copyChart(Path tmp) throws IOException {
        Path target = tmp.resolve("tandem");
        try (Stream<Path> files = Files.walk(CHART)) {
            for (Path source : (Iterable<Path>) files::iterator) {
                Path dest = target.resolve(CHART.relativize(source).toString());
                if (Files.isDirectory(source)) {
                    Files.createDirectories(dest);
                } else {
                    Files.copy(source, dest);
                }
            }
        }
        return target;
    }

    private static Map<String, Object> byName(List<Map<String, Object>> ports, String field) {
        Map<String, Object> result = new LinkedHashMap<>();
        ports.forEach(p -> result.put((String) p.get("name"), p.get(field)));
        return result;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> firstOf(Object list) {
        return ((List<Map<String, Object>>) list).getFirst();
    }

    /** Flattens nested maps into Spring-style dotted keys. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> flatten(Map<String, Object> tree) {
        Map<String, Object> flat = new TreeMap<>();
        tree.forEach((key, value) -> {
            if (value instanceof Map<?, ?> child) {
                flatten((Map<String, Object>) child).forEach((k, v) -> flat.put(key + "." + k, v));
            } else {
                flat.put(key, value);
            }
        });
        return flat;
    }

    /** The objects of one {@code helm template} output. */
    record Manifests(List<Map<String, Object>> objects) {

        static Manifests parse(String yaml) {
            List<Map<String, Object>> objects = new ArrayList<>();
            for (Object doc : yaml(yaml)) {
                if (doc instanceof Map<?, ?> map) {
                    @SuppressWarnings("unchecked")
                    Map<String, Object> object = (Map<String, Object>) map;
                    objects.add(object);
                }
            }
            return new Manifests(objects);
        }

        static Iterable<Object> yaml(String text) {
            return new Yaml(new SafeConstructor(new LoaderOptions())).loadAll(text);
        }

        List<String> kinds() {
            return objects.stream().map(o -> (String) o.get("kind")).toList();
        }

        List<Map<String, Object>> all(String kind) {
            return objects.stream().filter(o -> kind.equals(o.get("kind"))).toList();
        }

        Map<String, Object> one(String kind) {
            List<Map<String, Object>> found = all(kind);
            if (kind.equals("ConfigMap")) {
                found = found.stream()
                        .filter(c -> at(c, "data") instanceof Map<?, ?> d && d.containsKey("application.yaml"))
                        .toList();
            }
            assertThat(found).as("objects of kind %s", kind).hasSize(1);
            return found.getFirst();
        }

        Map<String, Object> container() {
            List<Map<String, Object>> containers = typed(one("Deployment"), "spec.template.spec.containers");
            assertThat(containers).hasSize(1);
            return containers.getFirst();
        }

        Map<String, Object> volume(String name) {
            List<Map<String, Object>> volumes = typed(one("Deployment"), "spec.template.spec.volumes");
            return volumes.stream().filter(v -> name.equals(v.get("name"))).findFirst().orElseThrow();
        }

        Map<String, String> env() {
            List<Map<String, Object>> env = typed(container(), "env");
            Map<String, String> result = new LinkedHashMap<>();
            env.forEach(e -> result.put((String) e.get("name"), (String) e.get("value")));
            return result;
        }

        /** The ConfigMap's application.yaml, parsed; fails unless it is one YAML mapping. */
        @SuppressWarnings("unchecked")
        Map<String, Object> applicationConfig() {
            String text = typed(one("ConfigMap"), "data.application.yaml");
            Object doc = new Yaml(new SafeConstructor(new LoaderOptions())).load(text);
            assertThat(doc).isInstanceOf(Map.class);
            return (Map<String, Object>) doc;
        }

        /**
         * The value at a dotted path; a segment may itself contain dots or slashes when the map holds
         * that key (annotation names, ConfigMap file names).
         */
        Object at(Map<String, Object> root, String path) {
            return typed(root, path);
        }

        /** {@link #at} cast to the type the caller expects. */
        @SuppressWarnings("unchecked")
        <T> T typed(Map<String, Object> root, String path) {
            Object current = root;
            String rest = path;
            while (!rest.isEmpty()) {
                Map<String, Object> map = (Map<String, Object>) current;
                if (map == null) {
                    return null;
                }
                if (map.containsKey(rest)) {
                    return (T) map.get(rest);
                }
                int dot = rest.indexOf('.');
                String key = dot < 0 ? rest : rest.substring(0, dot);
                current = map.get(key);
                rest = dot < 0 ? "" : rest.substring(dot + 1);
            }
            return (T) current;
        }
    }
}
