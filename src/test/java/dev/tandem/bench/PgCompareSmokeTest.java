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
 * {@code bench pg-compare} runs end to end at a tiny scale — a child Tandem server from the test class
 * path and a throw-away PostgreSQL, one rate, one mode, two seconds each, one churn loop — and its JSON
 * and table have both systems' figures. No timing is asserted. Needs PostgreSQL's server binaries and
 * {@code pgbench}: without them it is skipped loudly, and fails on CI, which installs them.
 */
class PgCompareSmokeTest {

    @Test
    @Timeout(180)
    void bothSystemsAreMeasuredSideBySide(@TempDir Path dir) throws Exception {
        assumePgbench();

        Path out = dir.resolve("pg-compare.json");
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        JsonNode json = BenchMain.run(new PrintStream(printed, true, StandardCharsets.UTF_8), "pg-compare",
                "--rows", "20000", "--point-rows", "2000", "--seconds", "2", "--churn-warmup", "1s", "--rates", "300",
                "--modes", "prepared", "--churn-loops", "1", "--settle", "0s", "--heap-mb", "384",
                "--jvm-arg", "-XX:TieredStopAtLevel=1", "--jvm-arg", "-XX:+UseSerialGC", "--server-arg", "tandem.pgwire.warm-up-reads=0", "--pg-setting", "shared_buffers=128MB",
                "--out", out.toString());

        assertThat(BenchHttp.JSON.readTree(Files.readString(out)).toString()).isEqualTo(json.toString());
        assertThat(json.path("scenario").asString()).isEqualTo("pg-compare");
        assertThat(json.path("settings").path("postgresql_version").asString()).contains("PostgreSQL");
        assertThat(json.path("settings").path("pgbench_command").asString()).contains("-M MODE", "-R RATE", "-l", "-n");
        for (String system : new String[] {"tandem", "postgresql"}) {
            JsonNode run = json.path("arms").path(system).path("runs").path("prepared_300");
            assertThat(run.path("count").asLong() - run.path("incomplete").asLong()).as("%s transactions in %s", system, run).isPositive();
            assertThat(run.path("pgbench_exit").asInt(-1)).as("%s pgbench exit", system).isZero();
            assertThat(run.path("target_rate").asDouble()).isEqualTo(300.0);
            assertThat(run.path("clients").asInt()).isEqualTo(PgCompareScenario.OPEN_LOOP_CLIENTS);
            for (String f : new String[] {"p50_ms", "max_ms", "achieved_rate", "churn_builds_per_min", "churn_indexes_created", "server_cpu_seconds"}) {
                assertThat(run.has(f)).as("%s: %s in %s", system, f, run).isTrue();
            }
            assertThat(run.path("churn_indexes_created").asLong()).as("%s churn started", system).isPositive();
            assertThat(run.path("max_ms").isNumber()).as("%s max_ms", system).isTrue();
        }
        JsonNode tandem = json.path("arms").path("tandem");
        JsonNode tandemRun = tandem.path("runs").path("prepared_300");
        assertThat(tandemRun.path("gc").path("collector").asString()).isEqualTo("Serial");
        assertThat(tandemRun.path("cpu_by_thread").isObject()).isTrue();
        assertThat(tandem.path("memory").path("rows").asLong()).isEqualTo(22_000);
        assertThat(tandem.path("after_runs").path("memory").path("rss_bytes").asLong()).isPositive();
        assertThat(json.path("table").size()).isEqualTo(2);
        assertThat(json.path("ratios").has("tandem_over_postgresql_p99_prepared_300")).isTrue();
        assertThat(printed.toString(StandardCharsets.UTF_8)).contains("| rate | mode | system | churn builds/min |", "| 300/s | prepared | Tandem |",
                "| 300/s | prepared | PostgreSQL |");
    }

    /** {@code bench startup}: one fresh server per mode, read by pgbench at once; its runs and table. */
    @Test
    @Timeout(180)
    void startupRunsReadAFreshServer(@TempDir Path dir) throws Exception {
        assumePgbench();
        Path out = dir.resolve("startup.json");
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        JsonNode json = BenchMain.run(new PrintStream(printed, true, StandardCharsets.UTF_8), "startup",
                "--point-rows", "2000", "--seconds", "2", "--rate", "300", "--runs", "1", "--modes", "simple,prepared", "--heap-mb", "384",
                "--jvm-arg", "-XX:TieredStopAtLevel=1", "--jvm-arg", "-XX:+UseSerialGC", "--server-arg", "tandem.pgwire.warm-up-reads=0",
                "--out", out.toString());

        assertThat(BenchHttp.JSON.readTree(Files.readString(out)).toString()).isEqualTo(json.toString());
        for (String key : new String[] {"simple_1", "prepared_1"}) {
            JsonNode run = json.path("arms").path("tandem").path("runs").path(key);
            assertThat(run.path("count").asLong()).as("%s transactions in %s", key, run).isPositive();
            assertThat(run.path("pgbench_exit").asInt(-1)).as("%s pgbench exit", key).isZero();
            assertThat(run.path("start_seconds").asDouble()).isPositive();
            assertThat(run.path("load_seconds").asDouble()).isPositive();
            assertThat(run.path("max_ms").isNumber()).as("%s max_ms", key).isTrue();
            assertThat(run.path("reads_over_20_ms").isNumber()).isTrue();
            assertThat(run.path("gc").path("collector").asString()).isEqualTo("Serial");
        }
        assertThat(printed.toString(StandardCharsets.UTF_8)).contains("| mode | run | start-up s |", "| simple | 1 |", "| prepared | 1 |");
    }

    /** Skips (loudly) without PostgreSQL's binaries and pgbench; fails on CI, which installs them. */
    private static void assumePgbench() {
        Optional<Path> bin = PostgresServer.binaries(null);
        boolean present = bin.isPresent() && PostgresServer.pgbench(bin.get()) != null;
        if (!present) {
            Assertions.assertFalse("true".equalsIgnoreCase(System.getenv("CI")),
                    "no PostgreSQL binaries or pgbench on CI (apt-get install postgresql): bench pg-compare needs them");
            System.err.println("!!! PgCompareSmokeTest SKIPPED: no PostgreSQL binaries (initdb, pg_ctl, postgres, psql) or pgbench"
                    + " on the PATH or under /usr/lib/postgresql/*/bin (apt-get install postgresql)");
        }
        Assumptions.assumeTrue(present, "no PostgreSQL binaries or pgbench");
    }
}
