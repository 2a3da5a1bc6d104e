package dev.tandem.source.postgres;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

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
        List<Object> out = new ArrayList<>();
        ByteArrayOutputStream field = new ByteArrayOutputStream();
        boolean isNull = false;
        for (int i = 0; i <= end; i++) {
            if (i == end || line[i] == '\t') {
                out.add(isNull ? null : field.toString(StandardCharsets.UTF_8));
                field.reset();
                isNull = false;
                continue;
            }
            byte b = line[i];
            if (b != '\\' || i + 1 >= end) {
                field.write(b);
                continue;
            }
            byte e = line[++i];
            switch (e) {
                case 'N' -> isNull = true;
                case 't' -> field.write('\t');
                case 'n' -> field.write('\n');
                case 'r' -> field.write('\r');
                case 'b' -> field.write('\b');
                case 'f' -> field.write('\f');
                case 'v' -> field.write(0x0b);
                case 'x' -> {
                    int v = 0;
                    int n = 0;
                    while (n < 2 && i + 1 < end && Character.digit(line[i + 1], 16) >= 0) {
                        v = v * 16 + Character.digit(line[++i], 16);
                        n++;
                    }
                    field.write(v);
                }
                default -> {
                    if (e >= '0' && e <= '7') {
                        int v = e - '0';
                        int n = 1;
                        while (n < 3 && i + 1 < end && line[i + 1] >= '0' && line[i + 1] <= '7') {
                            v = v * 8 + (line[++i] - '0');
                            n++;
                        }
                        field.write(v);
                    } else {
                        field.write(e);
                    }
                }
            }
        }
        return out.toArray();
    }
}
