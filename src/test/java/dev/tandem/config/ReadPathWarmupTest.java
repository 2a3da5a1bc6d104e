package dev.tandem.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tandem.pgwire.PgWireServer;
import dev.tandem.security.AuditLog;
import dev.tandem.security.PrincipalLimits;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import org.junit.jupiter.api.Test;

/**
 * The start-up warm-up runs its reads over the wire protocol against a scratch server of its own, each
 * answered with its one row, and leaves nothing running behind it.
 */
class ReadPathWarmupTest {

    @Test
    void answersItsReadsAndStopsEverythingItStarted() {
        long answered = ReadPathWarmup.run(600, Duration.ofSeconds(10), ReadPathWarmup.Parts.PLAIN);
        assertThat(answered).as("reads answered with their row, the three protocols in turn").isGreaterThanOrEqualTo(600);
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(
                Thread.getAllStackTraces().keySet().stream().map(Thread::getName).filter(n -> n.startsWith("tandem-warmup")))
                .as("its client threads, timer and planning lane are gone").isEmpty());
        assertThat(ReadPathWarmup.run(0, ReadPathWarmup.Parts.PLAIN)).as("0 turns it off").isZero();
    }

    /**
     * The parts the server's own start-up passes: durable storage in a scratch directory (deleted afterwards),
     * runtimes and controller as the properties configure them, metered, the engine on the given lanes, a
     * listener with the server's audit, limits and guards.
     */
    @Test
    void theServersOwnKindsOfPartsAnswerAndLeaveNothingBehind() throws Exception {
        TandemProperties props = new Binder(new MapConfigurationPropertySource(Map.of())).bindOrCreate("tandem", TandemProperties.class);
        Scheduler[] lanes = {Schedulers.newBoundedElastic(2, 100, "warmup-test-sql"), Schedulers.newBoundedElastic(1, 100, "warmup-test-plan"),
                Schedulers.newBoundedElastic(1, 100, "warmup-test-heavy"), Schedulers.newSingle("warmup-test-timer")};
        long before;
        try (var dirs = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            before = dirs.filter(d -> d.getFileName().toString().startsWith("tandem-warmup-")).count();
        }
        try {
            SqlConfiguration.WarmupParts parts = new SqlConfiguration.WarmupParts(props, true, new AuditLog(Clock.systemUTC(), 100),
                    new PrincipalLimits(0, 0, 0), PgWireServer.Guards.DEFAULTS, lanes);
            assertThat(ReadPathWarmup.run(300, Duration.ofSeconds(6), parts)).isGreaterThanOrEqualTo(300);
        } finally {
            for (Scheduler s : lanes) {
                s.dispose();
            }
        }
        try (var dirs = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            assertThat(dirs.filter(d -> d.getFileName().toString().startsWith("tandem-warmup-")).count())
                    .as("its scratch storage directory is deleted").isEqualTo(before);
        }
    }
}
