package dev.tandem.source;

/** A record a source could not ingest: where it is in the topic, why, and the start of its value. */
public record SourceError(String source, int partition, long offset, String error, String value) {
}
