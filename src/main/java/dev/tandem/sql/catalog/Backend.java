package dev.tandem.sql.catalog;

/**
 * A wire-protocol session as {@code pg_stat_activity} shows it.
 *
 * @param pid the session's process id (its {@code pg_backend_pid()})
 * @param user the user it logged in as
 * @param address the client's address
 * @param port the client's port (-1: unknown)
 * @param application the {@code application_name} it sent (empty: none)
 * @param backendStartMillis when it connected (epoch milliseconds)
 * @param state {@code active}, {@code idle}, {@code idle in transaction} or {@code idle in transaction (aborted)}
 * @param query the statement running, or the last one run (empty: none yet)
 * @param queryStartMillis when that statement started (0: none yet)
 */
public record Backend(int pid, String user, String address, int port, String application, long backendStartMillis, String state,
        String query, long queryStartMillis) {
}
