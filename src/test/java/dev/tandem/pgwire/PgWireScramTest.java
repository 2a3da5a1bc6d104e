package dev.tandem.pgwire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tandem.security.ApiToken;
import dev.tandem.security.AuditLog;
import dev.tandem.security.ScramVerifier;
import dev.tandem.security.TokenDirectory;
import dev.tandem.security.TokenHash;
import dev.tandem.sql.SqlTesting;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.crypto.Mac;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SCRAM-SHA-256 logins over real sockets, against a server listening on every address with API tokens
 * ({@link TokenAuthenticator}): {@code ada} has a SCRAM verifier, {@code bob} only a hash, {@code rep}
 * (a replica) a verifier but no SQL role. pgjdbc and psql log in over SCRAM, also from a non-loopback
 * address without TLS (where a cleartext password is refused) and over TLS; a hand-written SCRAM client
 * (the JDK's PBKDF2, not the code under test) runs the exchange byte by byte, and every malformed,
 * replayed or mutated SASL message it sends ends the connection with FATAL 08P01 (or 28P01 for a proof
 * that does not hold) without authenticating, while the server goes on serving.
 */
class PgWireScramTest {

    static final SecureRandom RANDOM = new SecureRandom();

    @TempDir
    Path dir;

    String adaSecret = TokenHash.newSecret(RANDOM);
    String bobSecret = TokenHash.newSecret(RANDOM);
    ScramVerifier adaVerifier = ScramVerifier.create(adaSecret, RANDOM);
    TokenDirectory tokens;
    AuditLog audit = new AuditLog(Clock.systemUTC(), 1000);
    SqlTesting.Stack stack;
    PgWireServer server;
    /** Loopback, and a non-loopback address of this machine when it has one. */
    List<String> hosts = new ArrayList<>(List.of("127.0.0.1"));
    String external;

    @BeforeEach
    void start() throws Exception {
        tokens = new TokenDirectory(List.of(
                ApiToken.parse(0, "ada", TokenHash.hash(adaSecret, RANDOM), "admin", null, adaVerifier.encode()),
                ApiToken.parse(1, "bob", TokenHash.hash(bobSecret, RANDOM), "reader", null, null),
                ApiToken.parse(2, "rep", TokenHash.hash(bobSecret, RANDOM), "replica", null, ScramVerifier.create(bobSecret, RANDOM).encode())));
        stack = SqlTesting.stack(dir);
        server = PgWireServer.start(stack.engine(), new TokenAuthenticator(tokens, RANDOM), audit, null, "0.0.0.0", 0);
        InetAddress a = nonLoopbackAddress();
        if (a != null) {
            external = a.getHostAddress();
            hosts.add(external);
        } else {
            System.err.println("!!! PgWireScramTest: no non-loopback address; SCRAM is tried from loopback only");
        }
    }

    @AfterEach
    void stop() {
        server.close();
        stack.close();
    }

    @Test
    void pgjdbcLogsInOverScramAndAWrongSecretOrAnUnknownUserIs28P01() throws Exception {
        for (String host : hosts) {
            assertThat(selectOnePlusOne(host, "ada", adaSecret)).as(host).isEqualTo(2);
            assertRefused(host, "ada", bobSecret, "28P01", "password authentication failed for user \"ada\"");
            assertRefused(host, "eve", adaSecret, "28P01", "password authentication failed for user \"eve\"");
        }
        // A token without a verifier keeps the cleartext path: from loopback only, as there is no TLS here.
        assertThat(selectOnePlusOne("127.0.0.1", "bob", bobSecret)).isEqualTo(2);
        if (external != null) {
            assertRefused(external, "bob", bobSecret, "28000", "needs an encrypted connection");
        }
        assertThat(audit.recent()).anySatisfy(e -> assertThat(e.toString()).contains("target=pgwire user ada",
                "outcome=refused: password authentication failed"));
        // The right secret of a token without a SQL role: authenticated, then refused.
        assertRefused("127.0.0.1", "rep", bobSecret, "42501", "'rep' has no role that may use SQL");

        // Rotation: a new verifier replaces the old one at once.
        String next = TokenHash.newSecret(RANDOM);
        tokens.replace(List.of(ApiToken.parse(0, "ada", TokenHash.hash(next, RANDOM), "admin", null, ScramVerifier.create(next, RANDOM).encode())));
        assertRefused("127.0.0.1", "ada", adaSecret, "28P01", "password authentication failed for user \"ada\"");
        assertThat(selectOnePlusOne("127.0.0.1", "ada", next)).isEqualTo(2);
    }

    @Test
    void overTlsPgjdbcAndPsqlLogInOverScramToo() throws Exception {
        Path keystore = dir.resolve("tandem.p12");
        String password = "changeit-" + RANDOM.nextInt(1000);
        Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(), "-genkeypair",
                "-alias", "tandem", "-keyalg", "EC", "-validity", "2", "-dname", "CN=localhost", "-storetype", "PKCS12",
                "-keystore", keystore.toString(), "-storepass", password, "-keypass", password).redirectErrorStream(true).start();
        assertThat(keytool.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(keytool.exitValue()).as(new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).isZero();
        java.security.KeyStore ks = java.security.KeyStore.getInstance("PKCS12");
        try (var in = Files.newInputStream(keystore)) {
            ks.load(in, password.toCharArray());
        }
        javax.net.ssl.KeyManagerFactory kmf = javax.net.ssl.KeyManagerFactory.getInstance(javax.net.ssl.KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, password.toCharArray());
        try (PgWireServer tls = PgWireServer.start(stack.engine(), new TokenAuthenticator(tokens, RANDOM), audit,
                io.netty.handler.ssl.SslContextBuilder.forServer(kmf).build(), "0.0.0.0", 0)) {
            String host = external != null ? external : "127.0.0.1";
            try (Connection c = DriverManager.getConnection("jdbc:postgresql://" + host + ":" + tls.port() + "/tandem?sslmode=require",
                    "ada", adaSecret); Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT 1 + 1")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getInt(1)).isEqualTo(2);
            }
            String psql = findPsql();
            if (psql != null) {
                // libpq over TLS prefers channel binding by default; not offered it, it sends the gs2 header y,,.
                Psql ok = psql(psql, host, tls.port(), "ada", adaSecret, "require", "SELECT 40 + 2 AS answer");
                assertThat(ok.exit).as(ok.output).isZero();
                assertThat(ok.output).contains("answer\n42\n(1 row)");
            }
        }
    }

    @Test
    void psqlLogsInOverScramWithoutTls() throws Exception {
        String psql = findPsql();
        if (psql == null) {
            System.err.println("!!! PgWireScramTest: no psql on the PATH; the psql login is skipped");
            return;
        }
        String host = external != null ? external : "127.0.0.1";
        Psql ok = psql(psql, host, server.port(), "ada", adaSecret, "disable", "SELECT 40 + 2 AS answer");
        assertThat(ok.exit).as(ok.output).isZero();
        assertThat(ok.output).contains("answer\n42\n(1 row)");
        Psql refused = psql(psql, host, server.port(), "ada", bobSecret, "disable", "SELECT 1");
        assertThat(refused.exit).isNotZero();
        assertThat(refused.output).contains("password authentication failed for user \"ada\"");
    }

    @Test
    void theExchangeRunsByteByByteAndTheServerProvesItHoldsTheVerifier() throws Exception {
        try (Raw c = new Raw(server.port(), "ada")) {
            Msg offer = c.read();
            assertThat(offer.type).isEqualTo('R');
            assertThat(offer.int32()).isEqualTo(10);
            assertThat(new String(offer.body, 4, offer.body.length - 4, StandardCharsets.UTF_8)).as("SCRAM-SHA-256 only, no -PLUS")
                    .isEqualTo("SCRAM-SHA-256\0\0");
            Exchange x = c.login(adaSecret, "n,,", "client-nonce-1");
            assertThat(x.serverFirst).startsWith("r=client-nonce-1")
                    .endsWith(",s=" + Base64.getEncoder().encodeToString(adaVerifier.salt()) + ",i=4096");
            Msg last = c.read();
            assertThat(last.type).isEqualTo('R');
            assertThat(last.int32()).isEqualTo(12);
            assertThat(new String(last.body, 4, last.body.length - 4, StandardCharsets.US_ASCII)).as("the server's signature")
                    .isEqualTo("v=" + Base64.getEncoder().encodeToString(x.serverSignature));
            assertThat(c.readUntilEnd()).contains("auth-ok").doesNotContain("E:");
        }
        try (Raw c = new Raw(server.port(), "ada")) {
            c.read();
            c.login(adaSecret, "y,,", "client-nonce-2");
            assertThat(c.readUntilEnd()).as("gs2 header y,,").contains("R12", "auth-ok");
        }
    }

    @Test
    void malformedSaslMessagesAreFatalProtocolErrorsAndNeverAuthenticate() throws Exception {
        // A good exchange whose final message is replayed below.
        byte[] capturedFinal;
        try (Raw c = new Raw(server.port(), "ada")) {
            c.read();
            capturedFinal = c.login(adaSecret, "n,,", "replayed-nonce").clientFinal;
            assertThat(c.readUntilEnd()).contains("auth-ok");
        }
        List<String> outcomes = new ArrayList<>();
        outcomes.add(refusal("wrong mechanism", c -> c.initial("SCRAM-SHA-1", "n,,n=,r=abc".getBytes(StandardCharsets.UTF_8)),
                "08P01", "SASL mechanism \"SCRAM-SHA-1\" is not offered"));
        outcomes.add(refusal("-PLUS, not offered", c -> c.initial("SCRAM-SHA-256-PLUS", "p=tls-server-end-point,,n=,r=abc".getBytes(StandardCharsets.UTF_8)),
                "08P01", "is not offered"));
        outcomes.add(refusal("channel binding requested", c -> c.initial("SCRAM-SHA-256", "p=tls-server-end-point,,n=,r=abc".getBytes(StandardCharsets.UTF_8)),
                "08P01", "channel binding (p=tls-server-end-point) is not supported"));
        outcomes.add(refusal("initial response's length beyond its message", c -> {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            DataOutputStream d = new DataOutputStream(b);
            d.write("SCRAM-SHA-256\0".getBytes(StandardCharsets.UTF_8));
            d.writeInt(100);
            d.write("n,,n=,r=abc".getBytes(StandardCharsets.UTF_8));
            c.send('p', b.toByteArray());
        }, "08P01", "does not match the message"));
        outcomes.add(refusal("initial response cut before its length", c -> c.send('p', "SCRAM-SHA-256\0\0\0".getBytes(StandardCharsets.UTF_8)),
                "08P01", "insufficient data left in message"));
        outcomes.add(refusal("mechanism name without its terminator", c -> c.send('p', "SCRAM-SHA-256".getBytes(StandardCharsets.UTF_8)),
                "08P01", "invalid string in message"));
        outcomes.add(refusal("no initial response data (-1)", c -> {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            new DataOutputStream(b).write("SCRAM-SHA-256\0\u00ff\u00ff\u00ff\u00ff".getBytes(StandardCharsets.ISO_8859_1));
            c.send('p', b.toByteArray());
        }, "08P01", "data length -1"));
        outcomes.add(refusal("a query instead of the initial response", c -> c.send('Q', "SELECT 1\0".getBytes(StandardCharsets.UTF_8)),
                "08P01", "expected a SASL response"));
        outcomes.add(refusal("bad base64 proof", c -> {
            Exchange x = c.first("n,,", "nonce-b64");
            c.send('p', ("c=biws,r=" + x.nonce + ",p=@@not-base64@@").getBytes(StandardCharsets.UTF_8));
        }, "08P01", "proof is not base64"));
        outcomes.add(refusal("wrong nonce", c -> {
            Exchange x = c.first("n,,", "nonce-w");
            c.send('p', ("c=biws,r=" + x.nonce + "X,p=" + Base64.getEncoder().encodeToString(new byte[32])).getBytes(StandardCharsets.UTF_8));
        }, "08P01", "nonce mismatch"));
        outcomes.add(refusal("a final message replayed from another connection", c -> {
            c.first("n,,", "replayed-nonce");
            c.send('p', capturedFinal);
        }, "08P01", "nonce mismatch"));
        outcomes.add(refusal("truncated final message", c -> {
            Exchange x = c.first("n,,", "nonce-t");
            c.send('p', ("c=biws,r=" + x.nonce).getBytes(StandardCharsets.UTF_8));
        }, "08P01", "no proof"));
        outcomes.add(refusal("a proof for another exchange (wrong password, in effect)", c -> {
            Exchange x = c.first("n,,", "nonce-p");
            String replayedProof = new String(capturedFinal, StandardCharsets.UTF_8).replaceAll("^.*,p=", "");
            c.send('p', ("c=biws,r=" + x.nonce + ",p=" + replayedProof).getBytes(StandardCharsets.UTF_8));
        }, "28P01", "password authentication failed for user \"ada\""));
        assertThat(outcomes).allMatch(String::isEmpty);
        assertThat(audit.recent()).anySatisfy(e -> assertThat(e.toString()).contains("refused: malformed SASL message"));

        // The server goes on serving.
        assertThat(selectOnePlusOne("127.0.0.1", "ada", adaSecret)).isEqualTo(2);
    }

    @Test
    void mutatedSaslMessagesNeverAuthenticate() throws Exception {
        long seed = new java.util.Random().nextLong();
        System.out.println("PgWireScramTest seed " + seed);
        java.util.Random random = new java.util.Random(seed);
        List<String> wrong = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            try (Raw c = new Raw(server.port(), "ada")) {
                c.read();
                boolean mutateFirst = i % 3 == 0;
                String got;
                if (mutateFirst) {
                    byte[] first = mutate(("n,,n=,r=nonce-" + i).getBytes(StandardCharsets.UTF_8), random);
                    c.initial("SCRAM-SHA-256", first);
                    Msg answer = c.read();
                    // A mutation may leave a valid client-first message: the server then awaits the final one.
                    if (answer.type == 'R' && answer.int32() == 11) {
                        got = "R11 ";
                    } else if (answer.type == 'E') {
                        got = "E:" + PgWireAuthFuzzTest.field(answer.body, 'C') + ": " + c.readUntilEnd();
                    } else {
                        got = answer.type + " " + c.readUntilEnd();
                    }
                } else {
                    c.login(adaSecret, "n,,", "nonce-" + i, m -> mutate(m, random));
                    got = c.readUntilEnd();
                }
                boolean ok = !got.contains("auth-ok") && (got.contains("E:08P01:") || got.contains("E:28P01:") || got.startsWith("R11 "));
                if (!ok) {
                    wrong.add("case " + i + " (seed " + seed + "): " + got);
                }
            }
        }
        assertThat(wrong).isEmpty();
        assertThat(selectOnePlusOne("127.0.0.1", "ada", adaSecret)).isEqualTo(2);
    }

    /** {@code message} with one byte changed, one removed, or cut short; never the same bytes. */
    private static byte[] mutate(byte[] message, java.util.Random random) {
        int at = random.nextInt(message.length);
        return switch (random.nextInt(3)) {
            case 0 -> {
                byte[] m = message.clone();
                m[at] ^= (byte) (1 + random.nextInt(255));
                yield m;
            }
            case 1 -> {
                byte[] m = new byte[message.length - 1];
                System.arraycopy(message, 0, m, 0, at);
                System.arraycopy(message, at + 1, m, at, message.length - at - 1);
                yield m;
            }
            default -> java.util.Arrays.copyOf(message, at);
        };
    }

    @Test
    void anUnknownUserRunsAMockExchangeThatLooksLikeARealOne() throws Exception {
        List<String> salts = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            try (Raw c = new Raw(server.port(), "eve")) {
                Msg offer = c.read();
                assertThat(offer.int32()).isEqualTo(10);
                Exchange x = c.login("any-guess-at-all-0000", "n,,", "eve-nonce-" + i);
                String[] parts = x.serverFirst.split(",");
                assertThat(parts[2]).isEqualTo("i=4096");
                assertThat(Base64.getDecoder().decode(parts[1].substring(2))).hasSize(16);
                salts.add(parts[1]);
                assertThat(c.readUntilEnd()).contains("E:28P01:password authentication failed for user \"eve\"").doesNotContain("auth-ok");
            }
        }
        assertThat(salts.get(0)).as("the same salt on every attempt").isEqualTo(salts.get(1));
        try (Raw c = new Raw(server.port(), "mallory")) {
            c.read();
            assertThat(c.first("n,,", "m").serverFirst).as("another name, another salt").doesNotContain(salts.get(0));
        }
    }

    // ------------------------------------------------------------------ helpers

    private interface Step {
        void run(Raw c) throws Exception;
    }

    /** Runs {@code step} on a fresh connection for ada: empty when it ends with FATAL {@code state} and {@code message}, unauthenticated. */
    private String refusal(String what, Step step, String state, String message) throws Exception {
        try (Raw c = new Raw(server.port(), "ada")) {
            c.read();
            step.run(c);
            String got = c.readUntilEnd();
            return got.contains("E:" + state + ":") && got.contains(message) && !got.contains("auth-ok") && got.endsWith("closed")
                    ? "" : what + ": got " + got;
        }
    }

    private int selectOnePlusOne(String host, String user, String password) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://" + host + ":" + server.port() + "/tandem?sslmode=disable&connectTimeout=10",
                user, password); Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT 1 + 1")) {
            assertThat(rs.next()).isTrue();
            return rs.getInt(1);
        }
    }

    private void assertRefused(String host, String user, String password, String state, String message) {
        assertThatThrownBy(() -> selectOnePlusOne(host, user, password)).as(user + " from " + host)
                .isInstanceOfSatisfying(SQLException.class, e -> {
                    assertThat(e.getSQLState()).isEqualTo(state);
                    assertThat(e.getMessage()).contains(message);
                });
    }

    record Msg(char type, byte[] body) {
        int int32() {
            return ByteBuffer.wrap(body).getInt();
        }
    }

    /** What the client learned from a first round: the server-first message, the full nonce, and the messages it computed. */
    record Exchange(String clientFirstBare, String serverFirst, String nonce, byte[] clientFinal, byte[] serverSignature) {
    }

    /** A raw connection that has sent a start-up packet for {@code user}; every read waits at most 10 seconds. */
    static final class Raw implements AutoCloseable {
        final Socket socket;
        final DataInputStream in;
        final DataOutputStream out;

        Raw(int port, String user) throws IOException {
            socket = new Socket("127.0.0.1", port);
            socket.setSoTimeout(10_000);
            in = new DataInputStream(socket.getInputStream());
            out = new DataOutputStream(socket.getOutputStream());
            byte[] params = ("user\0" + user + "\0database\0tandem\0\0").getBytes(StandardCharsets.UTF_8);
            out.writeInt(8 + params.length);
            out.writeInt(196608);
            out.write(params);
            out.flush();
        }

        Msg read() throws IOException {
            char type = (char) in.readUnsignedByte();
            byte[] body = new byte[in.readInt() - 4];
            in.readFully(body);
            return new Msg(type, body);
        }

        void send(char type, byte[] body) throws IOException {
            out.writeByte(type);
            out.writeInt(4 + body.length);
            out.write(body);
            out.flush();
        }

        void initial(String mechanism, byte[] data) throws IOException {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            DataOutputStream d = new DataOutputStream(b);
            d.write((mechanism + "\0").getBytes(StandardCharsets.UTF_8));
            d.writeInt(data.length);
            d.write(data);
            send('p', b.toByteArray());
        }

        /** Sends the client-first message and reads the server-first one. */
        Exchange first(String gs2, String clientNonce) throws IOException {
            String bare = "n=,r=" + clientNonce;
            initial("SCRAM-SHA-256", (gs2 + bare).getBytes(StandardCharsets.UTF_8));
            Msg m = read();
            if (m.type != 'R' || m.int32() != 11) {
                throw new IllegalStateException("expected AuthenticationSASLContinue, got " + m.type);
            }
            String serverFirst = new String(m.body, 4, m.body.length - 4, StandardCharsets.UTF_8);
            return new Exchange(bare, serverFirst, serverFirst.split(",")[0].substring(2), null, null);
        }

        /** A whole exchange with {@code password}, computed here from RFC 5802's definitions; the server's answer to the final message is left unread. */
        Exchange login(String password, String gs2, String clientNonce) throws Exception {
            return login(password, gs2, clientNonce, m -> m);
        }

        /** As {@link #login(String, String, String)}, sending {@code tamper} of the client-final message. */
        Exchange login(String password, String gs2, String clientNonce, java.util.function.UnaryOperator<byte[]> tamper) throws Exception {
            Exchange f = first(gs2, clientNonce);
            String[] attrs = f.serverFirst.split(",");
            byte[] salt = Base64.getDecoder().decode(attrs[1].substring(2));
            int iterations = Integer.parseInt(attrs[2].substring(2));
            String withoutProof = "c=" + Base64.getEncoder().encodeToString(gs2.getBytes(StandardCharsets.UTF_8)) + ",r=" + f.nonce;
            byte[] authMessage = (f.clientFirstBare + "," + f.serverFirst + "," + withoutProof).getBytes(StandardCharsets.UTF_8);
            byte[] salted = SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256")
                    .generateSecret(new PBEKeySpec(password.toCharArray(), salt, iterations, 256)).getEncoded();
            byte[] clientKey = hmac(salted, "Client Key".getBytes(StandardCharsets.US_ASCII));
            byte[] signature = hmac(MessageDigest.getInstance("SHA-256").digest(clientKey), authMessage);
            byte[] proof = new byte[32];
            for (int i = 0; i < 32; i++) {
                proof[i] = (byte) (clientKey[i] ^ signature[i]);
            }
            byte[] clientFinal = (withoutProof + ",p=" + Base64.getEncoder().encodeToString(proof)).getBytes(StandardCharsets.UTF_8);
            send('p', tamper.apply(clientFinal));
            byte[] serverSignature = hmac(hmac(salted, "Server Key".getBytes(StandardCharsets.US_ASCII)), authMessage);
            return new Exchange(f.clientFirstBare, f.serverFirst, f.nonce, clientFinal, serverSignature);
        }

        /**
         * Reads until the server closes the connection or says ReadyForQuery; a summary such as
         * {@code R12 auth-ok S S K Z} or {@code E:08P01:message closed}.
         */
        String readUntilEnd() throws IOException {
            StringBuilder s = new StringBuilder();
            while (true) {
                Msg m;
                try {
                    m = read();
                } catch (EOFException | SocketException closed) {
                    return s.append("closed").toString();
                }
                switch (m.type) {
                    case 'R' -> s.append(m.int32() == 0 ? "auth-ok " : "R" + m.int32() + " ");
                    case 'E' -> s.append("E:").append(PgWireAuthFuzzTest.field(m.body, 'C')).append(':').append(PgWireAuthFuzzTest.field(m.body, 'M')).append(':')
                            .append(PgWireAuthFuzzTest.field(m.body, 'S')).append(' ');
                    case 'Z' -> {
                        return s.append("Z").toString();
                    }
                    default -> s.append(m.type).append(' ');
                }
            }
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    static byte[] hmac(byte[] key, byte[] data) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key, "HmacSHA256"));
        return mac.doFinal(data);
    }

    static InetAddress nonLoopbackAddress() throws Exception {
        for (NetworkInterface i : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (!i.isUp() || i.isLoopback()) {
                continue;
            }
            for (InetAddress a : Collections.list(i.getInetAddresses())) {
                if (a instanceof Inet4Address && !a.isLoopbackAddress() && !a.isLinkLocalAddress()) {
                    return a;
                }
            }
        }
        return null;
    }

    record Psql(int exit, String output) {
    }

    static Psql psql(String psql, String host, int port, String user, String password, String sslmode, String sql) throws Exception {
        ProcessBuilder b = new ProcessBuilder(psql, "-h", host, "-p", Integer.toString(port), "-U", user, "-d", "tandem", "-X", "-A", "-w",
                "-v", "ON_ERROR_STOP=1", "-c", sql).redirectErrorStream(true);
        b.environment().put("PGPASSWORD", password);
        b.environment().put("PGSSLMODE", sslmode);
        Process p = b.start();
        p.getOutputStream().close();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("psql did not finish in 30 s");
        }
        return new Psql(p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    }

    private static String findPsql() {
        for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
            Path p = Path.of(d, "psql");
            if (Files.isExecutable(p)) {
                return p.toString();
            }
        }
        return null;
    }
}
