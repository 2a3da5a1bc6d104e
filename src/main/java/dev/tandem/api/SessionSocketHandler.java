package dev.tandem.api;

import dev.tandem.controller.CatalogEntry;
import dev.tandem.controller.ChangeStreamStart;
import dev.tandem.controller.Controller;
import dev.tandem.controller.ReadRequest;
import dev.tandem.controller.ControllerEvent;
import dev.tandem.controller.IndexStatus;
import dev.tandem.controller.ReadAdmission;
import dev.tandem.net.WritableGate;
import dev.tandem.json.StrictJson;
import dev.tandem.security.AccessPrincipal;
import dev.tandem.security.PrincipalLimits;
import dev.tandem.security.Role;
import dev.tandem.stream.ChangeStreamRequest;
import dev.tandem.stream.ChangeStreams;
import dev.tandem.stream.ChangeSubscription;
import dev.tandem.stream.Envelope;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.web.reactive.socket.WebSocketHandler;
import org.springframework.web.reactive.socket.WebSocketMessage;
import org.springframework.web.reactive.socket.WebSocketSession;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.util.context.Context;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
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
 *   <li>{@code {"op":"subscribe_rows","id":...,"from":"index, table or view",...}} → {@code {"op":"rows_subscribed",...}}, then
 *       {@code {"op":"changes","id":...,"timestamp":t,"updates":[...]}} and {@code {"op":"progress","id":...,"progress":t}},
 *       until {@code {"op":"subscription_ended","id":...,"error":...}} (a change stream, {@link ChangeStreams})</li>
 *   <li>{@code {"op":"cancel_rows","id":...}} → {@code {"op":"rows_canceled","id":...}}</li>
 *   <li>{@code {"op":"sql","id":...,"sql":"...","params":[...]}} → {@code {"op":"sql_result","id":...,"result":{...as POST /v1/sql...}}};
 *       a refused statement's error carries its {@code sqlstate} (and {@code position})</li>
 * </ul>
 *
 * A message that cannot be served gets {@code {"op":"error","id":...,"status":...,"title":...,"detail":...}};
 * the connection stays open. That includes a message over the body limit (413), and a peek beyond
 * {@value #MAX_PENDING_PEEKS} in flight on the connection (429). When the connection closes, its peeks
 * in flight are cancelled. When credentials are in use, each op needs the role {@link ApiAccess} declares
 * for it (an undeclared op is refused, 403) and counts against the caller's per-principal limits (429).
 */
final class SessionSocketHandler implements WebSocketHandler {

    /** Subscriptions one connection may hold at once. */
    static final int MAX_SUBSCRIPTIONS = 256;
    /** Peeks one connection may have in flight at once; more are refused (429) until some finish. */
    static final int MAX_PENDING_PEEKS = 128;

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private final Controller controller;
    private final RequestDecoder decoder;
    private final long maxMessageBytes;
    private final boolean enforced;
    private final PrincipalLimits limits;
    private final ChangeStreams streams;
    private final SqlHandler sql;

    /** {@code enforced}: credentials are in use, so every op is checked against {@link ApiAccess}. */
    SessionSocketHandler(Controller controller, long maxMessageBytes, boolean enforced, PrincipalLimits limits, ChangeStreams streams,
            SqlHandler sql) {
        this.controller = controller;
        this.decoder = new RequestDecoder(controller);
        this.maxMessageBytes = maxMessageBytes;
        this.enforced = enforced;
        this.limits = limits;
        this.streams = streams;
        this.sql = sql;
    }

    @Override
    public Mono<Void> handle(WebSocketSession session) {
        return session.getHandshakeInfo().getPrincipal().map(TandemAuthentication::of)
                .map(java.util.Optional::of).defaultIfEmpty(java.util.Optional.empty())
                .flatMap(caller -> handle(session, caller.orElse(null)));
    }

    private Mono<Void> handle(WebSocketSession session, AccessPrincipal caller) {
        java.net.InetSocketAddress remote = session.getHandshakeInfo().getRemoteAddress();
        String address = remote == null ? "unknown" : remote.getAddress() == null ? remote.getHostString() : remote.getAddress().getHostAddress();
        WsConnection conn = new WsConnection(caller, caller == null ? ApiSecurity.anonymousAt(address) : caller.name(), address);
        // When the socket closes, everything in flight is cancelled: its peeks stop and free their slots.
        Flux<byte[]> out = session.receive()
                .flatMap(message -> {
                    int size = message.getPayload().readableByteCount();
                    if (size > maxMessageBytes) {
                        return Flux.just(bytes(error(null, Problem.of(new ApiException(HttpStatus.CONTENT_TOO_LARGE, "the message of " + size
                                + " bytes exceeds the limit of " + maxMessageBytes + " bytes (tandem.api.max-body-bytes)")))));
                    }
                    return serve(message.getPayloadAsText(), conn);
                }, MAX_SUBSCRIPTIONS + MAX_PENDING_PEEKS + streams.limits().maxPerConnection() + 64)
                .takeUntilOther(session.closeStatus())
                // Each peek and SQL query is admitted against the caller's own limits (reads in flight, slow-path dataflows,
                // statements being planned).
                .contextWrite(admissions(conn.who, gate(session)));
        return session.send(out.map(b -> new WebSocketMessage(WebSocketMessage.Type.TEXT, session.bufferFactory().wrap(b))))
                .doFinally(s -> conn.close());
    }

    /** Serves one message: its replies, already serialized as UTF-8 JSON (a change stream's bytes are counted as sent). */
    private Flux<byte[]> serve(String text, WsConnection conn) {
        JsonNode id = null;
        try {
            JsonNode message = StrictJson.MAPPER.readTree(text);
            String op = WsOp.opOf(message);
            id = message.get("id");
            authorize(conn.caller, op);
            return switch (WsOp.decode(op, message)) {
                case WsOp.Peek p -> peek(p, conn).map(SessionSocketHandler::bytes);
                case WsOp.Sql q -> sql(q, conn).map(SessionSocketHandler::bytes);
                case WsOp.Subscribe sub -> subscribe(ObjectGrants.checkName(conn.caller, sub.index(), sub.index()), sub.id(), conn)
                        .map(SessionSocketHandler::bytes);
                case WsOp.Unsubscribe u -> {
                    Sinks.Empty<Void> s = conn.subscriptions.remove(u.index());
                    if (s == null) {
                        throw ApiException.badRequest("not subscribed to '" + JsonBody.abbreviate(u.index()) + "'");
                    }
                    s.tryEmitEmpty();
                    ObjectNode n = reply("unsubscribed", u.id());
                    n.put("index", u.index());
                    yield Flux.just(bytes(n));
                }
                case WsOp.SubscribeRows r -> subscribeRows(r.message(), r.id(), conn);
                case WsOp.CancelRows c -> {
                    Sinks.Empty<Void> s = c.id() == null ? null : conn.rowStreams.remove(c.id());
                    if (s == null) {
                        throw ApiException.badRequest("no row subscription with id " + (c.id() == null ? "(none given)" : JsonBody.abbreviate(c.id().toString())));
                    }
                    s.tryEmitEmpty();
                    yield Flux.just(bytes(reply("rows_canceled", c.id())));
                }
            };
        } catch (RuntimeException e) {
            return Flux.just(bytes(error(id, Problem.of(e))));
        }
    }

    /** A peek: admitted against the connection's limit of peeks in flight, answered with its result or its problem. */
    private Flux<ObjectNode> peek(WsOp.Peek p, WsConnection conn) {
        ReadJson read = ObjectGrants.check(conn.caller, ApiJson.readRequest(p.request()));
        admit(conn, "peeks");
        return Mono.defer(() -> controller.read(decoder.read(read)))
                .doFinally(sig -> conn.inFlight.decrementAndGet())
                .map(r -> {
                    ObjectNode n = reply("peek_result", p.id());
                    n.set("result", ApiJson.result(r));
                    return n;
                })
                .onErrorResume(e -> Mono.just(error(p.id(), Problem.of(e))))
                .flux();
    }

    /** A SQL statement: admitted as a peek is, answered with its result or its error (with its SQLSTATE). */
    private Flux<ObjectNode> sql(WsOp.Sql q, WsConnection conn) {
        admit(conn, "peeks and SQL statements");
        return Mono.defer(() -> sql.run(q.message(), conn.caller, conn.address))
                .doFinally(sig -> conn.inFlight.decrementAndGet())
                .map(r -> {
                    ObjectNode n = reply("sql_result", q.id());
                    n.set("result", r);
                    return n;
                })
                .onErrorResume(e -> Mono.just(e instanceof dev.tandem.sql.SqlException x ? sqlError(q.id(), x) : error(q.id(), Problem.of(e))))
                .flux();
    }

    /** Takes one of the connection's slots for peeks and statements in flight, else refuses (429) naming {@code what}. */
    private static void admit(WsConnection conn, String what) {
        if (conn.inFlight.incrementAndGet() > MAX_PENDING_PEEKS) {
            conn.inFlight.decrementAndGet();
            throw new ApiException(HttpStatus.TOO_MANY_REQUESTS, "at most " + MAX_PENDING_PEEKS + " " + what
                    + " may be in flight on one connection; wait for some to finish");
        }
    }

    /**
     * Streams the events of the index named {@code index}. The index need not exist yet (a client may
     * subscribe before creating it); the acknowledgement says whether it does, with its current state.
     */
    private Flux<ObjectNode> subscribe(String index, JsonNode id, WsConnection conn) {
        Map<String, Sinks.Empty<Void>> subscriptions = conn.subscriptions;
        String who = conn.who;
        if (subscriptions.size() >= MAX_SUBSCRIPTIONS) {
            throw ApiException.badRequest("at most " + MAX_SUBSCRIPTIONS + " subscriptions per connection");
        }
        Sinks.Empty<Void> stop = Sinks.empty();
        if (subscriptions.putIfAbsent(index, stop) != null) {
            throw ApiException.badRequest("already subscribed to '" + JsonBody.abbreviate(index) + "'");
        }
        PrincipalLimits.Permit permit = limits.tryAcquire(who, PrincipalLimits.Kind.SUBSCRIPTIONS);
        if (permit == null) {
            subscriptions.remove(index);
            throw new ApiException(HttpStatus.TOO_MANY_REQUESTS, limits.subscriptionsExhausted(who));
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
        return Flux.concat(Mono.just(ack), events).doFinally(s -> permit.close());
    }

    /** Refuses (403) an op the caller's roles do not cover, or any op {@link ApiAccess} does not declare. */
    private void authorize(AccessPrincipal caller, String op) {
        if (!enforced) {
            return;
        }
        Role need = ApiAccess.TABLE.op(op).orElse(null);
        if (need == null) {
            throw new ApiException(HttpStatus.FORBIDDEN, "op '" + JsonBody.abbreviate(op) + "' is not a declared op (ApiAccess);"
                    + " expected " + WsOp.OPS);
        }
        if (caller == null || !caller.has(need)) {
            throw new ApiException(HttpStatus.FORBIDDEN, "op " + op + " needs the role " + need.label()
                    + (caller == null ? "" : "; '" + caller.name() + "' has " + ApiSecurity.labels(caller.roles())));
        }
    }

    /**
     * Opens a change stream of {@code from} with the client's {@code id}: the acknowledgement (its start
     * time and columns), then its messages, until it ends (with why) or the client cancels it.
     */
    private Flux<byte[]> subscribeRows(JsonBody m, JsonNode id, WsConnection conn) {
        Map<JsonNode, Sinks.Empty<Void>> rowStreams = conn.rowStreams;
        AccessPrincipal caller = conn.caller;
        String who = conn.who;
        if (id == null || !(id.isString() || id.isIntegralNumber())) {
            throw ApiException.badRequest("message: subscribe_rows needs an 'id' (a string or an integer) to name the subscription");
        }
        String from = ObjectGrants.checkName(caller, m.requiredString("from"), m.requiredString("from"));
        Boolean snapshotField = m.bool("snapshot");
        boolean snapshot = snapshotField == null || snapshotField;
        Envelope envelope;
        try {
            envelope = Envelope.parse(m.string("envelope"));
        } catch (IllegalArgumentException x) {
            throw ApiException.badRequest(x.getMessage());
        }
        int limit = streams.limits().maxPerConnection();
        Sinks.Empty<Void> stop = Sinks.empty();
        synchronized (rowStreams) {
            if (rowStreams.containsKey(id)) {
                throw ApiException.badRequest("a row subscription with id " + JsonBody.abbreviate(id.toString()) + " is already open");
            }
            if (rowStreams.size() >= limit) {
                throw new ApiException(HttpStatus.TOO_MANY_REQUESTS, "at most " + limit
                        + " row subscriptions per connection (tandem.subscribe.max-per-connection); cancel one first");
            }
            rowStreams.put(id, stop);
        }
        PrincipalLimits.Permit permit = limits.tryAcquire(who, PrincipalLimits.Kind.SUBSCRIPTIONS);
        if (permit == null) {
            rowStreams.remove(id, stop);
            throw new ApiException(HttpStatus.TOO_MANY_REQUESTS, limits.subscriptionsExhausted(who));
        }
        ChangeSubscription sub;
        ChangeStreamStart start;
        try {
            ReadRequest read = decoder.changeStream(new ReadJson(from, null, m.array("key"), m.raw("filter"), m.array("project"), null,
                    null, null, null, m.nonNegativeLong("as_of"), null));
            start = controller.startChangeStream(from, read.keys(), read.mfp(), read.asOf());
            sub = streams.subscribe(new ChangeStreamRequest(start, snapshot, envelope, "ws " + JsonBody.abbreviate(id.toString())));
        } catch (RuntimeException x) {
            rowStreams.remove(id, stop);
            permit.close();
            throw ChangeJson.refused(x);
        }
        ObjectNode ack = reply("rows_subscribed", id);
        ack.put("index", start.indexName());
        ack.put("as_of", start.asOf());
        ArrayNode cols = ack.putArray("columns");
        start.columns().forEach(cols::add);
        byte[] changesPrefix = ChangeJson.prefix("\"op\":\"changes\",\"id\":" + id);
        byte[] progressPrefix = ChangeJson.prefix("\"op\":\"progress\",\"id\":" + id);
        Flux<byte[]> changes = Flux.deferContextual(ctx -> ChangeStreamHandler.gated(sub.messages(), ctx.getOrDefault(WritableGate.class, null)))
                .map(msg -> {
                    byte[] frame = ChangeJson.message(msg, changesPrefix, progressPrefix);
                    sub.sent(frame.length);
                    return frame;
                })
                .takeUntilOther(stop.asMono())
                .onErrorResume(x -> Mono.just(bytes(ChangeJson.end(reply("subscription_ended", id), x))))
                .doFinally(sig -> {
                    rowStreams.remove(id, stop);
                    permit.close();
                });
        return Flux.concat(Mono.just(bytes(ack)), changes);
    }

    /**
     * The context of a connection's ops: each peek and query is admitted against its caller's limits, and a
     * change stream takes its messages as the socket can take them (through {@code gate}, if any).
     */
    private Context admissions(String who, WritableGate gate) {
        Context c = Context.of(ReadAdmission.class, limits.admission(who), dev.tandem.sql.PlanningAdmission.class, limits.planning(who));
        return gate == null ? c : c.put(WritableGate.class, gate);
    }

    /** The writability gate of the session's connection, or null when it is not Reactor Netty's. */
    private static WritableGate gate(WebSocketSession session) {
        return session instanceof org.springframework.web.reactive.socket.adapter.ReactorNettyWebSocketSession r
                ? WritableGate.find(r.getChannelId()) : null;
    }

    private static byte[] bytes(JsonNode n) {
        return StrictJson.MAPPER.writeValueAsBytes(n);
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
