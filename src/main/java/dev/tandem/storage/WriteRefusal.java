package dev.tandem.storage;

import java.util.Objects;

/**
 * A change storage refuses at admission, and nothing of it is written: a {@link Reason} saying why, so a
 * caller reacts to the reason (a catalog whose guard moved is learnt again and retried; a NULL in a NOT NULL
 * column is answered {@code 23502}) and never to the message, which is for people.
 */
public final class WriteRefusal extends IllegalArgumentException {

    /** Why a change was refused. */
    public enum Reason {
        /** A table of that id already exists. */
        TABLE_EXISTS,
        /** No table of that id (never created, or dropped). */
        UNKNOWN_TABLE,
        /** Unique keys that do not fit the table's schema. */
        INVALID_KEYS,
        /** A row that is no row of the table: null, of diff 0, corrupt, of another arity or column type. */
        SCHEMA_MISMATCH,
        /** A NULL in a column that is not nullable. */
        NOT_NULLABLE,
        /** A write to several tables that names none. */
        NO_TABLES,
        /** A catalog swap's guard entry no longer holds the expected value: another writer (replica) moved it. */
        GUARD_MOVED
    }

    private final Reason reason;

    public WriteRefusal(Reason reason, String message) {
        super(message);
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    public Reason reason() {
        return reason;
    }
}
