package dev.tandem.row;

import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * A {@link Jsonb}'s order key for the row encoding: bytes whose unsigned order is PostgreSQL's jsonb order, numbers by
 * value only (so {@code 1.0} and {@code 1.00} have one key), and which no other key has as a prefix.
 */
final class JsonbSortKey {

    private JsonbSortKey() {
    }

    /** The order key of the document whose tree is {@code root}. */
    static byte[] of(Object root) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        if (root instanceof Map) {
            key(out, root);
        } else if (root instanceof List<?> l) {
            out.write(5);
            count(out, l.size());
            out.write(1);
            for (Object e : l) {
                key(out, e);
            }
        } else {
            out.write(5);
            count(out, 1);
            out.write(0);
            key(out, root);
        }
        return out.toByteArray();
    }

    private static void key(ByteArrayOutputStream out, Object v) {
        switch (v) {
            case String s -> {
                out.write(2);
                string(out, s);
            }
            case BigDecimal d -> {
                out.write(3);
                number(out, d);
            }
            case Boolean b -> {
                out.write(4);
                out.write(b ? 1 : 0);
            }
            case List<?> l -> {
                out.write(5);
                count(out, l.size());
                for (Object e : l) {
                    key(out, e);
                }
            }
            case Map<?, ?> m -> {
                out.write(6);
                count(out, m.size());
                for (Map.Entry<?, ?> e : m.entrySet()) {
                    string(out, (String) e.getKey());
                    key(out, e.getValue());
                }
            }
            default -> out.write(1);
        }
    }

    private static void count(ByteArrayOutputStream out, int n) {
        out.write(n >>> 24);
        out.write(n >>> 16);
        out.write(n >>> 8);
        out.write(n);
    }

    private static void string(ByteArrayOutputStream out, String s) {
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            out.write(b);
            if (b == 0) {
                out.write(0xFF);
            }
        }
        out.write(0);
        out.write(1);
    }

    /** A number by value as {@link RowPacker#pushNumeric} orders it, without the display scale. */
    private static void number(ByteArrayOutputStream out, BigDecimal v) {
        int signum = v.signum();
        out.write(signum + 1);
        if (signum == 0) {
            return;
        }
        String digits = v.unscaledValue().abs().toString().replaceFirst("0+$", "");
        int exponent = v.precision() - v.scale();
        int flip = signum < 0 ? 0xFF : 0;
        int e = exponent ^ Integer.MIN_VALUE;
        for (int shift = 24; shift >= 0; shift -= 8) {
            out.write((e >>> shift) ^ flip);
        }
        for (int i = 0; i < digits.length(); i++) {
            out.write(digits.charAt(i) ^ flip);
        }
        out.write(flip);
    }
}
