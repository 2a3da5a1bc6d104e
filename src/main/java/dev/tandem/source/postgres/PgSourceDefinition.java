package dev.tandem.source.postgres;

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
 * A PostgreSQL source as stored in the catalog ({@code pgsource/<name>}): the upstream's connection
 * string (without a password), the name of the secret holding the password, the publication, the
 * replication slot it reads, and the upstream tables it replicates with their Tandem tables. Never holds
 * the password itself.
 */
public record PgSourceDefinition(String name, String connection, String passwordSecret, String publication, String slot,
        List<Table> tables) {

    /** An upstream table ({@code schema.name}) replicated into the Tandem table {@code local}. */
    public record Table(String schema, String name, String local, List<Column> columns, List<String> pgTypes, List<String> key) {
        public Table {
            columns = List.copyOf(columns);
            pgTypes = List.copyOf(pgTypes);
            key = List.copyOf(key);
        }

        public Schema tandemSchema() {
            return new Schema(columns);
        }

        /** The positions of the key columns (the replica identity), empty when the whole row identifies it. */
        int[] keyPositions() {
            Schema s = tandemSchema();
            return key.stream().mapToInt(s::indexOf).toArray();
        }

        String qualified() {
            return schema + "." + name;
        }
    }

    static final String DEFINITION_PREFIX = "pgsource/";
    static final String PROGRESS_PREFIX = "pgsource-progress/";
    private static final JsonMapper JSON = JsonMapper.builder().build();

    public PgSourceDefinition {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(connection, "connection");
        Objects.requireNonNull(publication, "publication");
        Objects.requireNonNull(slot, "slot");
        tables = List.copyOf(tables);
    }

    static String definitionKey(String name) {
        return DEFINITION_PREFIX + name;
    }

    static String progressKey(String name) {
        return PROGRESS_PREFIX + name;
    }

    String toJson() {
        ObjectNode n = JSON.createObjectNode();
        n.put("name", name);
        n.put("connection", connection);
        if (passwordSecret != null) {
            n.put("password_secret", passwordSecret);
        }
        n.put("publication", publication);
        n.put("slot", slot);
        ArrayNode ts = n.putArray("tables");
        for (Table t : tables) {
            ObjectNode o = ts.addObject();
            o.put("schema", t.schema()).put("name", t.name()).put("local", t.local());
            ArrayNode cols = o.putArray("columns");
            for (int i = 0; i < t.columns().size(); i++) {
                Column c = t.columns().get(i);
                cols.addObject().put("name", c.name()).put("type", c.type().jsonName()).put("nullable", c.nullable()).put("pg_type", t.pgTypes().get(i));
            }
            ArrayNode key = o.putArray("key");
            t.key().forEach(key::add);
        }
        return n.toString();
    }

    static PgSourceDefinition fromJson(String json) {
        JsonNode n = JSON.readTree(json);
        List<Table> tables = new ArrayList<>();
        for (JsonNode t : n.get("tables")) {
            List<Column> cols = new ArrayList<>();
            List<String> types = new ArrayList<>();
            for (JsonNode c : t.get("columns")) {
                cols.add(new Column(c.get("name").asString(), DatumType.fromJson(c.get("type").asString()), c.get("nullable").asBoolean()));
                types.add(c.get("pg_type").asString());
            }
            List<String> key = new ArrayList<>();
            t.get("key").forEach(k -> key.add(k.asString()));
            tables.add(new Table(t.get("schema").asString(), t.get("name").asString(), t.get("local").asString(), cols, types, key));
        }
        JsonNode secret = n.get("password_secret");
        return new PgSourceDefinition(n.get("name").asString(), n.get("connection").asString(), secret == null ? null : secret.asString(),
                n.get("publication").asString(), n.get("slot").asString(), tables);
    }
}
