/**
 * The arrangement sharing registry: published arrangements and the publication sinks readers follow, zero-copy.
 *
 * <p>May import: row, time, trace.
 */
package dev.tandem.sharing;
