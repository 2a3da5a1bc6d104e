package dev.tandem.pgwire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.sql.SqlSession;
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
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import io.netty.util.concurrent.EventExecutor;
import reactor.netty.tcp.TcpResources;
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
        return untilReady(in, () -> "");
    }

    /**
     * As above; when none comes within the socket's timeout, fails saying what was read and, from
     * {@code state}, what the server held then.
     */
    private static List<Object[]> untilReady(DataInputStream in, java.util.function.Supplier<String> state) throws Exception {
        List<Object[]> messages = new ArrayList<>();
        long bytes = 0;
        try {
            while (true) {
                char type = (char) in.readByte();
                byte[] body = new byte[in.readInt() - 4];
                in.readFully(body);
                messages.add(new Object[] {type, body});
                bytes += body.length + 5;
                if (type == 'Z') {
                    return messages;
                }
            }
        } catch (java.net.SocketTimeoutException e) {
            java.util.Map<Character, Long> types = new java.util.TreeMap<>();
            messages.forEach(m -> types.merge((Character) m[0], 1L, Long::sum));
            throw new AssertionError("no ReadyForQuery within the socket's timeout; read " + types + " (" + bytes + " bytes); " + state.get(), e);
        }
    }

    /**
     * A connection whose receive buffer is 64 KiB: fixed, so the kernel cannot grow it toward its
     * maximum (32 MiB on some machines) and hold what the test means to leave waiting in the subscription.
     */
    private static Socket smallWindow(int port) throws Exception {
        Socket socket = new Socket();
        socket.setReceiveBufferSize(1 << 16);
        socket.connect(new java.net.InetSocketAddress("127.0.0.1", port));
        return socket;
    }

    /**
     * Waits (at most 45 s, less than the stalled event loops' own bound) until no stream is open: the
     * writes are acknowledged before the maintenance runtime has arranged them and the stream has queued
     * them, so on a busy machine the subscription may still be catching up when the writer is done, and a
     * client that began reading then would keep it within its bound. Returns the peak of the bytes waiting
     * in subscriptions, from {@code peak} on.
     */
    private static long untilEnded(SqlTesting.Stack stack, long peak) throws InterruptedException {
        long deadline = System.nanoTime() + 45_000_000_000L;
        while (stack.openStreams() > 0 && System.nanoTime() < deadline) {
            peak = Math.max(peak, stack.bufferedStreamBytes());
            Thread.sleep(5);
        }
        return Math.max(peak, stack.bufferedStreamBytes());
    }

    private record Subscriber(DataInputStream in, DataOutputStream out) {}

    /** Logs {@code socket} in and sends {@code SUBSCRIBE big}, and waits (bounded) until the subscription has started. */
    private static Subscriber subscribed(SqlTesting.Stack stack, PgWireServer server, Socket socket) throws Exception {
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
        return new Subscriber(in, out);
    }

    @Test
    void aClientThatStopsReadingIsEndedAsLaggedWithinTheBoundAndItsSessionStillAnswers() throws Exception {
        try (SqlTesting.Stack stack = SqlTesting.stack(dir);
                PgWireServer server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0);
                Connection writer = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/tandem?user=w");
                Socket socket = smallWindow(server.port())) {
            writer.createStatement().execute("CREATE TABLE big (id bigint NOT NULL, pad text)");
            Subscriber sub = subscribed(stack, server, socket);
            DataInputStream in = sub.in();
            DataOutputStream out = sub.out();

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
            peak = untilEnded(stack, peak);
            long written = peak;
            List<Object[]> answer = untilReady(in, () -> "the peak of bytes waiting in subscriptions while writing " + written + ", now "
                    + stack.bufferedStreamBytes() + " in " + stack.openStreams() + " open streams");
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

    /**
     * The server's event loops fall behind (here: stop) while the changes come: what the stream hands to
     * a connection waits on its event loop until written, so the stream takes no more until the event loop
     * has written it and the socket can take more, and the changes wait in the subscription, bounded.
     */
    @Test
    void eventLoopsThatFallBehindLeaveTheChangesInTheBoundedSubscription() throws Exception {
        try (SqlTesting.Stack stack = SqlTesting.stack(dir);
                PgWireServer server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0);
                Socket socket = smallWindow(server.port())) {
            SqlSession writer = new SqlSession();
            run(stack, writer, "CREATE TABLE big (id bigint NOT NULL, pad text)");
            Subscriber sub = subscribed(stack, server, socket);
            CountDownLatch resume = new CountDownLatch(1);
            long peak = 0;
            try {
                for (EventExecutor loop : TcpResources.get().onServer(true)) {
                    loop.execute(() -> {
                        try {
                            resume.await(60, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    });
                }
                String pad = "'" + "x".repeat(8_000) + "'";
                for (int w = 0; w < 60; w++) {
                    StringBuilder insert = new StringBuilder("INSERT INTO big VALUES ");
                    for (int i = 0; i < 100; i++) {
                        insert.append(i == 0 ? "(" : ", (").append(w * 100 + i).append(", ").append(pad).append(')');
                    }
                    run(stack, writer, insert.toString());
                    peak = Math.max(peak, stack.bufferedStreamBytes());
                }
                peak = untilEnded(stack, peak);
            } finally {
                resume.countDown();
            }
            List<Object[]> answer = untilReady(sub.in());
            Object[] error = answer.get(answer.size() - 2);
            assertThat((char) error[0]).isEqualTo('E');
            assertThat(new String((byte[]) error[1], StandardCharsets.UTF_8)).contains("fell more than", "bytes (tandem.subscribe.buffer-bytes)");
            assertThat(peak).isLessThanOrEqualTo(ChangeStreamLimits.BUFFER_BYTES + 100 * 8_100);
            assertThat(stack.bufferedStreamBytes()).isZero();
        }
    }

    private static void run(SqlTesting.Stack stack, SqlSession session, String sql) {
        stack.engine().prepareAsync(sql, session).flatMap(s -> stack.engine().execute(s, List.of(), session)).block(Duration.ofSeconds(30));
    }
}
