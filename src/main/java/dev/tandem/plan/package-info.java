/**
 * Plans and dataflow descriptions: their JSON, typing, names, and a naive reference evaluator used as a test oracle.
 *
 * <p>May import: expr, json, row, time.
 */
package dev.tandem.plan;
