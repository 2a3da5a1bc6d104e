package dev.tandem.sql;

import dev.tandem.row.DatumType;
import java.util.List;

/**
 * A prepared SQL statement: parsed, validated and planned once, executed many times with parameters
 * ({@code $1}, {@code $2}...). {@link #columns} is null for a statement that returns no rows.
 */
public interface SqlStatement {

    /** The statement text as given. */
    String text();

    /** The result columns of a query, or null for a command. */
    List<SqlColumn> columns();

    /** The types of the parameters {@code $1..$n}, in order. */
    List<DatumType> parameterTypes();

    /** What the statement does ({@link SqlEngine#kind} of its text, found once). */
    Kind kind();

    /**
     * What a statement does, for authorization ({@link SqlEngine#kind}): {@code READ} reads
     * ({@code SELECT}, {@code SHOW}, {@code EXPLAIN}, {@code SUBSCRIBE}), {@code WRITE} changes rows
     * ({@code INSERT}, {@code DELETE}), {@code DDL} changes the catalog (and anything not known to be
     * harmless), {@code SESSION} changes only the connection ({@code SET}, transaction blocks, {@code FETCH}
     * and {@code CLOSE} of a cursor, an empty statement). A {@code DECLARE} is of the kind of the statement
     * it declares a cursor for.
     */
    enum Kind { READ, WRITE, DDL, SESSION }
}
