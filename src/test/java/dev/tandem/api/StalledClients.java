package dev.tandem.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.stream.ChangeStreams;
import java.io.IOException;
import java.io.InputStream;

/** What the stalled-client tests share: an indexed table of large rows, a change stream's start, and the writes that outgrow its buffer. */
final class StalledClients {

    private StalledClients() {
    }

    /** Creates table {@code big (id, pad)} and its index {@code big_id}. */
    static void createTable(TandemServer server) {
        assertThat(server.post("/v1/sql", "{\"sql\":\"CREATE TABLE big (id bigint NOT NULL, pad text)\"}").status()).isEqualTo(200);
        assertThat(server.post("/v1/sql", "{\"sql\":\"CREATE INDEX big_id ON big (id)\"}").status()).isEqualTo(200);
    }

    /** The head of the HTTP response on {@code in}, through its blank line. */
    static String head(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (!head.toString().contains("\r\n\r\n")) {
            head.append((char) in.read());
        }
        return head.toString();
    }

    /** Waits (30 seconds at most) for the client's change stream, and checks that it is the one stream open. */
    static void awaitOneStream(ChangeStreams streams) throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (streams.activeCount() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(streams.activeCount()).isEqualTo(1);
    }

    /** 40 writes of 100 rows of 8,000 bytes (32 MB) into {@code big}; returns the most bytes the change streams held after any of them. */
    static long writeLargeRows(TandemServer server, ChangeStreams streams) {
        String pad = "x".repeat(8_000);
        long peak = 0;
        for (int w = 0; w < 40; w++) {
            StringBuilder rows = new StringBuilder("{\"insert\":[");
            for (int i = 0; i < 100; i++) {
                rows.append(i == 0 ? "" : ",").append('[').append(w * 100 + i).append(",\"").append(pad).append("\"]");
            }
            assertThat(server.post("/v1/tables/big/rows", rows.append("]}").toString()).status()).isEqualTo(200);
            peak = Math.max(peak, streams.bufferedBytes());
        }
        return peak;
    }
}
