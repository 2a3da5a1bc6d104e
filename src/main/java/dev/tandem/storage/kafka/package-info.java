/**
 * The Kafka shared log beneath replicated storage.
 *
 * <p>May import: storage.
 */
package dev.tandem.storage.kafka;
