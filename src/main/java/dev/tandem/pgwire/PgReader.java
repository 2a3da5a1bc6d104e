package dev.tandem.pgwire;

import java.nio.charset.StandardCharsets;

/** Reads the fields of a frontend message body; a body shorter than its fields is a protocol violation. */
final class PgReader {

    /** A message body that does not hold the fields its type needs. */
    static final class Malformed extends RuntimeException {
        Malformed(String message) {
            super(message, null, false, false);
        }
    }

    private final byte[] b;
    private int at;

    PgReader(byte[] b) {
        this.b = b;
    }

    int remaining() {
        return b.length - at;
    }

    private void need(int n) {
        if (at + n > b.length) {
            throw new Malformed("message too short");
        }
    }

    int int8() {
        need(1);
        return b[at++] & 0xff;
    }

    int int16() {
        need(2);
        int v = ((b[at] & 0xff) << 8) | (b[at + 1] & 0xff);
        at += 2;
        return (short) v;
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

    String cstring() {
        int end = at;
        while (end < b.length && b[end] != 0) {
            end++;
        }
        if (end >= b.length) {
            throw new Malformed("unterminated string");
        }
        String s = new String(b, at, end - at, StandardCharsets.UTF_8);
        at = end + 1;
        return s;
    }
}
