/**
 * A small JSON subset reader and writer shared by the protocol and plan encodings.
 *
 * <p>May import: nothing of Tandem's.
 */
package dev.tandem.json;
