package dev.tandem.source;

import java.util.Map;

/**
 * A source's definition and how its ingestion stands: the next offset per partition (recorded with the
 * rows), the end offsets last seen, lag (their difference, summed; -1 until end offsets are known),
 * records ingested and refused, and a state ({@code starting}, {@code running}, {@code retrying} with the
 * problem in {@code detail}, {@code standby} while another replica ingests, {@code failed}, {@code stopped}).
 * {@code ingesting} tells whether this process is the one reading the topic (among replicas, one at a
 * time); {@code decoded} counts the records this process decoded since it started. A replica standing by
 * shows the progress the ingesting one recorded, and no end offsets (lag -1).
 */
public record SourceStatus(SourceDefinition definition, int partitions, Map<Integer, Long> offsets, Map<Integer, Long> endOffsets, long lag,
        long records, long errors, String state, String detail, boolean ingesting, long decoded) {
}
