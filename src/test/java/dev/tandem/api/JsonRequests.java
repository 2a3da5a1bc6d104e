package dev.tandem.api;

import dev.tandem.controller.ChangeStreamStart;
import dev.tandem.controller.Controller;
import dev.tandem.controller.ReadRequest;
import dev.tandem.controller.ReadResult;
import dev.tandem.plan.Plan;
import reactor.core.publisher.Mono;
import tools.jackson.databind.JsonNode;

/**
 * Requests to a controller stated as JSON, as the API states them, decoded by {@link RequestDecoder}
 * first: for tests that drive the controller with the same bodies users send.
 */
public final class JsonRequests {

    private JsonRequests() {
    }

    /** A write of JSON rows; a decoding error fails the returned Mono, as a refused write does. */
    public static Mono<Long> write(Controller c, String table, JsonNode insert, JsonNode delete) {
        return Mono.defer(() -> c.write(table, new RequestDecoder(c).writeRows(table, insert, delete)));
    }

    /** A peek; a decoding error fails the returned Mono, as a refused read does. */
    public static Mono<ReadResult> read(Controller c, ReadJson read) {
        return Mono.defer(() -> c.read(new RequestDecoder(c).read(read)));
    }

    public static Mono<ReadResult> readIntrospection(Controller c, String name, ReadJson read) {
        return Mono.defer(() -> c.readIntrospection(name, new RequestDecoder(c).readIntrospection(name, read)));
    }

    /** A change stream of {@code name}, as the WebSocket's subscribe_rows asks for it. */
    public static ChangeStreamStart startChangeStream(Controller c, String name, JsonNode key, JsonNode filter, JsonNode project, Long asOf) {
        ReadRequest r = new RequestDecoder(c).changeStream(new ReadJson(name, null, key, filter, project, null, null, null, null, asOf, null));
        return c.startChangeStream(name, r.keys(), r.mfp(), r.asOf());
    }

    /** A change stream of a collection or a query. */
    public static ChangeStreamStart startChangeStream(Controller c, ReadJson read) {
        return c.startChangeStream(new RequestDecoder(c).changeStream(read));
    }

    public static Plan plan(JsonNode json) {
        return RequestDecoder.plan(json, "plan");
    }
}
