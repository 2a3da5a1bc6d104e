package dev.tandem.pgwire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.sql.SqlTesting;
import dev.tandem.stream.ChangeStreamLimits;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A wire-protocol client that stops reading its {@code SUBSCRIBE} while large rows are written: the
 * changes wait in the subscription's bounded buffer (not in the server's socket buffers), the stream is
 * ended with an ErrorResponse saying it lagged, and the session goes on: it answers {@code SELECT 1}.
 */
class PgWireStalledSubscribeTest {

    @TempDir
    Path dir;

    private static void send(DataOutputStream out, char type, String body) throws Exception {
        byte[] b = (body + "\0").getBytes(StandardCharsets.UTF_8);
        out.writeByte(type);
        out.writeInt(b.length + 4);
        out.write(b);
        out.flush();
    }

    /** The backend's messages up to and including the next ReadyForQuery, as (type, body) pairs. */
    private static List<Object[]> untilReady(DataInputStream in) throws Exception {
        List<Object[]> messages = new ArrayList<>();
        while (true) {
            char type = (char) in.readByte();
            byte[] body = new byte[in.readInt() - 4];
            in.readFully(body);
            messages.add(new Object[] {type, body});
            if (type == 'Z') {
                return messages;
            }
        }
    }

    @Test
    void aClientThatStopsReadingIsEndedAsLaggedWithinTheBoundAndItsSessionStillAnswers() throws Exception {
        try (SqlTesting.Stack stack = SqlTesting.stack(dir);
                PgWireServer server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0);
                Connection writer = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/tandem?user=w");
                Socket socket = new Socket("127.0.0.1", server.port())) {
            writer.createStatement().execute("CREATE TABLE big (id bigint NOT NULL, pad text)");
            socket.setSoTimeout(60_000);
            DataInputStream in = new DataInputStream(socket.getInputStream());
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            ByteArrayOutputStream startup = new ByteArrayOutputStream();
            startup.write("user\0stalled\0database\0tandem\0\0".getBytes(StandardCharsets.UTF_8));
            out.writeInt(startup.size() + 8);
            out.writeInt(196608);
            startup.writeTo(out);
            out.flush();
            untilReady(in);
            send(out, 'Q', "SUBSCRIBE big");
            assertThat((char) in.readByte()).as("CopyOutResponse").isEqualTo('H');
            in.readFully(new byte[in.readInt() - 4]);
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (stack.openStreams() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(stack.openStreams()).as("the subscription has started").isPositive();

            // Not read while 60 writes of 100 rows of 8,000 bytes (48 MB) come: more than a subscription (16 MB) and the
            // sockets' buffers on both sides hold.
            String pad = "x".repeat(8_000);
            long peak = 0;
            try (PreparedStatement insert = writer.prepareStatement("INSERT INTO big VALUES (?, ?)")) {
                for (int w = 0; w < 60; w++) {
                    for (int i = 0; i < 100; i++) {
                        insert.setLong(1, w * 100L + i);
                        insert.setString(2, pad);
                        insert.addBatch();
                    }
                    writer.setAutoCommit(false);
                    insert.executeBatch();
                    writer.commit();
                    writer.setAutoCommit(true);
                    peak = Math.max(peak, stack.bufferedStreamBytes());
                }
            }
            List<Object[]> answer = untilReady(in);
            Object[] error = answer.get(answer.size() - 2);
            assertThat((char) error[0]).isEqualTo('E');
            assertThat(new String((byte[]) error[1], StandardCharsets.UTF_8)).contains("fell more than", "bytes (tandem.subscribe.buffer-bytes)",
                    "resume with as_of");
            assertThat(answer).as("COPY data came before the error").anySatisfy(m -> assertThat((char) m[0]).isEqualTo('d'));
            // what waited in the subscription stayed within its bound and one write's message
            assertThat(peak).isLessThanOrEqualTo(ChangeStreamLimits.BUFFER_BYTES + 100 * 8_100);
            assertThat(stack.bufferedStreamBytes()).isZero();

            send(out, 'Q', "SELECT 1");
            List<Object[]> one = untilReady(in);
            assertThat(one).extracting(m -> (char) m[0]).containsExactly('T', 'D', 'C', 'Z');
        }
    }
}
