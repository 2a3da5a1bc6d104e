package dev.tandem.api;

import dev.tandem.security.AccessPrincipal;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Sinks;
import tools.jackson.databind.JsonNode;

/**
 * The state of one session-socket connection: who is calling (the principal, or null without
 * credentials; the name its limits count against; its address), its index-event subscriptions by index,
 * its row subscriptions by the client's id, and its peeks and SQL statements in flight.
 */
final class WsConnection {

    final AccessPrincipal caller;
    final String who;
    final String address;
    final Map<String, Sinks.Empty<Void>> subscriptions = new ConcurrentHashMap<>();
    final Map<JsonNode, Sinks.Empty<Void>> rowStreams = new ConcurrentHashMap<>();
    final AtomicInteger inFlight = new AtomicInteger();

    WsConnection(AccessPrincipal caller, String who, String address) {
        this.caller = caller;
        this.who = who;
        this.address = address;
    }

    /** Ends every subscription (the connection closed). */
    void close() {
        subscriptions.values().forEach(Sinks.Empty::tryEmitEmpty);
        rowStreams.values().forEach(Sinks.Empty::tryEmitEmpty);
    }
}
