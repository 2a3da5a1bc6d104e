package dev.tandem.api;

import dev.tandem.controller.CatalogEntry;
import dev.tandem.controller.Controller;
import dev.tandem.controller.ControllerEvent;
import dev.tandem.controller.IndexStatus;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.http.HttpStatus;
import org.springframework.web.reactive.socket.WebSocketHandler;
import org.springframework.web.reactive.socket.WebSocketSession;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code /v1/ws}: peeks correlated by a client-chosen id, and subscriptions to the frontier and
 * hydration events of named indexes. Every message is a JSON object with an {@code op}:
 *
 * <ul>
 *   <li>{@code {"op":"peek","id":...,"request":{...as POST /v1/peek...}}} → {@code {"op":"peek_result","id":...,"result":{...}}}</li>
 *   <li>{@code {"op":"subscribe","index":"name"}} → {@code {"op":"subscribed",...}}, then {@code {"op":"event","kind":"frontier|hydrated",...}}</li>
 *   <li>{@code {"op":"unsubscribe","index":"name"}} → {@code {"op":"unsubscribed","index":...}}</li>
 *   <li>{@code {"op":"sql","id":...,"sql":"...","params":[...]}} → {@code {"op":"sql_result","id":...,"result":{...as POST /v1/sql...}}};
 *       a refused statement's error carries its {@code sqlstate} (and {@code position})</li>
 * </ul>
 *
 * A message that cannot be served gets {@code {"op":"error","id":...,"status":...,"title":...,"detail":...}};
 * the connection stays open. That includes a message over the body limit (413), and a peek beyond
 * {@value #MAX_PENDING_PEEKS} in flight on the connection (429). When the connection closes, its peeks
 * in flight are cancelled.
 */
final class SessionSocketHandler implements WebSocketHandler {

    /** Subscriptions one connection may hold at once. */
    static final int MAX_SUBSCRIPTIONS = 256;
    /** Peeks one connection may have in flight at once; more are refused (429) until some finish. */
    static final int MAX_PENDING_PEEKS = 128;

    private static final Set<String> PEEK = Set.of("op", "id", "request");
    private static final Set<String> SUBSCRIBE = Set.of("op", "id", "index");
    private static final Set<String> SQL = Set.of("op", "id", "sql", "params", "isolation");
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private final Controller controller;
    private final long maxMessageBytes;
    private final SqlHandler sql;

    SessionSocketHandler(Controller controller, long maxMessageBytes, SqlHandler sql) {
        this.controller = controller;
        this.maxMessageBytes = maxMessageBytes;
        this.sql = sql;
    }

    @Override
    public Mono<Void> handle(WebSocketSession session) {
        Map<String, Sinks.Empty<Void>> subscriptions = new ConcurrentHashMap<>();
        AtomicInteger peeks = new AtomicInteger();
        // When the socket closes, everything in flight is cancelled: its peeks stop and free their slots.
        Flux<String> out = session.receive()
                .flatMap(message -> {
                    int size = message.getPayload().readableByteCount();
                    if (size > maxMessageBytes) {
                        return Flux.just(error(null, Problem.of(new ApiException(HttpStatus.CONTENT_TOO_LARGE, "the message of " + size
                                + " bytes exceeds the limit of " + maxMessageBytes + " bytes (tandem.api.max-body-bytes)"))));
                    }
                    return serve(message.getPayloadAsText(), subscriptions, peeks);
                }, MAX_SUBSCRIPTIONS + MAX_PENDING_PEEKS + 64)
                .map(JsonNode::toString)
                .takeUntilOther(session.closeStatus());
        return session.send(out.map(session::textMessage))
                .doFinally(s -> subscriptions.values().forEach(Sinks.Empty::tryEmitEmpty));
    }

    private Flux<ObjectNode> serve(String text, Map<String, Sinks.Empty<Void>> subscriptions, AtomicInteger peeks) {
        JsonNode id = null;
        try {
            JsonNode message = JsonBody.MAPPER.readTree(text);
            if (message == null || !message.isObject()) {
                throw ApiException.badRequest("message: expected a JSON object with an 'op', got " + JsonBody.kind(message));
            }
            id = message.get("id");
            JsonNode op = message.get("op");
            if (op == null || !op.isString()) {
                throw ApiException.badRequest("message: 'op' is required: one of peek, sql, subscribe, unsubscribe");
            }
            JsonNode correlation = id;
            return switch (op.stringValue()) {
                case "peek" -> {
                    JsonBody m = JsonBody.of(message, "message", PEEK);
                    JsonNode request = m.raw("request");
                    if (request == null) {
                        throw ApiException.badRequest("message: 'request' is required for op peek");
                    }
                    JsonBody body = JsonBody.of(request, "request", ApiJson.PEEK_FIELDS);
                    var read = ApiJson.readRequest(body);
                    if (peeks.incrementAndGet() > MAX_PENDING_PEEKS) {
                        peeks.decrementAndGet();
                        throw new ApiException(HttpStatus.TOO_MANY_REQUESTS, "at most " + MAX_PENDING_PEEKS
                                + " peeks may be in flight on one connection; wait for some to finish");
                    }
                    yield controller.read(read)
                            .doFinally(sig -> peeks.decrementAndGet())
                            .map(r -> {
                                ObjectNode n = reply("peek_result", correlation);
                                n.set("result", ApiJson.result(r));
                                return n;
                            })
                            .onErrorResume(e -> Mono.just(error(correlation, Problem.of(e))))
                            .flux();
                }
                case "sql" -> {
                    JsonBody m = JsonBody.of(message, "message", SQL);
                    if (peeks.incrementAndGet() > MAX_PENDING_PEEKS) {
                        peeks.decrementAndGet();
                        throw new ApiException(HttpStatus.TOO_MANY_REQUESTS, "at most " + MAX_PENDING_PEEKS
                                + " peeks and SQL statements may be in flight on one connection; wait for some to finish");
                    }
                    yield Mono.defer(() -> sql.run(m))
                            .doFinally(sig -> peeks.decrementAndGet())
                            .map(r -> {
                                ObjectNode n = reply("sql_result", correlation);
                                n.set("result", r);
                                return n;
                            })
                            .onErrorResume(e -> Mono.just(e instanceof dev.tandem.sql.SqlException x
                                    ? sqlError(correlation, x) : error(correlation, Problem.of(e))))
                            .flux();
                }
                case "subscribe" -> subscribe(JsonBody.of(message, "message", SUBSCRIBE).requiredString("index"), correlation, subscriptions);
                case "unsubscribe" -> {
                    String index = JsonBody.of(message, "message", SUBSCRIBE).requiredString("index");
                    Sinks.Empty<Void> s = subscriptions.remove(index);
                    if (s == null) {
                        throw ApiException.badRequest("not subscribed to '" + JsonBody.abbreviate(index) + "'");
                    }
                    s.tryEmitEmpty();
                    ObjectNode n = reply("unsubscribed", correlation);
                    n.put("index", index);
                    yield Flux.just(n);
                }
                default -> throw ApiException.badRequest("message: unknown op '" + JsonBody.abbreviate(op.stringValue())
                        + "'; expected peek, sql, subscribe or unsubscribe");
            };
        } catch (RuntimeException e) {
            return Flux.just(error(id, Problem.of(e)));
        }
    }

    /**
     * Streams the events of the index named {@code index}. The index need not exist yet (a client may
     * subscribe before creating it); the acknowledgement says whether it does, with its current state.
     */
    private Flux<ObjectNode> subscribe(String index, JsonNode id, Map<String, Sinks.Empty<Void>> subscriptions) {
        if (subscriptions.size() >= MAX_SUBSCRIPTIONS) {
            throw ApiException.badRequest("at most " + MAX_SUBSCRIPTIONS + " subscriptions per connection");
        }
        Sinks.Empty<Void> stop = Sinks.empty();
        if (subscriptions.putIfAbsent(index, stop) != null) {
            throw ApiException.badRequest("already subscribed to '" + JsonBody.abbreviate(index) + "'");
        }
        ObjectNode ack = reply("subscribed", id);
        ack.put("index", index);
        boolean exists = controller.catalog().stream().anyMatch(e -> e instanceof CatalogEntry.Index i && i.name().equals(index));
        ack.put("exists", exists);
        if (exists) {
            IndexStatus s = controller.indexStatus(index);
            ack.put("hydrated", s.hydrated());
            ApiJson.frontier(ack, "write_frontier", s.writeFrontier());
        }
        Flux<ObjectNode> events = controller.events()
                .filter((ControllerEvent e) -> index.equals(e.index()))
                .map(ApiJson::event)
                .onBackpressureLatest()
                .takeUntilOther(stop.asMono());
        return Flux.concat(Mono.just(ack), events);
    }

    private static ObjectNode reply(String op, JsonNode id) {
        ObjectNode n = NODES.objectNode();
        n.put("op", op);
        if (id != null) {
            n.set("id", id);
        }
        return n;
    }

    private static ObjectNode sqlError(JsonNode id, dev.tandem.sql.SqlException e) {
        ObjectNode n = reply("error", id);
        n.setAll(SqlHandler.problem(e, null));
        n.put("op", "error");
        return n;
    }

    static ObjectNode error(JsonNode id, Problem p) {
        ObjectNode n = reply("error", id);
        n.put("status", p.status());
        n.put("type", p.type());
        n.put("title", p.title());
        n.put("detail", p.detail());
        return n;
    }
}
