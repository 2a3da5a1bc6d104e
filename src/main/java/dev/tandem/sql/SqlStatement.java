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
}
