package dev.tandem.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import org.junit.jupiter.api.io.TempDir;

/**
 * Slow and idle clients on a raw loopback socket cannot hold a connection: a request head that does not
 * complete, a body that stops arriving, and an idle keep-alive connection are each closed by the server
 * (configured here with short {@code tandem.http.*} timeouts); a prompt client is served as usual.
 */
class ConnectionTimeoutsTest {

    /** How long the test waits for the server to close a connection before calling it held open. */
    private static final int BOUND_MS = 20_000;

    @TempDir
    static Path dir;

    static TandemServer server;

    @BeforeAll
    static void start() {
        server = new TandemServer(dir, Map.of("tandem.http.request-head-timeout", "300ms", "tandem.http.read-timeout", "300ms",
                "tandem.http.request-body-timeout", "600ms", "tandem.http.idle-timeout", "500ms"));
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    /** Writes {@code request}, then reads until the server closes the connection; fails if it is still open after the bound. */
    private static String sendAndAwaitClose(String request) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", server.port)) {
            socket.setSoTimeout(BOUND_MS);
            socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            byte[] buf = new byte[4096];
            try {
                for (int n; (n = in.read(buf)) >= 0; ) {
                    got.write(buf, 0, n);
                }
            } catch (SocketTimeoutException e) {
                fail("the server still holds the connection after " + BOUND_MS + " ms; received: " + got);
            } catch (IOException reset) {
                // a reset is a close too
            }
            return got.toString(StandardCharsets.UTF_8);
        }
    }

    @Test
    void aTrickledRequestHeadIsAnswered408AndClosed() throws IOException {
        String answer = sendAndAwaitClose("GET /v1/ping HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: a");
        assertThat(answer).startsWith("HTTP/1.1 408").contains("application/problem+json").contains("request-head-timeout");
    }

    @Test
    void aBodyThatStopsArrivingIsClosed() throws IOException {
        String answer = sendAndAwaitClose("POST /v1/peek HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Content-Length: 100\r\n\r\n{\"from\":");
        assertThat(answer).doesNotStartWith("HTTP/1.1 200");
    }

    @Test
    void anIdleKeepAliveConnectionIsClosedAfterItsAnswer() throws IOException {
        String answer = sendAndAwaitClose("GET /v1/ping HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        assertThat(answer).startsWith("HTTP/1.1 200").contains("{\"ok\":true}");
    }

    /**
     * A change-stream subscriber only listens: the read and idle timeouts, meant for slow requests and
     * idle keep-alive connections, do not close its WebSocket (they did, silently, after read-timeout).
     */
    @Test
    void aListeningWebSocketOutlivesTheReadAndIdleTimeouts() throws InterruptedException {
        server.post("/v1/tables", "{\"name\":\"ws_kv\",\"columns\":[{\"name\":\"k\",\"type\":\"int64\"},{\"name\":\"v\",\"type\":\"int64\"}]}");
        server.post("/v1/indexes", "{\"name\":\"ws_kv_k\",\"on\":\"ws_kv\",\"key\":[\"k\"]}");
        try (SocketClient ws = new SocketClient(server.port, "/v1/ws")) {
            ws.send("{\"op\":\"subscribe_rows\",\"id\":1,\"from\":\"ws_kv_k\",\"key\":[[7]]}");
            ws.await(n -> "rows_subscribed".equals(n.path("op").asString()));
            // Several times the read (300 ms) and idle (500 ms) timeouts with nothing sent by the client.
            Thread.sleep(2_000);
            assertThat(ws.closed.asMono().toFuture().isDone()).as("the server closed a listening WebSocket").isFalse();
            assertThat(server.post("/v1/tables/ws_kv/rows", "{\"insert\":[[7,70]]}").status()).isEqualTo(200);
            JsonNode change = ws.await(n -> "changes".equals(n.path("op").asString()) && n.path("updates").size() > 0);
            assertThat(change.path("updates").get(0).get(0)).isEqualTo(TandemServer.json("[7,70]"));
        }
    }

    /** A Server-Sent Events stream that only listens outlives the read, body and idle timeouts too. */
    @Test
    void aListeningEventStreamOutlivesTheTimeouts() throws InterruptedException {
        server.post("/v1/tables", "{\"name\":\"sse_kv\",\"columns\":[{\"name\":\"k\",\"type\":\"int64\"},{\"name\":\"v\",\"type\":\"int64\"}]}");
        server.post("/v1/indexes", "{\"name\":\"sse_kv_k\",\"on\":\"sse_kv\",\"key\":[\"k\"]}");
        java.util.Queue<String> events = new java.util.concurrent.ConcurrentLinkedQueue<>();
        reactor.core.Disposable stream = reactor.netty.http.client.HttpClient.create().baseUrl("http://127.0.0.1:" + server.port)
                .get().uri("/v1/indexes/sse_kv_k/changes?key=7").responseContent().asString().subscribe(events::add);
        try {
            // Several times the read (300 ms), body (600 ms) and idle (500 ms) timeouts with nothing sent by the client.
            Thread.sleep(2_000);
            assertThat(server.post("/v1/tables/sse_kv/rows", "{\"insert\":[[7,71]]}").status()).isEqualTo(200);
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30)).until(() -> String.join("", events).contains("[[7,71],1]"));
        } finally {
            stream.dispose();
        }
    }
}
