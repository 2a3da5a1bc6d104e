/**
 * Traces: batches and spines of (key, value, time, diff) updates, merged and compacted.
 *
 * <p>May import: row, time.
 */
package dev.tandem.trace;
