package dev.tandem.pgwire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.security.AccessPrincipal;
import dev.tandem.security.AuditLog;
import dev.tandem.security.Role;
import dev.tandem.sql.SqlTesting;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Malformed start-up and authentication messages, written as raw bytes over a socket to a server that
 * asks for a password, each on its own connection: every answer is well-formed protocol (an ErrorResponse with a start-up SQLSTATE,
 * an authentication request, or nothing), no garbage ever authenticates, and a real client logs in and
 * queries afterwards.
 */
class PgWireAuthFuzzTest {

    static final String USER = "ada";
    static final String PASSWORD = "the-right-secret-0123";
    /** The SQLSTATEs a refused start-up may carry. */
    static final Set<String> STARTUP_STATES = Set.of("08P01", "28000", "28P01", "0A000");

    @TempDir
    Path dir;

    @Test
    void malformedStartupAndPasswordMessagesGetTheProtocolsErrorAndNeverAuthenticate() throws Exception {
        long seed = new Random().nextLong();
        System.out.println("PgWireAuthFuzzTest seed " + seed);
        Random random = new Random(seed);
        PgAuthenticator tokens = new PgAuthenticator() {
            @Override
            public boolean asksPassword() {
                return true;
            }

            @Override
            public Optional<AccessPrincipal> login(String user, String password) {
                return USER.equals(user) && PASSWORD.equals(password)
                        ? Optional.of(new AccessPrincipal(USER, Set.of(Role.ADMIN), null, "token")) : Optional.empty();
            }
        };
        AuditLog audit = new AuditLog(Clock.systemUTC(), 10_000);
        try (SqlTesting.Stack stack = SqlTesting.stack(dir);
                PgWireServer server = PgWireServer.start(stack.engine(), tokens, audit, null, "127.0.0.1", 0)) {
            List<String> wrong = new ArrayList<>();
            int errors = 0;
            for (int i = 0; i < 300; i++) {
                byte[] input = input(random, i);
                Reply reply = exchange(server.port(), input);
                String problem = reply.problem();
                if (problem != null) {
                    wrong.add("case " + i + " (seed " + seed + "): " + problem + "; input " + hex(input));
                }
                errors += reply.errors.size();
            }
            assertThat(wrong).as("answers that are not the protocol's").isEmpty();
            assertThat(errors).as("refusals seen (an answer slower than a second is not counted)").isGreaterThan(50);
            assertThat(audit.recent()).anySatisfy(e -> assertThat(e.toString()).contains("action=authenticate", "refused"));

            // The server still serves a real client.
            try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/tandem?sslmode=disable&user="
                    + USER + "&password=" + PASSWORD); Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT 1 + 1")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getLong(1)).isEqualTo(2);
            }
        }
    }

    /** One fuzz input: a start-up exchange with one thing broken, chosen by {@code i}. */
    static byte[] input(Random random, int i) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(b);
        switch (i % 10) {
            case 0 -> { // random bytes
                byte[] r = new byte[random.nextInt(64)];
                random.nextBytes(r);
                out.write(r);
            }
            case 1 -> { // a length that lies
                out.writeInt(random.nextInt());
                out.writeInt(196608);
                out.write(params(USER));
            }
            case 2 -> { // a right length over random parameters
                byte[] r = new byte[random.nextInt(48)];
                random.nextBytes(r);
                packet(out, 196608, r);
            }
            case 3 -> { // an unknown protocol version or request code
                packet(out, random.nextInt(), params(USER));
            }
            case 4 -> { // no user, or a parameter without its terminator
                packet(out, 196608, random.nextBoolean() ? params(null) : "user\0ada".getBytes(StandardCharsets.UTF_8));
            }
            case 5 -> { // a wrong password
                packet(out, 196608, params(USER));
                password(out, 'p', ("wrong" + random.nextInt() + "\0").getBytes(StandardCharsets.UTF_8));
            }
            case 6 -> { // a password message of another type, or broken
                packet(out, 196608, params(USER));
                byte[] r = new byte[random.nextInt(24)];
                random.nextBytes(r);
                password(out, random.nextBoolean() ? (char) random.nextInt(256) : 'p', r);
            }
            case 7 -> { // the right password under a lying length
                packet(out, 196608, params(USER));
                out.writeByte('p');
                out.writeInt(random.nextBoolean() ? -random.nextInt(100) : 1 + random.nextInt(3));
                out.write((PASSWORD + "\0").getBytes(StandardCharsets.UTF_8));
            }
            case 8 -> { // SSL and GSS requests (declined: no TLS here), then a broken start-up
                packet(out, random.nextBoolean() ? PgDecoder.SSL_CODE : PgDecoder.GSS_CODE, new byte[0]);
                byte[] r = new byte[random.nextInt(32)];
                random.nextBytes(r);
                out.write(r);
            }
            default -> { // a cancel request for a session that does not exist, or a start-up for another user
                if (random.nextBoolean()) {
                    ByteBuffer body = ByteBuffer.allocate(8).putInt(random.nextInt()).putInt(random.nextInt());
                    packet(out, PgDecoder.CANCEL_CODE, body.array());
                } else {
                    packet(out, 196608, params("eve"));
                    password(out, 'p', (PASSWORD + "\0").getBytes(StandardCharsets.UTF_8));
                }
            }
        }
        return b.toByteArray();
    }

    private static byte[] params(String user) {
        String s = (user == null ? "" : "user\0" + user + "\0") + "database\0tandem\0\0";
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static void packet(DataOutputStream out, int code, byte[] body) throws IOException {
        out.writeInt(8 + body.length);
        out.writeInt(code);
        out.write(body);
    }

    private static void password(DataOutputStream out, char type, byte[] body) throws IOException {
        out.writeByte(type);
        out.writeInt(4 + body.length);
        out.write(body);
    }

    /** The backend's answer to one input, the connection half-closed after it. */
    record Reply(byte[] bytes, List<String> errors, String malformed, boolean authenticated) {

        /** What is wrong with the answer, or null. */
        String problem() {
            if (malformed != null) {
                return malformed;
            }
            if (authenticated) {
                return "garbage authenticated";
            }
            for (String e : errors) {
                if (!STARTUP_STATES.contains(e)) {
                    return "an error with SQLSTATE " + e;
                }
            }
            return null;
        }
    }

    /**
     * Writes {@code input} and reads the answer until the server closes the connection, or until it has
     * been silent for a second: the server then waits for more input, which is a valid answer too.
     */
    static Reply exchange(int port, byte[] input) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(1000);
            s.getOutputStream().write(input);
            s.getOutputStream().flush();
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            InputStream in = s.getInputStream();
            byte[] buf = new byte[4096];
            try {
                for (int n = in.read(buf); n >= 0; n = in.read(buf)) {
                    got.write(buf, 0, n);
                }
            } catch (java.net.SocketTimeoutException | java.net.SocketException silentOrReset) {
                // what arrived before is the answer
            }
            return parse(got.toByteArray());
        }
    }

    static Reply parse(byte[] bytes) {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        List<String> errors = new ArrayList<>();
        boolean authenticated = false;
        while (b.hasRemaining()) {
            char type = (char) (b.get() & 0xff);
            if ((type == 'N' || type == 'S') && (b.remaining() < 4 || b.getInt(b.position()) < 4 || b.getInt(b.position()) > b.remaining())) {
                continue; // the one-byte answer to an SSL or GSS request
            }
            if (b.remaining() < 4) {
                return new Reply(bytes, errors, "a truncated message header", authenticated);
            }
            int len = b.getInt();
            if (len < 4 || len - 4 > b.remaining()) {
                return new Reply(bytes, errors, "a message of length " + len + " with " + b.remaining() + " bytes left", authenticated);
            }
            byte[] body = new byte[len - 4];
            b.get(body);
            switch (type) {
                case 'E' -> {
                    String state = field(body, 'C');
                    if (!"FATAL".equals(field(body, 'S'))) {
                        return new Reply(bytes, errors, "a start-up error that is not FATAL", authenticated);
                    }
                    errors.add(state);
                }
                case 'R' -> authenticated |= ByteBuffer.wrap(body).getInt() == 0;
                case 'S', 'K', 'Z' -> authenticated = true;
                default -> {
                    return new Reply(bytes, errors, "an unexpected message '" + type + "'", authenticated);
                }
            }
        }
        return new Reply(bytes, errors, null, authenticated);
    }

    /** The field {@code code} of an ErrorResponse body, or null. */
    static String field(byte[] body, char code) {
        int i = 0;
        while (i < body.length && body[i] != 0) {
            char c = (char) body[i++];
            int end = i;
            while (end < body.length && body[end] != 0) {
                end++;
            }
            if (c == code) {
                return new String(body, i, end - i, StandardCharsets.UTF_8);
            }
            i = end + 1;
        }
        return null;
    }

    private static String hex(byte[] b) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < Math.min(b.length, 80); i++) {
            s.append(String.format("%02x", b[i]));
        }
        return s.toString();
    }
}
