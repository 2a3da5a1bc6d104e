package dev.tandem.sql;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The per-connection state SQL statements read and change: the isolation of reads ({@code serializable},
 * the default, or {@code strict serializable}), the transaction block ({@code BEGIN ... COMMIT}) and the
 * cursors declared in it, and how a change stream takes a permit. Confined to one connection, except
 * {@link #close}, which may come from the thread that saw the connection end.
 *
 * <p><b>Transaction blocks.</b> A block groups reads, cursors and writes the way PostgreSQL's does: its
 * writes are held in a {@link TransactionBlock} until {@code COMMIT} makes them one write (catalog changes
 * are refused inside one). After an error in a block every statement but {@code COMMIT} and
 * {@code ROLLBACK} fails with {@code 25P02}; ending the block closes its cursors (their subscriptions,
 * holds and permits with them) and forgets its writes unless they were committed.
 */
public final class SqlSession {

    /** Where the session is with respect to a transaction block, as ReadyForQuery reports it. */
    public enum Block {
        /** No block: each statement on its own ({@code I}). */
        IDLE('I'),
        /** Inside {@code BEGIN ... } ({@code T}). */
        OPEN('T'),
        /** Inside a block after an error, until {@code COMMIT} or {@code ROLLBACK} ({@code E}). */
        FAILED('E');

        private final char status;

        Block(char status) {
            this.status = status;
        }

        /** The transaction status byte of ReadyForQuery. */
        public char status() {
            return status;
        }
    }

    private final boolean blocks;
    private volatile boolean strict;
    private volatile boolean wrote;
    private Block block = Block.IDLE;
    private TransactionBlock writes;
    private final Map<String, SqlCursor> cursors = new LinkedHashMap<>();
    private Supplier<Runnable> streamPermits = () -> () -> { };

    /** A session for one request or script: {@code BEGIN} is refused, so no cursor can outlive it. */
    public SqlSession() {
        this(false);
    }

    /**
     * A session that may open transaction blocks ({@code blocks}) and so hold cursors: its owner must
     * {@link #close} it when the connection ends.
     */
    public SqlSession(boolean blocks) {
        this.blocks = blocks;
    }

    /** The session's {@code application_name} as last SET (null: never set), for {@code pg_stat_activity}. */
    private volatile String applicationName;

    public String applicationName() {
        return applicationName;
    }

    void applicationName(String name) {
        this.applicationName = name;
    }

    /** The session's time zone ({@code SET TimeZone}), and the one {@code RESET TimeZone} returns to (its start-up parameter's). */
    private volatile dev.tandem.expr.TimeZones.Zone zone = dev.tandem.expr.TimeZones.Zone.UTC;
    private volatile dev.tandem.expr.TimeZones.Zone defaultZone = dev.tandem.expr.TimeZones.Zone.UTC;

    /** The session's time zone: timestamptz values print, read and compute in it. */
    public dev.tandem.expr.TimeZones.Zone zone() {
        return zone;
    }

    /** Sets the session's time zone. */
    public void zone(dev.tandem.expr.TimeZones.Zone zone) {
        this.zone = zone;
    }

    /** The zone {@code RESET TimeZone} and {@code SET TIME ZONE DEFAULT} return to. */
    dev.tandem.expr.TimeZones.Zone defaultZone() {
        return defaultZone;
    }

    /**
     * Starts the session in the zone a client's {@code TimeZone} start-up parameter names (also its default), or
     * {@code 22023} when it names none.
     */
    public void startupZone(String value) {
        try {
            this.defaultZone = dev.tandem.expr.TimeZones.setting(value);
        } catch (dev.tandem.expr.EvalError e) {
            throw SqlErrors.evaluation(e);
        }
        this.zone = defaultZone;
    }

    /** Which catalog objects the session's principal may see listed (SHOW): those granted to it. */
    private volatile java.util.function.Predicate<String> visible = name -> true;

    /** Limits what SHOW lists to the objects {@code visible} accepts by name (a principal's grants). */
    public void visibleObjects(java.util.function.Predicate<String> visible) {
        this.visible = visible;
    }

    /** Whether SHOW lists the object named {@code name} to this session. */
    boolean sees(String name) {
        return visible.test(name);
    }

    /** Whether this session may open transaction blocks. */
    boolean blocksAllowed() {
        return blocks;
    }

    /** Whether reads are strict serializable (see every write acknowledged before them). */
    public boolean strict() {
        return strict;
    }

    public void strict(boolean strict) {
        this.strict = strict;
    }

    /** The upstream position ({@code SET tandem.after_lsn}) reads wait for the PostgreSQL sources to apply, or null. */
    private volatile String afterLsn;

    String afterLsn() {
        return afterLsn;
    }

    void afterLsn(String lsn) {
        this.afterLsn = lsn;
    }

    /**
     * Whether this session's reads are strict: asked for, after its own writes, or waiting for an upstream
     * position (the sources' writes that reached it must be seen).
     */
    boolean strictReads() {
        return strict || wrote || afterLsn != null;
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

    /** The transaction block the session is in. */
    public synchronized Block block() {
        return block;
    }

    /** Marks the open transaction block failed after an error (no effect outside a block). */
    public synchronized void fail() {
        if (block == Block.OPEN) {
            block = Block.FAILED;
        }
    }

    /** When the open transaction block began (null outside one): its statements' {@code now()}. */
    private java.time.Instant blockTime;
    /** When the statement running now began (null: none has). */
    private java.time.Instant statementStart;

    /** Marks the start of a statement: its {@code now()} outside a block. */
    synchronized void startStatement() {
        statementStart = java.time.Instant.now();
    }

    /**
     * The time {@code now()} reads in the session's statement: the start of its transaction, as in
     * PostgreSQL — the block's {@code BEGIN}, else the statement's own start.
     */
    synchronized java.time.Instant statementTime() {
        return blockTime != null ? blockTime : statementStart != null ? statementStart : java.time.Instant.now();
    }

    /** The times a statement reads: its transaction's start ({@code now()}) and its own ({@code statement_timestamp()}). */
    record Times(java.time.Instant transaction, java.time.Instant statement) {
        /** Both at {@code t}. */
        static Times at(java.time.Instant t) {
            return new Times(t, t);
        }
    }

    /** The times of the session's statement running now. */
    synchronized Times times() {
        java.time.Instant statement = statementStart != null ? statementStart : java.time.Instant.now();
        return new Times(blockTime != null ? blockTime : statement, statement);
    }

    synchronized void begin() {
        if (block == Block.IDLE) {
            block = Block.OPEN;
            writes = new TransactionBlock();
            blockTime = java.time.Instant.now();
            blockZone = zone;
        }
    }

    /** The time zone when the open block began, which a rollback returns to (as PostgreSQL undoes a SET in it). */
    private dev.tandem.expr.TimeZones.Zone blockZone;

    /** Undoes the settings made in the block ({@code ROLLBACK}, or {@code COMMIT} of a failed block): its time zone. */
    synchronized void rollBackSettings() {
        if (block != Block.IDLE && blockZone != null) {
            zone = blockZone;
        }
    }

    /** The writes of the open transaction block, or null outside a block. */
    synchronized TransactionBlock writes() {
        return writes;
    }

    /**
     * A session whose reads are strict and see this session's uncommitted writes: how a write reads the
     * rows it changes (as of the last acknowledged write, with the block's own writes).
     */
    SqlSession strictReader() {
        SqlSession reader = new SqlSession();
        reader.strict = true;
        reader.zone = zone;
        synchronized (this) {
            reader.writes = writes;
            reader.blockTime = blockTime;
            reader.statementStart = statementStart;
        }
        return reader;
    }

    /** Ends the block (COMMIT or ROLLBACK): its cursors are closed. */
    void end() {
        List<SqlCursor> open;
        synchronized (this) {
            block = Block.IDLE;
            writes = null;
            blockTime = null;
            open = new ArrayList<>(cursors.values());
            cursors.clear();
        }
        open.forEach(SqlCursor::close);
    }

    /** Ends the session: the block ends and its cursors close (called when the connection ends). */
    public void close() {
        end();
    }

    synchronized SqlCursor cursor(String name) {
        return cursors.get(name);
    }

    /** Adds a cursor; false (and the cursor is closed) when one of that name exists or the block ended meanwhile. */
    boolean declare(SqlCursor cursor) {
        boolean added;
        synchronized (this) {
            added = block == Block.OPEN && cursors.putIfAbsent(cursor.name(), cursor) == null;
        }
        if (!added) {
            cursor.close();
        }
        return added;
    }

    /** Closes one cursor; false when there is none of that name. */
    boolean closeCursor(String name) {
        SqlCursor c;
        synchronized (this) {
            c = cursors.remove(name);
        }
        if (c != null) {
            c.close();
        }
        return c != null;
    }

    /** Closes every cursor ({@code CLOSE ALL}). */
    void closeCursors() {
        List<SqlCursor> open;
        synchronized (this) {
            open = new ArrayList<>(cursors.values());
            cursors.clear();
        }
        open.forEach(SqlCursor::close);
    }

    /**
     * How a change stream of this session takes a permit (per principal, say): {@code permits} returns
     * the release action, or throws a {@link SqlException} when the session may not open another stream.
     * Every SUBSCRIBE (as COPY or as a cursor) takes one for as long as it runs.
     */
    public void streamPermits(Supplier<Runnable> permits) {
        this.streamPermits = permits;
    }

    Runnable takeStreamPermit() {
        return streamPermits.get();
    }
}
