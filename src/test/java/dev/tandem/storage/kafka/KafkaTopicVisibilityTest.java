package dev.tandem.storage.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.junit.jupiter.api.Test;

/**
 * Opening the log right after creating its topic: a describe answered by a broker whose metadata does not
 * have the new topic yet ({@link UnknownTopicOrPartitionException}, the cause of a flaky
 * {@code KafkaReplicatedStorageTest}) is retried until the deadline; other failures are not.
 */
class KafkaTopicVisibilityTest {

    private static long in(long millis) {
        return System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    }

    @Test
    void unknownTopicIsRetriedUntilTheTopicIsVisible() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        String d = KafkaSharedLog.untilVisible(() -> {
            if (calls.incrementAndGet() <= 3) {
                throw new ExecutionException(new UnknownTopicOrPartitionException("not yet"));
            }
            return "described";
        }, in(10_000));
        assertThat(d).isEqualTo("described");
        assertThat(calls).hasValue(4);
    }

    @Test
    void anUnknownTopicPastTheDeadlineFails() {
        AtomicInteger calls = new AtomicInteger();
        long start = System.nanoTime();
        assertThatThrownBy(() -> KafkaSharedLog.untilVisible(() -> {
            calls.incrementAndGet();
            throw new ExecutionException(new UnknownTopicOrPartitionException("never"));
        }, in(500))).isInstanceOf(ExecutionException.class).hasCauseInstanceOf(UnknownTopicOrPartitionException.class);
        assertThat(calls.get()).isGreaterThan(1);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("bounded by the deadline").isLessThan(5_000);
    }

    @Test
    void otherFailuresAreNotRetried() {
        AtomicInteger calls = new AtomicInteger();
        assertThatThrownBy(() -> KafkaSharedLog.untilVisible(() -> {
            calls.incrementAndGet();
            throw new ExecutionException(new TopicAuthorizationException("no"));
        }, in(10_000))).hasCauseInstanceOf(TopicAuthorizationException.class);
        assertThat(calls).hasValue(1);
    }
}
