package dev.tandem.protocol;

import dev.tandem.expr.EvalError;
import dev.tandem.expr.ExprException;
import dev.tandem.expr.ExprJson;
import dev.tandem.expr.Mfp;
import dev.tandem.json.StrictJson;
import dev.tandem.plan.DataflowDescription;
import dev.tandem.plan.DataflowJson;
import dev.tandem.plan.Plan;
import dev.tandem.plan.PlanJson;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.row.RowJson;
import dev.tandem.row.RowPacker;
import dev.tandem.time.Frontier;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The JSON codec of the compute protocol: one JSON object per {@link ComputeCommand} or
 * {@link ComputeResponse}, tagged by {@code "type"} (the record's name), other fields in snake_case.
 *
 * <ul>
 *   <li>UUIDs are strings in the 8-4-4-4-12 hex form; timestamps are non-negative JSON integers;
 *       a {@link Frontier} is {@code [t]} or {@code []} (the empty frontier).</li>
 *   <li>A list of rows is <em>typed</em>: {@code "types": ["int64", ...]} names the column types once
 *       and {@code "rows": [[...], ...]} holds each row as an array of datums written as in
 *       {@link RowJson} (so NULLs keep their column type). {@code Peek.literal_keys} is such an object;
 *       a {@code Rows} result carries the two fields itself. Every row of one list has the same types;
 *       an empty list is written with {@code "types": []}.</li>
 *   <li>MFPs are written as by {@link ExprJson#writeMfp}, dataflows as by {@link DataflowJson}, and a
 *       {@link Finishing} as {@code {"order_by": [orderings as in top_k], "limit": n, "offset": m}}.</li>
 *   <li>Optional fields may be absent or null: {@code CreateInstance.logging} (default {@code {}}) and
 *       {@code parameters} (default unset), {@code Peek.literal_keys} (all keys), {@code mfp}
 *       (identity), {@code finishing} (none), {@code max_result_rows}; {@code Status.id} and
 *       {@code detail}; {@code ReadInfo.runtime}; {@code Error.kind} (default {@code failed}; one of
 *       {@code before_since}, {@code too_large}, {@code invalid}, {@code unknown_collection},
 *       {@code failed}); within a finishing every field.</li>
 * </ul>
 *
 * Parsing is strict: malformed JSON, an unknown type or field, a missing required field or a value of
 * the wrong type is a {@link ProtocolException} naming the JSON path ({@code $} is the frame).
 */
public final class ProtocolJson {

    private static final String ROOT = "$";
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final StrictJson JSON = new StrictJson(ProtocolException::new, ProtocolJson::describe);
    private static final Pattern UUID_FORM =
            Pattern.compile("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
    private static final List<String> COMMAND_TYPES = List.of("Hello", "CreateInstance", "InitializationComplete",
            "UpdateConfiguration", "CreateDataflow", "Schedule", "AllowCompaction", "Peek", "CancelPeek");
    private static final List<String> RESPONSE_TYPES = List.of("Frontiers", "PeekResponse", "Status");
    private static final List<String> RESULT_TYPES = List.of("Rows", "Error", "Canceled");

    private ProtocolJson() {
    }

    /** Parses one command frame. */
    public static ComputeCommand parseCommand(String json) {
        JsonNode frame = tree(json);
        String type = type(frame, ROOT, COMMAND_TYPES, "command");
        return switch (type) {
            case "Hello" -> new ComputeCommand.Hello(JSON.fields(frame, ROOT, "type", "nonce").string("nonce"));
            case "CreateInstance" -> {
                StrictJson.Obj o = JSON.fields(frame, ROOT, "type", "logging", "parameters");
                JsonNode logging = o.optional("logging");
                JsonNode parameters = o.optional("parameters");
                yield new ComputeCommand.CreateInstance(
                        logging == null ? Map.of() : logging(logging, o.at("logging")),
                        parameters == null ? ComputeParameters.UNSET : parameters(parameters, o.at("parameters")));
            }
            case "InitializationComplete" -> {
                JSON.fields(frame, ROOT, "type");
                yield new ComputeCommand.InitializationComplete();
            }
            case "UpdateConfiguration" -> {
                StrictJson.Obj o = JSON.fields(frame, ROOT, "type", "parameters");
                yield new ComputeCommand.UpdateConfiguration(parameters(o.required("parameters"), o.at("parameters")));
            }
            case "CreateDataflow" -> {
                StrictJson.Obj o = JSON.fields(frame, ROOT, "type", "dataflow");
                yield new ComputeCommand.CreateDataflow(dataflow(o.required("dataflow"), o.at("dataflow")));
            }
            case "Schedule" -> new ComputeCommand.Schedule(JSON.fields(frame, ROOT, "type", "id").string("id"));
            case "AllowCompaction" -> {
                StrictJson.Obj o = JSON.fields(frame, ROOT, "type", "id", "frontier");
                yield new ComputeCommand.AllowCompaction(o.string("id"), frontier(o.required("frontier"), o.at("frontier")));
            }
            case "Peek" -> peek(frame);
            case "CancelPeek" -> new ComputeCommand.CancelPeek(uuid(JSON.fields(frame, ROOT, "type", "uuid"), "uuid"));
            default -> throw new IllegalStateException(type);
        };
    }

    /** Parses one response frame. */
    public static ComputeResponse parseResponse(String json) {
        JsonNode frame = tree(json);
        String type = type(frame, ROOT, RESPONSE_TYPES, "response");
        return switch (type) {
            case "Frontiers" -> {
                StrictJson.Obj o = JSON.fields(frame, ROOT, "type", "id", "write_frontier", "input_frontier");
                yield new ComputeResponse.Frontiers(o.string("id"),
                        frontier(o.required("write_frontier"), o.at("write_frontier")),
                        frontier(o.required("input_frontier"), o.at("input_frontier")));
            }
            case "PeekResponse" -> {
                StrictJson.Obj o = JSON.fields(frame, ROOT, "type", "uuid", "result");
                UUID uuid = uuid(o, "uuid");
                yield new ComputeResponse.PeekResponse(uuid, result(o.required("result"), o.at("result")));
            }
            case "Status" -> {
                StrictJson.Obj o = JSON.fields(frame, ROOT, "type", "kind", "id", "detail");
                yield new ComputeResponse.Status(statusKind(o), o.optionalString("id"), o.optionalString("detail"));
            }
            default -> throw new IllegalStateException(type);
        };
    }

    /** Writes one command frame. */
    public static String write(ComputeCommand command) {
        ObjectNode o = NODES.objectNode();
        o.put("type", command.getClass().getSimpleName());
        switch (command) {
            case ComputeCommand.Hello h -> o.put("nonce", h.nonce());
            case ComputeCommand.CreateInstance c -> {
                ObjectNode logging = o.putObject("logging");
                c.logging().entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> logging.put(e.getKey(), e.getValue()));
                o.set("parameters", writeParameters(c.parameters()));
            }
            case ComputeCommand.InitializationComplete i -> {
            }
            case ComputeCommand.UpdateConfiguration u -> o.set("parameters", writeParameters(u.parameters()));
            case ComputeCommand.CreateDataflow d -> o.set("dataflow", DataflowJson.write(d.dataflow()));
            case ComputeCommand.Schedule s -> o.put("id", s.id());
            case ComputeCommand.AllowCompaction a -> o.put("id", a.id()).set("frontier", writeFrontier(a.frontier()));
            case ComputeCommand.Peek p -> {
                o.put("uuid", p.uuid().toString());
                o.put("target", p.target());
                o.put("timestamp", p.timestamp());
                if (p.literalKeys() != null) {
                    o.set("literal_keys", writeRows(p.literalKeys(), NODES.objectNode(), child(child(ROOT, "literal_keys"), "rows")));
                }
                if (!p.mfp().isIdentity()) {
                    o.set("mfp", ExprJson.writeMfp(p.mfp()));
                }
                if (!p.finishing().isTrivial()) {
                    o.set("finishing", writeFinishing(p.finishing()));
                }
                if (p.maxResultRows() != null) {
                    o.put("max_result_rows", p.maxResultRows());
                }
            }
            case ComputeCommand.CancelPeek c -> o.put("uuid", c.uuid().toString());
        }
        return StrictJson.MAPPER.writeValueAsString(o);
    }

    /** Writes one response frame. */
    public static String write(ComputeResponse response) {
        ObjectNode o = NODES.objectNode();
        o.put("type", response.getClass().getSimpleName());
        switch (response) {
            case ComputeResponse.Frontiers f -> {
                o.put("id", f.id());
                o.set("write_frontier", writeFrontier(f.writeFrontier()));
                o.set("input_frontier", writeFrontier(f.inputFrontier()));
            }
            case ComputeResponse.PeekResponse p -> {
                o.put("uuid", p.uuid().toString());
                o.set("result", writeResult(p.result()));
            }
            case ComputeResponse.Status s -> {
                o.put("kind", s.kind().jsonName());
                if (s.id() != null) {
                    o.put("id", s.id());
                }
                if (s.detail() != null) {
                    o.put("detail", s.detail());
                }
            }
        }
        return StrictJson.MAPPER.writeValueAsString(o);
    }

    // ---- commands and responses

    private static ComputeCommand.Peek peek(JsonNode frame) {
        StrictJson.Obj o = JSON.fields(frame, ROOT, "type", "uuid", "target", "timestamp", "literal_keys", "mfp", "finishing", "max_result_rows");
        UUID uuid = uuid(o, "uuid");
        String target = o.string("target");
        long timestamp = o.nonNegativeLong("timestamp");
        JsonNode keys = o.optional("literal_keys");
        List<Row> literalKeys = keys == null ? null : rows(JSON.fields(keys, o.at("literal_keys"), "types", "rows"));
        JsonNode mfp = o.optional("mfp");
        JsonNode finishing = o.optional("finishing");
        return new ComputeCommand.Peek(uuid, target, timestamp, literalKeys,
                mfp == null ? null : mfp(mfp, o.at("mfp")),
                finishing == null ? null : finishing(finishing, o.at("finishing")),
                o.optionalNonNegativeLong("max_result_rows"));
    }

    private static ComputeResponse.PeekResult result(JsonNode node, String path) {
        String type = type(node, path, RESULT_TYPES, "peek result");
        return switch (type) {
            case "Rows" -> {
                StrictJson.Obj o = JSON.fields(node, path, "type", "types", "rows", "info");
                List<Row> rows = rows(o);
                StrictJson.Obj info = JSON.fields(o.required("info"), o.at("info"), "timestamp", "upper", "since", "hydrated", "runtime");
                yield new ComputeResponse.Rows(rows, new ComputeResponse.ReadInfo(info.nonNegativeLong("timestamp"),
                        frontier(info.required("upper"), info.at("upper")),
                        frontier(info.required("since"), info.at("since")),
                        bool(info.required("hydrated"), info.at("hydrated")),
                        info.optionalString("runtime")));
            }
            case "Error" -> {
                StrictJson.Obj o = JSON.fields(node, path, "type", "kind", "message", "code");
                String kind = o.optionalString("kind");
                ComputeResponse.ErrorKind k = ComputeResponse.ErrorKind.FAILED;
                if (kind != null) {
                    k = java.util.Arrays.stream(ComputeResponse.ErrorKind.values()).filter(x -> x.jsonName().equals(kind)).findFirst()
                            .orElseThrow(() -> new ProtocolException(o.at("kind"), "unknown error kind '" + kind + "'; expected one of "
                                    + java.util.Arrays.stream(ComputeResponse.ErrorKind.values()).map(ComputeResponse.ErrorKind::jsonName).toList()));
                }
                String code = o.optionalString("code");
                if (k != ComputeResponse.ErrorKind.FAILED) {
                    if (code != null) {
                        throw new ProtocolException(o.at("code"), "only an error of kind 'failed' has a code");
                    }
                    yield new ComputeResponse.Error(k, o.string("message"));
                }
                EvalError.Code c = code == null ? EvalError.Code.DATA_EXCEPTION : EvalError.Code.fromJson(code);
                if (c == null) {
                    throw new ProtocolException(o.at("code"), "unknown error code '" + code + "'; expected one of "
                            + java.util.Arrays.stream(EvalError.Code.values()).map(EvalError.Code::jsonName).toList());
                }
                yield ComputeResponse.Error.failed(c, o.string("message"));
            }
            case "Canceled" -> {
                JSON.fields(node, path, "type");
                yield new ComputeResponse.Canceled();
            }
            default -> throw new IllegalStateException(type);
        };
    }

    private static ObjectNode writeResult(ComputeResponse.PeekResult result) {
        ObjectNode o = NODES.objectNode();
        o.put("type", result.getClass().getSimpleName());
        switch (result) {
            case ComputeResponse.Rows r -> {
                writeRows(r.rows(), o, child(child(ROOT, "result"), "rows"));
                ComputeResponse.ReadInfo i = r.info();
                ObjectNode info = o.putObject("info");
                info.put("timestamp", i.timestamp());
                info.set("upper", writeFrontier(i.upper()));
                info.set("since", writeFrontier(i.since()));
                info.put("hydrated", i.hydrated());
                if (i.runtime() != null) {
                    info.put("runtime", i.runtime());
                }
            }
            case ComputeResponse.Error e -> {
                o.put("kind", e.kind().jsonName());
                o.put("message", e.message());
                if (e.code() != null) {
                    o.put("code", e.code().jsonName());
                }
            }
            case ComputeResponse.Canceled c -> {
            }
        }
        return o;
    }

    // ---- parts

    private static Map<String, String> logging(JsonNode node, String path) {
        JSON.object(node, path, "an object of string settings");
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : node.properties()) {
            out.put(e.getKey(), string(e.getValue(), child(path, e.getKey())));
        }
        return out;
    }

    private static ComputeParameters parameters(JsonNode node, String path) {
        StrictJson.Obj o = JSON.fields(node, path, "max_result_rows");
        return new ComputeParameters(o.optionalNonNegativeLong("max_result_rows"));
    }

    private static ObjectNode writeParameters(ComputeParameters p) {
        ObjectNode o = NODES.objectNode();
        if (p.maxResultRows() != null) {
            o.put("max_result_rows", p.maxResultRows());
        }
        return o;
    }

    private static DataflowDescription dataflow(JsonNode node, String path) {
        try {
            return DataflowJson.parse(node);
        } catch (ExprException e) {
            String inner = e.path();
            throw new ProtocolException(inner.isEmpty() ? path : inner.startsWith("[") ? path + inner : child(path, inner), e.reason());
        }
    }

    private static Mfp mfp(JsonNode node, String path) {
        try {
            return ExprJson.parseMfp(node, path);
        } catch (ExprException e) {
            throw new ProtocolException(e.path(), e.reason());
        }
    }

    private static Finishing finishing(JsonNode node, String path) {
        StrictJson.Obj o = JSON.fields(node, path, "order_by", "limit", "offset");
        List<Plan.Ordering> orderBy = new ArrayList<>();
        JsonNode order = o.optional("order_by");
        if (order != null) {
            String at = o.at("order_by");
            JSON.array(order, at, "an array of orderings");
            for (int i = 0; i < order.size(); i++) {
                try {
                    orderBy.add(PlanJson.ordering(order.get(i), index(at, i)));
                } catch (ExprException e) {
                    throw new ProtocolException(e.path(), e.reason());
                }
            }
        }
        JsonNode offset = o.optional("offset");
        return new Finishing(orderBy,
                o.optionalNonNegativeLong("limit"),
                offset == null ? 0 : nonNegativeLong(offset, o.at("offset")));
    }

    private static ObjectNode writeFinishing(Finishing f) {
        ObjectNode o = NODES.objectNode();
        ArrayNode order = o.putArray("order_by");
        f.orderBy().forEach(ord -> order.add(PlanJson.writeOrdering(ord)));
        if (f.limit() != null) {
            o.put("limit", f.limit());
        }
        o.put("offset", f.offset());
        return o;
    }

    /** Reads the {@code types} and {@code rows} fields of a typed list of rows. */
    private static List<Row> rows(StrictJson.Obj o) {
        JsonNode typesNode = o.required("types");
        String typesAt = o.at("types");
        JSON.array(typesNode, typesAt, "an array of type names");
        List<DatumType> types = new ArrayList<>(typesNode.size());
        for (int i = 0; i < typesNode.size(); i++) {
            String name = string(typesNode.get(i), index(typesAt, i));
            try {
                types.add(DatumType.fromJson(name));
            } catch (IllegalArgumentException e) {
                throw new ProtocolException(index(typesAt, i), e.getMessage());
            }
        }
        JsonNode rowsNode = o.required("rows");
        String rowsAt = o.at("rows");
        JSON.array(rowsNode, rowsAt, "an array of rows");
        List<Row> rows = new ArrayList<>(rowsNode.size());
        RowPacker packer = new RowPacker();
        for (int r = 0; r < rowsNode.size(); r++) {
            JsonNode row = rowsNode.get(r);
            String rowAt = index(rowsAt, r);
            JSON.array(row, rowAt, "a row (an array of " + types.size() + " values)");
            if (row.size() != types.size()) {
                throw new ProtocolException(rowAt, "expected " + types.size() + " values as in \"types\", got " + row.size());
            }
            for (int c = 0; c < types.size(); c++) {
                try {
                    packer.push(types.get(c), RowJson.datum(row.get(c), types.get(c)));
                } catch (IllegalArgumentException e) {
                    throw new ProtocolException(index(rowAt, c), e.getMessage());
                }
            }
            rows.add(packer.finish());
        }
        return rows;
    }

    /** Writes {@code rows} as the {@code types} and {@code rows} fields of {@code target}; {@code path} names them in errors. */
    private static ObjectNode writeRows(List<Row> rows, ObjectNode target, String path) {
        List<DatumType> types = rows.isEmpty() ? List.of() : typesOf(rows.get(0));
        ArrayNode typesNode = target.putArray("types");
        types.forEach(t -> typesNode.add(t.jsonName()));
        ArrayNode out = target.putArray("rows");
        for (int r = 0; r < rows.size(); r++) {
            Row row = rows.get(r);
            if (r > 0 && !typesOf(row).equals(types)) {
                throw new ProtocolException(index(path, r), "column types " + names(typesOf(row))
                        + " differ from " + names(types) + " of the first row; the rows of one list share their types");
            }
            out.add(RowJson.json(row));
        }
        return target;
    }

    private static List<DatumType> typesOf(Row row) {
        List<DatumType> types = new ArrayList<>(row.arity());
        for (int i = 0; i < row.arity(); i++) {
            types.add(row.typeAt(i));
        }
        return types;
    }

    private static String names(List<DatumType> types) {
        return types.stream().map(DatumType::jsonName).toList().toString();
    }

    private static Frontier frontier(JsonNode node, String path) {
        JSON.array(node, path, "a frontier [t] or []");
        return switch (node.size()) {
            case 0 -> Frontier.EMPTY;
            case 1 -> Frontier.at(nonNegativeLong(node.get(0), index(path, 0)));
            default -> throw new ProtocolException(path, "a frontier of totally ordered times has at most one element, got " + node.size());
        };
    }

    private static ArrayNode writeFrontier(Frontier f) {
        ArrayNode a = NODES.arrayNode();
        if (!f.isEmpty()) {
            a.add(f.time());
        }
        return a;
    }

    // ---- values

    private static JsonNode tree(String json) {
        return JSON.tree(json, ROOT);
    }

    private static String type(JsonNode node, String path, List<String> known, String what) {
        JSON.object(node, path, "a " + what + " object with a \"type\"");
        String name = JSON.string(JSON.required(node, "type", path), child(path, "type"));
        if (!known.contains(name)) {
            throw new ProtocolException(child(path, "type"), "unknown " + what + " type '" + name + "'; expected one of " + String.join(", ", known));
        }
        return name;
    }

    private static String string(JsonNode node, String path) {
        return JSON.string(node, path);
    }

    private static boolean bool(JsonNode node, String path) {
        return JSON.bool(node, path);
    }

    private static long nonNegativeLong(JsonNode node, String path) {
        return JSON.nonNegativeLong(node, path);
    }

    private static ComputeResponse.StatusKind statusKind(StrictJson.Obj o) {
        String kind = o.string("kind");
        return java.util.Arrays.stream(ComputeResponse.StatusKind.values()).filter(k -> k.jsonName().equals(kind)).findFirst()
                .orElseThrow(() -> new ProtocolException(o.at("kind"), "unknown status kind '" + kind + "'; expected one of "
                        + java.util.Arrays.stream(ComputeResponse.StatusKind.values()).map(ComputeResponse.StatusKind::jsonName).toList()));
    }

    private static UUID uuid(StrictJson.Obj o, String field) {
        String s = o.string(field);
        if (!UUID_FORM.matcher(s).matches()) {
            throw new ProtocolException(o.at(field), "expected a UUID of 8-4-4-4-12 hex digits, got string \"" + s + "\"");
        }
        return UUID.fromString(s);
    }

    /** As {@link StrictJson#describe}, but JSON null is just "null": the protocol's wording. */
    private static String describe(JsonNode node) {
        return node != null && node.isNull() ? "null" : StrictJson.describe(node);
    }

    private static String child(String path, String member) {
        return StrictJson.child(path, member);
    }

    private static String index(String path, int i) {
        return StrictJson.index(path, i);
    }
}
