/**
 * The multiplexer: one controller endpoint over both runtimes, merging their responses (one answer per peek, frontiers from each collection's owner).
 *
 * <p>May import: protocol, runtime, sharing, storage.
 */
package dev.tandem.multiplex;
