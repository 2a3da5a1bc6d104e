package dev.tandem.source;

import java.util.Map;
import java.util.TreeMap;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * How far a source has ingested, as recorded in the catalog with the rows it wrote: the next offset of
 * each partition, and how many records it ingested and refused. Its JSON is canonical (partitions in
 * order), so the stored text is what the next write's guard expects.
 */
record SourceProgress(Map<Integer, Long> offsets, long records, long errors) {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    static final SourceProgress START = new SourceProgress(Map.of(), 0, 0);

    SourceProgress {
        offsets = java.util.Collections.unmodifiableMap(new TreeMap<>(offsets));
    }

    String toJson() {
        ObjectNode n = JSON.createObjectNode();
        ObjectNode o = n.putObject("offsets");
        offsets.forEach((p, next) -> o.put(Integer.toString(p), next));
        n.put("records", records);
        n.put("errors", errors);
        return n.toString();
    }

    /** The progress stored as {@code json}; null json (nothing recorded yet) is the start. */
    static SourceProgress fromJson(String json) {
        if (json == null) {
            return START;
        }
        JsonNode n = JSON.readTree(json);
        Map<Integer, Long> offsets = new TreeMap<>();
        n.get("offsets").properties().forEach(e -> offsets.put(Integer.parseInt(e.getKey()), e.getValue().asLong()));
        return new SourceProgress(offsets, n.get("records").asLong(), n.get("errors").asLong());
    }
}
