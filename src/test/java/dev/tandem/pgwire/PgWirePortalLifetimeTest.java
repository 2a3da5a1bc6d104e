package dev.tandem.pgwire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.sql.SqlTesting;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A portal lives until its transaction ends, as in PostgreSQL, also when a simple query ends it: a client
 * mixing the protocols binds a portal inside {@code BEGIN}, executes it there, sends {@code COMMIT} as a
 * simple query, and finds the portal gone (34000), not still answering with the old transaction's rows.
 * Spoken in raw protocol messages, since drivers do not mix the two protocols this way.
 */
class PgWirePortalLifetimeTest {

    /** One backend message: its type and, for an error, its SQLSTATE. */
    private record Message(char type, String sqlState, byte status) {
    }

    @Test
    void aSimpleQueryCommitEndsThePortalsOfItsTransaction(@TempDir Path dir) throws IOException {
        try (SqlTesting.Stack stack = SqlTesting.stack(dir);
                PgWireServer server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0);
                Socket socket = new Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(30_000);
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            DataInputStream in = new DataInputStream(socket.getInputStream());
            byte[] params = "user\0ada\0database\0tandem\0\0".getBytes(StandardCharsets.UTF_8);
            out.writeInt(8 + params.length);
            out.writeInt(196608);
            out.write(params);
            assertThat(untilReady(in)).last().satisfies(m -> assertThat(m.status()).isEqualTo((byte) 'I'));

            send(out, 'Q', cstring("CREATE TABLE t (a bigint)"));
            untilReady(in);
            send(out, 'Q', cstring("INSERT INTO t VALUES (1), (2)"));
            untilReady(in);
            send(out, 'Q', cstring("BEGIN"));
            assertThat(untilReady(in)).last().satisfies(m -> assertThat(m.status()).isEqualTo((byte) 'T'));

            send(out, 'P', concat(cstring(""), cstring("SELECT a FROM t"), new byte[] {0, 0}));
            send(out, 'B', concat(cstring("p1"), cstring(""), new byte[] {0, 0, 0, 0, 0, 0}));
            send(out, 'E', concat(cstring("p1"), new byte[] {0, 0, 0, 1}));
            send(out, 'S', new byte[0]);
            List<Message> inBlock = untilReady(in);
            assertThat(inBlock).as(inBlock.toString()).extracting(Message::type).containsExactly('1', '2', 'D', 's', 'Z');
            assertThat(inBlock).last().satisfies(m -> assertThat(m.status()).isEqualTo((byte) 'T'));

            // The portal, suspended after one row, is still there inside the block...
            send(out, 'E', concat(cstring("p1"), new byte[] {0, 0, 0, 0}));
            send(out, 'S', new byte[0]);
            assertThat(untilReady(in)).extracting(Message::type).containsExactly('D', 'C', 'Z');

            send(out, 'B', concat(cstring("p2"), cstring(""), new byte[] {0, 0, 0, 0, 0, 0}));
            send(out, 'S', new byte[0]);
            assertThat(untilReady(in)).extracting(Message::type).containsExactly('2', 'Z');
            // ...and gone once a simple COMMIT ends the transaction.
            send(out, 'Q', cstring("COMMIT"));
            assertThat(untilReady(in)).last().satisfies(m -> assertThat(m.status()).isEqualTo((byte) 'I'));
            send(out, 'E', concat(cstring("p2"), new byte[] {0, 0, 0, 0}));
            send(out, 'S', new byte[0]);
            List<Message> after = untilReady(in);
            assertThat(after).extracting(Message::type).containsExactly('E', 'Z');
            assertThat(after.get(0).sqlState()).isEqualTo("34000");
        }
    }

    private static void send(DataOutputStream out, char type, byte[] body) throws IOException {
        out.writeByte(type);
        out.writeInt(4 + body.length);
        out.write(body);
        out.flush();
    }

    /** The messages up to and including ReadyForQuery (authentication and parameter messages skipped). */
    private static List<Message> untilReady(DataInputStream in) throws IOException {
        List<Message> got = new ArrayList<>();
        while (true) {
            char type = (char) in.readUnsignedByte();
            byte[] body = new byte[in.readInt() - 4];
            in.readFully(body);
            switch (type) {
                case 'R', 'S', 'K', 'N' -> {
                    continue;
                }
                case 'E' -> got.add(new Message(type, field(body, 'C'), (byte) 0));
                case 'Z' -> {
                    got.add(new Message(type, null, body[0]));
                    return got;
                }
                default -> got.add(new Message(type, null, (byte) 0));
            }
        }
    }

    /** The field {@code code} of an ErrorResponse body. */
    private static String field(byte[] body, char code) {
        int p = 0;
        while (p < body.length && body[p] != 0) {
            int end = p + 1;
            while (body[end] != 0) {
                end++;
            }
            if (body[p] == code) {
                return new String(body, p + 1, end - p - 1, StandardCharsets.UTF_8);
            }
            p = end + 1;
        }
        return null;
    }

    private static byte[] cstring(String s) {
        return (s + "\0").getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            b.writeBytes(p);
        }
        return b.toByteArray();
    }
}
