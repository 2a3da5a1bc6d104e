package dev.tandem.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tandem.controller.Controller;
import dev.tandem.controller.ReadRequest;
import dev.tandem.security.PrincipalLimits;
import dev.tandem.stream.ChangeStreams;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.http.HttpHeaders;

/**
 * SSE change streams whose client goes away at any point (before the response is written, before its
 * body is subscribed, while it streams): whatever the stream took is given back — the change
 * subscription, its read hold (introspection's {@code tandem_read_holds}), the transient dataflow of a
 * stream of a table without an index, and the caller's subscription permit.
 */
class ChangeStreamAbandonTest {

    @TempDir
    Path dir;

    @Test
    void abandonedStreamsReleaseTheirSubscriptionHoldAndPermit() throws Exception {
        try (SecuredServer s = new SecuredServer(dir, Map.of("tandem.security.limits.max-subscriptions", 1000))) {
            TandemServer t = s.server;
            assertThat(t.post("/v1/tables", "{\"name\":\"t\",\"columns\":[{\"name\":\"id\",\"type\":\"int64\"}]}").status()).isEqualTo(201);
            assertThat(t.post("/v1/indexes", "{\"name\":\"t_by_id\",\"on\":\"t\",\"key\":[\"id\"]}").status()).isEqualTo(201);
            assertThat(t.post("/v1/tables", "{\"name\":\"plain\",\"columns\":[{\"name\":\"id\",\"type\":\"int64\"}]}").status()).isEqualTo(201);
            ApiJourneyTest.awaitHydrated(t, "t_by_id");
            PrincipalLimits limits = t.bean(PrincipalLimits.class);
            ChangeStreams streams = t.bean(ChangeStreams.class);
            Controller controller = t.bean(Controller.class);
            String auth = s.bearer("reader").getFirst(HttpHeaders.AUTHORIZATION);
            List<String> paths = List.of("/v1/indexes/t_by_id/changes", "/v1/tables/plain/changes");
            for (int i = 0; i < 40; i++) {
                String path = paths.get(i % 2);
                try (Socket socket = new Socket("127.0.0.1", t.port)) {
                    socket.setSoLinger(true, 0); // close with a reset, as a client that crashed
                    OutputStream out = socket.getOutputStream();
                    out.write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: " + auth
                            + "\r\nAccept: text/event-stream\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                    if (i % 4 >= 2) {
                        // this time the client goes away only once the response started
                        socket.setSoTimeout(30_000);
                        InputStream in = socket.getInputStream();
                        assertThat(in.read()).isNotNegative();
                    }
                }
            }
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                assertThat(limits.held("reader", PrincipalLimits.Kind.SUBSCRIPTIONS)).as("permits").isZero();
                assertThat(streams.activeCount()).as("subscriptions").isZero();
                assertThat(controller.transientStreamCount()).as("transient dataflows").isZero();
                assertThat(controller.readIntrospection("tandem_read_holds", ReadRequest.of("tandem_read_holds")).block(Duration.ofSeconds(30))
                        .rows().stream().map(r -> String.valueOf(r.get(1))).filter(h -> h.startsWith("subscription")).toList())
                        .as("subscriptions' read holds").isEmpty();
            });
            // and the server still serves streams
            assertThat(s.as("reader").get().uri("/v1/indexes/t_by_id/changes").retrieve().bodyToFlux(String.class).take(1)
                    .blockFirst(Duration.ofSeconds(30))).isNotNull();
        }
    }
}
