package dev.tandem.source.postgres;

import java.nio.charset.StandardCharsets;

/**
 * One line of {@code COPY ... TO STDOUT} in PostgreSQL's text format: fields separated by tabs, {@code \N}
 * for NULL, backslash escapes ({@code \\ \t \n \r \b \f \v}, octal {@code \ooo}, hex {@code \xhh}) for the
 * rest. Fields come back as the values of a pgoutput tuple: text forms, or null.
 */
final class PgCopyText {

    private PgCopyText() {
    }

    static Object[] fields(byte[] line) {
        int end = line.length;
        if (end > 0 && line[end - 1] == '\n') {
            end--;
        }
        // A tab inside a value is escaped, so every raw tab separates two fields.
        int count = 1;
        for (int i = 0; i < end; i++) {
            if (line[i] == '\t') {
                count++;
            }
        }
        Object[] out = new Object[count];
        int field = 0;
        int start = 0;
        for (int i = 0; i <= end; i++) {
            if (i == end || line[i] == '\t') {
                out[field++] = field(line, start, i);
                start = i + 1;
            }
        }
        return out;
    }

    /** The field in {@code line[from, to)}: null for {@code \N}, else its text with the escapes undone. */
    private static String field(byte[] line, int from, int to) {
        int escape = -1;
        for (int i = from; i < to; i++) {
            if (line[i] == '\\') {
                escape = i;
                break;
            }
        }
        if (escape < 0) {
            return new String(line, from, to - from, StandardCharsets.UTF_8);
        }
        if (to - from == 2 && line[from + 1] == 'N') {
            return null;
        }
        byte[] out = new byte[to - from];
        int n = escape - from;
        System.arraycopy(line, from, out, 0, n);
        for (int i = escape; i < to; i++) {
            byte b = line[i];
            if (b != '\\' || i + 1 >= to) {
                out[n++] = b;
                continue;
            }
            byte e = line[++i];
            out[n++] = switch (e) {
                case 't' -> '\t';
                case 'n' -> '\n';
                case 'r' -> '\r';
                case 'b' -> '\b';
                case 'f' -> '\f';
                case 'v' -> 0x0b;
                case 'x' -> {
                    int v = 0;
                    for (int digits = 0; digits < 2 && i + 1 < to && Character.digit(line[i + 1], 16) >= 0; digits++) {
                        v = v * 16 + Character.digit(line[++i], 16);
                    }
                    yield (byte) v;
                }
                default -> {
                    if (e < '0' || e > '7') {
                        yield e;
                    }
                    int v = e - '0';
                    for (int digits = 1; digits < 3 && i + 1 < to && line[i + 1] >= '0' && line[i + 1] <= '7'; digits++) {
                        v = v * 8 + (line[++i] - '0');
                    }
                    yield (byte) v;
                }
            };
        }
        return new String(out, 0, n, StandardCharsets.UTF_8);
    }
}
