package dev.tandem.stream;

import dev.tandem.api.JsonRequests;
import dev.tandem.api.ReadJson;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tandem.controller.ChangeStreamStart;
import dev.tandem.row.Column;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.Disposable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * Change streams of collections without an index (a view, a table, a query): each is served through a
 * transient dataflow the subscription owns. Random writes while clients watch; every client's
 * reconstruction at every progress timestamp equals a naive model computed from the acknowledged writes
 * (its own code: group sums, filters and multisets over a list of writes), the snapshot is at
 * {@code as_of}, updates come in timestamp order, and the dataflow is gone once the stream ends. SOLO and
 * two-runtime modes; drops of what a stream reads end it with a message that says so.
 */
class TransientChangeStreamTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** {@code agg}: per k, the row count and the sum of v of table {@code t}. */
    private static final String AGG = "{\"op\":\"reduce\",\"input\":{\"op\":\"get\",\"name\":\"t\"},\"group_key\":[0],"
            + "\"aggregates\":[{\"func\":\"count\"},{\"func\":\"sum\",\"expr\":{\"col\":1}}]}";
    /** {@code big}: the rows of (indexed) table {@code u} with v > 1. */
    private static final String BIG = "{\"op\":\"mfp\",\"input\":{\"op\":\"get\",\"name\":\"u\"},"
            + "\"filter\":[{\"call\":\"gt\",\"args\":[{\"col\":1},{\"lit\":1}]}]}";
    /** A query: the union of t's and u's k values. */
    private static final String UNION = "{\"op\":\"union\",\"inputs\":[{\"op\":\"mfp\",\"input\":{\"op\":\"get\",\"name\":\"t\"},\"project\":[0]},"
            + "{\"op\":\"mfp\",\"input\":{\"op\":\"get\",\"name\":\"u\"},\"project\":[0]}]}";

    /** One acknowledged change: table, timestamp, k, v, diff. */
    private record Write(String table, long time, long k, long v, long diff) {
    }

    private final List<Write> history = new CopyOnWriteArrayList<>();

    /** The model: a multiset of rows at {@code t}, computed from the writes alone. */
    private Map<List<Long>, Long> model(String watched, long t) {
        Map<List<Long>, Long> out = new HashMap<>();
        switch (watched) {
            case "t" -> rows("t", t).forEach((r, n) -> out.merge(r, n, Long::sum));
            case "big" -> rows("u", t).forEach((r, n) -> {
                if (r.get(1) > 1) {
                    out.merge(r, n, Long::sum);
                }
            });
            case "agg" -> {
                TreeMap<Long, long[]> groups = new TreeMap<>();
                rows("t", t).forEach((r, n) -> {
                    long[] g = groups.computeIfAbsent(r.get(0), k -> new long[2]);
                    g[0] += n;
                    g[1] += n * r.get(1);
                });
                groups.forEach((k, g) -> {
                    if (g[0] != 0) {
                        out.merge(List.of(k, g[0], g[1]), 1L, Long::sum);
                    }
                });
            }
            case "union" -> {
                rows("t", t).forEach((r, n) -> out.merge(List.of(r.get(0)), n, Long::sum));
                rows("u", t).forEach((r, n) -> out.merge(List.of(r.get(0)), n, Long::sum));
            }
            default -> throw new IllegalArgumentException(watched);
        }
        return out;
    }

    private Map<List<Long>, Long> rows(String table, long t) {
        Map<List<Long>, Long> out = new HashMap<>();
        for (Write w : history) {
            if (w.table.equals(table) && w.time <= t) {
                out.merge(List.of(w.k, w.v), w.diff, Long::sum);
            }
        }
        out.values().removeIf(n -> n == 0);
        return out;
    }

    private static List<Long> values(Row r) {
        List<Long> out = new ArrayList<>();
        for (int i = 0; i < r.arity(); i++) {
            out.add((Long) r.get(i));
        }
        return out;
    }

    /** A client: what it watches and what it received. */
    private static final class Client {
        final String watched;
        final ChangeStreamStart start;
        final List<ChangeMessage> received = new CopyOnWriteArrayList<>();
        final AtomicReference<Throwable> error = new AtomicReference<>();
        final Disposable running;

        Client(String watched, ChangeStreamStart start, ChangeStreams streams) {
            this.watched = watched;
            this.start = start;
            this.running = streams.subscribe(new ChangeStreamRequest(start, true, Envelope.DIFFS, "test " + watched)).messages()
                    .subscribe(received::add, error::set);
        }

        long lastProgress() {
            return received.stream().filter(m -> m instanceof ChangeMessage.Progress).mapToLong(m -> ((ChangeMessage.Progress) m).frontier())
                    .max().orElse(Long.MIN_VALUE);
        }
    }

    private static void setUp(StreamStack s) {
        s.controller.createTable("t", List.of(new Column("k", DatumType.INT64, false), new Column("v", DatumType.INT64, false)));
        s.tableWithIndex("u");
        s.controller.createView("agg", JsonRequests.plan(JSON.readTree(AGG)), List.of("k", "n", "s"));
        s.controller.createView("big", JsonRequests.plan(JSON.readTree(BIG)), null);
    }

    /** Inserts or deletes a random row of {@code table}; returns the write's timestamp. */
    private long randomWrite(StreamStack s, Random random, String table) {
        Map<List<Long>, Long> present = rows(table, Long.MAX_VALUE);
        List<long[]> insert = new ArrayList<>();
        List<long[]> delete = new ArrayList<>();
        if (!present.isEmpty() && random.nextInt(3) == 0) {
            List<Long> row = new ArrayList<>(present.keySet()).get(random.nextInt(present.size()));
            delete.add(new long[] {row.get(0), row.get(1)});
        } else {
            insert.add(new long[] {random.nextInt(5), random.nextInt(4)});
        }
        long ts = s.write(table, insert, delete);
        insert.forEach(r -> history.add(new Write(table, ts, r[0], r[1], 1)));
        delete.forEach(r -> history.add(new Write(table, ts, r[0], r[1], -1)));
        return ts;
    }

    @ParameterizedTest(name = "two runtimes: {0}")
    @ValueSource(booleans = {false, true})
    void viewsTablesAndQueriesWithoutAnIndexStreamAsTheModelSays(boolean twoRuntimes, @TempDir Path dir) {
        Random random = new Random(twoRuntimes ? 23 : 32);
        try (StreamStack s = new StreamStack(dir, twoRuntimes, new ChangeStreamLimits(100, 10, 100_000, 0))) {
            setUp(s);
            List<Long> stamps = new ArrayList<>();
            List<Client> clients = new ArrayList<>();
            Map<Client, Long> asOf = new HashMap<>();
            for (int i = 0; i < 90; i++) {
                stamps.add(randomWrite(s, random, random.nextBoolean() ? "t" : "u"));
                switch (i) {
                    case 10 -> clients.add(new Client("agg", JsonRequests.startChangeStream(s.controller, "agg", null, null, null, null), s.streams));
                    case 25 -> {
                        // A table with no index, from an earlier time than now (its writes are still readable).
                        long at = stamps.get(15);
                        Client c = new Client("t", JsonRequests.startChangeStream(s.controller, "t", null, null, null, at), s.streams);
                        asOf.put(c, at);
                        clients.add(c);
                    }
                    case 40 -> clients.add(new Client("big", JsonRequests.startChangeStream(s.controller, "big", null, null, null, null), s.streams));
                    case 55 -> clients.add(new Client("union", JsonRequests.startChangeStream(s.controller, new ReadJson(null, JSON.readTree(UNION), null,
                            null, null, null, null, null, null, null, null)), s.streams));
                    default -> {
                    }
                }
            }
            assertThat(s.controller.transientStreamCount()).as("one transient dataflow per stream").isEqualTo(4);
            long last = stamps.get(stamps.size() - 1);
            for (Client c : clients) {
                await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                    assertThat(c.error.get()).as(c.watched).isNull();
                    assertThat(c.lastProgress()).as(c.watched).isGreaterThan(last);
                });
            }
            for (Client c : clients) {
                ChangeMessage.Updates snapshot = (ChangeMessage.Updates) c.received.get(0);
                assertThat(snapshot.timestamp()).as("%s: the snapshot is at the start time", c.watched).isEqualTo(c.start.asOf());
                if (asOf.containsKey(c)) {
                    assertThat(snapshot.timestamp()).isEqualTo(asOf.get(c));
                }
                Map<List<Long>, Long> state = new HashMap<>();
                long position = snapshot.timestamp();
                int progresses = 0;
                for (ChangeMessage m : c.received) {
                    switch (m) {
                        case ChangeMessage.Updates u -> {
                            assertThat(u == snapshot || u.timestamp() > position).as("%s: updates in timestamp order", c.watched).isTrue();
                            position = u.timestamp();
                            for (ChangeMessage.Change ch : u.changes()) {
                                ChangeMessage.Diff d = (ChangeMessage.Diff) ch;
                                state.merge(values(d.row()), d.diff(), Long::sum);
                            }
                            state.values().removeIf(n -> n == 0);
                            if (u == snapshot) {
                                assertThat(state).as("%s: the snapshot equals the model", c.watched).isEqualTo(model(c.watched, position));
                            }
                        }
                        case ChangeMessage.Progress p -> {
                            assertThat(p.frontier() - 1).as("%s: progress never goes back", c.watched).isGreaterThanOrEqualTo(position);
                            position = p.frontier() - 1;
                            progresses++;
                            assertThat(state).as("%s: reconstruction at %d equals the model", c.watched, position)
                                    .isEqualTo(model(c.watched, position));
                        }
                    }
                }
                assertThat(progresses).as("%s saw progress", c.watched).isPositive();
            }
            // Ending a stream drops its dataflow: the published arrangement goes away, and the holds with it.
            for (Client c : clients) {
                c.running.dispose();
                await().atMost(Duration.ofSeconds(30)).until(() -> s.registry.current(c.start.indexId()).dropped());
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> s.controller.transientStreamCount() == 0 && s.streams.activeCount() == 0);
        }
    }

    @Test
    void droppingWhatAStreamReadsEndsItAndSaysSo(@TempDir Path dir) {
        try (StreamStack s = new StreamStack(dir, true, new ChangeStreamLimits(100, 10, 100_000, 0))) {
            setUp(s);
            long first = s.write("t", List.of(new long[] {1, 2}), List.of());
            history.add(new Write("t", first, 1, 2, 1));
            Client onView = new Client("agg", JsonRequests.startChangeStream(s.controller, "agg", null, null, null, null), s.streams);
            Client onTable = new Client("t", JsonRequests.startChangeStream(s.controller, "t", null, null, null, null), s.streams);
            await().atMost(Duration.ofSeconds(30)).until(() -> onView.lastProgress() > first && onTable.lastProgress() > first);

            s.controller.drop("agg", dev.tandem.controller.CatalogEntry.View.class);
            await().atMost(Duration.ofSeconds(30)).until(() -> onView.error.get() != null);
            assertThat(onView.error.get()).isInstanceOf(ChangeStreamException.class).hasMessageContaining("view 'agg' was dropped");
            assertThat(((ChangeStreamException) onView.error.get()).kind()).isEqualTo(ChangeStreamException.Kind.DROPPED);
            assertThat(onTable.error.get()).as("the table's stream is untouched").isNull();

            // The table's stream keeps flowing, then ends when the table is dropped.
            long second = s.write("t", List.of(new long[] {2, 3}), List.of());
            await().atMost(Duration.ofSeconds(30)).until(() -> onTable.lastProgress() > second);
            s.controller.drop("big", dev.tandem.controller.CatalogEntry.View.class);
            s.controller.drop("t", dev.tandem.controller.CatalogEntry.Table.class);
            await().atMost(Duration.ofSeconds(30)).until(() -> onTable.error.get() != null);
            assertThat(onTable.error.get()).hasMessageContaining("table 't' was dropped");
            await().atMost(Duration.ofSeconds(30)).until(() -> s.controller.transientStreamCount() == 0 && s.streams.activeCount() == 0);
        }
    }

    @Test
    void refusalsLeaveNoDataflowBehind(@TempDir Path dir) {
        try (StreamStack s = new StreamStack(dir, false, new ChangeStreamLimits(100, 10, 100_000, 0))) {
            setUp(s);
            s.write("t", List.of(new long[] {1, 2}), List.of());
            // upsert needs a key, and a collection without an index has none
            ChangeStreamStart start = JsonRequests.startChangeStream(s.controller, "agg", null, null, null, null);
            assertThatThrownBy(() -> s.streams.subscribe(new ChangeStreamRequest(start, true, Envelope.UPSERT, "test")))
                    .isInstanceOf(ChangeStreamException.class).hasMessageContaining("envelope upsert needs a key");
            // watching keys needs an index
            assertThatThrownBy(() -> JsonRequests.startChangeStream(s.controller, "t", StreamStack.rows(List.of(new long[] {1})), null, null, null))
                    .hasMessageContaining("watching keys needs an index");
            // a change stream has no order
            Function<String, JsonNode> json = JSON::readTree;
            assertThatThrownBy(() -> JsonRequests.startChangeStream(s.controller, new ReadJson("t", null, null, null, null, json.apply("[{\"col\":0}]"),
                    null, null, null, null, null))).hasMessageContaining("has no order");
            await().atMost(Duration.ofSeconds(30)).until(() -> s.controller.transientStreamCount() == 0
                    && s.registry.current(start.indexId()).dropped());
        }
    }

    @Test
    void aQueryOfConstantsStreamsItsRowsThenProgressToTheEndOfTime(@TempDir Path dir) {
        try (StreamStack s = new StreamStack(dir, true, new ChangeStreamLimits(100, 10, 100_000, 0))) {
            Client c = new Client("constant", JsonRequests.startChangeStream(s.controller, new ReadJson(null,
                    JSON.readTree("{\"op\":\"constant\",\"rows\":[[1],[1],[2]],\"types\":[\"int64\"]}"), null, null, null, null, null,
                    null, null, null, null)), s.streams);
            await().atMost(Duration.ofSeconds(30)).until(() -> c.lastProgress() == Long.MAX_VALUE || c.error.get() != null);
            assertThat(c.error.get()).isNull();
            ChangeMessage.Updates snapshot = (ChangeMessage.Updates) c.received.get(0);
            Map<List<Long>, Long> rows = new HashMap<>();
            snapshot.changes().forEach(ch -> rows.merge(values(((ChangeMessage.Diff) ch).row()), ((ChangeMessage.Diff) ch).diff(), Long::sum));
            assertThat(rows).isEqualTo(Map.of(List.of(1L), 2L, List.of(2L), 1L));
            assertThat(c.received).filteredOn(m -> m instanceof ChangeMessage.Updates).hasSize(1);
            c.running.dispose();
            await().atMost(Duration.ofSeconds(30)).until(() -> s.controller.transientStreamCount() == 0 && s.streams.activeCount() == 0);
        }
    }
}
