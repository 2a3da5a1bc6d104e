/**
 * Rows and datums: the packed row encoding, types and schemas.
 *
 * <p>May import: json.
 */
package dev.tandem.row;
