package dev.tandem.pgwire;

import dev.tandem.sql.SqlException;
import dev.tandem.sql.SqlState;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Reads the fields of a frontend message body; a body shorter than its fields, a count or a length that
 * does not fit the body, or bytes left over after the last field is a protocol violation
 * ({@link Malformed}, answered {@code 08P01}); text that is not UTF-8 is {@code 22021}.
 */
final class PgReader {

    /** SQLSTATE character_not_in_repertoire: text that is not valid UTF-8. */
    static final SqlState NOT_IN_REPERTOIRE = SqlState.CHARACTER_NOT_IN_REPERTOIRE;

    /** A message body that does not hold the fields its type needs, as PostgreSQL words it. */
    static final class Malformed extends RuntimeException {
        Malformed(String message) {
            super(message, null, false, false);
        }
    }

    private byte[] b;
    private int at;

    PgReader(byte[] b) {
        this.b = b;
    }

    /** Reads {@code body} from its start (one reader serves a connection's messages, in turn). */
    PgReader reset(byte[] body) {
        this.b = body;
        this.at = 0;
        return this;
    }

    int remaining() {
        return b.length - at;
    }

    private void need(int n) {
        if (n < 0 || n > b.length - at) {
            throw new Malformed("insufficient data left in message");
        }
    }

    /** Refuses bytes left over after the last field. */
    void end() {
        if (at != b.length) {
            throw new Malformed("invalid message format");
        }
    }

    int int8() {
        if (at >= b.length) {
            throw new Malformed("no data left in message");
        }
        return b[at++] & 0xff;
    }

    int int16() {
        need(2);
        int v = ((b[at] & 0xff) << 8) | (b[at + 1] & 0xff);
        at += 2;
        return (short) v;
    }

    /** An unsigned 16-bit integer, as PostgreSQL reads a count. */
    int uint16() {
        need(2);
        int v = ((b[at] & 0xff) << 8) | (b[at + 1] & 0xff);
        at += 2;
        return v;
    }

    /**
     * A count of the {@code width}-byte items that follow (unsigned, as PostgreSQL reads counts), refused
     * before anything is allocated for them when the body cannot hold them.
     */
    int count(int width) {
        int n = uint16();
        if ((long) n * width > remaining()) {
            throw new Malformed("insufficient data left in message");
        }
        return n;
    }

    int int32() {
        need(4);
        int v = ((b[at] & 0xff) << 24) | ((b[at + 1] & 0xff) << 16) | ((b[at + 2] & 0xff) << 8) | (b[at + 3] & 0xff);
        at += 4;
        return v;
    }

    byte[] bytes(int n) {
        need(n);
        byte[] out = java.util.Arrays.copyOfRange(b, at, at + n);
        at += n;
        return out;
    }

    /** A null-terminated string, which must be UTF-8. */
    String cstring() {
        int end = terminator();
        String s = utf8(b, at, end - at);
        at = end + 1;
        return s;
    }

    /**
     * A null-terminated string whatever its bytes (invalid UTF-8 becomes U+FFFD), for what start-up only
     * compares (a user name, a password, a SASL mechanism), which PostgreSQL does not verify either.
     */
    String cstringReplacing() {
        int end = terminator();
        String s = new String(b, at, end - at, StandardCharsets.UTF_8);
        at = end + 1;
        return s;
    }

    private int terminator() {
        int end = at;
        while (end < b.length && b[end] != 0) {
            end++;
        }
        if (end >= b.length) {
            throw new Malformed("invalid string in message");
        }
        return end;
    }

    /** {@code b} as UTF-8, strictly: a malformed sequence or a NUL is {@code 22021}, as PostgreSQL verifies client text. */
    static String utf8(byte[] b) {
        return utf8(b, 0, b.length);
    }

    private static String utf8(byte[] b, int offset, int length) {
        for (int i = offset; i < offset + length; i++) {
            if (b[i] == 0) {
                throw invalid(b, i, offset + length);
            }
        }
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(b, offset, length);
        CharBuffer out = CharBuffer.allocate(length);
        CoderResult r = decoder.decode(in, out, true);
        if (r.isError()) {
            throw invalid(b, in.position(), offset + length);
        }
        r = decoder.flush(out);
        if (r.isError()) {
            throw invalid(b, in.position(), offset + length);
        }
        return out.flip().toString();
    }

    /** PostgreSQL's report of an invalid sequence: the bytes of the character it starts, at most up to the end. */
    private static SqlException invalid(byte[] b, int at, int end) {
        int lead = b[at] & 0xff;
        int width = (lead & 0xe0) == 0xc0 ? 2 : (lead & 0xf0) == 0xe0 ? 3 : (lead & 0xf8) == 0xf0 ? 4 : 1;
        StringBuilder s = new StringBuilder();
        for (int i = at; i < Math.min(end, at + width); i++) {
            s.append(i == at ? "" : " ").append(String.format("0x%02x", b[i] & 0xff));
        }
        return new SqlException(NOT_IN_REPERTOIRE, "invalid byte sequence for encoding \"UTF8\": " + s);
    }
}
