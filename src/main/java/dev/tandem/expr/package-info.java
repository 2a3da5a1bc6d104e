/**
 * Scalar expressions and map/filter/project: their JSON, typing and evaluation, with evaluation errors as values.
 *
 * <p>May import: json, row.
 */
package dev.tandem.expr;
