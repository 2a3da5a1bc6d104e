package dev.tandem.pgwire;

import dev.tandem.sql.catalog.CatalogQuery;

/**
 * Which statements a session sends to the catalog engine rather than to the SQL engine's dataflows:
 * reads of PostgreSQL's catalog ({@code pg_catalog}, {@code information_schema}, their functions), as
 * psql's {@code \d}, drivers' metadata calls and ORMs' reflection send them ({@link CatalogQuery}).
 */
final class PgCatalogQueries {

    private PgCatalogQueries() {
    }

    /** Whether {@code sql} is a read of the catalog. */
    static boolean reads(String sql) {
        return CatalogQuery.reads(sql);
    }
}
