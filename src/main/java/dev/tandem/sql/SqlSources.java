package dev.tandem.sql;

import java.util.List;

/**
 * What {@code CREATE SOURCE ... FROM POSTGRES} and {@code DROP SOURCE} do, supplied by the sources'
 * manager ({@link SqlEngine#sources}); without one, both are refused as not supported.
 */
public interface SqlSources {

    /**
     * A PostgreSQL source as {@code CREATE SOURCE} declares it.
     *
     * @param tables the upstream tables with their Tandem names ({@code {upstream, local}}), or null for all of the publication's
     * @param textColumns {@code table.column} names taken as text whatever their upstream type
     */
    record CreatePostgres(String name, String connection, String passwordSecret, String publication, List<String[]> tables,
            List<String> textColumns) {
    }

    /** Creates the source, or throws with why nothing was created. */
    void createPostgres(CreatePostgres statement);

    /**
     * Completes once every PostgreSQL source has applied its upstream through {@code lsn} (PostgreSQL's
     * {@code X/Y} form, as {@code pg_current_wal_lsn()} prints it), or fails when {@code timeout} passes first.
     */
    reactor.core.publisher.Mono<Void> awaitUpstream(String lsn, java.time.Duration timeout);

    /** Drops the source {@code name}; false if there is none. */
    boolean drop(String name);
}
