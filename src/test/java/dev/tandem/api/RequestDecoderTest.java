package dev.tandem.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tandem.controller.Controller;
import dev.tandem.controller.ControllerException;
import dev.tandem.controller.ControllerSettings;
import dev.tandem.controller.ReadRequest;
import dev.tandem.expr.Expr;
import dev.tandem.multiplex.Multiplexer;
import dev.tandem.plan.Plan;
import dev.tandem.protocol.Finishing;
import dev.tandem.row.Column;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.runtime.RuntimeObserver;
import dev.tandem.sharing.ArrangementSharingRegistry;
import dev.tandem.storage.RowDiff;
import dev.tandem.storage.StorageOptions;
import dev.tandem.storage.TableStorage;
import dev.tandem.storage.TableStorages;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.ThrowingSupplier;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The decoder alone against a small catalog (a table with an index on its first column, a view without
 * one): what each JSON part becomes, and the precise refusal of each kind of bad part.
 */
class RequestDecoderTest {

    static final JsonMapper JSON = JsonMapper.builder().build();
    static Scheduler timer;
    static TableStorage storage;
    static Multiplexer mux;
    static Controller controller;
    static RequestDecoder decoder;

    @BeforeAll
    static void catalog() {
        timer = Schedulers.newParallel("decoder-test-timer", 1);
        storage = TableStorages.inMemory(StorageOptions.defaults(timer));
        ArrangementSharingRegistry registry = new ArrangementSharingRegistry();
        mux = Multiplexer.start(false, 1, 1, storage, registry, (w, e) -> { }, System::currentTimeMillis, RuntimeObserver.NONE);
        controller = new Controller(storage, mux, registry, ControllerSettings.DEFAULTS, System::currentTimeMillis, timer);
        controller.createTable("t", List.of(new Column("id", DatumType.INT64, false), new Column("name", DatumType.STRING, true),
                new Column("score", DatumType.FLOAT64, true)));
        controller.createIndex("t_by_id", "t", List.of("id"), null);
        controller.createView("v", Plan.getByName("t"), List.of("a", "b", "c"));
        decoder = new RequestDecoder(controller);
    }

    @AfterAll
    static void close() {
        controller.close();
        mux.close();
        storage.close();
        timer.dispose();
    }

    static JsonNode json(String s) {
        return JSON.readTree(s);
    }

    static ReadJson from(String from, String key, String filter, String project, String orderBy) {
        return new ReadJson(from, null, key == null ? null : json(key), filter == null ? null : json(filter),
                project == null ? null : json(project), orderBy == null ? null : json(orderBy), null, null, null, null, null);
    }

    static void invalid(ThrowingSupplier<?> decode, String message) {
        assertThatThrownBy(decode::get).isInstanceOf(ControllerException.class).hasMessage(message)
                .satisfies(e -> assertThat(((ControllerException) e).kind()).isEqualTo(ControllerException.Kind.INVALID));
    }

    @Test
    void aLookupBecomesTypedKeysAProjectionByNameAndAnOrderOverTheOutput() {
        ReadJson body = new ReadJson("t", null, json("[[2],[1],[2]]"), json("[{\"call\":\"gt\",\"args\":[{\"col\":0},{\"lit\":0}]}]"),
                json("[\"name\", 0]"), json("[{\"col\":\"id\",\"desc\":true}]"), 5L, 1L, "strict", 7L, 900L);
        ReadRequest r = decoder.read(body);
        assertThat(r.from()).isEqualTo("t");
        assertThat(r.plan()).isNull();
        assertThat(r.keys()).containsExactly(Row.of(2L), Row.of(1L));
        assertThat(r.mfp().project()).containsExactly(1, 0);
        assertThat(r.mfp().filter()).hasSize(1).first().isInstanceOf(Expr.Call.class);
        assertThat(r.finishing()).isEqualTo(new Finishing(List.of(new Plan.Ordering(1, true, false)), 5L, 1));
        assertThat(r.isolation()).isEqualTo(ReadRequest.Isolation.STRICT);
        assertThat(r.asOf()).isEqualTo(7L);
        assertThat(r.timeoutMs()).isEqualTo(900L);
    }

    @Test
    void aPlanIsReadAgainstItsResultColumns() {
        ReadJson body = new ReadJson(null, json("{\"op\":\"get\",\"name\":\"v\"}"), null, null, json("[\"c\"]"), json("[{\"col\":\"c\"}]"),
                null, null, null, null, null);
        ReadRequest r = decoder.read(body);
        assertThat(r.plan()).isEqualTo(Plan.getByName("v"));
        assertThat(r.mfp().project()).containsExactly(2);
        assertThat(r.finishing().orderBy()).containsExactly(new Plan.Ordering(0, false, true));
        assertThat(r.isolation()).isEqualTo(ReadRequest.Isolation.SERIALIZABLE);
    }

    @Test
    void badReadPartsAreRefusedWithWhereTheyAre() {
        invalid(() -> decoder.read(from(null, null, null, null, null)), "give exactly one of 'from' and 'plan'");
        invalid(() -> decoder.read(new ReadJson("t", null, null, null, null, null, null, null, "eventual", null, null)),
                "isolation: expected 'serializable' or 'strict', got 'eventual'");
        invalid(() -> decoder.read(from("v", "[[1]]", null, null, null)), "key: a key lookup needs an index; 'v' has none");
        invalid(() -> decoder.read(from("t", "[[\"x\"]]", null, null, null)),
                "key[0]: column 'id': expected int64, got string 'x' (index 't_by_id' is keyed by [id])");
        invalid(() -> decoder.read(from("t", "{}", null, null, null)), "key: expected an array of key rows, e.g. [[1]]");
        invalid(() -> decoder.read(from("t", null, null, "[\"nope\"]", null)), "project[0]: no column 'nope'; columns are [id, name, score]");
        invalid(() -> decoder.read(from("t", null, null, "[3]", null)), "project[0]: column 3 does not exist; there are 3");
        invalid(() -> decoder.read(from("t", null, null, "[\"id\"]", "[{\"col\":\"name\"}]")), "order_by[0].col: no column 'name'; columns are [id]");
        invalid(() -> decoder.read(from("t", null, null, null, "[{\"col\":0,\"desc\":1}]")), "order_by[0].desc: expected true or false");
        invalid(() -> decoder.read(from("t", null, null, null, "{}")), "order_by: expected an array of {\"col\", \"desc\", \"nulls_last\"}");
        invalid(() -> decoder.read(new ReadJson(null, json("{\"op\":\"get\",\"name\":\"t\"}"), json("[[1]]"), null, null, null, null, null,
                null, null, null)), "key: a key lookup needs 'from' naming an indexed collection");
        assertThatThrownBy(() -> decoder.read(from("nope", null, null, null, null))).isInstanceOf(ControllerException.class)
                .satisfies(e -> assertThat(((ControllerException) e).kind()).isEqualTo(ControllerException.Kind.NOT_FOUND));
        assertThatThrownBy(() -> decoder.readIntrospection("t", ReadJson.of(null))).isInstanceOf(ControllerException.class)
                .hasMessageStartingWith("no introspection collection named 't'");
    }

    @Test
    void aChangeStreamHasNoOrderAndWatchesKeysOnlyThroughAnIndex() {
        invalid(() -> decoder.changeStream(from("t", null, null, null, "[{\"col\":0}]")),
                "a change stream has no order: order_by, limit and offset do not apply (a top-k inside the query does)");
        invalid(() -> decoder.changeStream(from("t", "[[1, 2]]", null, null, null)),
                "key: watching keys needs an index, and 't' has none with a key of that arity; create one on it first, or watch it whole");
        invalid(() -> decoder.changeStream(from("v", "[[1]]", null, null, null)),
                "key: watching keys needs an index, and 'v' has none; create one on it first, or watch it whole");
        ReadRequest r = decoder.changeStream(from("t", "[[3]]", null, "[\"score\"]", null));
        assertThat(r.keys()).containsExactly(Row.of(3L));
        assertThat(r.mfp().project()).containsExactly(2);
        assertThat(r.finishing().isTrivial()).isTrue();
    }

    @Test
    void writeRowsAreCheckedAgainstTheTableAndABadOneWritesNothing() {
        List<RowDiff> diffs = decoder.writeRows("t", json("[[1,\"a\",0.5]]"), json("[[2,null,null]]"));
        assertThat(diffs).containsExactly(new RowDiff(Row.of(1L, "a", 0.5), 1), new RowDiff(Row.pack(List.of(DatumType.INT64, DatumType.STRING, DatumType.FLOAT64), Arrays.asList(2L, null, null)), -1));
        invalid(() -> decoder.writeRows("t", json("[[1,\"a\",0.5],[null,\"b\",1.0]]"), null), "insert[1]: column 'id' is not nullable");
        invalid(() -> decoder.writeRows("t", null, json("{}")), "delete: expected an array of rows");
        invalid(() -> decoder.writeRows("v", json("[[1,\"a\",0.5]]"), null), "'v' is a view; only tables accept writes");
        invalid(() -> RequestDecoder.plan(json("null"), "plan"), "plan: a plan is required");
        assertThat(JsonRequests.read(controller, ReadJson.of("t")).block().rows()).isEmpty();
    }
}
