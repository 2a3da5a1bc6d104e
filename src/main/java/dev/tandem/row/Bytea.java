package dev.tandem.row;

import java.util.Arrays;

/** PostgreSQL's {@code bytea}: an immutable byte string, ordered as PostgreSQL orders it (bytes unsigned, a prefix first). */
public record Bytea(byte[] bytes) implements Comparable<Bytea> {

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    /** Takes a copy of {@code bytes}. */
    public Bytea {
        bytes = bytes.clone();
    }

    /** A copy of the bytes. */
    @Override
    public byte[] bytes() {
        return bytes.clone();
    }

    /** The number of bytes. */
    public int length() {
        return bytes.length;
    }

    /** The byte at {@code i}, from 0 to 255. */
    public int at(int i) {
        return bytes[i] & 0xff;
    }

    /** PostgreSQL's hex output: {@code \x} then two lower-case hex digits a byte. */
    public String hex() {
        char[] out = new char[2 + 2 * bytes.length];
        out[0] = '\\';
        out[1] = 'x';
        for (int i = 0; i < bytes.length; i++) {
            out[2 + 2 * i] = HEX[(bytes[i] >> 4) & 0xf];
            out[3 + 2 * i] = HEX[bytes[i] & 0xf];
        }
        return new String(out);
    }

    /** A text that is no bytea, with PostgreSQL's message; {@code hex} when a hexadecimal digit or pair is wrong (22023), else 22P02. */
    public static final class SyntaxError extends IllegalArgumentException {
        private final boolean hex;

        SyntaxError(boolean hex, String message) {
            super(message);
            this.hex = hex;
        }

        public boolean hex() {
            return hex;
        }
    }

    /**
     * The bytea PostgreSQL's {@code byteain} reads from {@code s}: the hex form ({@code \x} then pairs of hex digits,
     * whitespace between pairs) or the escape form (octal {@code \nnn} and {@code \\}); a {@link SyntaxError}
     * with PostgreSQL's message otherwise.
     */
    public static Bytea parse(String s) {
        if (s.length() >= 2 && s.charAt(0) == '\\' && s.charAt(1) == 'x') {
            byte[] out = new byte[(s.length() - 2) / 2];
            int n = 0;
            int i = 2;
            while (i < s.length()) {
                char c = s.charAt(i);
                if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
                    i++;
                    continue;
                }
                int hi = hexDigit(c);
                if (i + 1 >= s.length()) {
                    throw new SyntaxError(true, "invalid hexadecimal data: odd number of digits");
                }
                int lo = hexDigit(s.charAt(i + 1));
                out[n++] = (byte) (hi << 4 | lo);
                i += 2;
            }
            return new Bytea(Arrays.copyOf(out, n));
        }
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        byte[] utf8 = s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        for (int i = 0; i < utf8.length; i++) {
            byte b = utf8[i];
            if (b != '\\') {
                out.write(b);
            } else if (i + 1 < utf8.length && utf8[i + 1] == '\\') {
                out.write('\\');
                i++;
            } else if (i + 3 < utf8.length && octal(utf8[i + 1]) <= 3 && octal(utf8[i + 1]) >= 0 && octal(utf8[i + 2]) >= 0
                    && octal(utf8[i + 3]) >= 0) {
                out.write(octal(utf8[i + 1]) << 6 | octal(utf8[i + 2]) << 3 | octal(utf8[i + 3]));
                i += 3;
            } else {
                throw new SyntaxError(false, "invalid input syntax for type bytea");
            }
        }
        return new Bytea(out.toByteArray());
    }

    private static int octal(byte b) {
        return b >= '0' && b <= '7' ? b - '0' : -1;
    }

    private static int hexDigit(char c) {
        int v = Character.digit(c, 16);
        if (v < 0 || c > 'f') {
            throw new SyntaxError(true, "invalid hexadecimal digit: \"" + c + "\"");
        }
        return v;
    }

    @Override
    public int compareTo(Bytea o) {
        return Arrays.compareUnsigned(bytes, o.bytes);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Bytea b && Arrays.equals(bytes, b.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return hex();
    }
}
