package dev.tandem.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.security.PrincipalLimits;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.web.reactive.socket.client.ReactorNettyWebSocketClient;
import reactor.core.Disposable;

/**
 * An SSE change stream holds one of its caller's subscription permits, like a WebSocket
 * {@code subscribe_rows}: over {@code tandem.security.limits.max-subscriptions} the next stream or
 * subscription is 429 with {@code Retry-After}; the permit comes back when the client goes away or the
 * stream ends.
 */
class SubscriptionLimitTest {

    @TempDir
    Path dir;

    @Test
    void anSseStreamHoldsASubscriptionPermitUntilItEndsOrItsClientLeaves() {
        try (SecuredServer s = new SecuredServer(dir, Map.of("tandem.security.limits.max-subscriptions", 1))) {
            TandemServer t = s.server;
            assertThat(t.post("/v1/tables", "{\"name\":\"t\",\"columns\":[{\"name\":\"id\",\"type\":\"int64\"}]}").status()).isEqualTo(201);
            assertThat(t.post("/v1/indexes", "{\"name\":\"t_by_id\",\"on\":\"t\",\"key\":[\"id\"]}").status()).isEqualTo(201);
            ApiJourneyTest.awaitHydrated(t, "t_by_id");
            PrincipalLimits limits = t.bean(PrincipalLimits.class);

            Disposable first = s.as("reader").get().uri("/v1/indexes/t_by_id/changes").retrieve().bodyToFlux(String.class)
                    .subscribe(x -> { }, e -> { });
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> limits.held("reader", PrincipalLimits.Kind.SUBSCRIPTIONS) == 1);

            var refused = s.as("reader").get().uri("/v1/indexes/t_by_id/changes").exchangeToMono(r -> r.toEntity(String.class))
                    .block(Duration.ofSeconds(30));
            assertThat(refused.getStatusCode().value()).isEqualTo(429);
            assertThat(refused.getHeaders().getFirst(HttpHeaders.RETRY_AFTER)).isEqualTo("1");
            assertThat(refused.getHeaders().getContentType().isCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)).isTrue();
            assertThat(refused.getBody()).contains("'reader' holds 1 subscriptions, its limit (tandem.security.limits.max-subscriptions)");
            try (SocketClient ws = new SocketClient(URI.create("ws://127.0.0.1:" + t.port + "/v1/ws"), s.bearer("reader"),
                    new ReactorNettyWebSocketClient())) {
                ws.send("{\"op\":\"subscribe_rows\",\"id\":1,\"from\":\"t_by_id\"}");
                assertThat(ws.await(n -> n.path("id").asInt() == 1).path("status").asInt()).as("the WebSocket shares the limit").isEqualTo(429);
            }
            assertThat(limits.held("reader", PrincipalLimits.Kind.SUBSCRIPTIONS)).isEqualTo(1);

            // The client goes away: the permit comes back.
            first.dispose();
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> limits.held("reader", PrincipalLimits.Kind.SUBSCRIPTIONS) == 0);

            // The stream ends (its index is dropped): the permit comes back too.
            List<ServerSentEvent<String>> events = new CopyOnWriteArrayList<>();
            Disposable second = s.as("reader").get().uri("/v1/indexes/t_by_id/changes").retrieve()
                    .bodyToFlux(new ParameterizedTypeReference<ServerSentEvent<String>>() { })
                    .subscribe(events::add, e -> { });
            try {
                Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> !events.isEmpty());
                assertThat(limits.held("reader", PrincipalLimits.Kind.SUBSCRIPTIONS)).isEqualTo(1);
                assertThat(t.delete("/v1/indexes/t_by_id").status()).isEqualTo(204);
                Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> events.stream().anyMatch(e -> "end".equals(e.event())));
                Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> limits.held("reader", PrincipalLimits.Kind.SUBSCRIPTIONS) == 0);
            } finally {
                second.dispose();
            }
        }
    }
}
