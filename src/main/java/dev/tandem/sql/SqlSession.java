package dev.tandem.sql;

/**
 * The per-connection state SQL statements read and {@code SET} changes: the isolation of reads
 * ({@code serializable}, the default, or {@code strict serializable}). Confined to one connection.
 */
public final class SqlSession {

    private volatile boolean strict;
    private volatile boolean wrote;

    /** Whether reads are strict serializable (see every write acknowledged before them). */
    public boolean strict() {
        return strict;
    }

    public void strict(boolean strict) {
        this.strict = strict;
    }

    /**
     * Whether this session has written: its reads are then strict, so it reads its own writes as a
     * PostgreSQL user expects (a serializable read may be at a time before an acknowledged write).
     */
    boolean wrote() {
        return wrote;
    }

    void wrote(boolean wrote) {
        this.wrote = wrote;
    }

    /** The value {@code SHOW transaction_isolation} answers. */
    String isolationName() {
        return strict ? "strict serializable" : "serializable";
    }
}
