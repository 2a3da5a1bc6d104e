package dev.tandem.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The Grafana dashboard {@code grafana/tandem.json}: its shape, its variables and the metrics it queries. */
public class GrafanaDashboardTest {

    /** The dashboard file, relative to the project directory. */
    public static final Path DASHBOARD = Path.of("grafana", "tandem.json");

    /** Every series name the server exposes on {@code /actuator/prometheus} that a panel may query. */
    static final Set<String> KNOWN_METRICS = Set.of(
            "tandem_peek_duration_seconds_bucket",
            "tandem_peek_duration_seconds_count",
            "tandem_peek_duration_seconds_sum",
            "tandem_peeks_pending",
            "tandem_operator_step_duration_seconds_bucket",
            "tandem_operator_step_duration_seconds_count",
            "tandem_operator_step_duration_seconds_sum",
            "tandem_scheduler_queue_depth",
            "tandem_arrangement_records",
            "tandem_arrangement_bytes",
            "tandem_dataflows_hydrating",
            "tandem_hydration_duration_seconds_bucket",
            "tandem_hydration_duration_seconds_count",
            "tandem_hydration_duration_seconds_sum",
            "tandem_frontier_lag_seconds",
            "tandem_ingested_updates_total",
            "tandem_standing_hold_gap_seconds",
            "tandem_subscriptions_active",
            "tandem_subscription_lag_max_seconds",
            "tandem_subscription_messages_total",
            "tandem_subscription_bytes_total",
            "tandem_subscriptions_lagged_total",
            "jvm_memory_used_bytes",
            "jvm_gc_pause_seconds_count",
            "jvm_gc_pause_seconds_sum",
            "jvm_gc_pause_seconds_max",
            "tandem_source_records_total",
            "tandem_source_lag",
            "tandem_source_errors_total",
            "tandem_source_ingesting");

    /**
     * The meters of Kafka sources: they exist only while a source does, so the Prometheus end-to-end test
     * (no broker) leaves their panels out, and {@code kafka.SourceReplicasTest} checks these names against
     * a live {@code /actuator/prometheus} instead.
     */
    public static final Set<String> SOURCE_METRICS = Set.of(
            "tandem_source_records_total", "tandem_source_lag", "tandem_source_errors_total", "tandem_source_ingesting");

    /** The meters without a {@code role} tag. */
    static final Set<String> UNTAGGED_BY_ROLE = Set.of(
            "tandem_ingested_updates_total", "jvm_memory_used_bytes",
            "tandem_subscriptions_active", "tandem_subscription_lag_max_seconds", "tandem_subscription_messages_total",
            "tandem_subscription_bytes_total", "tandem_subscriptions_lagged_total",
            "jvm_gc_pause_seconds_count", "jvm_gc_pause_seconds_sum", "jvm_gc_pause_seconds_max",
            "tandem_source_records_total", "tandem_source_lag", "tandem_source_errors_total", "tandem_source_ingesting");

    /** One series of each meter the dashboard must show. */
    static final Set<String> REQUIRED_METRICS = Set.of(
            "tandem_peek_duration_seconds_bucket",
            "tandem_peek_duration_seconds_count",
            "tandem_peeks_pending",
            "tandem_operator_step_duration_seconds_bucket",
            "tandem_scheduler_queue_depth",
            "tandem_dataflows_hydrating",
            "tandem_hydration_duration_seconds_bucket",
            "tandem_frontier_lag_seconds",
            "tandem_arrangement_records",
            "tandem_arrangement_bytes",
            "tandem_ingested_updates_total",
            "tandem_standing_hold_gap_seconds",
            "tandem_subscriptions_active",
            "tandem_subscription_lag_max_seconds",
            "tandem_subscription_messages_total",
            "tandem_subscription_bytes_total",
            "jvm_memory_used_bytes",
            "jvm_gc_pause_seconds_sum",
            "tandem_source_records_total",
            "tandem_source_lag",
            "tandem_source_errors_total",
            "tandem_source_ingesting");

    static final String DATASOURCE_UID = "${datasource}";

    private static final Set<String> PROMQL_KEYWORDS = Set.of(
            "and", "or", "unless", "bool", "offset", "by", "without", "on", "ignoring",
            "group_left", "group_right", "inf", "nan");
    private static final Pattern STRING = Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"|'(?:[^'\\\\]|\\\\.)*'");
    private static final Pattern MATCHERS = Pattern.compile("\\{[^}]*}");
    private static final Pattern RANGE = Pattern.compile("\\[[^]]*]");
    private static final Pattern GROUPING = Pattern.compile(
            "\\b(?:by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)");
    private static final Pattern IDENTIFIER = Pattern.compile(
            "(?<![\\w.$])([A-Za-z_:][A-Za-z0-9_:]*+)(?!\\s*\\()");

    /**
     * Each panel's query as Prometheus can evaluate it outside Grafana: panel title to PromQL, with
     * {@code $__rate_interval} replaced by {@code 1m} and the {@code $role} and {@code $instance}
     * variables by {@code .*}.
     */
    public static Map<String, String> panelQueries() {
        Map<String, String> queries = new LinkedHashMap<>();
        for (JsonNode panel : dashboard().path("panels")) {
            String expr = panel.path("targets").path(0).path("expr").asString();
            queries.put(panel.path("title").asString(), expr
                    .replace("$__rate_interval", "1m")
                    .replace("$role", ".*")
                    .replace("$instance", ".*"));
        }
        return queries;
    }

    /** The metric names a PromQL expression selects: identifiers that are not functions, keywords or labels. */
    public static Set<String> metricNames(String expr) {
        String stripped = STRING.matcher(expr).replaceAll("\"\"");
        stripped = MATCHERS.matcher(stripped).replaceAll(" ");
        stripped = RANGE.matcher(stripped).replaceAll(" ");
        stripped = GROUPING.matcher(stripped).replaceAll(" ");
        Set<String> names = new TreeSet<>();
        Matcher m = IDENTIFIER.matcher(stripped);
        while (m.find()) {
            if (!PROMQL_KEYWORDS.contains(m.group(1).toLowerCase())) {
                names.add(m.group(1));
            }
        }
        return names;
    }

    @Test
    void metricNamesFindsSelectorsOnly() {
        assertThat(metricNames(
                "histogram_quantile(0.99, sum by (le, role) (rate(a_bucket{role=~\"x|y\", path=\"fast\"}[5m])))"
                        + " / on(instance) group_left b_total + sum(c) without (gc) > bool 1e3 offset 5m"))
                .containsExactlyInAnyOrder("a_bucket", "b_total", "c");
        assertThat(metricNames("max_over_time(d[1h:1m]) and e{le=\"+Inf\"}")).containsExactlyInAnyOrder("d", "e");
    }

    @Test
    void dashboardUsesTheCurrentSchemaAndAFixedUid() {
        JsonNode dashboard = dashboard();

        assertThat(dashboard.path("schemaVersion").asInt()).isGreaterThanOrEqualTo(39);
        assertThat(dashboard.path("uid").asString()).isEqualTo("tandem-overview");
        assertThat(dashboard.path("title").asString()).isNotBlank();
        assertThat(dashboard.path("id").isNull()).as("id must be null so imports do not clash").isTrue();
    }

    @Test
    void variablesSelectDatasourceRoleAndInstance() {
        Map<String, JsonNode> variables = new LinkedHashMap<>();
        for (JsonNode variable : dashboard().path("templating").path("list")) {
            variables.put(variable.path("name").asString(), variable);
        }
        assertThat(variables).containsOnlyKeys("datasource", "role", "instance");

        JsonNode datasource = variables.get("datasource");
        assertThat(datasource.path("type").asString()).isEqualTo("datasource");
        assertThat(datasource.path("query").asString()).isEqualTo("prometheus");

        for (String name : List.of("role", "instance")) {
            JsonNode variable = variables.get(name);
            assertThat(variable.path("type").asString()).isEqualTo("query");
            assertThat(variable.path("datasource").path("uid").asString()).isEqualTo(DATASOURCE_UID);
            String query = variable.path("query").path("query").asString();
            assertThat(query).startsWith("label_values(tandem_peeks_pending").endsWith(", " + name + ")");
            assertThat(variable.path("definition").asString()).isEqualTo(query);
            assertThat(variable.path("includeAll").asBoolean()).isTrue();
            assertThat(variable.path("allValue").asString()).isEqualTo(".*");
        }
    }

    @Test
    void everyPanelIsATimeseriesQueryingTheDatasourceVariable() {
        List<String> titles = new ArrayList<>();
        for (JsonNode panel : dashboard().path("panels")) {
            String title = panel.path("title").asString();
            titles.add(title);
            assertThat(panel.path("type").asString()).as(title).isEqualTo("timeseries");
            assertThat(panel.path("datasource").path("uid").asString()).as(title).isEqualTo(DATASOURCE_UID);
            assertThat(panel.path("datasource").path("type").asString()).as(title).isEqualTo("prometheus");
            assertThat(panel.path("targets").size()).as("%s has one query", title).isEqualTo(1);
            JsonNode target = panel.path("targets").path(0);
            assertThat(target.path("datasource").path("uid").asString()).as(title).isEqualTo(DATASOURCE_UID);
            assertThat(target.path("expr").asString()).as(title).isNotBlank();
        }
        assertThat(titles).hasSizeGreaterThanOrEqualTo(15).doesNotHaveDuplicates();
    }

    @Test
    void panelsQueryOnlyMetricsTheServerExposes() {
        Set<String> used = new TreeSet<>();
        panelExpressions().forEach((title, expr) -> {
            Set<String> names = metricNames(expr);
            assertThat(names).as("metrics of %s", title).isNotEmpty().isSubsetOf(KNOWN_METRICS);
            used.addAll(names);
        });
        assertThat(used).containsAll(REQUIRED_METRICS);
    }

    @Test
    void panelsFollowTheRoleAndInstanceVariables() {
        panelExpressions().forEach((title, expr) -> {
            assertThat(expr).as(title).contains("instance=~\"$instance\"");
            boolean roleTagged = metricNames(expr).stream().anyMatch(n -> !UNTAGGED_BY_ROLE.contains(n));
            if (roleTagged) {
                assertThat(expr).as(title).contains("role=~\"$role\"");
            }
            if (expr.contains("rate(")) {
                assertThat(expr).as(title).contains("[$__rate_interval]");
            }
        });
    }

    @Test
    void peekLatencyPanelsShowMedianAndTailByRoleAndPath() {
        Map<String, String> exprs = panelExpressions();
        String bucket = "rate(tandem_peek_duration_seconds_bucket{role=~\"$role\", instance=~\"$instance\"}"
                + "[$__rate_interval])";

        assertThat(exprs.values()).contains(
                "histogram_quantile(0.5, sum by (le, role, path) (" + bucket + "))",
                "histogram_quantile(0.99, sum by (le, role, path) (" + bucket + "))");
    }

    @Test
    void panelsDoNotOverlap() {
        List<int[]> boxes = new ArrayList<>();
        for (JsonNode panel : dashboard().path("panels")) {
            JsonNode g = panel.path("gridPos");
            int[] box = {g.path("x").asInt(), g.path("y").asInt(), g.path("w").asInt(), g.path("h").asInt()};
            assertThat(box[0] + box[2]).as(panel.path("title").asString()).isLessThanOrEqualTo(24);
            for (int[] other : boxes) {
                boolean apart = box[0] >= other[0] + other[2] || other[0] >= box[0] + box[2]
                        || box[1] >= other[1] + other[3] || other[1] >= box[1] + box[3];
                assertThat(apart).as("%s overlaps another panel", panel.path("title").asString()).isTrue();
            }
            boxes.add(box);
        }
    }

    @Test
    void panelQueriesAreReadyForPrometheus() {
        Map<String, String> queries = panelQueries();

        assertThat(queries).hasSameSizeAs(panelExpressions());
        assertThat(queries.values()).allSatisfy(q -> assertThat(q).doesNotContain("$"));
        assertThat(queries.get("Peek latency p99")).isEqualTo(
                "histogram_quantile(0.99, sum by (le, role, path) (rate(tandem_peek_duration_seconds_bucket"
                        + "{role=~\".*\", instance=~\".*\"}[1m])))");
    }

    private static Map<String, String> panelExpressions() {
        Map<String, String> exprs = new LinkedHashMap<>();
        for (JsonNode panel : dashboard().path("panels")) {
            exprs.put(panel.path("title").asString(), panel.path("targets").path(0).path("expr").asString());
        }
        return exprs;
    }

    private static JsonNode dashboard() {
        return JsonMapper.builder().build().readTree(DASHBOARD);
    }
}
