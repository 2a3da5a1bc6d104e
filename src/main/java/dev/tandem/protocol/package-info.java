/**
 * The compute protocol between the controller and the runtimes: commands and responses.
 *
 * <p>May import: expr, json, plan, row, time.
 */
package dev.tandem.protocol;
