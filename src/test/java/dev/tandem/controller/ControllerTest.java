package dev.tandem.controller;

import dev.tandem.api.JsonRequests;
import dev.tandem.api.ReadJson;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tandem.row.Column;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.runtime.ReadPath;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The controller over a real replica and durable storage: catalog, writes, fast and slow reads, restart. */
class ControllerTest {

    static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    Path dir;

    static JsonNode json(String s) {
        return JSON.readTree(s);
    }

    @ParameterizedTest(name = "two runtimes: {0}")
    @ValueSource(booleans = {false, true})
    void journeyFromTablesToFastAndSlowReadsAndRestart(boolean twoRuntimes) {
        long written;
        try (ControllerStack s = new ControllerStack(dir, twoRuntimes, 2, ControllerSettings.DEFAULTS)) {
            Controller c = s.controller;
            c.createTable("orders", List.of(new Column("id", DatumType.INT64, false), new Column("customer", DatumType.INT64, true),
                    new Column("amount", DatumType.INT64, true)));
            c.createTable("customers", List.of(new Column("id", DatumType.INT64, false), new Column("name", DatumType.STRING, true)));
            JsonRequests.write(c, "orders", json("[[1,10,100],[2,10,250],[3,20,75]]"), null).block();
            written = JsonRequests.write(c, "customers", json("[[10,\"ada\"],[20,\"bob\"]]"), null).block();
            c.createIndex("orders_by_id", "orders", List.of("id"), null);
            c.createIndex("customers_by_id", "customers", List.of("id"), null);
            await().atMost(Duration.ofSeconds(20)).until(() -> c.indexStatus("orders_by_id").hydrated() && c.indexStatus("customers_by_id").hydrated());

            ReadResult point = JsonRequests.read(c, new ReadJson("orders_by_id", null, json("[[2]]"), null, null, null, null, null, null, null, null)).block();
            assertThat(point.readPath()).isEqualTo(ReadPath.FAST);
            assertThat(point.rows()).containsExactly(Row.of(2L, 10L, 250L));
            assertThat(point.columns()).containsExactly("id", "customer", "amount");

            // A strict read after a write sees it.
            long ts = JsonRequests.write(c, "orders", json("[[4,20,5]]"), null).block();
            ReadResult strict = JsonRequests.read(c, new ReadJson("orders", null, json("[[4]]"), null, null, null, null, null, "strict", null, null)).block();
            assertThat(strict.asOf()).isGreaterThanOrEqualTo(ts);
            assertThat(strict.rows()).containsExactly(Row.of(4L, 20L, 5L));

            // Slow path: a join of the two indexed collections, reading the shared arrangements.
            JsonNode join = json("{\"op\":\"mfp\",\"input\":{\"op\":\"join\",\"inputs\":[{\"op\":\"get\",\"name\":\"orders\"},{\"op\":\"get\",\"name\":\"customers\"}],"
                    + "\"on\":[[[0,1],[1,0]]]},\"project\":[0,4,2]}");
            ReadResult joined = JsonRequests.read(c, new ReadJson(null, join, null, null, null, json("[{\"col\":0}]"), null, null, "strict", null, null)).block();
            assertThat(joined.readPath()).isEqualTo(ReadPath.SLOW);
            assertThat(joined.rows()).containsExactly(Row.of(1L, "ada", 100L), Row.of(2L, "ada", 250L), Row.of(3L, "bob", 75L),
                    Row.of(4L, "bob", 5L));

            assertThatThrownBy(() -> c.drop("orders", CatalogEntry.Table.class)).isInstanceOf(ControllerException.class)
                    .hasMessageContaining("used by orders_by_id");
            assertThatThrownBy(() -> c.read(ReadRequest.of("nope")).block()).isInstanceOf(ControllerException.class)
                    .hasMessageContaining("no table, view or index named 'nope'");
            written = ts;
        }
        try (ControllerStack s = new ControllerStack(dir, twoRuntimes, 2, ControllerSettings.DEFAULTS)) {
            Controller c = s.controller;
            await().atMost(Duration.ofSeconds(20)).until(c::ready);
            ReadResult after = JsonRequests.read(c, new ReadJson("orders_by_id", null, null, null, json("[\"id\"]"), json("[{\"col\":\"id\"}]"),
                    null, null, "strict", null, null)).block();
            assertThat(after.rows()).containsExactly(Row.of(1L), Row.of(2L), Row.of(3L), Row.of(4L));
            assertThat(after.asOf()).isGreaterThanOrEqualTo(written);
        }
    }

    /** The status of a table dropped since its entry was read is "not found", as it would be a moment later. */
    @org.junit.jupiter.api.Test
    void theStatusOfATableDroppedSinceItWasReadIsNotFound() {
        try (ControllerStack s = new ControllerStack(dir, false, 1, ControllerSettings.DEFAULTS)) {
            Controller c = s.controller;
            CatalogEntry.Table t = c.createTable("gone", List.of(new Column("id", DatumType.INT64, false)));
            assertThat(c.tableStatus(t).records()).isZero();
            c.drop("gone", CatalogEntry.Table.class);
            assertThatThrownBy(() -> c.tableStatus(t)).isInstanceOfSatisfying(ControllerException.class,
                    e -> assertThat(e.reason()).isEqualTo(ControllerException.Reason.UNKNOWN_OBJECT)).hasMessageContaining("was dropped");
        }
    }
}
