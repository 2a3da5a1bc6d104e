package dev.tandem.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.Disposable;

/**
 * Many streams of one index, each watching a few of its hot keys, while writes arrive (many in flight,
 * then one at a time): every stream receives every change of its keys exactly once (the shape of
 * {@code bench subscribe-fanout}, small enough for the suite; its WebSocket transport is covered by
 * {@code ConnectionTimeoutsTest} and {@code SessionSocketTest}).
 */
class FanOutDeliveryTest {

    static final int HOT_KEYS = 100;
    static final int KEYS_PER_STREAM = 3;
    static final int PACED = 50;

    /** With a progress interval of 0 every publication goes to every stream; with 200 ms, only to those it concerns between passes. */
    @ParameterizedTest(name = "two runtimes: {0}, progress interval {1} ms")
    @CsvSource({"true, 0", "false, 0", "true, 200", "false, 200"})
    void everyStreamReceivesEveryChangeOfItsKeys(boolean twoRuntimes, long progressMillis, @TempDir Path dir) throws InterruptedException {
        int streams = 300;
        int writes = 200;
        try (StreamStack s = new StreamStack(dir, twoRuntimes, new ChangeStreamLimits(1000, 1000, 100_000, progressMillis))) {
            s.tableWithIndex("t");
            long start = s.write("t", List.of(new long[] {HOT_KEYS + 1, 0}), List.of());
            List<Set<Long>> watched = new ArrayList<>();
            List<Map<Long, Long>> received = new ArrayList<>();
            List<AtomicLong> progress = new ArrayList<>();
            List<Throwable> errors = new CopyOnWriteArrayList<>();
            List<Disposable> subs = new ArrayList<>();
            for (int i = 0; i < streams; i++) {
                Set<Long> keys = new HashSet<>();
                List<long[]> keyRows = new ArrayList<>();
                for (int j = 0; j < KEYS_PER_STREAM; j++) {
                    long k = (i * KEYS_PER_STREAM + j) % HOT_KEYS;
                    keys.add(k);
                    keyRows.add(new long[] {k});
                }
                watched.add(keys);
                Map<Long, Long> got = new ConcurrentHashMap<>();
                received.add(got);
                AtomicLong frontier = new AtomicLong();
                progress.add(frontier);
                ChangeSubscription sub = s.subscribe("t_k", keyRows, null, null, null, true, Envelope.DIFFS);
                subs.add(sub.messages().subscribe(m -> {
                    switch (m) {
                        case ChangeMessage.Updates u -> {
                            for (ChangeMessage.Change c : u.changes()) {
                                ChangeMessage.Diff d = (ChangeMessage.Diff) c;
                                got.merge((Long) d.row().get(1), d.diff(), Long::sum);
                            }
                        }
                        case ChangeMessage.Progress p -> frontier.set(p.frontier());
                    }
                }, errors::add));
            }
            // Writes in flight together (as a server's clients send them), then one at a time with pauses (so
            // publications find streams idle and their progress has moved on), each a new value of one hot
            // key: value w is written to key w % HOT_KEYS.
            long concurrent = reactor.core.publisher.Flux.range(1, writes)
                    .flatMap(w -> dev.tandem.api.JsonRequests.write(s.controller, "t", StreamStack.rows(List.of(new long[] {w % HOT_KEYS, w})), null), 16)
                    .reduce(start, Math::max).block(Duration.ofSeconds(60));
            long through = concurrent;
            for (int w = writes + 1; w <= writes + PACED; w++) {
                through = Math.max(through, s.write("t", List.of(new long[] {w % HOT_KEYS, w}), List.of()));
                Thread.sleep(10);
            }
            long last = through;
            await().atMost(Duration.ofSeconds(60)).until(() -> !errors.isEmpty() || progress.stream().allMatch(p -> p.get() > last));
            assertThat(errors).isEmpty();
            TreeMap<Integer, String> wrong = new TreeMap<>();
            for (int i = 0; i < streams; i++) {
                Map<Long, Long> expected = new TreeMap<>();
                for (long w = 1; w <= writes + PACED; w++) {
                    if (watched.get(i).contains(w % HOT_KEYS)) {
                        expected.put(w, 1L);
                    }
                }
                if (!new TreeMap<>(received.get(i)).equals(expected)) {
                    Set<Long> missing = new HashSet<>(expected.keySet());
                    missing.removeAll(received.get(i).keySet());
                    wrong.put(i, "missing " + new java.util.TreeSet<>(missing) + ", got " + new TreeMap<>(received.get(i)));
                }
            }
            subs.forEach(Disposable::dispose);
            assertThat(wrong).as("streams whose changes differ from the writes to their keys").isEmpty();
        }
    }
}
