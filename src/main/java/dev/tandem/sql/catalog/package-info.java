/**
 * PostgreSQL's pg_catalog and information_schema as relations over Tandem's catalog, with the functions clients call.
 *
 * <p>May import: controller, row, sql.
 */
package dev.tandem.sql.catalog;
