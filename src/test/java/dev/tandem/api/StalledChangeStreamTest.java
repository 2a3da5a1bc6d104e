package dev.tandem.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.stream.ChangeStreams;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Server-Sent Events client that stops reading while large rows are written: the changes wait in the
 * subscription's buffer, bounded in bytes (here 4 MB), not in the server's sockets; the stream is ended
 * with its {@code end} event saying {@code subscription_lagged}, and every byte it held is given back.
 */
class StalledChangeStreamTest {

    @TempDir
    Path dir;

    @Test
    void aStalledServerSentEventsClientIsEndedAsLaggedWithinTheByteBound() throws Exception {
        try (TandemServer server = new TandemServer(dir, Map.of("tandem.subscribe.buffer-bytes", "4MB"))) {
            StalledClients.createTable(server);
            ChangeStreams streams = server.bean(ChangeStreams.class);
            try (Socket socket = new Socket("127.0.0.1", server.port)) {
                socket.setSoTimeout(60_000);
                OutputStream out = socket.getOutputStream();
                out.write("GET /v1/indexes/big_id/changes HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n"
                        .getBytes(StandardCharsets.US_ASCII));
                out.flush();
                InputStream in = socket.getInputStream();
                assertThat(StalledClients.head(in)).startsWith("HTTP/1.1 200");
                StalledClients.awaitOneStream(streams);
                // not read while the rows come
                long peak = StalledClients.writeLargeRows(server, streams);
                // the stream's end, after whatever the sockets held
                StringBuilder tail = new StringBuilder();
                byte[] buf = new byte[1 << 16];
                while (!tail.toString().contains("event:end")) {
                    int n = in.read(buf);
                    assertThat(n).as("the stream ends with an end event before the connection does").isPositive();
                    tail.append(new String(buf, 0, n, StandardCharsets.UTF_8));
                    if (tail.length() > 1 << 20) {
                        tail.delete(0, tail.length() - 4096);
                    }
                }
                assertThat(tail.toString()).contains("subscription_lagged", "tandem.subscribe.buffer-bytes");
                assertThat(peak).isLessThanOrEqualTo(4L * 1024 * 1024 + 100 * 8_100);
                assertThat(streams.bufferedBytes()).isZero();
            }
        }
    }
}
