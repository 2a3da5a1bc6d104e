package dev.tandem.plan;

import static dev.tandem.expr.ExprException.child;
import static dev.tandem.expr.ExprException.index;

import dev.tandem.expr.ExprException;
import dev.tandem.expr.ExprJson;
import dev.tandem.json.StrictJson;
import dev.tandem.row.Column;
import dev.tandem.row.Schema;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The JSON codec of {@link DataflowDescription}:
 * <pre>
 * {"source_imports": {"u1": {"columns": [{"name": "a", "type": "int64", "nullable": true}, ...]}},
 *  "index_imports":  {"u7": {"on": "u3", "key": [0], "schema": {"columns": [...]}}},
 *  "objects_to_build": [{"id": "t1", "plan": P}, ...],
 *  "index_exports":  [{"id": "u9", "object": "t1", "key": [0]}, ...],
 *  "as_of": 1000, "until": 1001}
 * </pre>
 * Every field but {@code as_of} is optional ({@code nullable} defaults to true, {@code until} to none).
 */
public final class DataflowJson {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final StrictJson JSON = PlanJson.JSON;

    private DataflowJson() {
    }

    /** Parses a dataflow description; throws {@link PlanException} with the JSON path of the first error. */
    public static DataflowDescription parse(JsonNode node) {
        try {
            return parseUnchecked(node);
        } catch (ExprException e) {
            throw PlanException.of(e);
        }
    }

    private static DataflowDescription parseUnchecked(JsonNode node) {
        JSON.object(node, "", "a dataflow description object");
        PlanJson.fields(node, "", "source_imports", "index_imports", "objects_to_build", "index_exports", "as_of", "until");
        Map<String, Schema> sources = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : object(node, "source_imports").properties()) {
            sources.put(e.getKey(), schema(e.getValue(), child("source_imports", e.getKey())));
        }
        Map<String, DataflowDescription.IndexImport> indexes = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : object(node, "index_imports").properties()) {
            String at = child("index_imports", e.getKey());
            JsonNode v = e.getValue();
            JSON.object(v, at, "{\"on\": id, \"key\": [...], \"schema\": {...}}");
            PlanJson.fields(v, at, "on", "key", "schema");
            indexes.put(e.getKey(), new DataflowDescription.IndexImport(
                    PlanJson.string(PlanJson.required(v, "on", at), child(at, "on")),
                    ExprJson.intList(PlanJson.required(v, "key", at), child(at, "key")),
                    schema(PlanJson.required(v, "schema", at), child(at, "schema"))));
        }
        List<DataflowDescription.BuildDesc> objects = new ArrayList<>();
        JsonNode os = array(node, "objects_to_build");
        for (int i = 0; i < os.size(); i++) {
            String at = index("objects_to_build", i);
            JsonNode o = os.get(i);
            JSON.object(o, at, "{\"id\": ..., \"plan\": ...}");
            PlanJson.fields(o, at, "id", "plan");
            objects.add(new DataflowDescription.BuildDesc(PlanJson.string(PlanJson.required(o, "id", at), child(at, "id")),
                    PlanJson.parse(PlanJson.required(o, "plan", at), child(at, "plan"))));
        }
        List<DataflowDescription.IndexExport> exports = new ArrayList<>();
        JsonNode xs = array(node, "index_exports");
        for (int i = 0; i < xs.size(); i++) {
            String at = index("index_exports", i);
            JsonNode x = xs.get(i);
            JSON.object(x, at, "{\"id\": ..., \"object\": ..., \"key\": [...]}");
            PlanJson.fields(x, at, "id", "object", "key");
            exports.add(new DataflowDescription.IndexExport(PlanJson.string(PlanJson.required(x, "id", at), child(at, "id")),
                    PlanJson.string(PlanJson.required(x, "object", at), child(at, "object")),
                    ExprJson.intList(PlanJson.required(x, "key", at), child(at, "key"))));
        }
        long asOf = PlanJson.nonNegativeLong(PlanJson.required(node, "as_of", ""), "as_of");
        Long until = node.has("until") && !node.get("until").isNull() ? PlanJson.nonNegativeLong(node.get("until"), "until") : null;
        return new DataflowDescription(sources, indexes, objects, exports, asOf, until);
    }

    private static JsonNode object(JsonNode node, String field) {
        JsonNode v = node.get(field);
        if (v == null) {
            return NODES.objectNode();
        }
        JSON.object(v, field, "an object keyed by id");
        return v;
    }

    private static JsonNode array(JsonNode node, String field) {
        JsonNode v = node.get(field);
        if (v == null) {
            return NODES.arrayNode();
        }
        JSON.array(v, field, "an array");
        return v;
    }

    /** Parses {@code {"columns": [{"name": n, "type": t, "nullable": b}, ...]}}. */
    public static Schema schema(JsonNode node, String path) {
        JSON.object(node, path, "a schema {\"columns\": [...]}");
        PlanJson.fields(node, path, "columns");
        JsonNode cs = PlanJson.required(node, "columns", path);
        JSON.array(cs, child(path, "columns"), "an array of columns");
        List<Column> columns = new ArrayList<>();
        for (int i = 0; i < cs.size(); i++) {
            String at = index(child(path, "columns"), i);
            JsonNode c = cs.get(i);
            JSON.object(c, at, "a column {\"name\": ..., \"type\": ...}");
            PlanJson.fields(c, at, "name", "type", "nullable");
            columns.add(new Column(PlanJson.string(PlanJson.required(c, "name", at), child(at, "name")),
                    ExprJson.type(PlanJson.required(c, "type", at), child(at, "type")),
                    !c.has("nullable") || PlanJson.bool(c.get("nullable"), child(at, "nullable"))));
        }
        try {
            return new Schema(columns);
        } catch (IllegalArgumentException e) {
            throw new PlanException(child(path, "columns"), e.getMessage());
        }
    }

    public static ObjectNode writeSchema(Schema schema) {
        ObjectNode o = NODES.objectNode();
        ArrayNode cs = o.putArray("columns");
        for (Column c : schema.columns()) {
            cs.addObject().put("name", c.name()).put("type", c.type().jsonName()).put("nullable", c.nullable());
        }
        return o;
    }

    /** Writes a dataflow description. */
    public static ObjectNode write(DataflowDescription d) {
        ObjectNode o = NODES.objectNode();
        ObjectNode sources = o.putObject("source_imports");
        d.sourceImports().forEach((id, s) -> sources.set(id, writeSchema(s)));
        ObjectNode indexes = o.putObject("index_imports");
        d.indexImports().forEach((id, ix) -> indexes.putObject(id)
                .put("on", ix.on())
                .<ObjectNode>set("key", PlanJson.ints(ix.key()))
                .set("schema", writeSchema(ix.schema())));
        ArrayNode objects = o.putArray("objects_to_build");
        d.objectsToBuild().forEach(b -> objects.addObject().put("id", b.id()).set("plan", PlanJson.write(b.plan())));
        ArrayNode exports = o.putArray("index_exports");
        d.indexExports().forEach(x -> exports.addObject().put("id", x.id()).put("object", x.object()).set("key", PlanJson.ints(x.key())));
        o.put("as_of", d.asOf());
        if (d.until() != null) {
            o.put("until", d.until());
        }
        return o;
    }
}
