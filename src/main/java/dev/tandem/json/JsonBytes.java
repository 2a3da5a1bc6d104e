package dev.tandem.json;

import java.util.Arrays;

/**
 * A JSON text written straight into UTF-8 bytes: no tree, no {@code String} and no re-encoding. For
 * messages sent often enough that building them as trees is a large part of their cost (change streams
 * send tens of thousands a second). The writer does not check structure: callers write well-formed JSON
 * with {@link #raw}, {@link #number} and {@link #string}, which escapes what JSON requires.
 */
public final class JsonBytes {

    private static final byte[] HEX = "0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private byte[] buf;
    private int length;

    public JsonBytes(int capacity) {
        buf = new byte[Math.max(16, capacity)];
    }

    /** Appends bytes that are already JSON (punctuation, a prefix written once). */
    public JsonBytes raw(byte[] bytes) {
        ensure(bytes.length);
        System.arraycopy(bytes, 0, buf, length, bytes.length);
        length += bytes.length;
        return this;
    }

    /** Appends one ASCII byte of JSON punctuation. */
    public JsonBytes raw(char c) {
        ensure(1);
        buf[length++] = (byte) c;
        return this;
    }

    /** Appends an ASCII string that is already JSON (a literal such as {@code null} or {@code "op":}). */
    public JsonBytes ascii(String s) {
        ensure(s.length());
        for (int i = 0; i < s.length(); i++) {
            buf[length++] = (byte) s.charAt(i);
        }
        return this;
    }

    /** Appends {@code v} in decimal. */
    public JsonBytes number(long v) {
        if (v == Long.MIN_VALUE) {
            return ascii(Long.toString(v));
        }
        ensure(20);
        if (v < 0) {
            buf[length++] = '-';
            v = -v;
        }
        int digits = 1;
        for (long x = v / 10; x != 0; x /= 10) {
            digits++;
        }
        for (int i = length + digits - 1; i >= length; i--) {
            buf[i] = (byte) ('0' + v % 10);
            v /= 10;
        }
        length += digits;
        return this;
    }

    /** Appends a finite {@code v} as Java writes it ({@code 1.5}, {@code 1.0E10}), which JSON accepts. */
    public JsonBytes number(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            throw new IllegalArgumentException("JSON has no number " + v);
        }
        return ascii(Double.toString(v));
    }

    /**
     * Appends {@code s} as a JSON string: quoted, with {@code "}, {@code \} and control characters
     * escaped, everything else in UTF-8. A lone surrogate (which UTF-8 cannot encode) is escaped as
     * {@code \\uXXXX}.
     */
    public JsonBytes string(String s) {
        ensure(s.length() + 2);
        buf[length++] = '"';
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
                ensure(1);
                buf[length++] = (byte) c;
            } else if (c < 0x80) {
                escape(c);
            } else if (c < 0x800) {
                ensure(2);
                buf[length++] = (byte) (0xc0 | c >> 6);
                buf[length++] = (byte) (0x80 | c & 0x3f);
            } else if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                int cp = Character.toCodePoint(c, s.charAt(++i));
                ensure(4);
                buf[length++] = (byte) (0xf0 | cp >> 18);
                buf[length++] = (byte) (0x80 | cp >> 12 & 0x3f);
                buf[length++] = (byte) (0x80 | cp >> 6 & 0x3f);
                buf[length++] = (byte) (0x80 | cp & 0x3f);
            } else if (Character.isSurrogate(c)) {
                escape(c);
            } else {
                ensure(3);
                buf[length++] = (byte) (0xe0 | c >> 12);
                buf[length++] = (byte) (0x80 | c >> 6 & 0x3f);
                buf[length++] = (byte) (0x80 | c & 0x3f);
            }
        }
        ensure(1);
        buf[length++] = '"';
        return this;
    }

    private void escape(char c) {
        ensure(6);
        buf[length++] = '\\';
        switch (c) {
            case '"' -> buf[length++] = '"';
            case '\\' -> buf[length++] = '\\';
            case '\n' -> buf[length++] = 'n';
            case '\r' -> buf[length++] = 'r';
            case '\t' -> buf[length++] = 't';
            case '\b' -> buf[length++] = 'b';
            case '\f' -> buf[length++] = 'f';
            default -> {
                buf[length++] = 'u';
                buf[length++] = HEX[c >> 12 & 0xf];
                buf[length++] = HEX[c >> 8 & 0xf];
                buf[length++] = HEX[c >> 4 & 0xf];
                buf[length++] = HEX[c & 0xf];
            }
        }
    }

    /** The bytes written so far. */
    public int length() {
        return length;
    }

    /** A copy of the bytes written. */
    public byte[] toByteArray() {
        return Arrays.copyOf(buf, length);
    }

    private void ensure(int n) {
        if (length + n > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, length + n));
        }
    }
}
