package dev.tandem.pgwire;

import static dev.tandem.pgwire.PgRawClient.bind;
import static dev.tandem.pgwire.PgRawClient.concat;
import static dev.tandem.pgwire.PgRawClient.cstring;
import static dev.tandem.pgwire.PgRawClient.describe;
import static dev.tandem.pgwire.PgRawClient.execute;
import static dev.tandem.pgwire.PgRawClient.frame;
import static dev.tandem.pgwire.PgRawClient.int16;
import static dev.tandem.pgwire.PgRawClient.int32;
import static dev.tandem.pgwire.PgRawClient.parse;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.tandem.pgwire.PgRawClient.Message;
import dev.tandem.sql.SqlTesting;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Randomly mutated frontend messages of every type (Parse, Bind, Describe, Execute, Close, Sync, Flush,
 * Query, CopyData, CopyDone, CopyFail, Terminate, start-up), written as raw bytes from a fixed seed: the
 * server never answers {@code XX000} nor logs an internal error for them; a well-framed message with a
 * mutated body is answered with an ERROR, never FATAL, and its connection answers a probe query
 * afterwards; a broken frame or start-up packet may end its connection (FATAL {@code 08P01}), and a probe
 * connection opened before the first input keeps answering throughout.
 */
class PgWireProtocolFuzzTest {

    private static final long SEED = 0x7a4d_3e21_9b0cL;
    /** Connections whose messages are well framed, each several mutated messages, each followed by Sync. */
    private static final int BODY_CASES = 500;
    private static final int MESSAGES_PER_CASE = 6;
    /** Connections with a broken frame, and with a mutated start-up packet. */
    private static final int FRAME_CASES = 300;
    private static final int STARTUP_CASES = 300;
    /** Every read waits at most this long: a silent server is a failure, not a pause. */
    private static final int READ_TIMEOUT_MILLIS = 20_000;
    private static final String PROBE = "SELECT 424242";
    /** The SQLSTATEs a refused start-up may carry. */
    private static final Set<String> STARTUP_STATES = Set.of("08P01", "28000", "0A000");

    @TempDir
    Path dir;

    @Test
    void mutatedMessagesAreRefusedCleanlyAndTheServerKeepsAnswering() throws IOException {
        Random random = new Random(SEED);
        Logger log = (Logger) LoggerFactory.getLogger(PgSession.class);
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        logged.start();
        log.addAppender(logged);
        List<String> wrong = new ArrayList<>();
        int messages = 0;
        int refusals = 0;
        try (SqlTesting.Stack stack = SqlTesting.stack(dir);
                PgWireServer server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0);
                PgRawClient probe = new PgRawClient(server.port(), READ_TIMEOUT_MILLIS)) {
            assertThat(probe.startup("probe")).last().extracting(Message::type).isEqualTo('Z');
            probe.send('Q', cstring("CREATE TABLE t (a bigint)"));
            probe.untilReady();
            probe.send('Q', cstring("INSERT INTO t VALUES (1), (2), (3)"));
            probe.untilReady();

            for (int i = 0; i < BODY_CASES; i++) {
                try (PgRawClient c = new PgRawClient(server.port(), READ_TIMEOUT_MILLIS)) {
                    c.startup("fuzz");
                    c.send('P', parse("s1", "SELECT a FROM t WHERE a = $1", 20));
                    c.send('B', bind("p1", "s1", new int[0], new String[] {"1"}, new int[0]));
                    c.send('S', new byte[0]);
                    c.untilReady();
                    List<String> sent = new ArrayList<>();
                    List<byte[]> frames = new ArrayList<>();
                    for (int k = 0; k < MESSAGES_PER_CASE; k++) {
                        char type = BODY_TYPES.charAt(random.nextInt(BODY_TYPES.length()));
                        byte[] body = mutate(random, seedBody(random, type));
                        sent.add(type + ":" + HexFormat.of().formatHex(body, 0, Math.min(body.length, 60)));
                        frames.add(concat(frame(type, body), frame('S', new byte[0])));
                        messages++;
                    }
                    frames.add(frame('Q', cstring(PROBE)));
                    // one write, so that a connection the server ends early shows in what is read, not as a failed write
                    c.writeRaw(concat(frames.toArray(byte[][]::new)));
                    List<Message> got = untilProbe(c);
                    refusals += (int) got.stream().filter(m -> m.type() == 'E').count();
                    String problem = problem(got, false);
                    if (problem == null && !answersProbe(got)) {
                        problem = "the connection did not answer the probe afterwards: " + got;
                    }
                    if (problem != null) {
                        wrong.add("body case " + i + ": " + problem + "; sent " + sent);
                    }
                }
                if (i % 50 == 0) {
                    assertProbeAnswers(probe);
                }
            }

            for (int i = 0; i < FRAME_CASES; i++) {
                try (PgRawClient c = new PgRawClient(server.port(), READ_TIMEOUT_MILLIS)) {
                    c.startup("fuzz");
                    byte[] input = brokenFrame(random);
                    c.writeRaw(input);
                    c.shutdownOutput();
                    messages++;
                    List<Message> got = c.untilClosed();
                    refusals += (int) got.stream().filter(m -> m.type() == 'E').count();
                    String problem = problem(got, true);
                    if (problem != null) {
                        wrong.add("frame case " + i + ": " + problem + "; sent " + HexFormat.of().formatHex(input, 0, Math.min(input.length, 60)));
                    }
                }
                if (i % 50 == 0) {
                    assertProbeAnswers(probe);
                }
            }

            for (int i = 0; i < STARTUP_CASES; i++) {
                try (PgRawClient c = new PgRawClient(server.port(), READ_TIMEOUT_MILLIS)) {
                    byte[] input = startup(random);
                    c.writeRaw(input);
                    c.writeRaw(frame('Q', cstring(PROBE)));
                    c.shutdownOutput();
                    messages++;
                    c.declined();
                    List<Message> got = c.untilClosed();
                    String problem = startupProblem(got);
                    if (problem != null) {
                        wrong.add("start-up case " + i + ": " + problem + "; sent " + HexFormat.of().formatHex(input, 0, Math.min(input.length, 60)));
                    }
                }
                if (i % 50 == 0) {
                    assertProbeAnswers(probe);
                }
            }
            assertProbeAnswers(probe);
        } finally {
            log.detachAppender(logged);
        }
        assertThat(wrong).as("answers that are not PostgreSQL's kind of refusal (seed %d)", SEED).isEmpty();
        assertThat(messages).isGreaterThanOrEqualTo(3600);
        assertThat(refusals).as("refusals seen").isGreaterThan(1000);
        assertThat(logged.list).as("errors logged").noneMatch(e -> e.getLevel().isGreaterOrEqual(Level.ERROR));
    }

    /** The message types whose bodies are mutated on a well-framed connection (Terminate is a frame case). */
    private static final String BODY_TYPES = "PBDECSHQdcf";

    /** A valid body of {@code type} to start mutating from. */
    private static byte[] seedBody(Random random, char type) {
        return switch (type) {
            case 'P' -> random.nextBoolean() ? parse("s2", "SELECT a, a + 1 FROM t WHERE a = $1", 20) : parse("", "SELECT 1");
            case 'B' -> switch (random.nextInt(3)) {
                case 0 -> bind("p2", "s1", new int[] {0}, new String[] {"2"}, new int[] {0});
                case 1 -> concat(cstring(""), cstring("s1"), int16(1, 1), int16(1), int32(8), ByteBuffer.allocate(8).putLong(3).array(), int16(1, 1));
                default -> bind("", "s1", new int[0], new String[] {null}, new int[] {1});
            };
            case 'D' -> describe(random.nextBoolean() ? 'S' : 'P', random.nextBoolean() ? "s1" : "p1");
            case 'E' -> execute(random.nextBoolean() ? "p1" : "", random.nextInt(3));
            case 'C' -> describe(random.nextBoolean() ? 'S' : 'P', "gone");
            case 'Q' -> cstring(random.nextBoolean() ? "SELECT 1" : "SELECT a FROM t WHERE a = 2");
            case 'd' -> "1\t2\n".getBytes(StandardCharsets.UTF_8);
            case 'f' -> cstring("client gave up");
            default -> new byte[0]; // Sync, Flush, CopyDone
        };
    }

    /** {@code body} with one thing broken: a count or length, a truncation, appended or flipped bytes, invalid UTF-8. */
    static byte[] mutate(Random random, byte[] body) {
        byte[] b = body.clone();
        switch (random.nextInt(8)) {
            case 0 -> b = java.util.Arrays.copyOf(b, b.length == 0 ? 0 : random.nextInt(b.length));
            case 1 -> {
                byte[] extra = new byte[1 + random.nextInt(8)];
                random.nextBytes(extra);
                b = concat(b, extra);
            }
            case 2 -> {
                if (b.length >= 2) {
                    int at = random.nextInt(b.length - 1);
                    int[] special = {0, 1, 2, 3, -1, -2, 0x7fff, 0x8000, random.nextInt(0x10000)};
                    ByteBuffer.wrap(b).putShort(at, (short) special[random.nextInt(special.length)]);
                }
            }
            case 3 -> {
                if (b.length >= 4) {
                    int at = random.nextInt(b.length - 3);
                    int[] special = {0, 1, -1, -2, Integer.MIN_VALUE, Integer.MAX_VALUE, b.length, random.nextInt()};
                    ByteBuffer.wrap(b).putInt(at, special[random.nextInt(special.length)]);
                }
            }
            case 4 -> {
                for (int k = 0; k < 1 + random.nextInt(3) && b.length > 0; k++) {
                    b[random.nextInt(b.length)] = (byte) random.nextInt(256);
                }
            }
            case 5 -> {
                byte[][] invalid = {{(byte) 0xff}, {(byte) 0xc3, 0x28}, {(byte) 0xed, (byte) 0xa0, (byte) 0x80}, {(byte) 0xf0, (byte) 0x9f}, {(byte) 0x80}};
                int at = b.length == 0 ? 0 : random.nextInt(b.length);
                b = concat(java.util.Arrays.copyOf(b, at), invalid[random.nextInt(invalid.length)], java.util.Arrays.copyOfRange(b, at, b.length));
            }
            case 6 -> {
                for (int k = 0; k < b.length; k++) {
                    if (b[k] == 0 && random.nextBoolean()) {
                        b[k] = 'x';
                    }
                }
            }
            default -> {
                b = new byte[random.nextInt(40)];
                random.nextBytes(b);
            }
        }
        return b;
    }

    /** A frame that breaks the framing itself: a lying length, a truncated stream, an unknown type, or Terminate. */
    private static byte[] brokenFrame(Random random) {
        byte[] body = seedBody(random, BODY_TYPES.charAt(random.nextInt(BODY_TYPES.length())));
        char type = "PBDECSHQdcfX".charAt(random.nextInt(12));
        return switch (random.nextInt(5)) {
            case 0 -> { // a length that lies
                int[] lengths = {-1, 0, 3, Integer.MIN_VALUE, Integer.MAX_VALUE, PgWireServer.MAX_MESSAGE_BYTES + 1, body.length + 4 + 1 + random.nextInt(100),
                        Math.max(4, body.length + 4 - 1 - random.nextInt(4))};
                yield concat(new byte[] {(byte) type}, int32(lengths[random.nextInt(lengths.length)]), body);
            }
            case 1 -> { // a frame cut short
                byte[] f = frame(type, body);
                yield java.util.Arrays.copyOf(f, random.nextInt(f.length));
            }
            case 2 -> { // an unknown type
                char unknown;
                do {
                    unknown = (char) random.nextInt(256);
                } while ("PBDECSHQdcfXpF".indexOf(unknown) >= 0);
                yield frame(unknown, body);
            }
            case 3 -> frame('X', random.nextBoolean() ? new byte[0] : body);
            default -> { // random bytes
                byte[] r = new byte[1 + random.nextInt(64)];
                random.nextBytes(r);
                yield r;
            }
        };
    }

    /** A start-up packet with one thing broken (or none), as the first bytes of a connection. */
    private static byte[] startup(Random random) {
        byte[] params = ("user\0fuzz\0database\0tandem\0\0").getBytes(StandardCharsets.UTF_8);
        int[] codes = {PgRawClient.PROTOCOL_3, PgDecoder.SSL_CODE, PgDecoder.GSS_CODE, PgDecoder.CANCEL_CODE, 0x00020000, random.nextInt()};
        int code = codes[random.nextInt(codes.length)];
        return switch (random.nextInt(5)) {
            case 0 -> concat(int32(new int[] {-1, 0, 7, 8, PgDecoder.MAX_STARTUP_BYTES + 5, Integer.MAX_VALUE, random.nextInt()}[random.nextInt(7)]),
                    int32(code), params);
            case 1 -> {
                byte[] p = PgRawClient.startupPacket(code, params);
                yield java.util.Arrays.copyOf(p, random.nextInt(p.length));
            }
            case 2 -> PgRawClient.startupPacket(code, mutate(random, params));
            case 3 -> PgRawClient.startupPacket(PgRawClient.PROTOCOL_3, mutate(random, params));
            default -> {
                byte[] r = new byte[random.nextInt(64)];
                random.nextBytes(r);
                yield r;
            }
        };
    }

    /** Reads until the probe's ReadyForQuery, or the end of the connection. */
    private static List<Message> untilProbe(PgRawClient c) throws IOException {
        List<Message> got = new ArrayList<>();
        boolean probeAnswered = false;
        for (Message m = c.next(); m != null; m = c.next()) {
            got.add(m);
            probeAnswered |= isProbeRow(m);
            if (probeAnswered && m.type() == 'Z') {
                break;
            }
        }
        return got;
    }

    private static boolean isProbeRow(Message m) {
        return m.type() == 'D' && new String(m.body(), StandardCharsets.UTF_8).contains("424242");
    }

    private static boolean answersProbe(List<Message> got) {
        return got.stream().anyMatch(PgWireProtocolFuzzTest::isProbeRow) && got.getLast().type() == 'Z';
    }

    /** What is wrong with an answer, or null: an internal error, or (when the frame was sound) a FATAL one. */
    private static String problem(List<Message> got, boolean framingBroken) {
        for (Message m : got) {
            if (m.type() == '?') {
                return "a truncated backend message";
            }
            if (m.type() == 'E') {
                if ("XX000".equals(m.sqlState())) {
                    return "an internal error: " + m;
                }
                if ("FATAL".equals(m.severity()) && (!framingBroken || !"08P01".equals(m.sqlState()))) {
                    return "a FATAL error: " + m;
                }
            }
        }
        return null;
    }

    /** What is wrong with the answer to a start-up packet, or null. */
    private static String startupProblem(List<Message> got) {
        for (Message m : got) {
            if (m.type() == '?') {
                return "a truncated backend message";
            }
            if (m.type() == 'E' && (!STARTUP_STATES.contains(m.sqlState()) || !"FATAL".equals(m.severity()))
                    && !(m.type() == 'E' && "ERROR".equals(m.severity()) && !"XX000".equals(m.sqlState()))) {
                return "an error that is not a start-up refusal: " + m;
            }
        }
        return null;
    }

    private static void assertProbeAnswers(PgRawClient probe) throws IOException {
        probe.send('Q', cstring(PROBE));
        List<Message> got = probe.untilReady();
        assertThat(got).as("the probe connection's answer").anyMatch(PgWireProtocolFuzzTest::isProbeRow);
    }
}
