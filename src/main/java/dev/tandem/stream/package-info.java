/**
 * Change streams: subscriptions to arrangements with bounded buffers, for SSE, WebSocket and SUBSCRIBE.
 *
 * <p>May import: controller, expr, row, sharing, time, trace.
 */
package dev.tandem.stream;
