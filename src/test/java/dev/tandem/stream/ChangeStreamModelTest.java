package dev.tandem.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tandem.row.Row;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import reactor.core.Disposable;
import tools.jackson.databind.JsonNode;

/**
 * The model test of change streams: random inserts and deletes on several keys while clients subscribe
 * at various {@code as_of} values (all keys, some keys, a projection, upsert); each client's
 * reconstruction at every progress timestamp equals both the model (the acknowledged writes up to that
 * time) and a peek at that time. A client that disconnects and resumes from the last timestamp it saw
 * completely gets exactly the changes it had not seen. SOLO and two-runtime modes.
 */
class ChangeStreamModelTest {

    /** One subscriber: what it asked for and everything it received. */
    private static final class Client {
        final String name;
        final List<long[]> keys;
        final boolean projectV;
        final Envelope envelope;
        final long startedAfterWrite;
        final List<ChangeMessage> received = new CopyOnWriteArrayList<>();
        final AtomicReference<Throwable> error = new AtomicReference<>();
        Disposable running;

        Client(String name, List<long[]> keys, boolean projectV, Envelope envelope, long startedAfterWrite) {
            this.name = name;
            this.keys = keys;
            this.projectV = projectV;
            this.envelope = envelope;
            this.startedAfterWrite = startedAfterWrite;
        }

        JsonNode project() {
            return projectV ? StreamStack.NODES.arrayNode().add("v") : null;
        }

        void start(StreamStack s, Long asOf, boolean snapshot) {
            ChangeSubscription sub = s.subscribe("t_k", keys, null, project(), asOf, snapshot, envelope);
            running = sub.messages().subscribe(received::add, error::set);
        }

        long lastProgress() {
            long p = Long.MIN_VALUE;
            for (ChangeMessage m : received) {
                if (m instanceof ChangeMessage.Progress pr) {
                    p = Math.max(p, pr.frontier());
                }
            }
            return p;
        }
    }

    /** The acknowledged writes: (timestamp, k, v, diff). */
    private final List<long[]> history = new ArrayList<>();

    /** The model's rows at {@code t} as a client sees them (its keys, its projection). */
    private Map<List<Long>, Long> modelAt(long t, Client c) {
        Map<List<Long>, Long> out = new HashMap<>();
        for (long[] h : history) {
            if (h[0] <= t && watched(c, h[1])) {
                out.merge(c.projectV ? List.of(h[2]) : List.of(h[1], h[2]), h[3], Long::sum);
            }
        }
        out.values().removeIf(n -> n == 0);
        return out;
    }

    private static boolean watched(Client c, long k) {
        return c.keys == null || c.keys.stream().anyMatch(key -> key[0] == k);
    }

    private static List<Long> values(Row r) {
        List<Long> out = new ArrayList<>();
        for (int i = 0; i < r.arity(); i++) {
            out.add((Long) r.get(i));
        }
        return out;
    }

    private static Map<List<Long>, Long> counts(List<Row> rows) {
        Map<List<Long>, Long> out = new HashMap<>();
        rows.forEach(r -> out.merge(values(r), 1L, Long::sum));
        return out;
    }

    /**
     * Replays {@code messages} from {@code state} and checks the state at every progress against the
     * model and, for up to {@code peeks} progress timestamps, against a peek; returns the final state.
     */
    private Map<List<Long>, Long> verify(StreamStack s, Client c, List<ChangeMessage> messages, Map<List<Long>, Long> state, long after, int peeks) {
        long last = after;
        int peeked = 0;
        for (ChangeMessage m : messages) {
            switch (m) {
                case ChangeMessage.Updates u -> {
                    assertThat(u.timestamp()).as("%s: updates in timestamp order", c.name).isGreaterThan(last);
                    last = u.timestamp();
                    for (ChangeMessage.Change ch : u.changes()) {
                        ChangeMessage.Diff d = (ChangeMessage.Diff) ch;
                        state.merge(values(d.row()), d.diff(), Long::sum);
                    }
                    state.values().removeIf(n -> n == 0);
                }
                case ChangeMessage.Progress p -> {
                    assertThat(p.frontier() - 1).as("%s: progress never goes back", c.name).isGreaterThanOrEqualTo(last);
                    last = p.frontier() - 1;
                    assertThat(state).as("%s: reconstruction at %d equals the model", c.name, last).isEqualTo(modelAt(last, c));
                    if (peeked < peeks) {
                        peeked++;
                        assertThat(counts(s.peek("t_k", c.keys, null, c.project(), last)))
                                .as("%s: reconstruction at %d equals a peek", c.name, last).isEqualTo(state);
                    }
                }
            }
        }
        return state;
    }

    /**
     * With a progress interval of 0, every publication goes to every stream; with 50 ms, a keyed stream is
     * handed only those that change its keys between the passes over all (its reads then span publications).
     */
    @ParameterizedTest(name = "two runtimes: {0}, progress interval {1} ms")
    @CsvSource({"false, 0", "true, 0", "false, 50", "true, 50"})
    void everyClientReconstructsTheCollectionAtEveryProgressTimestamp(boolean twoRuntimes, long progressMillis, @TempDir Path dir) {
        Random random = new Random(twoRuntimes ? 17 : 71);
        try (StreamStack s = new StreamStack(dir, twoRuntimes, new ChangeStreamLimits(100, 10, 100_000, progressMillis))) {
            s.tableWithIndex("t");
            Map<List<Long>, Integer> live = new HashMap<>();
            List<Long> stamps = new ArrayList<>();
            List<Client> clients = new ArrayList<>();
            List<Long> startAsOf = new ArrayList<>();
            Client resumed = null;
            int writes = 160;
            for (int i = 0; i < writes; i++) {
                List<long[]> insert = new ArrayList<>();
                List<long[]> delete = new ArrayList<>();
                for (int n = 1 + random.nextInt(3); n > 0; n--) {
                    List<List<Long>> present = live.entrySet().stream().filter(e -> e.getValue() > 0).map(Map.Entry::getKey).toList();
                    if (!present.isEmpty() && random.nextInt(3) == 0) {
                        List<Long> row = present.get(random.nextInt(present.size()));
                        if (delete.stream().noneMatch(d -> d[0] == row.get(0) && d[1] == row.get(1))) {
                            delete.add(new long[] {row.get(0), row.get(1)});
                        }
                    } else {
                        insert.add(new long[] {random.nextInt(6), random.nextInt(3)});
                    }
                }
                long ts = s.write("t", insert, delete);
                stamps.add(ts);
                for (long[] r : insert) {
                    history.add(new long[] {ts, r[0], r[1], 1});
                    live.merge(List.of(r[0], r[1]), 1, Integer::sum);
                }
                for (long[] r : delete) {
                    history.add(new long[] {ts, r[0], r[1], -1});
                    live.merge(List.of(r[0], r[1]), -1, Integer::sum);
                }
                switch (i) {
                    case 0 -> {
                        clients.add(new Client("all keys, now", null, false, Envelope.DIFFS, i));
                        startAsOf.add(null);
                    }
                    case 30 -> {
                        clients.add(new Client("keys 1 and 2, as_of an old write", List.of(new long[] {1}, new long[] {2}), false, Envelope.DIFFS, i));
                        startAsOf.add(stamps.get(10));
                    }
                    case 60 -> {
                        clients.add(new Client("project v, as_of the last write", null, true, Envelope.DIFFS, i));
                        startAsOf.add(ts);
                    }
                    case 90 -> {
                        clients.add(new Client("all keys, as_of the first write", null, false, Envelope.DIFFS, i));
                        // Every write came after the index was created, so within its compaction window.
                        startAsOf.add(stamps.get(0));
                    }
                    default -> {
                    }
                }
                if (clients.size() > startAsOf.size() - 1 && clients.get(clients.size() - 1).running == null) {
                    Client c = clients.get(clients.size() - 1);
                    c.start(s, startAsOf.get(startAsOf.size() - 1), true);
                }
                if (i == 100) {
                    // The first client disconnects; it resumes later from the last timestamp it saw completely.
                    Client first = clients.get(0);
                    await().atMost(Duration.ofSeconds(30)).until(() -> first.lastProgress() > stamps.get(95));
                    first.running.dispose();
                    resumed = new Client("all keys, resumed", null, false, Envelope.DIFFS, i);
                }
                if (i == 130) {
                    long seen = clients.get(0).received.stream().mapToLong(ChangeMessage::complete).max().orElseThrow();
                    resumed.start(s, seen, false);
                }
            }
            long lastWrite = stamps.get(stamps.size() - 1);
            List<Client> waiting = new ArrayList<>(clients.subList(1, clients.size()));
            waiting.add(resumed);
            for (Client c : waiting) {
                await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                    assertThat(c.error.get()).as(c.name).isNull();
                    assertThat(c.lastProgress()).as(c.name).isGreaterThan(lastWrite);
                });
            }
            for (int i = 0; i < clients.size(); i++) {
                Client c = clients.get(i);
                assertThat(c.received.get(0)).as("%s starts with the snapshot", c.name).isInstanceOf(ChangeMessage.Updates.class);
                ChangeMessage.Updates snapshot = (ChangeMessage.Updates) c.received.get(0);
                if (startAsOf.get(i) != null) {
                    assertThat(snapshot.timestamp()).as("%s: the snapshot is at as_of", c.name).isEqualTo(startAsOf.get(i));
                }
                Map<List<Long>, Long> state = new HashMap<>();
                for (ChangeMessage.Change ch : snapshot.changes()) {
                    ChangeMessage.Diff d = (ChangeMessage.Diff) ch;
                    assertThat(d.diff()).as("%s: the snapshot has positive multiplicities", c.name).isPositive();
                    state.merge(values(d.row()), d.diff(), Long::sum);
                }
                assertThat(state).as("%s: the snapshot equals the model", c.name).isEqualTo(modelAt(snapshot.timestamp(), c));
                verify(s, c, c.received.subList(1, c.received.size()), state, snapshot.timestamp(), 25);
            }
            // Resume: the first connection's changes followed by the second's are exactly the changes, once each.
            Client first = clients.get(0);
            ChangeMessage.Updates snapshot = (ChangeMessage.Updates) first.received.get(0);
            Map<List<Long>, Long> state = new HashMap<>();
            snapshot.changes().forEach(ch -> state.merge(values(((ChangeMessage.Diff) ch).row()), ((ChangeMessage.Diff) ch).diff(), Long::sum));
            verify(s, first, first.received.subList(1, first.received.size()), state, snapshot.timestamp(), 5);
            long seen = first.received.stream().mapToLong(ChangeMessage::complete).max().orElseThrow();
            assertThat(resumed.received).as("the resumed stream has no snapshot").first().isNotNull();
            verify(s, resumed, resumed.received, state, seen, 25);
            assertThat(modelAt(lastWrite, first)).isEqualTo(state);
            waiting.forEach(c -> c.running.dispose());
            await().atMost(Duration.ofSeconds(10)).until(() -> s.streams.activeCount() == 0);
        }
    }
}
