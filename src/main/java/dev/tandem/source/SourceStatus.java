package dev.tandem.source;

import java.util.Map;

/**
 * A source's definition and how its ingestion stands: the next offset per partition (recorded with the
 * rows), the end offsets last seen, lag (their difference, summed; -1 until end offsets are known),
 * records ingested and refused, and a state ({@code starting}, {@code running}, {@code retrying} with the
 * problem in {@code detail}, {@code failed}, {@code stopped}).
 */
public record SourceStatus(SourceDefinition definition, int partitions, Map<Integer, Long> offsets, Map<Integer, Long> endOffsets, long lag,
        long records, long errors, String state, String detail) {
}
