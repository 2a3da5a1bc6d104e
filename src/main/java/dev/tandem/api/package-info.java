/**
 * The HTTP and WebSocket surface: routes, request decoding, problem answers, access control and admission per route.
 *
 * <p>May import: config, controller, expr, json, multiplex, net, plan, protocol, row, runtime, security, source, sql, storage, stream, time.
 */
package dev.tandem.api;
