/**
 * The controller: the catalog, read planning and admission, index tracking, peeks and change streams across the runtimes.
 *
 * <p>May import: expr, multiplex, plan, protocol, row, runtime, sharing, storage, time.
 */
package dev.tandem.controller;
