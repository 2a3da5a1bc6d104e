/**
 * The compute runtimes (maintenance and interactive): their threads, command application, peeks and introspection.
 *
 * <p>May import: expr, plan, protocol, render, row, sharing, storage, time, trace.
 */
package dev.tandem.runtime;
