package dev.tandem.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tandem.controller.ReadRequest;
import dev.tandem.row.Row;
import dev.tandem.sharing.Publication;
import dev.tandem.time.Frontier;
import dev.tandem.trace.ReadHold;
import dev.tandem.trace.Spine;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.reactivestreams.Subscription;
import reactor.core.Disposable;
import reactor.core.publisher.BaseSubscriber;

/** How change streams start, end and what they leave behind: lag, drop, limits, hydration, an index started at time 0, upsert. */
class ChangeStreamLifecycleTest {

    /** A subscriber that takes {@code initial} messages and then nothing more. */
    private static final class Stalled extends BaseSubscriber<ChangeMessage> {
        final List<ChangeMessage> received = new CopyOnWriteArrayList<>();
        final AtomicReference<Throwable> error = new AtomicReference<>();
        final int initial;

        Stalled(int initial) {
            this.initial = initial;
        }

        @Override
        protected void hookOnSubscribe(Subscription s) {
            s.request(initial);
        }

        @Override
        protected void hookOnNext(ChangeMessage m) {
            received.add(m);
        }

        @Override
        protected void hookOnError(Throwable t) {
            error.set(t);
        }
    }

    private static List<String> holders(StreamStack s, String indexName) {
        String id = s.controller.indexStatus(indexName).id();
        Publication p = s.registry.current(id);
        List<String> out = new ArrayList<>();
        if (p.published()) {
            for (Spine spine : p.arrangement().oks()) {
                spine.holds().stream().map(ReadHold::holder).forEach(out::add);
            }
        }
        return out;
    }

    /** The holders of read holds on {@code indexName} as the introspection collection shows them. */
    private static List<String> introspectedHolders(StreamStack s, String indexName) {
        String id = s.controller.indexStatus(indexName).id();
        List<Row> rows = s.controller.readIntrospection("tandem_read_holds", ReadRequest.of("tandem_read_holds")).block(Duration.ofSeconds(30)).rows();
        return rows.stream().filter(r -> id.equals(r.get(0))).map(r -> (String) r.get(1)).toList();
    }

    private static List<long[]> batch(int from, int n) {
        List<long[]> rows = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            rows.add(new long[] {from + i, Long.MAX_VALUE - i});
        }
        return rows;
    }

    @Test
    void aSlowConsumerIsEndedAsLaggedByTheBytesWaitingForItAndTheyAreAllGivenBack(@TempDir Path dir) {
        // a bound in updates it never reaches; 20,000 bytes of rows it does
        try (StreamStack s = new StreamStack(dir, true, new ChangeStreamLimits(10, 10, 1_000_000, 20_000, 1_000_000, 0))) {
            s.tableWithIndex("t");
            ChangeSubscription sub = s.subscribe("t_k", null, null, null, null, true, Envelope.DIFFS);
            Stalled consumer = new Stalled(1);
            sub.messages().subscribe(consumer);
            await().atMost(Duration.ofSeconds(30)).until(() -> consumer.received.size() == 1);
            long peak = 0;
            for (int i = 0; i < 100 && consumer.error.get() == null; i++) {
                s.write("t", batch(i * 200, 200), List.of());
                peak = Math.max(peak, s.streams.bufferedBytes());
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> consumer.error.get() != null);
            ChangeStreamException e = (ChangeStreamException) consumer.error.get();
            assertThat(e.kind()).isEqualTo(ChangeStreamException.Kind.LAGGED);
            assertThat(e.getMessage()).contains("20000 bytes (tandem.subscribe.buffer-bytes)");
            // 200 rows a write, about 40 bytes each as held: the bound plus the one message that went past it
            assertThat(peak).isLessThanOrEqualTo(20_000 + 200 * 64);
            assertThat(s.streams.bufferedBytes()).isZero();
            assertThat(s.streams.activeCount()).isZero();
        }
    }

    @Test
    void allSubscriptionsTogetherAreBoundedByTheTotalAndTheOneGoingPastItIsEnded(@TempDir Path dir) {
        try (StreamStack s = new StreamStack(dir, true, new ChangeStreamLimits(10, 10, 1_000_000, 60_000, 60_000, 0))) {
            s.tableWithIndex("t");
            List<Stalled> consumers = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                Stalled c = new Stalled(1);
                s.subscribe("t_k", null, null, null, null, true, Envelope.DIFFS).messages().subscribe(c);
                consumers.add(c);
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> consumers.stream().allMatch(c -> c.received.size() == 1));
            long peak = 0;
            for (int i = 0; i < 100 && consumers.stream().allMatch(c -> c.error.get() == null); i++) {
                s.write("t", batch(i * 100, 100), List.of());
                peak = Math.max(peak, s.streams.bufferedBytes());
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> consumers.stream().anyMatch(c -> c.error.get() != null));
            Throwable e = consumers.stream().map(c -> c.error.get()).filter(x -> x != null).findFirst().orElseThrow();
            assertThat(((ChangeStreamException) e).kind()).isEqualTo(ChangeStreamException.Kind.LAGGED);
            assertThat(e.getMessage()).contains("60000 bytes waiting in all subscriptions (tandem.subscribe.total-buffer-bytes)");
            assertThat(peak).isLessThanOrEqualTo(60_000 + 2 * 100 * 64);
        }
    }

    @Test
    void aSlowConsumerIsEndedAsLaggedWithItsLastTimestampAndItsHoldIsReleased(@TempDir Path dir) {
        try (StreamStack s = new StreamStack(dir, true, new ChangeStreamLimits(10, 10, 20, 0))) {
            s.tableWithIndex("t");
            s.write("t", List.of(new long[] {1, 1}), List.of());
            // The server chooses the start: the snapshot's timestamp is what the error must name.
            ChangeSubscription sub = s.subscribe("t_k", null, null, null, null, true, Envelope.DIFFS);
            Stalled consumer = new Stalled(1);
            sub.messages().subscribe(consumer);
            await().atMost(Duration.ofSeconds(30)).until(() -> consumer.received.size() == 1);
            long snapshotAt = ((ChangeMessage.Updates) consumer.received.get(0)).timestamp();
            String holder = "subscription " + sub.id();
            assertThat(holders(s, "t_k")).contains(holder);
            await().atMost(Duration.ofSeconds(30)).until(() -> introspectedHolders(s, "t_k").contains(holder));
            long peakBuffered = 0;
            for (int i = 0; i < 60 && consumer.error.get() == null; i++) {
                s.write("t", List.of(new long[] {i, i}), List.of());
                for (SubscriptionStatus st : s.streams.active()) {
                    peakBuffered = Math.max(peakBuffered, st.buffered());
                }
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> consumer.error.get() != null);
            ChangeStreamException e = (ChangeStreamException) consumer.error.get();
            assertThat(e.kind()).isEqualTo(ChangeStreamException.Kind.LAGGED);
            assertThat(e.kind().code()).isEqualTo("subscription_lagged");
            assertThat(e.lastTimestamp()).as("the last timestamp it saw completely: the snapshot's").isEqualTo(snapshotAt);
            assertThat(consumer.received).hasSize(1);
            // Single-row writes: the buffer never holds more than its bound plus the one message that overflowed it.
            assertThat(peakBuffered).isLessThanOrEqualTo(20 + 1);
            assertThat(s.streams.activeCount()).isZero();
            assertThat(s.streams.laggedTotal()).isEqualTo(1);
            assertThat(holders(s, "t_k")).doesNotContain(holder);
            await().atMost(Duration.ofSeconds(30)).until(() -> !introspectedHolders(s, "t_k").contains(holder));
        }
    }

    @Test
    void theHoldFollowsWhatTheConsumerTook(@TempDir Path dir) {
        // Progress once after the snapshot and then only hourly: the messages are exactly predictable.
        try (StreamStack s = new StreamStack(dir, false, new ChangeStreamLimits(10, 10, 1000, 3_600_000))) {
            s.tableWithIndex("t");
            long first = s.write("t", List.of(new long[] {1, 1}), List.of());
            ChangeSubscription sub = s.subscribe("t_k", null, null, null, first, true, Envelope.DIFFS);
            Stalled consumer = new Stalled(1);
            sub.messages().subscribe(consumer);
            await().atMost(Duration.ofSeconds(30)).until(() -> consumer.received.size() == 1);
            long second = s.write("t", List.of(new long[] {2, 2}), List.of());
            // Queued behind the snapshot: progress, then the change at `second` (complete by itself).
            await().atMost(Duration.ofSeconds(30)).until(() -> s.streams.active().get(0).buffered() >= 2);
            assertThat(s.streams.active().get(0).delivered()).isEqualTo(first);
            String id = s.controller.indexStatus("t_k").id();
            Spine shard = s.registry.current(id).arrangement().oks().get(0);
            java.util.function.LongSupplier holdAt = () -> shard.holds().stream().filter(h -> h.holder().equals("subscription " + sub.id()))
                    .findFirst().orElseThrow().frontier().time();
            assertThat(holdAt.getAsLong()).isEqualTo(first);
            consumer.request(2);
            await().atMost(Duration.ofSeconds(30)).until(() -> consumer.received.size() == 3);
            long progress = ((ChangeMessage.Progress) consumer.received.get(1)).frontier();
            assertThat(progress).isGreaterThan(first);
            assertThat(consumer.received.get(2)).isEqualTo(new ChangeMessage.Updates(second, List.of(new ChangeMessage.Diff(Row.of(2L, 2L), 1))));
            assertThat(holdAt.getAsLong()).as("the hold is at the last timestamp the consumer saw completely").isEqualTo(second);
            consumer.dispose();
            await().atMost(Duration.ofSeconds(10)).until(() -> s.streams.activeCount() == 0);
            assertThat(shard.holds()).noneMatch(h -> h.holder().startsWith("subscription"));
            assertThat(s.streams.feedCount()).as("the last stream's end stops following the index").isZero();
        }
    }

    @Test
    void droppingTheIndexEndsItsStreamsAfterWhatWasSent(@TempDir Path dir) {
        try (StreamStack s = new StreamStack(dir, true, ChangeStreamLimits.DEFAULTS)) {
            s.tableWithIndex("t");
            s.write("t", List.of(new long[] {1, 1}), List.of());
            List<ChangeMessage> received = new CopyOnWriteArrayList<>();
            AtomicReference<Throwable> error = new AtomicReference<>();
            s.subscribe("t_k", null, null, null, null, true, Envelope.DIFFS).messages().subscribe(received::add, error::set);
            long second = s.write("t", List.of(new long[] {2, 2}), List.of());
            await().atMost(Duration.ofSeconds(30)).until(() -> received.stream().anyMatch(m -> m instanceof ChangeMessage.Updates u && u.timestamp() == second));
            s.controller.drop("t_k", dev.tandem.controller.CatalogEntry.Index.class);
            await().atMost(Duration.ofSeconds(30)).until(() -> error.get() != null);
            ChangeStreamException e = (ChangeStreamException) error.get();
            assertThat(e.kind()).isEqualTo(ChangeStreamException.Kind.DROPPED);
            assertThat(e.getMessage()).contains("'t_k' was dropped");
            assertThat(e.lastTimestamp()).isGreaterThanOrEqualTo(second);
            assertThat(s.streams.activeCount()).isZero();
        }
    }

    @Test
    void subscriptionsBeyondTheLimitAreRefusedUntilOneEnds(@TempDir Path dir) {
        try (StreamStack s = new StreamStack(dir, false, new ChangeStreamLimits(2, 2, 1000, 0))) {
            s.tableWithIndex("t");
            Disposable a = s.subscribe("t_k", null, null, null, null, true, Envelope.DIFFS).messages().subscribe();
            s.subscribe("t_k", null, null, null, null, true, Envelope.DIFFS).messages().subscribe();
            assertThat(s.streams.feedCount()).as("streams of one index follow its publications once").isEqualTo(1);
            assertThatThrownBy(() -> s.subscribe("t_k", null, null, null, null, true, Envelope.DIFFS))
                    .isInstanceOfSatisfying(ChangeStreamException.class, e -> assertThat(e.kind()).isEqualTo(ChangeStreamException.Kind.LIMIT));
            a.dispose();
            await().atMost(Duration.ofSeconds(10)).until(() -> s.streams.activeCount() == 1);
            s.subscribe("t_k", null, null, null, null, true, Envelope.DIFFS).messages().subscribe();
            assertThat(s.streams.activeCount()).isEqualTo(2);
        }
    }

    @Test
    void aSubscriptionToAHydratingIndexWaitsForItsSnapshotWhileOtherReadsAreAnswered(@TempDir Path dir) {
        try (StreamStack s = new StreamStack(dir, true, ChangeStreamLimits.DEFAULTS)) {
            s.tableWithIndex("small");
            s.write("small", List.of(new long[] {7, 70}), List.of());
            s.controller.createTable("big", List.of(new dev.tandem.row.Column("k", dev.tandem.row.DatumType.INT64, false),
                    new dev.tandem.row.Column("v", dev.tandem.row.DatumType.INT64, true)));
            List<long[]> rows = new ArrayList<>();
            for (long k = 0; k < 200_000; k++) {
                rows.add(new long[] {k, k * 2});
            }
            s.write("big", rows, List.of());
            s.controller.createIndex("big_k", "big", List.of("k"), null);
            List<ChangeMessage> received = new CopyOnWriteArrayList<>();
            AtomicReference<Throwable> error = new AtomicReference<>();
            ChangeSubscription sub = s.subscribe("big_k", List.of(new long[] {5}, new long[] {199_999}), null, null, null, true, Envelope.DIFFS);
            sub.messages().subscribe(received::add, error::set);
            // At the time the server chooses: just after its creation, the index's since may lie past both
            // the write's timestamp and its reported frontier minus one.
            assertThat(s.peek("small_k", List.of(new long[] {7}), null, null, null))
                    .containsExactly(Row.of(7L, 70L));
            await().atMost(Duration.ofSeconds(60)).until(() -> !received.isEmpty() || error.get() != null);
            assertThat(error.get()).isNull();
            ChangeMessage.Updates snapshot = (ChangeMessage.Updates) received.get(0);
            assertThat(snapshot.changes()).containsExactly(new ChangeMessage.Diff(Row.of(5L, 10L), 1), new ChangeMessage.Diff(Row.of(199_999L, 399_998L), 1));
            // the controller learns of the hydration from the runtime's frontier report, which may come just after the snapshot
            await().atMost(Duration.ofSeconds(30)).until(() -> s.controller.indexStatus("big_k").hydrated());
        }
    }

    @ParameterizedTest(name = "two runtimes: {0}")
    @ValueSource(booleans = {false, true})
    void aStreamFromTheFirstWriteStartsOnAnIndexCreatedBeforeTheStorageFirstTicked(boolean twoRuntimes, @TempDir Path dir) {
        // No idle tick during the test: the storage's upper is still 0 when the index is created, so the
        // index starts at time 0, and compute first reports it just past the first write.
        try (StreamStack s = new StreamStack(dir, twoRuntimes, ChangeStreamLimits.DEFAULTS, Duration.ofHours(1))) {
            s.tableWithIndex("t");
            assertThat(s.controller.indexStatus("t_k").asOf()).isZero();
            long first = s.write("t", List.of(new long[] {1, 1}), List.of());
            await().atMost(Duration.ofSeconds(30)).until(() -> s.controller.indexStatus("t_k").writeFrontier().equals(Frontier.at(first + 1)));
            assertThat(s.controller.indexStatus("t_k").since().time()).as("the first write is within the compaction window")
                    .isLessThanOrEqualTo(first);
            List<ChangeMessage> atFirst = new CopyOnWriteArrayList<>();
            List<ChangeMessage> atNow = new CopyOnWriteArrayList<>();
            AtomicReference<Throwable> error = new AtomicReference<>();
            s.subscribe("t_k", null, null, null, first, true, Envelope.DIFFS).messages().subscribe(atFirst::add, error::set);
            s.subscribe("t_k", null, null, null, null, true, Envelope.DIFFS).messages().subscribe(atNow::add, error::set);
            await().atMost(Duration.ofSeconds(30)).until(() -> !atFirst.isEmpty() && !atNow.isEmpty() || error.get() != null);
            assertThat(error.get()).isNull();
            List<ChangeMessage.Change> row = List.of(new ChangeMessage.Diff(Row.of(1L, 1L), 1));
            assertThat(atFirst.get(0)).isEqualTo(new ChangeMessage.Updates(first, row));
            assertThat(((ChangeMessage.Updates) atNow.get(0)).changes()).isEqualTo(row);
            assertThat(s.peek("t_k", null, null, null, first)).containsExactly(Row.of(1L, 1L));
        }
    }

    @Test
    void upsertGivesEachKeysNewValueOrADeleteAndRefusesAKeyWithTwoRows(@TempDir Path dir) {
        try (StreamStack s = new StreamStack(dir, false, ChangeStreamLimits.DEFAULTS)) {
            s.tableWithIndex("t");
            long t0 = s.write("t", List.of(new long[] {1, 10}, new long[] {2, 20}), List.of());
            List<ChangeMessage> received = new CopyOnWriteArrayList<>();
            AtomicReference<Throwable> error = new AtomicReference<>();
            s.subscribe("t_k", null, null, null, t0, true, Envelope.UPSERT).messages().subscribe(received::add, error::set);
            long t1 = s.write("t", List.of(new long[] {1, 11}), List.of(new long[] {1, 10}));
            long t2 = s.write("t", List.of(), List.of(new long[] {2, 20}));
            long t3 = s.write("t", List.of(new long[] {3, 30}, new long[] {3, 31}), List.of());
            await().atMost(Duration.ofSeconds(30)).until(() -> error.get() != null);
            List<ChangeMessage.Updates> updates = received.stream().filter(m -> m instanceof ChangeMessage.Updates).map(m -> (ChangeMessage.Updates) m).toList();
            assertThat(updates).containsExactly(
                    new ChangeMessage.Updates(t0, List.of(new ChangeMessage.Upsert(Row.of(1L), Row.of(1L, 10L)), new ChangeMessage.Upsert(Row.of(2L), Row.of(2L, 20L)))),
                    new ChangeMessage.Updates(t1, List.of(new ChangeMessage.Upsert(Row.of(1L), Row.of(1L, 11L)))),
                    new ChangeMessage.Updates(t2, List.of(new ChangeMessage.Upsert(Row.of(2L), null))));
            ChangeStreamException e = (ChangeStreamException) error.get();
            assertThat(e.kind()).isEqualTo(ChangeStreamException.Kind.FAILED);
            assertThat(e.getMessage()).contains("at most one row per key").contains(Long.toString(t3));
            assertThat(e.lastTimestamp()).isGreaterThanOrEqualTo(t2);
        }
    }
}
