package dev.tandem.metrics;

import dev.tandem.api.JsonRequests;
import dev.tandem.api.ReadJson;
import static org.awaitility.Awaitility.await;

import dev.tandem.controller.Controller;
import dev.tandem.controller.ReadResult;
import dev.tandem.row.Column;
import dev.tandem.row.DatumType;
import java.time.Duration;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** A small workload through the controller: two indexed tables, writes, fast-path lookups and slow-path joins. */
public final class Workload {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final JsonNode JOIN = json("{\"op\":\"mfp\",\"input\":{\"op\":\"join\",\"inputs\":[{\"op\":\"get\",\"name\":\"orders\"},"
            + "{\"op\":\"get\",\"name\":\"customers\"}],\"on\":[[[0,1],[1,0]]]},\"project\":[0,4,2]}");

    private final Controller controller;
    private long next = 100;

    public Workload(Controller controller) {
        this.controller = controller;
    }

    static JsonNode json(String s) {
        return JSON.readTree(s);
    }

    /** Creates and fills the tables, indexes them and waits until both indexes have hydrated. */
    public Workload setUp() {
        Controller c = controller;
        c.createTable("orders", List.of(new Column("id", DatumType.INT64, false), new Column("customer", DatumType.INT64, true),
                new Column("amount", DatumType.INT64, true)));
        c.createTable("customers", List.of(new Column("id", DatumType.INT64, false), new Column("name", DatumType.STRING, true)));
        JsonRequests.write(c, "orders", json("[[1,10,100],[2,10,250],[3,20,75]]"), null).block();
        JsonRequests.write(c, "customers", json("[[10,\"ada\"],[20,\"bob\"]]"), null).block();
        c.createIndex("orders_by_id", "orders", List.of("id"), null);
        c.createIndex("customers_by_id", "customers", List.of("id"), null);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> c.indexStatus("orders_by_id").hydrated() && c.indexStatus("customers_by_id").hydrated());
        return this;
    }

    /** One round: a write, a fast-path lookup and a slow-path join; returns the two reads. */
    public List<ReadResult> round() {
        long id = next++;
        long ts = JsonRequests.write(controller, "orders", json("[[" + id + ",10," + id + "]]"), null).block();
        ReadResult fast = JsonRequests.read(controller, new ReadJson("orders_by_id", null, json("[[1]]"), null, null, null, null, null, null, ts, null)).block();
        ReadResult slow = JsonRequests.read(controller, new ReadJson(null, JOIN, null, null, null, null, null, null, null, ts, null)).block();
        return List.of(fast, slow);
    }
}
