package dev.tandem.api;

import dev.tandem.multiplex.Multiplexer;
import dev.tandem.protocol.ComputeResponse;
import dev.tandem.protocol.ProtocolJson;
import java.util.concurrent.atomic.AtomicBoolean;
import org.springframework.web.reactive.socket.CloseStatus;
import org.springframework.web.reactive.socket.WebSocketHandler;
import org.springframework.web.reactive.socket.WebSocketMessage;
import org.springframework.web.reactive.socket.WebSocketSession;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * {@code /v1/compute} in replica mode: the compute protocol as JSON text frames ({@link ProtocolJson}),
 * commands in, responses out, for one controller connection at a time. A second connection receives
 * a {@code Status} frame of kind {@code refused} and is closed with 1008 (policy violation). A frame
 * that does not parse, or a command the replica rejects, is answered with a {@code Status} frame of
 * kind {@code protocol_error}; the connection stays open.
 */
final class ComputeSocketHandler implements WebSocketHandler {

    static final String REFUSED = "another controller is connected to this replica; it serves one at a time";

    private final Multiplexer compute;
    private final AtomicBoolean connected = new AtomicBoolean();

    ComputeSocketHandler(Multiplexer compute) {
        this.compute = compute;
    }

    @Override
    public Mono<Void> handle(WebSocketSession session) {
        if (!connected.compareAndSet(false, true)) {
            String frame = ProtocolJson.write(new ComputeResponse.Status(ComputeResponse.StatusKind.REFUSED, null, REFUSED));
            return session.send(Mono.just(session.textMessage(frame)))
                    .then(session.close(CloseStatus.POLICY_VIOLATION.withReason("one controller at a time")));
        }
        Sinks.Many<ComputeResponse> local = Sinks.many().unicast().onBackpressureBuffer();
        Sinks.Empty<Void> closed = Sinks.empty();
        Mono<Void> in = session.receive()
                .map(WebSocketMessage::getPayloadAsText)
                .doOnNext(text -> {
                    try {
                        compute.send(ProtocolJson.parseCommand(text));
                    } catch (RuntimeException e) {
                        local.tryEmitNext(new ComputeResponse.Status(ComputeResponse.StatusKind.PROTOCOL_ERROR, null, String.valueOf(e.getMessage())));
                    }
                })
                .doFinally(s -> closed.tryEmitEmpty())
                .then();
        Flux<String> out = Flux.merge(compute.responses(), local.asFlux())
                .map(ProtocolJson::write)
                .takeUntilOther(closed.asMono());
        return Mono.when(in, session.send(out.map(session::textMessage)))
                .doFinally(s -> connected.set(false));
    }
}
