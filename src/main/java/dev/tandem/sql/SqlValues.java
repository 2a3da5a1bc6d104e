package dev.tandem.sql;

/** Datums as PostgreSQL writes them in its text format ({@code t}/{@code f}, {@code 2} for 2.0, {@code 2024-01-02 03:04:05}). */
public final class SqlValues {

    private SqlValues() {
    }

    /** The text form of a datum, or null for NULL. */
    public static String text(Object datum) {
        return SqlTypes.text(datum);
    }
}
