package dev.tandem.pgwire;

import dev.tandem.sql.SqlException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One frontend message decoded from its frame, a record per message type the server handles, so that no
 * session logic reads a message body ({@link #decode}, called by {@link PgDecoder}).
 *
 * <p>A body that does not hold its fields decodes to {@link Malformed}, carrying the error the session
 * answers (a {@link PgReader.Malformed}, {@code 08P01}, or a {@link SqlException}, {@code 22021} for text
 * that is not UTF-8). Where PostgreSQL checks a field's meaning before it reads the next ones (a Bind's
 * statement before its parameters, a CopyFail's reason only during a COPY), the record holds what was
 * read and the error met after it, which the session raises when it reaches that point, so that the
 * answer is the one PostgreSQL gives.
 */
sealed interface FrontendMessage {

    /** The message's type byte (the pseudo-types of the start-up packets are control characters). */
    char type();

    /** The type of the start-up packets (a start-up message or a CancelRequest), which have no type byte. */
    char STARTUP = '\0';

    /** A start-up message: the protocol version and, for protocol 3, the parameters (none read for any other version). */
    record StartupMessage(int protocol, Map<String, String> parameters) implements FrontendMessage {
        public char type() {
            return STARTUP;
        }
    }

    /** A CancelRequest: the process id and secret key of the session whose query to cancel. */
    record CancelRequest(int pid, int secret) implements FrontendMessage {
        public char type() {
            return STARTUP;
        }
    }

    /** An SSLRequest the decoder did not answer itself (the server offers no TLS, or the connection is encrypted already). */
    record SslRequest() implements FrontendMessage {
        static final SslRequest INSTANCE = new SslRequest();

        public char type() {
            return '\u0001';
        }
    }

    /** A GSSENCRequest, always declined. */
    record GssEncRequest() implements FrontendMessage {
        static final GssEncRequest INSTANCE = new GssEncRequest();

        public char type() {
            return '\u0002';
        }
    }

    /** A message longer than the server's limit: the stream after it is ignored and the session ends. */
    record TooLarge() implements FrontendMessage {
        static final TooLarge INSTANCE = new TooLarge();

        public char type() {
            return '\u0003';
        }
    }

    /** A stream that breaks the protocol otherwise (a bad start-up length, a control-character type): the session ends with {@code reason}. */
    record Invalid(String reason) implements FrontendMessage {
        public char type() {
            return '\u0004';
        }
    }

    /**
     * A PasswordMessage, SASLInitialResponse or SASLResponse ({@code p}), which only the start-up's state
     * tells apart, so its body is read by {@link PgStartup}.
     */
    record PasswordMessage(byte[] body) implements FrontendMessage {
        public char type() {
            return 'p';
        }
    }

    /** A simple query: its text. */
    record Query(String text) implements FrontendMessage {
        public char type() {
            return 'Q';
        }
    }

    /** A Parse: the statement's name, its text and the parameter types the client gave (0: unspecified). */
    record Parse(String name, String text, int[] parameterOids) implements FrontendMessage {
        public char type() {
            return 'P';
        }
    }

    /**
     * A Bind: the portal's and the statement's names, the parameter formats, the parameter values (null for
     * NULL), the result formats. When the body ends early, {@code parameterFormats} is null if it broke
     * before the parameter count, {@code valuesRead} counts the values read, {@code resultFormats} is null if
     * it broke before them, and {@code malformed} is the error; a body with bytes after the last field has
     * every field and its {@code malformed}.
     */
    record Bind(String portal, String statement, short[] parameterFormats, int parameterCount, byte[][] values, int valuesRead,
            short[] resultFormats, RuntimeException malformed) implements FrontendMessage {
        static final byte[][] NO_VALUES = new byte[0][];

        public char type() {
            return 'B';
        }
    }

    /** A Describe of a prepared statement ({@code S}) or a portal ({@code P}); any other kind is refused by the session. */
    record Describe(char kind, String name) implements FrontendMessage {
        public char type() {
            return 'D';
        }
    }

    /** An Execute: the portal and the most rows to return (0: all). */
    record Execute(String portal, int maxRows) implements FrontendMessage {
        public char type() {
            return 'E';
        }
    }

    /** A Close of a prepared statement ({@code S}) or a portal ({@code P}); any other kind is refused by the session. */
    record Close(char kind, String name) implements FrontendMessage {
        public char type() {
            return 'C';
        }
    }

    /** A Sync (its body, if any, ignored as PostgreSQL does). */
    record Sync() implements FrontendMessage {
        static final Sync INSTANCE = new Sync();

        public char type() {
            return 'S';
        }
    }

    /** A Flush. */
    record Flush() implements FrontendMessage {
        static final Flush INSTANCE = new Flush();

        public char type() {
            return 'H';
        }
    }

    /** A Terminate. */
    record Terminate() implements FrontendMessage {
        static final Terminate INSTANCE = new Terminate();

        public char type() {
            return 'X';
        }
    }

    /** A CopyData: its bytes. */
    record CopyData(byte[] data) implements FrontendMessage {
        public char type() {
            return 'd';
        }
    }

    /** A CopyDone. */
    record CopyDone() implements FrontendMessage {
        static final CopyDone INSTANCE = new CopyDone();

        public char type() {
            return 'c';
        }
    }

    /** A CopyFail: the client's reason, or (the reason unreadable) null and the error, raised only if a COPY reads it. */
    record CopyFail(String reason, RuntimeException malformed) implements FrontendMessage {
        public char type() {
            return 'f';
        }
    }

    /** A message of a type the server does not handle. */
    record Unknown(char type) implements FrontendMessage {
    }

    /** A message whose body does not hold its fields: {@code error} is the session's to answer. */
    record Malformed(char type, RuntimeException error) implements FrontendMessage {
    }

    /**
     * The message of type {@code type} (after start-up) or the start-up packet ({@link #STARTUP}) with
     * {@code body}, read with {@code in} (reset to the body, so that one reader serves a connection).
     */
    static FrontendMessage decode(char type, byte[] body, PgReader in) {
        in.reset(body);
        try {
            return switch (type) {
                case STARTUP -> startup(in);
                case 'Q' -> new Query(in.cstring());
                case 'P' -> parse(in);
                case 'B' -> bind(in);
                case 'D' -> {
                    char kind = (char) in.int8();
                    String name = in.cstring();
                    in.end();
                    yield new Describe(kind, name);
                }
                case 'E' -> {
                    String portal = in.cstring();
                    int maxRows = in.int32();
                    in.end();
                    yield new Execute(portal, maxRows);
                }
                case 'C' -> {
                    char kind = (char) in.int8();
                    String name = in.cstring();
                    in.end();
                    yield new Close(kind, name);
                }
                case 'S' -> Sync.INSTANCE;
                case 'H' -> Flush.INSTANCE;
                case 'X' -> Terminate.INSTANCE;
                case 'd' -> new CopyData(body);
                case 'c' -> CopyDone.INSTANCE;
                case 'f' -> {
                    try {
                        yield new CopyFail(in.cstringReplacing(), null);
                    } catch (PgReader.Malformed e) {
                        yield new CopyFail(null, e);
                    }
                }
                case 'p' -> new PasswordMessage(body);
                default -> new Unknown(type);
            };
        } catch (PgReader.Malformed | SqlException e) {
            return new Malformed(type, e);
        }
    }

    private static FrontendMessage startup(PgReader in) {
        int code = in.int32();
        if (code == PgDecoder.CANCEL_CODE) {
            int pid = in.int32();
            return new CancelRequest(pid, in.int32());
        }
        if (code >> 16 != 3) {
            return new StartupMessage(code, Map.of());
        }
        Map<String, String> params = new LinkedHashMap<>();
        while (in.remaining() > 1) {
            String k = in.cstringReplacing();
            params.put(k, in.cstringReplacing());
        }
        return new StartupMessage(code, params);
    }

    private static Parse parse(PgReader in) {
        String name = in.cstring();
        String query = in.cstring();
        int n = in.count(4);
        int[] oids = new int[n];
        for (int i = 0; i < n; i++) {
            oids[i] = in.int32();
        }
        in.end();
        return new Parse(name, query, oids);
    }

    /** A Bind read as far as its body goes (the names must be there: a failure before them is {@link Malformed}). */
    private static Bind bind(PgReader in) {
        String portal = in.cstring();
        String statement = in.cstring();
        short[] formats = null;
        int np = 0;
        byte[][] values = Bind.NO_VALUES;
        int read = 0;
        short[] results = null;
        try {
            int nf = in.count(2);
            short[] f = new short[nf];
            for (int i = 0; i < nf; i++) {
                f[i] = (short) in.int16();
            }
            np = in.uint16();
            formats = f;
            // each value takes at least its 4-byte length: more than fit cannot be read (the read past them fails)
            values = np == 0 ? Bind.NO_VALUES : new byte[Math.min(np, in.remaining() / 4)][];
            for (; read < np; read++) {
                int len = in.int32();
                values[read] = len == -1 ? null : in.bytes(len);
            }
            int nr = in.count(2);
            short[] r = new short[nr];
            for (int i = 0; i < nr; i++) {
                r[i] = (short) in.int16();
            }
            results = r;
            in.end();
            return new Bind(portal, statement, formats, np, values, read, results, null);
        } catch (PgReader.Malformed e) {
            return new Bind(portal, statement, formats, np, values, read, results, e);
        }
    }
}
