package dev.tandem.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.test.scheduler.VirtualTimeScheduler;

/** Storage measures durations on the ticker of its options, never on the system's own clock. */
class StorageTickerTest {

    @Test
    void theDefaultTickerIsTheSchedulersClock() {
        VirtualTimeScheduler time = VirtualTimeScheduler.create();
        try {
            StorageOptions options = StorageOptions.defaults(time);
            long before = options.tickerNanos().getAsLong();
            time.advanceTimeBy(Duration.ofSeconds(3));
            assertThat(options.tickerNanos().getAsLong() - before).isEqualTo(Duration.ofSeconds(3).toNanos());
            AtomicLong ticker = new AtomicLong(42);
            assertThat(options.withTicker(ticker::get).tickerNanos().getAsLong()).isEqualTo(42);
            assertThat(options.withTicker(ticker::get).withClock(() -> 7).tickerNanos().getAsLong()).as("kept by the other withers").isEqualTo(42);
        } finally {
            time.dispose();
        }
    }

    /**
     * A replica that sees no entries asks the shared log for its end once per five seconds of its ticker:
     * not before the ticker has moved that far, however often it polls, and soon after it has.
     */
    @Test
    void aReplicaAsksTheLogsEndByItsTicker() {
        Scheduler timer = Schedulers.newSingle("ticker-test");
        AtomicLong ticker = new AtomicLong();
        EmptyLog log = new EmptyLog();
        TableStorage storage = TableStorages.replicated(log, StorageOptions.defaults(timer).withTicker(ticker::get));
        try {
            assertThat(log.ends.get()).as("asked once, to catch up at start").isEqualTo(1);
            int polled = log.polls.get();
            await().atMost(Duration.ofSeconds(20)).until(() -> log.polls.get() >= polled + 20);
            ticker.addAndGet(Duration.ofSeconds(4).toNanos());
            int later = log.polls.get();
            await().atMost(Duration.ofSeconds(20)).until(() -> log.polls.get() >= later + 20);
            assertThat(log.ends.get()).as("four seconds of the ticker, many polls").isEqualTo(1);
            ticker.addAndGet(Duration.ofSeconds(2).toNanos());
            await().atMost(Duration.ofSeconds(20)).until(() -> log.ends.get() == 2);
        } finally {
            storage.close();
            timer.dispose();
        }
    }

    /** A shared log with no entries that counts how often it is polled and asked for its end. */
    private static final class EmptyLog implements SharedLog {
        final AtomicInteger ends = new AtomicInteger();
        final AtomicInteger polls = new AtomicInteger();

        @Override
        public CompletableFuture<Long> append(String origin, byte[] payload) {
            return CompletableFuture.failedFuture(new UnsupportedOperationException("read only"));
        }

        @Override
        public long endPosition() {
            ends.incrementAndGet();
            return 0;
        }

        @Override
        public List<Entry> poll(Duration timeout) {
            polls.incrementAndGet();
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return List.of();
        }

        @Override
        public void wakeup() {
        }

        @Override
        public void close() {
        }
    }
}
