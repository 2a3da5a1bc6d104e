package dev.tandem.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * {@code bench sql-shapes} runs end to end at a tiny scale — a child Tandem server from the test class path
 * beside a throw-away PostgreSQL, 2,000 rows per shape, two seconds of changes each — and every shape has
 * its figures and a view equal to PostgreSQL's query, or an explicit refusal. No timing is asserted. Needs
 * PostgreSQL's server binaries: without them it is skipped loudly, and fails on CI, which installs them.
 */
class SqlShapesSmokeTest {

    @Test
    @Timeout(240)
    void everyShapeIsMeasuredAndEqualsPostgresOrIsRefused(@TempDir Path dir) throws Exception {
        Optional<Path> bin = PostgresServer.binaries(null);
        if (bin.isEmpty()) {
            Assertions.assertFalse("true".equalsIgnoreCase(System.getenv("CI")),
                    "no PostgreSQL binaries on CI (apt-get install postgresql): bench sql-shapes needs them");
            System.err.println("!!! SqlShapesSmokeTest SKIPPED: no PostgreSQL binaries (initdb, pg_ctl, postgres, psql)"
                    + " on the PATH or under /usr/lib/postgresql/*/bin (apt-get install postgresql)");
        }
        Assumptions.assumeTrue(bin.isPresent(), "no PostgreSQL binaries");

        Path out = dir.resolve("sql-shapes.json");
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        JsonNode json = BenchMain.run(new PrintStream(printed, true, StandardCharsets.UTF_8), "sql-shapes",
                "--rows", "2000", "--seconds", "2", "--settle", "0s", "--heap-mb", "384", "--jvm-arg", "-XX:TieredStopAtLevel=1",
                "--jvm-arg", "-XX:+UseSerialGC", "--server-arg", "tandem.pgwire.warm-up-reads=0", "--pg-setting", "shared_buffers=128MB",
                "--out", out.toString());

        assertThat(BenchHttp.JSON.readTree(Files.readString(out)).toString()).isEqualTo(json.toString());
        assertThat(json.path("scenario").asString()).isEqualTo("sql-shapes");
        assertThat(json.path("settings").path("shapes").toString()).isEqualTo("[\"correlated\",\"row_number\",\"closure\",\"temporal\"]");
        for (String shape : SqlShapesScenario.SHAPES) {
            JsonNode arm = json.path("arms").path(shape);
            assertThat(arm.path("failed").isMissingNode()).as("%s did not fail: %s", shape, arm).isTrue();
            assertThat(arm.path("postgresql_one_shot_ms").asDouble()).as("%s: PostgreSQL's one-shot time", shape).isPositive();
            assertThat(arm.path("postgresql_rows").asLong()).as("%s: PostgreSQL's rows", shape).isPositive();
            if (arm.has("refused")) {
                assertThat(arm.path("refused").asString()).as("%s's refusal is Tandem's 0A000", shape).startsWith("0A000: ");
                assertThat(printed.toString(StandardCharsets.UTF_8)).contains("| " + shape + " | refused: ");
                continue;
            }
            assertThat(arm.path("hydration_s").asDouble()).as("%s: hydration time", shape).isPositive();
            assertThat(arm.path("changes").path("count").asLong()).as("%s: changes made and seen: %s", shape, arm).isGreaterThanOrEqualTo(2);
            assertThat(arm.path("changes").path("incomplete").asLong()).as("%s: changes never seen: %s", shape, arm).isZero();
            assertThat(arm.path("changes").path("p50_ms").isNumber()).as("%s: %s", shape, arm).isTrue();
            assertThat(arm.path("changes").path("p99_ms").isNumber()).as("%s: %s", shape, arm).isTrue();
            assertThat(arm.path("operator_work").path("steps_per_change").asDouble()).as("%s: the view's operators ran: %s", shape, arm).isPositive();
            assertThat(arm.path("gc").path("window_s").isNumber()).as("%s: the child's GC over the changes: %s", shape, arm).isTrue();
            assertThat(arm.path("equal").asBoolean()).as("%s: the view equals PostgreSQL's query: %s", shape, arm).isTrue();
            assertThat(arm.path("tandem_digest").asString()).as("%s compared some rows", shape).doesNotStartWith("0 ");
        }
        assertThat(printed.toString(StandardCharsets.UTF_8)).contains("| shape | Tandem hydration s |", "| correlated | ", "| closure | ");
    }
}
