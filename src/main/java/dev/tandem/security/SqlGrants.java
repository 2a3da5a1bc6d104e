package dev.tandem.security;

import dev.tandem.sql.SqlStatement;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Who may run a SQL statement, over HTTP, the WebSocket and the PostgreSQL wire protocol alike: a
 * read needs {@code reader}, a row write {@code writer}, a catalog change {@code admin}, a session
 * setting {@code reader}; and a principal with an object allow-list needs the grant on every table,
 * view and index the statement names (a read of a view needs the view's grant, not its inputs').
 */
public final class SqlGrants {

    private SqlGrants() {
    }

    /** The role a statement of {@code kind} needs. */
    public static Role role(SqlStatement.Kind kind) {
        return switch (kind) {
            case READ, SESSION -> Role.READER;
            case WRITE -> Role.WRITER;
            case DDL -> Role.ADMIN;
        };
    }

    /**
     * Why {@code principal} may not run a statement of {@code kind} naming {@code objects} (asked only
     * when the principal has an allow-list), or null when it may.
     */
    public static String refusal(AccessPrincipal principal, SqlStatement.Kind kind, Supplier<Set<String>> objects) {
        Role need = role(kind);
        if (!principal.has(need)) {
            return "a " + label(kind) + " statement needs the role " + need.label() + "; '" + principal.name() + "' has "
                    + (principal.roles().isEmpty() ? "no role" : String.join(", ", principal.roles().stream().map(Role::label).sorted().toList()));
        }
        if (principal.objects() != null) {
            for (String o : objects.get()) {
                if (!principal.mayAccess(o)) {
                    return "'" + principal.name() + "' is not granted access to '" + o + "'";
                }
            }
        }
        return null;
    }

    private static String label(SqlStatement.Kind kind) {
        return switch (kind) {
            case READ -> "read (SELECT, SHOW, EXPLAIN, SUBSCRIBE)";
            case WRITE -> "write (INSERT, DELETE)";
            case DDL -> "catalog (CREATE, DROP)";
            case SESSION -> "session (SET)";
        };
    }
}
