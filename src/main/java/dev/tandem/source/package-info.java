/**
 * Sources that feed tables from outside (Kafka topics): ingestion, leases and error collections.
 *
 * <p>May import: controller, row, sql, storage.
 */
package dev.tandem.source;
