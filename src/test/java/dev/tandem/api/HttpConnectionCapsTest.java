package dev.tandem.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.net.ConnectionCaps;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The caps on HTTP connections, over real sockets: one more connection than an address may hold, or than
 * the server holds in all, is answered 503 with a problem naming the property and closed; another address
 * goes on, and a closed connection frees its place.
 */
class HttpConnectionCapsTest {

    @TempDir
    Path dir;

    private static Socket open(int port, String from) throws IOException {
        Socket s = new Socket();
        s.bind(new InetSocketAddress(from, 0));
        s.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
        s.setSoTimeout(10_000);
        return s;
    }

    /** Everything the server sends until it closes the connection. */
    private static String untilClosed(Socket s) throws IOException {
        InputStream in = s.getInputStream();
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        byte[] buf = new byte[4096];
        for (int n = in.read(buf); n >= 0; n = in.read(buf)) {
            got.write(buf, 0, n);
        }
        return got.toString(StandardCharsets.UTF_8);
    }

    /** A request on {@code s} and the status line of its answer. */
    private static String statusLine(Socket s) throws IOException {
        s.getOutputStream().write("GET /v1/tables HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        InputStream in = s.getInputStream();
        StringBuilder line = new StringBuilder();
        for (int c = in.read(); c >= 0 && c != '\r'; c = in.read()) {
            line.append((char) c);
        }
        return line.toString();
    }

    @Test
    void connectionsOverTheCapsAreAnswered503AndClosed() throws Exception {
        try (TandemServer t = new TandemServer(dir, Map.of("tandem.http.max-connections", 4, "tandem.http.max-connections-per-address", 3))) {
            ConnectionCaps caps = t.bean(ConnectionCaps.class);
            InetAddress lo = InetAddress.getByName("127.0.0.1");
            List<Socket> held = new ArrayList<>();
            try {
                for (int i = 0; i < 3; i++) {
                    held.add(open(t.port, "127.0.0.1"));
                }
                Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> caps.open(lo) == 3);
                try (Socket fourth = open(t.port, "127.0.0.1")) {
                    String answer = untilClosed(fourth);
                    assertThat(answer).startsWith("HTTP/1.1 503 ").contains("application/problem+json", "Retry-After: 1",
                            "127.0.0.1 has 3 connections open, its limit (tandem.http.max-connections-per-address)");
                }
                // another address is another client, up to the total cap
                held.add(open(t.port, "127.0.0.2"));
                assertThat(statusLine(held.get(3))).isEqualTo("HTTP/1.1 200 OK");
                try (Socket fifth = open(t.port, "127.0.0.3")) {
                    assertThat(untilClosed(fifth)).startsWith("HTTP/1.1 503 ").contains("its limit (tandem.http.max-connections)");
                }
                assertThat(statusLine(held.get(0))).as("a connection within the caps answers").isEqualTo("HTTP/1.1 200 OK");
                held.remove(1).close();
                Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> caps.open(lo) == 2);
                held.add(open(t.port, "127.0.0.1"));
                assertThat(statusLine(held.get(held.size() - 1))).isEqualTo("HTTP/1.1 200 OK");
                MeterRegistry meters = t.bean(MeterRegistry.class);
                assertThat(meters.counter("tandem.http.connections.refused", "cap", "address").count()).isEqualTo(1.0);
                assertThat(meters.counter("tandem.http.connections.refused", "cap", "total").count()).isEqualTo(1.0);
            } finally {
                for (Socket s : held) {
                    s.close();
                }
            }
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> caps.open() == 0);
        }
    }
}
