/**
 * The SQL layer: parsing and planning with Calcite, translation into plans, writes, DDL, sessions and transaction blocks.
 *
 * <p>May import: controller, expr, plan, protocol, row, storage, stream.
 */
package dev.tandem.sql;
