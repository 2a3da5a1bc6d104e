/**
 * PostgreSQL as a source: the exported-snapshot copy and pgoutput logical replication, applied exactly once.
 *
 * <p>May import: controller, row, source, sql, storage.
 */
package dev.tandem.source.postgres;
