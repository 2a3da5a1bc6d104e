package dev.tandem.api;

import java.net.URI;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.springframework.web.reactive.socket.CloseStatus;
import org.springframework.web.reactive.socket.WebSocketMessage;
import org.springframework.web.reactive.socket.client.ReactorNettyWebSocketClient;
import reactor.core.Disposable;
import reactor.core.publisher.Sinks;
import tools.jackson.databind.JsonNode;

/** A test WebSocket connection: messages sent through a sink, messages received into a queue. */
final class SocketClient implements AutoCloseable {

    final BlockingQueue<String> received = new LinkedBlockingQueue<>();
    final Sinks.Many<String> outbound = Sinks.many().unicast().onBackpressureBuffer();
    final Sinks.One<CloseStatus> closed = Sinks.one();
    private final Disposable connection;

    SocketClient(int port, String path) {
        this(URI.create("ws://127.0.0.1:" + port + path), new org.springframework.http.HttpHeaders(), new ReactorNettyWebSocketClient());
    }

    /** A connection to {@code uri} whose handshake carries {@code headers} (e.g. {@code Authorization}). */
    SocketClient(URI uri, org.springframework.http.HttpHeaders headers, ReactorNettyWebSocketClient client) {
        connection = client.execute(uri, headers, session -> {
            session.closeStatus().subscribe(closed::tryEmitValue);
            return session.send(outbound.asFlux().map(session::textMessage))
                    .and(session.receive().map(WebSocketMessage::getPayloadAsText).doOnNext(received::add).then());
        }).subscribe(x -> { }, e -> closed.tryEmitValue(CloseStatus.SERVER_ERROR));
    }

    void send(String text) {
        outbound.tryEmitNext(text);
    }

    /** The next received message matching {@code match} (others are skipped), within 30 s. */
    /** Messages received but not yet matched by an {@link #await}: answers may come in any order. */
    private final java.util.List<JsonNode> unmatched = new java.util.ArrayList<>();

    /** The first message, in arrival order, that matches; messages that do not match are kept for later awaits. */
    JsonNode await(Predicate<JsonNode> match) {
        for (java.util.Iterator<JsonNode> it = unmatched.iterator(); it.hasNext(); ) {
            JsonNode n = it.next();
            if (match.test(n)) {
                it.remove();
                return n;
            }
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        try {
            while (System.nanoTime() < deadline) {
                String m = received.poll(100, TimeUnit.MILLISECONDS);
                if (m != null) {
                    JsonNode n = TandemServer.json(m);
                    if (match.test(n)) {
                        return n;
                    }
                    unmatched.add(n);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        throw new AssertionError("no matching message within 30 s; unmatched: " + unmatched);
    }

    @Override
    public void close() {
        outbound.tryEmitComplete();
        connection.dispose();
    }
}
