package dev.tandem.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.Disposable;

/**
 * An index's feed hands a publication only to the streams it concerns: writes to one key do no work for
 * a stream watching another (between the passes over every stream that keep progress moving, here an
 * hour apart), and that stream, handed a later publication, reads from where it stopped and gets exactly
 * the changes of its own key. Passed over, it moves past the times it was told held nothing for it.
 */
class FeedRoutingTest {

    /** What one stream received: value → summed diff of its key's rows, and updates messages. */
    private record Received(Map<Long, Long> values, AtomicLong messages) {
        Received() {
            this(new ConcurrentHashMap<>(), new AtomicLong());
        }
    }

    @ParameterizedTest(name = "two runtimes: {0}")
    @ValueSource(booleans = {true, false})
    void writesToOneKeyAreNotHandedToAStreamWatchingAnother(boolean twoRuntimes, @TempDir Path dir) {
        try (StreamStack s = new StreamStack(dir, twoRuntimes, new ChangeStreamLimits(100, 100, 10_000, 3_600_000))) {
            s.tableWithIndex("t");
            s.write("t", List.of(new long[] {1, 0}, new long[] {2, 0}), List.of());
            List<Throwable> errors = new CopyOnWriteArrayList<>();
            Received a = new Received();
            Received b = new Received();
            List<Disposable> subs = new ArrayList<>();
            StreamSubscription subA = watch(s, List.of(new long[] {1}), a, errors, subs);
            StreamSubscription subB = watch(s, List.of(new long[] {2}), b, errors, subs);
            await().atMost(Duration.ofSeconds(30)).until(() -> !errors.isEmpty() || (a.values().containsKey(0L) && b.values().containsKey(0L)));
            assertThat(errors).isEmpty();

            long bHandled = subB.handledPublications();
            long lastToKey1 = 0;
            for (long w = 1; w <= 20; w++) {
                lastToKey1 = s.write("t", List.of(new long[] {1, w}), List.of());
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> !errors.isEmpty() || a.values().size() == 21);
            assertThat(subA.handledPublications()).as("A is handed the publications of its key's writes").isGreaterThan(bHandled);
            assertThat(subB.handledPublications()).as("B is handed none of the writes to key 1").isEqualTo(bHandled);
            // Passed over, B knows nothing of its key changed meanwhile: it has produced past those writes
            // without reading them, so its next read starts where every stream's does.
            long writtenThrough = lastToKey1;
            await().atMost(Duration.ofSeconds(30)).until(() -> subB.producedThrough() >= writtenThrough);
            assertThat(subB.handledPublications()).isEqualTo(bHandled);

            s.write("t", List.of(new long[] {2, 99}), List.of());
            await().atMost(Duration.ofSeconds(30)).until(() -> !errors.isEmpty() || b.values().containsKey(99L));
            assertThat(errors).isEmpty();
            assertThat(b.values()).as("B caught up with exactly its key's changes").isEqualTo(Map.of(0L, 1L, 99L, 1L));
            assertThat(a.values()).hasSize(21).allSatisfy((v, d) -> assertThat(d).isEqualTo(1L));
            subs.forEach(Disposable::dispose);
        }
    }

    @ParameterizedTest(name = "two runtimes: {0}")
    @ValueSource(booleans = {true, false})
    void aStreamWatchingTwoChangedKeysIsHandedThePublicationOnce(boolean twoRuntimes, @TempDir Path dir) {
        try (StreamStack s = new StreamStack(dir, twoRuntimes, new ChangeStreamLimits(100, 100, 10_000, 3_600_000))) {
            s.tableWithIndex("t");
            s.write("t", List.of(new long[] {1, 0}, new long[] {3, 0}), List.of());
            List<Throwable> errors = new CopyOnWriteArrayList<>();
            Received c = new Received();
            List<Disposable> subs = new ArrayList<>();
            StreamSubscription sub = watch(s, List.of(new long[] {1}, new long[] {3}), c, errors, subs);
            await().atMost(Duration.ofSeconds(30)).until(() -> !errors.isEmpty() || c.values().get(0L) != null && c.values().get(0L) == 2L);
            long handled = sub.handledPublications();
            long messages = c.messages().get();
            s.write("t", List.of(new long[] {1, 7}, new long[] {3, 7}), List.of()); // one write: one timestamp, both keys
            await().atMost(Duration.ofSeconds(30)).until(() -> !errors.isEmpty() || c.values().containsKey(7L));
            assertThat(errors).isEmpty();
            assertThat(c.values().get(7L)).as("both rows, once each").isEqualTo(2L);
            assertThat(c.messages().get() - messages).as("one message for the write's timestamp").isEqualTo(1);
            assertThat(sub.handledPublications() - handled).as("handed the publication once, not once per key").isEqualTo(1);
            subs.forEach(Disposable::dispose);
        }
    }

    /** Subscribes to {@code keys} of {@code t_k} with a snapshot, recording into {@code r}; the subscription joins {@code subs}. */
    private static StreamSubscription watch(StreamStack s, List<long[]> keys, Received r, List<Throwable> errors, List<Disposable> subs) {
        StreamSubscription sub = (StreamSubscription) s.subscribe("t_k", keys, null, null, null, true, Envelope.DIFFS);
        subs.add(sub.messages().subscribe(m -> record(m, r), errors::add));
        return sub;
    }

    private static void record(ChangeMessage m, Received r) {
        if (m instanceof ChangeMessage.Updates u) {
            r.messages().incrementAndGet();
            for (ChangeMessage.Change c : u.changes()) {
                ChangeMessage.Diff d = (ChangeMessage.Diff) c;
                r.values().merge((Long) d.row().get(1), d.diff(), Long::sum);
            }
        }
    }
}
