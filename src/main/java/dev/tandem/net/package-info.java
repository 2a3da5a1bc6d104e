/**
 * Netty helpers shared by the HTTP and wire-protocol servers: writability gates and connection caps.
 *
 * <p>May import: nothing of Tandem's.
 */
package dev.tandem.net;
