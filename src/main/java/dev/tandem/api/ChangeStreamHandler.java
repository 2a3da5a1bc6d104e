package dev.tandem.api;

import dev.tandem.controller.CatalogEntry;
import dev.tandem.controller.ChangeStreamStart;
import dev.tandem.controller.Controller;
import dev.tandem.controller.ReadRequest;
import dev.tandem.controller.ControllerException;
import dev.tandem.row.DatumType;
import dev.tandem.security.PrincipalLimits;
import dev.tandem.stream.ChangeMessage;
import dev.tandem.stream.ChangeStreamRequest;
import dev.tandem.stream.ChangeStreams;
import dev.tandem.stream.ChangeSubscription;
import dev.tandem.stream.Envelope;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import dev.tandem.net.WritableGate;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.web.reactive.function.BodyInserters;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.netty.Connection;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;

/**
 * {@code GET /v1/indexes/{name}/changes}: an index's change stream as Server-Sent Events. Each event's
 * {@code data} is one JSON object (the changes at one timestamp, or progress) and its {@code id} the
 * last timestamp the client has then seen completely; a reconnect with {@code Last-Event-ID} resumes
 * right after it, without a snapshot. The end of a stream is an event named {@code end}. An open stream
 * holds one of the caller's subscription permits ({@link PrincipalLimits}; 429 over the limit), given
 * back when the stream ends or the client goes away — also when it goes away before the body is
 * subscribed, or the response is never written: the end of the exchange then ends the subscription too.
 */
final class ChangeStreamHandler {

    private static final Set<String> PARAMS = Set.of("as_of", "key", "snapshot", "envelope");
    /** An event's data is the message's fields alone. */
    private static final byte[] OPEN = ChangeJson.prefix("");

    private final Controller controller;
    private final RequestDecoder decoder;
    private final ChangeStreams streams;
    private final PrincipalLimits limits;

    ChangeStreamHandler(Controller controller, ChangeStreams streams, PrincipalLimits limits) {
        this.controller = controller;
        this.decoder = new RequestDecoder(controller);
        this.streams = streams;
        this.limits = limits;
    }

    /** {@code GET /v1/indexes/{name}/changes}. */
    Mono<ServerResponse> stream(ServerRequest request) {
        return withPrincipal(request, CatalogEntry.Index.class);
    }

    /**
     * {@code GET /v1/tables/{name}/changes} and {@code GET /v1/views/{name}/changes}: followed through an
     * index on the collection when it has one, else through a transient dataflow the stream owns.
     */
    Mono<ServerResponse> streamCollection(ServerRequest request) {
        return withPrincipal(request, request.path().startsWith("/v1/tables/") ? CatalogEntry.Table.class : CatalogEntry.View.class);
    }

    private Mono<ServerResponse> withPrincipal(ServerRequest request, Class<? extends CatalogEntry> kind) {
        String address = request.remoteAddress().map(a -> a.getAddress() == null ? a.getHostString() : a.getAddress().getHostAddress()).orElse("unknown");
        return request.principal().map(ApiSecurity::name).defaultIfEmpty(ApiSecurity.anonymousAt(address)).flatMap(who -> stream(request, who, kind));
    }

    private Mono<ServerResponse> stream(ServerRequest request, String who, Class<? extends CatalogEntry> kind) {
        String name = request.pathVariable("name");
        Map<String, List<String>> params = request.queryParams();
        for (String p : params.keySet()) {
            if (!PARAMS.contains(p)) {
                throw ApiException.badRequest("unknown query parameter '" + JsonBody.abbreviate(p) + "'; expected " + List.copyOf(new TreeSet<>(PARAMS)));
            }
        }
        CatalogEntry e = controller.entry(name);
        if (!kind.isInstance(e)) {
            throw new ControllerException(ControllerException.Reason.WRONG_KIND, "'" + name + "' is a " + CatalogHandler.kindName(e.getClass())
                    + ", not a " + CatalogHandler.kindName(kind));
        }
        JsonNode keys = null;
        List<String> values = params.getOrDefault("key", List.of());
        if (!values.isEmpty()) {
            CatalogEntry.Index index = e instanceof CatalogEntry.Index i ? i : controller.catalog().stream()
                    .filter(c -> c instanceof CatalogEntry.Index i && i.on().equals(name)).map(c -> (CatalogEntry.Index) c)
                    .filter(i -> i.key().size() == 1).findFirst()
                    .orElseThrow(() -> new ControllerException(ControllerException.Reason.INVALID, "key: watching keys needs an index with a"
                            + " one-column key on '" + name + "', and it has none; create one, or watch it whole"));
            if (index.key().size() != 1) {
                throw new ControllerException(ControllerException.Reason.INVALID, "index '" + name + "' has a " + index.key().size()
                        + "-column key " + index.key() + "; ?key= watches single-column keys, use the WebSocket's subscribe_rows with \"key\": [[...]]");
            }
            DatumType type = index.schema().type(index.schema().indexOf(index.key().get(0)));
            ArrayNode rows = JsonNodeFactory.instance.arrayNode();
            for (String v : values) {
                rows.addArray().add(ReadHandler.keyValue(v, type, index.key().get(0)));
            }
            keys = rows;
        }
        Long asOf = ReadHandler.longParam(request, "as_of");
        boolean snapshot = switch (request.queryParam("snapshot").orElse("true")) {
            case "true" -> true;
            case "false" -> false;
            default -> throw ApiException.badRequest("snapshot: expected true or false");
        };
        Envelope envelope;
        try {
            envelope = Envelope.parse(request.queryParam("envelope").orElse(null));
        } catch (IllegalArgumentException x) {
            throw ApiException.badRequest(x.getMessage());
        }
        String lastEventId = request.headers().firstHeader("Last-Event-ID");
        if (lastEventId != null && !lastEventId.isBlank()) {
            try {
                asOf = Long.parseLong(lastEventId.trim());
            } catch (NumberFormatException x) {
                throw ApiException.badRequest("Last-Event-ID: expected a timestamp, got '" + JsonBody.abbreviate(lastEventId) + "'");
            }
            snapshot = false;
        }
        PrincipalLimits.Permit permit = limits.tryAcquire(who, PrincipalLimits.Kind.SUBSCRIPTIONS);
        if (permit == null) {
            throw new ApiException(HttpStatus.TOO_MANY_REQUESTS, limits.subscriptionsExhausted(who));
        }
        ChangeStreamStart start;
        ChangeSubscription sub;
        try {
            ReadRequest read = decoder.changeStream(new ReadJson(name, null, keys, null, null, null, null, null, null, asOf, null));
            start = controller.startChangeStream(name, read.keys(), read.mfp(), read.asOf());
        } catch (RuntimeException x) {
            permit.close();
            throw x;
        }
        try {
            sub = streams.subscribe(new ChangeStreamRequest(start, snapshot, envelope,
                    "sse " + request.remoteAddress().map(Object::toString).orElse("?")));
        } catch (RuntimeException x) {
            permit.close();
            throw ChangeJson.refused(x);
        }
        // The subscription, its hold and the permit are taken now (so refusals are HTTP statuses), but the
        // body may never be subscribed: the client can go away, or the response never be written. The
        // end of the exchange then ends them; once the body is subscribed, its own end does.
        // (A body subscribed on a connection that is gone is not always cancelled either: nothing is
        // written to notice it while no change comes; the end of the exchange cancels it.)
        AtomicBoolean bodySubscribed = new AtomicBoolean();
        Sinks.One<Boolean> exchangeEnded = Sinks.one();
        Runnable abandon = () -> {
            permit.close();
            exchangeEnded.tryEmitValue(true);
            if (bodySubscribed.compareAndSet(false, true)) {
                sub.messages().subscribe(m -> { }, x -> { }).dispose();
            }
        };
        // A message at a time, once the socket can take it: a client that stops reading leaves the changes in
        // the subscription's bounded buffer (which ends it as lagged past its bound), not in the server's sockets.
        Object nativeRequest = ServerHttpRequestDecorator.getNativeRequest(request.exchange().getRequest());
        WritableGate gate = nativeRequest instanceof Connection c ? WritableGate.of(c.channel()) : null;
        // takeUntilOther stops at the companion's first value, so the end of the exchange emits one
        Flux<ServerSentEvent<String>> events = Flux.defer(() -> bodySubscribed.compareAndSet(false, true) ? gated(sub.messages(), gate)
                        : Flux.<ChangeMessage>empty())
                .takeUntilOther(exchangeEnded.asMono())
                .map(m -> event(sub, m))
                .onErrorResume(x -> Mono.just(ServerSentEvent.builder(ChangeJson.end(JsonNodeFactory.instance.objectNode(), x).toString())
                        .event("end").build()))
                .doFinally(signal -> permit.close());
        if (nativeRequest instanceof Connection connection) {
            connection.onDispose(abandon::run);
        }
        return ServerResponse.ok().contentType(MediaType.TEXT_EVENT_STREAM).body(BodyInserters.fromServerSentEvents(events))
                .doOnCancel(abandon)
                .doOnError(x -> abandon.run());
    }

    /** {@code messages}, each taken once {@code gate}'s connection can take more (all of them at once without a gate). */
    static <T> Flux<T> gated(Flux<T> messages, WritableGate gate) {
        return gate == null ? messages : messages.concatMap(m -> gate.whenWritable().thenReturn(m), 1);
    }

    private static ServerSentEvent<String> event(ChangeSubscription sub, ChangeMessage m) {
        byte[] data = ChangeJson.message(m, OPEN, OPEN);
        sub.sent(data.length);
        return ServerSentEvent.builder(new String(data, StandardCharsets.UTF_8)).id(Long.toString(m.complete())).build();
    }
}
