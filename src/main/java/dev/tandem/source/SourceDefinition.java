package dev.tandem.source;

import dev.tandem.row.Column;
import dev.tandem.row.DatumType;
import dev.tandem.row.Schema;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A Kafka source: a table named {@code name} with {@code columns}, fed by the records of {@code topic}
 * on {@code bootstrapServers}, read as JSON through {@code envelope}; {@code key} names the columns
 * that identify a row (required by the upsert and Debezium envelopes, none for append).
 */
public record SourceDefinition(String name, List<Column> columns, String bootstrapServers, String topic, String format, List<String> key,
        Envelope envelope) {

    /** The only record format so far. */
    public static final String JSON_FORMAT = "json";

    private static final JsonMapper JSON = JsonMapper.builder().build();

    public SourceDefinition {
        Objects.requireNonNull(name, "name");
        columns = List.copyOf(columns);
        Objects.requireNonNull(bootstrapServers, "bootstrapServers");
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(format, "format");
        key = List.copyOf(key);
        Objects.requireNonNull(envelope, "envelope");
    }

    public Schema schema() {
        return new Schema(columns);
    }

    /** Why this definition cannot be a source (the table's own checks come later), or null. */
    String violation() {
        if (topic.isBlank()) {
            return "kafka.topic must not be empty";
        }
        if (bootstrapServers.isBlank()) {
            return "kafka.bootstrap_servers must not be empty";
        }
        if (!JSON_FORMAT.equals(format)) {
            return "kafka.format '" + format + "' is not supported; use \"json\"";
        }
        if (envelope.keyed() && key.isEmpty()) {
            return "kafka.key: the " + envelope.jsonName() + " envelope needs the key columns that identify a row";
        }
        if (!envelope.keyed() && !key.isEmpty()) {
            return "kafka.key: the append envelope takes no key (every record inserts a row)";
        }
        List<String> names = columns.stream().map(Column::name).toList();
        for (String k : key) {
            if (!names.contains(k)) {
                return "kafka.key: no column named '" + k + "'; the columns are " + names;
            }
        }
        if (key.stream().distinct().count() != key.size()) {
            return "kafka.key names a column twice";
        }
        return null;
    }

    /** The positions of the key columns. */
    int[] keyColumns() {
        Schema schema = schema();
        return key.stream().mapToInt(schema::indexOf).toArray();
    }

    /** The definition as stored in the catalog. */
    String toJson() {
        ObjectNode n = JSON.createObjectNode();
        n.put("name", name);
        ArrayNode cols = n.putArray("columns");
        for (Column c : columns) {
            cols.addObject().put("name", c.name()).put("type", c.type().jsonName()).put("nullable", c.nullable());
        }
        ObjectNode kafka = n.putObject("kafka");
        kafka.put("bootstrap_servers", bootstrapServers);
        kafka.put("topic", topic);
        kafka.put("format", format);
        ArrayNode k = kafka.putArray("key");
        key.forEach(k::add);
        kafka.put("envelope", envelope.jsonName());
        return n.toString();
    }

    /** Reads a definition stored by {@link #toJson()}. */
    static SourceDefinition fromJson(String json) {
        JsonNode n = JSON.readTree(json);
        List<Column> cols = new ArrayList<>();
        for (JsonNode c : n.get("columns")) {
            cols.add(new Column(c.get("name").asString(), DatumType.fromJson(c.get("type").asString()), c.get("nullable").asBoolean()));
        }
        JsonNode kafka = n.get("kafka");
        List<String> key = new ArrayList<>();
        kafka.get("key").forEach(k -> key.add(k.asString()));
        return new SourceDefinition(n.get("name").asString(), cols, kafka.get("bootstrap_servers").asString(), kafka.get("topic").asString(),
                kafka.get("format").asString(), key, Envelope.fromJson(kafka.get("envelope").asString()));
    }
}
