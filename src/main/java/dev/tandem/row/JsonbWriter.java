package dev.tandem.row;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;

/** PostgreSQL's text output of a {@link Jsonb} tree ({@code jsonb_out}): {@code {"a": 1, "b": [1, 2]}}. */
final class JsonbWriter {

    private JsonbWriter() {
    }

    /** The text of {@code tree}. */
    static String text(Object tree) {
        StringBuilder out = new StringBuilder();
        write(out, tree);
        return out.toString();
    }

    private static void write(StringBuilder out, Object v) {
        switch (v) {
            case String s -> quote(out, s);
            case BigDecimal d -> out.append(d.toPlainString());
            case Boolean b -> out.append(b ? "true" : "false");
            case List<?> list -> {
                out.append('[');
                for (int i = 0; i < list.size(); i++) {
                    if (i > 0) {
                        out.append(", ");
                    }
                    write(out, list.get(i));
                }
                out.append(']');
            }
            case Map<?, ?> map -> {
                out.append('{');
                boolean first = true;
                for (Map.Entry<?, ?> e : map.entrySet()) {
                    if (!first) {
                        out.append(", ");
                    }
                    first = false;
                    quote(out, (String) e.getKey());
                    out.append(": ");
                    write(out, e.getValue());
                }
                out.append('}');
            }
            default -> out.append("null");
        }
    }

    /** Appends {@code s} as a JSON string, escaped as PostgreSQL's {@code escape_json} escapes it. */
    private static void quote(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
