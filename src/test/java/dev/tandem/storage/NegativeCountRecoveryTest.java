package dev.tandem.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import dev.tandem.TandemApplication;
import dev.tandem.row.Row;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import reactor.test.scheduler.VirtualTimeScheduler;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A log that already holds negative counts (issue 13, item 1: data written before deletes were checked)
 * does not break reads: the storage reports each such row, with its table, the row, its multiplicity
 * and the offset of the record that made it negative, in {@code tandem_storage_errors}, and brings it
 * back to zero with a durable compensating insert, so the table, an index over it and a count over it
 * answer as if the bad deletes had been refused, and a later start finds nothing left to repair. The damaged records are framed into the
 * log directly, bypassing the write path's check, as an older version of Tandem would have written them.
 */
class NegativeCountRecoveryTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @TempDir
    Path dir;

    @Test
    void negativeCountsInTheLogAreReportedAndSkippedByReads() throws Exception {
        String tableId;
        try (Server s = new Server(dir)) {
            ok(s.post("/v1/tables", "{\"name\":\"t\",\"columns\":[{\"name\":\"id\",\"type\":\"int64\",\"nullable\":false},"
                    + "{\"name\":\"name\",\"type\":\"string\"}]}"));
            ok(s.post("/v1/tables/t/rows", "{\"insert\":[[1,\"a\"],[2,\"b\"]]}"));
            assertThat(ok(s.get("/v1/introspection/tandem_storage_errors")).get("rows")).isEmpty();
            tableId = ok(s.get("/v1/tables/t")).get("id").asString();
        }
        // A delete of a row that was never there, and a second delete of a row that was there once.
        long[] offsets = appendUncheckedWrites(dir, tableId, List.of(
                List.of(new RowDiff(Row.of(100L, "nope"), -1)),
                List.of(new RowDiff(Row.of(2L, "b"), -1), new RowDiff(Row.of(2L, "b"), -1))));

        try (Server s = new Server(dir)) {
            JsonNode table = ok(s.post("/v1/peek", "{\"from\":\"t\",\"isolation\":\"strict\"}"));
            assertThat(table.get("rows").toString()).as("the table reads, without the rows of negative count").isEqualTo("[[1,\"a\"]]");
            assertThat(ok(s.post("/v1/sql", "{\"sql\":\"SELECT count(*) AS n FROM t\"}")).get("rows").toString())
                    .as("a count over the table reads too: the negative counts were brought to zero").isEqualTo("[[1]]");

            ok(s.post("/v1/indexes", "{\"name\":\"t_by_id\",\"on\":\"t\",\"key\":[\"id\"]}"));
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                    .until(() -> ok(s.get("/v1/indexes/t_by_id")).get("hydrated").asBoolean());
            assertThat(ok(s.post("/v1/peek", "{\"from\":\"t_by_id\",\"isolation\":\"strict\"}")).get("rows").toString())
                    .as("an index over the table reads too").isEqualTo("[[1,\"a\"]]");
            assertThat(ok(s.post("/v1/peek", "{\"from\":\"t_by_id\",\"key\":[[2],[100]],\"isolation\":\"strict\"}")).get("rows")).isEmpty();

            List<String> expected = List.of(
                    "[\"t\",\"[2, b]\",-1," + offsets[1] + "]",
                    "[\"t\",\"[100, nope]\",-1," + offsets[0] + "]");
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
                JsonNode rows = ok(s.post("/v1/introspection/tandem_storage_errors",
                        "{\"project\":[\"table\",\"row\",\"multiplicity\",\"log_offset\"],\"order_by\":[{\"col\":\"log_offset\",\"desc\":true}]}"))
                        .get("rows");
                List<String> seen = new ArrayList<>();
                rows.forEach(r -> seen.add(r.toString()));
                assertThat(seen).isEqualTo(expected);
            });
            JsonNode why = ok(s.get("/v1/introspection/tandem_storage_errors")).get("rows").get(0);
            assertThat(why.get(4).asString()).contains("negative multiplicity").contains("compensating insert");

            // The table still takes writes, checked against the counts it holds: row 2 is at zero, so an insert counts once.
            ok(s.post("/v1/tables/t/rows", "{\"insert\":[[2,\"b\"],[3,\"c\"]]}"));
            assertThat(ok(s.post("/v1/peek", "{\"from\":\"t\",\"isolation\":\"strict\"}")).get("rows").toString())
                    .isEqualTo("[[1,\"a\"],[2,\"b\"],[3,\"c\"]]");
        }
        try (Server s = new Server(dir)) {
            assertThat(ok(s.post("/v1/peek", "{\"from\":\"t\",\"isolation\":\"strict\"}")).get("rows").toString())
                    .as("the compensation was durable").isEqualTo("[[1,\"a\"],[2,\"b\"],[3,\"c\"]]");
            assertThat(ok(s.get("/v1/introspection/tandem_storage_errors")).get("rows")).as("nothing left to repair").isEmpty();
        }
    }

    @Test
    void theStorageRepairsNegativeCountsAtRecoveryDurably() throws Exception {
        StorageOptions options = StorageOptions.defaults(VirtualTimeScheduler.create()).withClock(() -> 10_000);
        try (TableStorage storage = TableStorages.durable(dir, options)) {
            storage.createTable("u1", StorageTesting.KV);
            storage.write("u1", List.of(new RowDiff(StorageTesting.kv(1, "a"), 1), new RowDiff(StorageTesting.kv(2, "b"), 1)))
                    .block(Duration.ofSeconds(10));
            assertThat(storage.errors()).isEmpty();
        }
        long[] offsets = appendUncheckedWrites(dir, "u1", List.of(
                List.of(new RowDiff(StorageTesting.kv(2, "b"), -3)),
                List.of(new RowDiff(StorageTesting.kv(7, null), -1), new RowDiff(StorageTesting.kv(1, "a"), 1))));
        try (TableStorage storage = TableStorages.durable(dir, options)) {
            assertThat(storage.errors()).extracting(StorageError::table, StorageError::row, StorageError::multiplicity, StorageError::logOffset)
                    .containsExactly(tuple("u1", "[2, b]", -2L, offsets[0]), tuple("u1", "[7, null]", -1L, offsets[1]));
            assertThat(storage.errors()).allSatisfy(e -> assertThat(e.error()).startsWith(LogTableStorage.REPAIRED));
            long now = storage.lastWriteTime();
            assertThat(StorageTesting.accumulate(StorageTesting.read(storage, "u1", now, now), now))
                    .as("both rows at zero, row 1 twice").isEqualTo(Map.of(StorageTesting.kv(1, "a"), 2L));
            storage.compact();
        }
        // The compensations are in the log (and its compacted image): nothing is negative any more.
        try (TableStorage storage = TableStorages.durable(dir, options)) {
            assertThat(storage.errors()).isEmpty();
            long now = storage.lastWriteTime();
            assertThat(StorageTesting.accumulate(StorageTesting.read(storage, "u1", now, now), now))
                    .isEqualTo(Map.of(StorageTesting.kv(1, "a"), 2L));
        }
    }

    /** Frames one write per entry to table {@code table} (its storage id) onto the end of the log in {@code dir}, unchecked; returns each record's offset. */
    private static long[] appendUncheckedWrites(Path dir, String table, List<List<RowDiff>> writes) throws Exception {
        long[] offsets = new long[writes.size()];
        try (FileJournal journal = FileJournal.open(dir, true)) {
            long[] last = {-1};
            journal.recover(record -> {
                if (record instanceof LogRecord.Write w) {
                    last[0] = Math.max(last[0], w.time());
                }
            });
            for (int i = 0; i < writes.size(); i++) {
                offsets[i] = journal.size();
                LogCodec.FrameBuffer frames = new LogCodec.FrameBuffer();
                frames.frame(new LogRecord.Write(table, last[0] + 1 + i, writes.get(i)));
                journal.appendAndSync(frames.array(), frames.length());
            }
        }
        return offsets;
    }

    private static JsonNode ok(HttpResponse<String> r) {
        assertThat(r.statusCode()).as(r.body()).isBetween(200, 299);
        return JSON.readTree(r.body());
    }

    /** The server in this JVM on {@code dir}, on a free loopback port. */
    private static final class Server implements AutoCloseable {
        private final ConfigurableApplicationContext context;
        private final int port;

        Server(Path dir) {
            context = new SpringApplicationBuilder(TandemApplication.class).properties(Map.of(
                    "server.port", 0, "server.address", "127.0.0.1", "tandem.pgwire.port", 0,
                    "tandem.storage.data-dir", dir.toString(), "tandem.storage.fsync", false,
                    "tandem.compute.maintenance-workers", 1, "tandem.compute.interactive-workers", 1)).run();
            port = Integer.parseInt(context.getEnvironment().getProperty("local.server.port"));
        }

        HttpResponse<String> get(String path) throws Exception {
            return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(20)).build(),
                    HttpResponse.BodyHandlers.ofString());
        }

        HttpResponse<String> post(String path, String json) throws Exception {
            return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(20))
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)).build(),
                    HttpResponse.BodyHandlers.ofString());
        }

        @Override
        public void close() {
            context.close();
        }
    }
}
