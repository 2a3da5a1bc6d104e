package dev.tandem.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A keep-alive connection stays served after pipelined requests whose answers come from different
 * threads: a read answered late, off the event loop (a peek waiting for a future {@code as_of}), then a
 * ping answered at once, then one more request on the same connection. Reactor Netty before 1.3.8 stopped
 * reading such a connection (reactor-netty #4361): the third request sat unread until the client gave up.
 */
class KeepAliveTest {

    /** How long the test waits for an answer before calling the connection stalled. */
    private static final int BOUND_MS = 15_000;

    @TempDir
    Path dir;

    @Test
    void aConnectionIsStillReadAfterPipelinedAnswersFromDifferentThreads() throws IOException {
        try (TandemServer s = new TandemServer(dir, Map.of())) {
            assertThat(s.post("/v1/tables", "{\"name\":\"t\",\"columns\":[{\"name\":\"id\",\"type\":\"int64\"}]}").status()).isEqualTo(201);
            assertThat(s.post("/v1/tables/t/rows", "{\"insert\":[[1]]}").status()).isEqualTo(200);
            assertThat(s.post("/v1/indexes", "{\"name\":\"t_by_id\",\"on\":\"t\",\"key\":[\"id\"]}").status()).isEqualTo(201);
            ApiJourneyTest.awaitHydrated(s, "t_by_id");
            try (Socket socket = new Socket("127.0.0.1", s.port)) {
                socket.setSoTimeout(BOUND_MS);
                InputStream in = new BufferedInputStream(socket.getInputStream());
                for (int round = 0; round < 3; round++) {
                    // answered once the index's frontier passes a time ~200 ms ahead: late, from a runtime thread
                    String peek = "{\"from\":\"t_by_id\",\"key\":[[1]],\"as_of\":" + (System.currentTimeMillis() + 200) + "}";
                    send(socket, request("POST", "/v1/peek", peek) + request("GET", "/v1/ping", null));
                    assertThat(readResponse(in)).startsWith("HTTP/1.1 200").contains("[[1]]");
                    assertThat(readResponse(in)).startsWith("HTTP/1.1 200").contains("{\"ok\":true}");
                    send(socket, request("GET", "/v1/ping", null));
                    assertThat(readResponse(in)).as("round %d: the request after the pipelined pair", round)
                            .startsWith("HTTP/1.1 200").contains("{\"ok\":true}");
                }
            }
        }
    }

    private static String request(String method, String path, String body) {
        String head = method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
        if (body == null) {
            return head + "\r\n";
        }
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        return head + "Content-Type: application/json\r\nContent-Length: " + bytes.length + "\r\n\r\n" + body;
    }

    private static void send(Socket socket, String requests) throws IOException {
        socket.getOutputStream().write(requests.getBytes(StandardCharsets.UTF_8));
        socket.getOutputStream().flush();
    }

    /** One HTTP/1.1 response (head and body, by Content-Length or chunked); fails when none arrives in the bound. */
    private static String readResponse(InputStream in) throws IOException {
        try {
            StringBuilder head = new StringBuilder();
            while (!head.toString().endsWith("\r\n\r\n")) {
                int b = in.read();
                if (b < 0) {
                    throw new AssertionError("the server closed the connection; received: " + head);
                }
                head.append((char) b);
            }
            String lower = head.toString().toLowerCase(Locale.ROOT);
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            if (lower.contains("transfer-encoding: chunked")) {
                for (int size; (size = Integer.parseInt(line(in).trim(), 16)) > 0; ) {
                    body.write(in.readNBytes(size));
                    line(in);
                }
                line(in);
            } else {
                int at = lower.indexOf("content-length:");
                int length = at < 0 ? 0 : Integer.parseInt(lower.substring(at + 15, lower.indexOf("\r\n", at)).trim());
                body.write(in.readNBytes(length));
            }
            return head + body.toString(StandardCharsets.UTF_8);
        } catch (SocketTimeoutException e) {
            throw new AssertionError("no answer on the keep-alive connection within " + BOUND_MS + " ms", e);
        }
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder s = new StringBuilder();
        for (int b; (b = in.read()) >= 0 && b != '\n'; ) {
            s.append((char) b);
        }
        return s.toString();
    }
}
