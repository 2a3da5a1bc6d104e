package dev.tandem.expr;

import static dev.tandem.expr.ExprException.child;
import static dev.tandem.expr.ExprException.index;

import dev.tandem.json.StrictJson;
import dev.tandem.row.DatumType;
import dev.tandem.row.RowJson;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The JSON codec of expressions and MFPs. Parsing is strict (unknown fields are errors) and every error
 * is an {@link ExprException} carrying the JSON path of the offending value.
 *
 * <ul>
 *   <li>{@code {"col": i}};</li>
 *   <li>{@code {"lit": v, "type": "int64"}}; {@code type} may be omitted when the value says it: true
 *       and false are bool, an integral number int64, any other number float64, a string a string.
 *       Datums are written as in {@link RowJson} (large int64 and special floats as strings, timestamps
 *       as ISO-8601 strings), and the type is always written;</li>
 *   <li>{@code {"call": "name", "args": [...]}}, and for a cast {@code {"call": "cast", "args": [E],
 *       "type": "float64"}};</li>
 *   <li>an MFP's fields {@code "map": [E...], "filter": [E...], "project": [i...]}, each optional.</li>
 * </ul>
 */
public final class ExprJson {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final StrictJson JSON = new StrictJson(ExprException::new);
    private static final Set<String> COL_FIELDS = Set.of("col");
    private static final Set<String> LIT_FIELDS = Set.of("lit", "type");
    private static final Set<String> CALL_FIELDS = Set.of("call", "args", "type");

    private ExprJson() {
    }

    /** Parses an expression found at {@code path}. */
    public static Expr parse(JsonNode node, String path) {
        JSON.object(node, path, "an expression object with \"col\", \"lit\" or \"call\"");
        if (node.has("col")) {
            onlyFields(node, COL_FIELDS, path);
            return new Expr.Col(nonNegativeInt(node.get("col"), child(path, "col")));
        }
        if (node.has("lit")) {
            onlyFields(node, LIT_FIELDS, path);
            return literal(node, path);
        }
        if (node.has("call")) {
            onlyFields(node, CALL_FIELDS, path);
            return call(node, path);
        }
        throw new ExprException(path, "expected an expression object with \"col\", \"lit\" or \"call\", got " + describe(node));
    }

    /** Parses a JSON array of expressions found at {@code path}. */
    public static List<Expr> parseList(JsonNode node, String path) {
        JSON.array(node, path, "an array of expressions");
        List<Expr> out = new ArrayList<>(node.size());
        for (int i = 0; i < node.size(); i++) {
            out.add(parse(node.get(i), index(path, i)));
        }
        return out;
    }

    private static Expr literal(JsonNode node, String path) {
        JsonNode v = node.get("lit");
        DatumType type;
        if (node.has("type")) {
            type = type(node.get("type"), child(path, "type"));
        } else if (v.isBoolean()) {
            type = DatumType.BOOL;
        } else if (v.isIntegralNumber()) {
            type = DatumType.INT64;
        } else if (v.isNumber()) {
            type = DatumType.FLOAT64;
        } else if (v.isString()) {
            type = DatumType.STRING;
        } else if (v.isNull()) {
            throw new ExprException(path, "a null literal needs a \"type\"");
        } else {
            throw new ExprException(child(path, "lit"), "a literal must be a JSON scalar, got " + describe(v));
        }
        try {
            return new Expr.Lit(RowJson.datum(v, type), type);
        } catch (IllegalArgumentException e) {
            throw new ExprException(child(path, "lit"), e.getMessage());
        }
    }

    private static Expr call(JsonNode node, String path) {
        JsonNode name = node.get("call");
        if (!name.isString()) {
            throw new ExprException(child(path, "call"), "expected a function name, got " + describe(name));
        }
        Func f = Func.fromJson(name.stringValue());
        if (f == null) {
            throw new ExprException(path, "unknown function '" + name.stringValue() + "'");
        }
        List<Expr> args = node.has("args") ? parseList(node.get("args"), child(path, "args")) : List.of();
        DatumType type = null;
        if (f == Func.CAST || f == Func.ERROR) {
            if (!node.has("type")) {
                throw new ExprException(path, "a " + f.jsonName() + " needs a target \"type\"");
            }
            type = type(node.get("type"), child(path, "type"));
        } else if (node.has("type")) {
            throw new ExprException(child(path, "type"), "only a cast or an error takes a \"type\"");
        }
        return new Expr.Call(f, args, type);
    }

    /** Reads a type name found at {@code path}. */
    public static DatumType type(JsonNode node, String path) {
        if (node == null || !node.isString()) {
            throw new ExprException(path, "expected a type name, got " + describe(node));
        }
        try {
            return DatumType.fromJson(node.stringValue());
        } catch (IllegalArgumentException e) {
            throw new ExprException(path, e.getMessage());
        }
    }

    /** Reads a non-negative int found at {@code path}. */
    public static int nonNegativeInt(JsonNode node, String path) {
        return JSON.nonNegativeInt(node, path);
    }

    /** Reads an array of non-negative ints found at {@code path}. */
    public static List<Integer> intList(JsonNode node, String path) {
        JSON.array(node, path, "an array of column indexes");
        List<Integer> out = new ArrayList<>(node.size());
        for (int i = 0; i < node.size(); i++) {
            out.add(nonNegativeInt(node.get(i), index(path, i)));
        }
        return out;
    }

    /** Throws when {@code node} has a field outside {@code allowed}. */
    public static void onlyFields(JsonNode node, Set<String> allowed, String path) {
        JSON.onlyFields(node, path, allowed);
    }

    /** A short description of a JSON value for error messages. */
    public static String describe(JsonNode node) {
        return StrictJson.describe(node);
    }

    /** Reads the optional {@code map}, {@code filter} and {@code project} fields of {@code node}; other fields are ignored. */
    public static Mfp parseMfpFields(JsonNode node, String path) {
        List<Expr> map = node.has("map") ? parseList(node.get("map"), child(path, "map")) : List.of();
        List<Expr> filter = node.has("filter") ? parseList(node.get("filter"), child(path, "filter")) : List.of();
        List<Integer> project = node.has("project") ? intList(node.get("project"), child(path, "project")) : null;
        return new Mfp(map, filter, project);
    }

    /** Parses an MFP object {@code {"map":[...],"filter":[...],"project":[...]}}. */
    public static Mfp parseMfp(JsonNode node, String path) {
        JSON.object(node, path, "an object with \"map\", \"filter\", \"project\"");
        onlyFields(node, Set.of("map", "filter", "project"), path);
        return parseMfpFields(node, path);
    }

    /** Writes an expression. */
    public static ObjectNode write(Expr e) {
        ObjectNode o = NODES.objectNode();
        switch (e) {
            case Expr.Col c -> o.put("col", c.index());
            case Expr.Lit l -> {
                o.set("lit", RowJson.json(l.value()));
                o.put("type", l.type().jsonName());
            }
            case Expr.Call c -> {
                o.put("call", c.func().jsonName());
                o.set("args", writeList(c.args()));
                if (c.type() != null) {
                    o.put("type", c.type().jsonName());
                }
            }
        }
        return o;
    }

    public static ArrayNode writeList(List<Expr> exprs) {
        ArrayNode a = NODES.arrayNode();
        exprs.forEach(e -> a.add(write(e)));
        return a;
    }

    /** Writes the non-empty parts of an MFP into {@code target}. */
    public static ObjectNode writeMfpFields(Mfp mfp, ObjectNode target) {
        if (!mfp.map().isEmpty()) {
            target.set("map", writeList(mfp.map()));
        }
        if (!mfp.filter().isEmpty()) {
            target.set("filter", writeList(mfp.filter()));
        }
        if (mfp.project() != null) {
            ArrayNode p = target.putArray("project");
            mfp.project().forEach(p::add);
        }
        return target;
    }

    /** Writes an MFP object. */
    public static ObjectNode writeMfp(Mfp mfp) {
        return writeMfpFields(mfp, NODES.objectNode());
    }
}
