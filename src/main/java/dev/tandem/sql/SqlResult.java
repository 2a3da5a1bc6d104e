package dev.tandem.sql;

import dev.tandem.controller.ReadResult;
import java.util.List;

/**
 * The outcome of one SQL statement. A query has {@code columns} and {@code rows} (decoded datums) and
 * the {@code read} it came from (its read time, freshness, path and runtime; null for answers Tandem
 * makes up itself such as {@code SHOW} and {@code EXPLAIN}). A command has only its tag:
 * {@code command} is the PostgreSQL command tag ({@code SELECT}, {@code INSERT}, {@code CREATE VIEW}...),
 * {@code rowCount} the rows it returned or changed, {@code timestamp} a write's timestamp (else null).
 */
public record SqlResult(String command, List<SqlColumn> columns, List<Object[]> rows, long rowCount, ReadResult read,
        Long timestamp) {

    /** Whether this result has rows (a query), as opposed to a command. */
    public boolean isQuery() {
        return columns != null;
    }

    /** The PostgreSQL CommandComplete tag: {@code SELECT 3}, {@code INSERT 0 2}, {@code CREATE TABLE}, {@code FETCH 2}. */
    public String tag() {
        return switch (command) {
            case "SELECT", "SHOW", "EXPLAIN" -> "SELECT " + rowCount;
            case "FETCH" -> "FETCH " + rowCount;
            case "INSERT" -> "INSERT 0 " + rowCount;
            case "DELETE" -> "DELETE " + rowCount;
            case "UPDATE" -> "UPDATE " + rowCount;
            case "COPY" -> "COPY " + rowCount;
            default -> command;
        };
    }

    static SqlResult command(String command) {
        return new SqlResult(command, null, null, 0, null, null);
    }

    static SqlResult rows(String command, List<SqlColumn> columns, List<Object[]> rows) {
        return new SqlResult(command, columns, rows, rows.size(), null, null);
    }
}
