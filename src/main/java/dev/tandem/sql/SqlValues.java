package dev.tandem.sql;

/** Datums as PostgreSQL writes them in its text format ({@code t}/{@code f}, {@code 2} for 2.0, {@code 2024-01-02 03:04:05}). */
public final class SqlValues {

    private SqlValues() {
    }

    /** The text form of a datum, or null for NULL. */
    public static String text(Object datum) {
        return SqlTypes.text(datum);
    }

    /** The text form of a datum, a {@code timestamptz} in the session's time zone {@code zone}, or null for NULL. */
    public static String text(Object datum, java.time.ZoneId zone) {
        return SqlTypes.text(datum, zone);
    }

    /**
     * A datum of {@code type} read from PostgreSQL's text form of it, as PostgreSQL reads a quoted literal;
     * a {@link SqlException} when it does not read.
     */
    public static Object parse(String text, dev.tandem.row.DatumType type) {
        return SqlTypes.convert(text, type);
    }

    /** A row as a line of COPY's text format: tab-separated, {@code \N} for NULL, escaped, ending in a newline. */
    public static String copyTextLine(Object[] row) {
        return copyTextLine(row, java.time.ZoneOffset.UTC);
    }

    /** A row as a line of COPY's text format, a {@code timestamptz} in the session's time zone {@code zone}. */
    public static String copyTextLine(Object[] row, java.time.ZoneId zone) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < row.length; i++) {
            if (i > 0) {
                b.append('\t');
            }
            if (row[i] == null) {
                b.append("\\N");
                continue;
            }
            String text = SqlTypes.text(row[i], zone);
            for (int j = 0; j < text.length(); j++) {
                char c = text.charAt(j);
                switch (c) {
                    case '\\' -> b.append("\\\\");
                    case '\n' -> b.append("\\n");
                    case '\r' -> b.append("\\r");
                    case '\t' -> b.append("\\t");
                    default -> b.append(c);
                }
            }
        }
        return b.append('\n').toString();
    }
}
