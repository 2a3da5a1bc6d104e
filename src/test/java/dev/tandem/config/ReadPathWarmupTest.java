package dev.tandem.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The start-up warm-up runs its reads over the wire protocol against a scratch server of its own, each
 * answered with its one row, and leaves nothing running behind it.
 */
class ReadPathWarmupTest {

    @Test
    void answersItsReadsAndStopsEverythingItStarted() {
        long answered = ReadPathWarmup.run(600, Duration.ofSeconds(10));
        assertThat(answered).as("reads answered with their row, the three protocols in turn").isGreaterThanOrEqualTo(600);
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(
                Thread.getAllStackTraces().keySet().stream().map(Thread::getName).filter(n -> n.startsWith("tandem-warmup")))
                .as("its client threads, timer and planning lane are gone").isEmpty());
        assertThat(ReadPathWarmup.run(0)).as("0 turns it off").isZero();
    }
}
