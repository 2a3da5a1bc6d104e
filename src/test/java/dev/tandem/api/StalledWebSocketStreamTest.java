package dev.tandem.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.stream.ChangeStreams;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A WebSocket client that stops reading its {@code subscribe_rows} stream while large rows are written:
 * the changes wait in the subscription's buffer, bounded in bytes (here 4 MB), not in the server's sockets;
 * the stream is ended with {@code subscription_ended} saying {@code subscription_lagged}, and every byte it
 * held is given back.
 */
class StalledWebSocketStreamTest {

    @TempDir
    Path dir;

    /** A masked text frame, as a client sends it. */
    private static byte[] textFrame(String text) {
        byte[] payload = text.getBytes(StandardCharsets.UTF_8);
        byte[] mask = {0x11, 0x22, 0x33, 0x44};
        ByteArrayOutputStream f = new ByteArrayOutputStream();
        f.write(0x81);
        if (payload.length < 126) {
            f.write(0x80 | payload.length);
        } else {
            f.write(0x80 | 126);
            f.write(payload.length >> 8);
            f.write(payload.length & 0xff);
        }
        f.writeBytes(mask);
        for (int i = 0; i < payload.length; i++) {
            f.write(payload[i] ^ mask[i % 4]);
        }
        return f.toByteArray();
    }

    @Test
    void aStalledWebSocketClientIsEndedAsLaggedWithinTheByteBound() throws Exception {
        try (TandemServer server = new TandemServer(dir, Map.of("tandem.subscribe.buffer-bytes", "4MB"))) {
            StalledClients.createTable(server);
            ChangeStreams streams = server.bean(ChangeStreams.class);
            try (Socket socket = new Socket("127.0.0.1", server.port)) {
                socket.setSoTimeout(60_000);
                OutputStream out = socket.getOutputStream();
                out.write(("GET /v1/ws HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                out.flush();
                InputStream in = socket.getInputStream();
                assertThat(StalledClients.head(in)).startsWith("HTTP/1.1 101");
                out.write(textFrame("{\"op\":\"subscribe_rows\",\"id\":1,\"from\":\"big_id\"}"));
                out.flush();
                StalledClients.awaitOneStream(streams);
                // not read while the rows come
                long peak = StalledClients.writeLargeRows(server, streams);
                // the stream's end, after whatever the sockets held
                StringBuilder tail = new StringBuilder();
                byte[] buf = new byte[1 << 16];
                while (!tail.toString().contains("subscription_ended")) {
                    int n = in.read(buf);
                    assertThat(n).as("the stream ends with subscription_ended before the connection does").isPositive();
                    tail.append(new String(buf, 0, n, StandardCharsets.ISO_8859_1));
                    if (tail.length() > 1 << 20) {
                        tail.delete(0, tail.length() - 4096);
                    }
                }
                while (!tail.toString().contains("tandem.subscribe.buffer-bytes")) {
                    int n = in.read(buf);
                    assertThat(n).isPositive();
                    tail.append(new String(buf, 0, n, StandardCharsets.ISO_8859_1));
                }
                assertThat(tail.toString()).contains("subscription_lagged");
                assertThat(peak).isLessThanOrEqualTo(4L * 1024 * 1024 + 100 * 8_100);
                assertThat(streams.bufferedBytes()).isZero();
            }
        }
    }
}
