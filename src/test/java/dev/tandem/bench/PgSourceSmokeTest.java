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
 * {@code bench pg-source} runs end to end at a tiny scale — a child Tandem server from the test class path
 * replicating a throw-away PostgreSQL, one write rate, two seconds — and its JSON has the snapshot, the lag
 * and the check that Tandem's balances equal PostgreSQL's after the arm. No timing is asserted. Needs
 * PostgreSQL's server binaries and {@code pgbench}: without them it is skipped loudly, and fails on CI,
 * which installs them.
 */
class PgSourceSmokeTest {

    @Test
    @Timeout(240)
    void theSourceIsCopiedStreamedAndEqualsTheUpstream(@TempDir Path dir) throws Exception {
        Optional<Path> bin = PostgresServer.binaries(null);
        boolean present = bin.isPresent() && PostgresServer.pgbench(bin.get()) != null;
        if (!present) {
            Assertions.assertFalse("true".equalsIgnoreCase(System.getenv("CI")),
                    "no PostgreSQL binaries or pgbench on CI (apt-get install postgresql): bench pg-source needs them");
            System.err.println("!!! PgSourceSmokeTest SKIPPED: no PostgreSQL binaries (initdb, pg_ctl, postgres, psql) or pgbench"
                    + " on the PATH or under /usr/lib/postgresql/*/bin (apt-get install postgresql)");
        }
        Assumptions.assumeTrue(present, "no PostgreSQL binaries or pgbench");

        Path out = dir.resolve("pg-source.json");
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        JsonNode json = BenchMain.run(new PrintStream(printed, true, StandardCharsets.UTF_8), "pg-source",
                "--rows", "20000", "--point-rows", "2000", "--seconds", "2", "--churn-warmup", "1s", "--rates", "200",
                "--settle", "0s", "--heap-mb", "384", "--jvm-arg", "-XX:TieredStopAtLevel=1", "--jvm-arg", "-XX:+UseSerialGC",
                "--server-arg", "tandem.pgwire.warm-up-reads=0", "--pg-setting", "shared_buffers=128MB", "--out", out.toString());

        assertThat(BenchHttp.JSON.readTree(Files.readString(out)).toString()).isEqualTo(json.toString());
        assertThat(json.path("scenario").asString()).isEqualTo("pg-source");
        JsonNode tandem = json.path("arms").path("tandem");
        // points, big, the probe row and pgbench -i -s 1's accounts, tellers and branches
        assertThat(tandem.path("snapshot").path("rows").asLong()).isEqualTo(20_000 + 2_000 + 1 + 100_000 + 10 + 1);
        assertThat(tandem.path("snapshot").path("postgresql_copy_to_rows_per_s").asDouble()).isPositive();
        JsonNode run = tandem.path("runs").path("200");
        assertThat(run.path("equal").asBoolean()).as("Tandem's balances equal PostgreSQL's after the arm: %s", run).isTrue();
        assertThat(run.path("upstream_tps").asDouble()).isPositive();
        assertThat(run.path("lag").path("count").asLong()).as("probe commits seen in Tandem: %s", run).isPositive();
        assertThat(run.path("reads").path("count").asLong()).as("point reads answered: %s", run).isPositive();
        assertThat(run.path("stages").path("write_p99_ms").isNumber()).as("the source's write stage, scraped from its timer: %s", run).isTrue();
        assertThat(run.path("stages").path("receive_p50_ms").isNumber()).as("the source's receive stage: %s", run).isTrue();
        assertThat(printed.toString(StandardCharsets.UTF_8)).contains("| upstream load | upstream tx/s |", "| 200 tx/s |");
    }
}
