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
}
