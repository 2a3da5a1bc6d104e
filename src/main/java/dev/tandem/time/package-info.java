/**
 * Timestamps and frontiers.
 *
 * <p>May import: nothing of Tandem's.
 */
package dev.tandem.time;
