/**
 * Micrometer gauges and counters read from the runtimes, storage, sources and streams.
 *
 * <p>May import: multiplex, render, row, runtime, sharing, source, storage, stream, time.
 */
package dev.tandem.metrics;
