/**
 * The PostgreSQL wire protocol: sessions, authentication, the simple and extended protocols, COPY and guards on connections.
 *
 * <p>May import: controller, net, row, security, sql.
 */
package dev.tandem.pgwire;
