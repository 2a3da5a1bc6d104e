/**
 * Rendering a dataflow description into operators and running them in rounds over shards.
 *
 * <p>May import: expr, plan, row, sharing, storage, time, trace.
 */
package dev.tandem.render;
