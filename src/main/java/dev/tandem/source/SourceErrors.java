package dev.tandem.source;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/** The catalog form of a refused record ({@link SourceError}). */
final class SourceErrors {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private SourceErrors() {
    }

    static String toJson(SourceError e) {
        ObjectNode n = JSON.createObjectNode();
        n.put("partition", e.partition());
        n.put("offset", e.offset());
        n.put("error", e.error());
        n.put("value", e.value());
        return n.toString();
    }

    static SourceError fromJson(String source, String json) {
        JsonNode n = JSON.readTree(json);
        JsonNode value = n.get("value");
        return new SourceError(source, n.get("partition").asInt(), n.get("offset").asLong(), n.get("error").asString(),
                value == null || value.isNull() ? null : value.asString());
    }
}
