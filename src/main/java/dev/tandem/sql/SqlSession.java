package dev.tandem.sql;

/**
 * The per-connection state SQL statements read and {@code SET} changes: the isolation of reads
 * ({@code serializable}, the default, or {@code strict serializable}). Confined to one connection.
 */
public final class SqlSession {

    private volatile boolean strict;

    /** Whether reads are strict serializable (see every write acknowledged before them). */
    public boolean strict() {
        return strict;
    }

    public void strict(boolean strict) {
        this.strict = strict;
    }

    /** The value {@code SHOW transaction_isolation} answers. */
    String isolationName() {
        return strict ? "strict serializable" : "serializable";
    }
}
