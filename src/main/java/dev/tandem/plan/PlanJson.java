package dev.tandem.plan;

import static dev.tandem.expr.ExprException.child;
import static dev.tandem.expr.ExprException.index;

import dev.tandem.expr.Expr;
import dev.tandem.expr.ExprException;
import dev.tandem.expr.ExprJson;
import dev.tandem.json.StrictJson;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.row.RowJson;
import dev.tandem.row.Schema;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The JSON codec of plans (a public contract). Parsing is strict — unknown fields are errors — and every
 * error is a {@link PlanException} with the JSON path of the offending value.
 *
 * <pre>
 * {"op":"get","id":"u1"}  |  {"op":"get","name":"orders"}
 * {"op":"constant","rows":[[...],...],"types":["int64",...]}
 * {"op":"mfp","input":P,"map":[E...],"filter":[E...],"project":[i...]}          each part optional
 * {"op":"join","inputs":[P,P,...],"on":[[[0,1],[1,0]], ...]}                      classes of [input, column]
 * {"op":"reduce","input":P,"group_key":[i...],"aggregates":[{"func":"count|sum|min|max|string_agg|array_agg|array_agg_desc","expr":E}]}
 * {"op":"top_k","input":P,"group_key":[i...],"order_by":[{"col":i,"desc":false,"nulls_last":true}],"limit":n,"offset":m}
 * {"op":"window","input":P,"partition_by":[i...],"order_by":[...],"functions":[{"func":"row_number|rank|dense_rank|percent_rank|cume_dist|ntile|lag|lead|first_value|last_value|nth_value|count|sum|min|max","expr":E,"offset":n,"default":E,"frame":{"mode":"rows|range","start":n,"end":n}}]}
 * {"op":"threshold","input":P}  {"op":"negate","input":P}  {"op":"union","inputs":[P...]}
 * {"op":"arrange_by","input":P,"key":[i...]}
 * {"op":"temporal_filter","input":P,"bounds":[{"cmp":"<|<=|>|>=|=","expr":E,"shift":n}]}   n: microseconds, may be negative
 * </pre>
 * {@code group_key} and {@code aggregates} default to empty, {@code order_by} to empty, {@code limit}
 * to none, {@code offset} to 0, {@code desc} to false and {@code nulls_last} to {@code !desc} (NULL is
 * the greatest value, as in the datum order); {@code expr} may be omitted only for {@code count}.
 * Writing always emits every field of a node except an absent {@code limit}, an absent
 * {@code project} and empty {@code map}/{@code filter}.
 */
public final class PlanJson {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    static final StrictJson JSON = new StrictJson(PlanException::new);

    private PlanJson() {
    }

    /** Parses a plan found at {@code path}. */
    public static Plan parse(JsonNode node, String path) {
        try {
            return plan(node, path);
        } catch (ExprException e) {
            throw PlanException.of(e);
        }
    }

    private static Plan plan(JsonNode node, String path) {
        JSON.object(node, path, "a plan object with \"op\"");
        JsonNode op = node.get("op");
        if (op == null || !op.isString()) {
            throw new PlanException(child(path, "op"), "expected an operator name, got " + ExprJson.describe(op));
        }
        return switch (op.stringValue()) {
            case "get" -> {
                fields(node, path, "op", "id", "name");
                if (node.has("id") == node.has("name")) {
                    throw new PlanException(path, "a get needs exactly one of \"id\" and \"name\"");
                }
                String key = node.has("id") ? "id" : "name";
                String v = string(node.get(key), child(path, key));
                yield key.equals("id") ? Plan.get(v) : Plan.getByName(v);
            }
            case "constant" -> {
                fields(node, path, "op", "rows", "types");
                JsonNode ts = required(node, "types", path);
                JSON.array(ts, child(path, "types"), "an array of type names");
                List<DatumType> types = new ArrayList<>();
                for (int i = 0; i < ts.size(); i++) {
                    types.add(ExprJson.type(ts.get(i), index(child(path, "types"), i)));
                }
                JsonNode rs = required(node, "rows", path);
                JSON.array(rs, child(path, "rows"), "an array of rows");
                Schema schema = Schema.ofTypes(types);
                List<Row> rows = new ArrayList<>();
                for (int i = 0; i < rs.size(); i++) {
                    try {
                        rows.add(RowJson.row(rs.get(i), schema));
                    } catch (IllegalArgumentException e) {
                        throw new PlanException(index(child(path, "rows"), i), e.getMessage());
                    }
                }
                yield new Plan.Constant(rows, types);
            }
            case "mfp" -> {
                fields(node, path, "op", "input", "map", "filter", "project");
                yield new Plan.MapFilterProject(input(node, path), ExprJson.parseMfpFields(node, path));
            }
            case "join" -> {
                fields(node, path, "op", "inputs", "on");
                List<Plan> inputs = inputs(node, path);
                List<List<Plan.JoinColumn>> on = new ArrayList<>();
                JsonNode classes = node.has("on") ? node.get("on") : NODES.arrayNode();
                JSON.array(classes, child(path, "on"), "an array of equivalence classes");
                for (int c = 0; c < classes.size(); c++) {
                    String cp = index(child(path, "on"), c);
                    JsonNode cls = classes.get(c);
                    JSON.array(cls, cp, "an array of [input, column] pairs");
                    List<Plan.JoinColumn> members = new ArrayList<>();
                    for (int m = 0; m < cls.size(); m++) {
                        String mp = index(cp, m);
                        JsonNode pair = cls.get(m);
                        if (!pair.isArray() || pair.size() != 2) {
                            throw new PlanException(mp, "expected an [input, column] pair, got " + ExprJson.describe(pair));
                        }
                        members.add(new Plan.JoinColumn(ExprJson.nonNegativeInt(pair.get(0), index(mp, 0)),
                                ExprJson.nonNegativeInt(pair.get(1), index(mp, 1))));
                    }
                    on.add(members);
                }
                yield new Plan.Join(inputs, on);
            }
            case "reduce" -> {
                fields(node, path, "op", "input", "group_key", "aggregates");
                Plan input = input(node, path);
                List<Integer> key = optionalInts(node, "group_key", path);
                List<Plan.Aggregate> aggs = new ArrayList<>();
                if (node.has("aggregates")) {
                    JsonNode as = node.get("aggregates");
                    JSON.array(as, child(path, "aggregates"), "an array of aggregates");
                    for (int i = 0; i < as.size(); i++) {
                        aggs.add(aggregate(as.get(i), index(child(path, "aggregates"), i)));
                    }
                }
                yield new Plan.Reduce(input, key, aggs);
            }
            case "top_k" -> {
                fields(node, path, "op", "input", "group_key", "order_by", "limit", "offset");
                Plan input = input(node, path);
                List<Integer> key = optionalInts(node, "group_key", path);
                List<Plan.Ordering> order = new ArrayList<>();
                if (node.has("order_by")) {
                    JsonNode os = node.get("order_by");
                    JSON.array(os, child(path, "order_by"), "an array of orderings");
                    for (int i = 0; i < os.size(); i++) {
                        order.add(ordering(os.get(i), index(child(path, "order_by"), i)));
                    }
                }
                Long limit = node.has("limit") && !node.get("limit").isNull() ? nonNegativeLong(node.get("limit"), child(path, "limit")) : null;
                long offset = node.has("offset") ? nonNegativeLong(node.get("offset"), child(path, "offset")) : 0;
                yield new Plan.TopK(input, key, order, limit, offset);
            }
            case "window" -> {
                fields(node, path, "op", "input", "partition_by", "order_by", "functions");
                Plan input = input(node, path);
                List<Integer> key = optionalInts(node, "partition_by", path);
                List<Plan.Ordering> order = new ArrayList<>();
                if (node.has("order_by")) {
                    JsonNode os = node.get("order_by");
                    JSON.array(os, child(path, "order_by"), "an array of orderings");
                    for (int i = 0; i < os.size(); i++) {
                        order.add(ordering(os.get(i), index(child(path, "order_by"), i)));
                    }
                }
                JsonNode fs = required(node, "functions", path);
                JSON.array(fs, child(path, "functions"), "an array of window functions");
                List<Plan.WindowFunc> funcs = new ArrayList<>();
                for (int i = 0; i < fs.size(); i++) {
                    funcs.add(windowFunc(fs.get(i), index(child(path, "functions"), i)));
                }
                yield new Plan.Window(input, key, order, funcs);
            }
            case "flat_map" -> {
                fields(node, path, "op", "input", "func", "args", "keep_empty");
                Plan input = input(node, path);
                String name = string(required(node, "func", path), child(path, "func"));
                Plan.TableFunc func = Plan.TableFunc.fromJson(name);
                if (func == null) {
                    throw new PlanException(child(path, "func"), "unknown set-returning function '" + name
                            + "'; expected generate_series, unnest or unnest_ordinality");
                }
                JsonNode as = required(node, "args", path);
                JSON.array(as, child(path, "args"), "an array of expressions");
                List<Expr> args = new ArrayList<>();
                for (int i = 0; i < as.size(); i++) {
                    args.add(ExprJson.parse(as.get(i), index(child(path, "args"), i)));
                }
                boolean keepEmpty = node.has("keep_empty") && bool(node.get("keep_empty"), child(path, "keep_empty"));
                yield new Plan.FlatMap(input, func, args, keepEmpty);
            }
            case "threshold" -> {
                fields(node, path, "op", "input");
                yield new Plan.Threshold(input(node, path));
            }
            case "negate" -> {
                fields(node, path, "op", "input");
                yield new Plan.Negate(input(node, path));
            }
            case "union" -> {
                fields(node, path, "op", "inputs");
                yield new Plan.Union(inputs(node, path));
            }
            case "arrange_by" -> {
                fields(node, path, "op", "input", "key");
                yield new Plan.ArrangeBy(input(node, path), optionalInts(node, "key", path));
            }
            case "iterate" -> {
                fields(node, path, "op", "seed", "step", "variable", "all");
                yield new Plan.Iterate(plan(required(node, "seed", path), child(path, "seed")), plan(required(node, "step", path), child(path, "step")),
                        string(required(node, "variable", path), child(path, "variable")),
                        node.has("all") && bool(node.get("all"), child(path, "all")));
            }
            case "temporal_filter" -> {
                fields(node, path, "op", "input", "bounds");
                Plan input = input(node, path);
                JsonNode bs = required(node, "bounds", path);
                JSON.array(bs, child(path, "bounds"), "an array of temporal bounds");
                List<Plan.TemporalBound> bounds = new ArrayList<>();
                for (int i = 0; i < bs.size(); i++) {
                    bounds.add(temporalBound(bs.get(i), index(child(path, "bounds"), i)));
                }
                yield new Plan.TemporalFilter(input, bounds);
            }
            default -> throw new PlanException(child(path, "op"), "unknown operator '" + op.stringValue()
                    + "'; expected get, constant, mfp, join, reduce, top_k, window, flat_map, threshold, negate, union, arrange_by,"
                    + " iterate or temporal_filter");
        };
    }

    private static Plan.Aggregate aggregate(JsonNode node, String path) {
        JSON.object(node, path, "an aggregate {\"func\": ..., \"expr\": ...}");
        fields(node, path, "func", "expr");
        String name = string(required(node, "func", path), child(path, "func"));
        AggregateFunc f = AggregateFunc.fromJson(name);
        if (f == null) {
            throw new PlanException(child(path, "func"), "unknown aggregate '" + name + "'; expected count, sum, min, max, string_agg, array_agg or array_agg_desc");
        }
        Expr e = node.has("expr") ? ExprJson.parse(node.get("expr"), child(path, "expr")) : null;
        if (e == null && f != AggregateFunc.COUNT) {
            throw new PlanException(path, f.jsonName() + " needs an \"expr\"");
        }
        return new Plan.Aggregate(f, e);
    }

    private static Plan.WindowFunc windowFunc(JsonNode node, String path) {
        JSON.object(node, path, "a window function {\"func\": ..., \"expr\": ..., \"offset\": n, \"default\": ..., \"frame\": ...}");
        fields(node, path, "func", "expr", "offset", "default", "frame");
        String name = string(required(node, "func", path), child(path, "func"));
        Plan.WindowKind k = Plan.WindowKind.fromJson(name);
        if (k == null) {
            throw new PlanException(child(path, "func"), "unknown window function '" + name
                    + "'; expected row_number, rank, dense_rank, percent_rank, cume_dist, ntile, lag, lead, first_value, last_value,"
                    + " nth_value, count, sum, min, max, var_pop, var_samp, stddev_pop or stddev_samp");
        }
        Expr e = node.has("expr") ? ExprJson.parse(node.get("expr"), child(path, "expr")) : null;
        if (e != null && !k.takesExpr()) {
            throw new PlanException(child(path, "expr"), k.jsonName() + " takes no \"expr\"");
        }
        if (e == null && k.takesExpr() && k != Plan.WindowKind.COUNT) {
            throw new PlanException(path, k.jsonName() + " needs an \"expr\"");
        }
        boolean lagLead = k == Plan.WindowKind.LAG || k == Plan.WindowKind.LEAD;
        if (node.has("offset") && !k.takesOffset()) {
            throw new PlanException(child(path, "offset"), k.jsonName() + " takes no \"offset\"");
        }
        long offset = node.has("offset") ? nonNegativeLong(node.get("offset"), child(path, "offset")) : k.takesOffset() ? 1 : 0;
        if (offset == 0 && !lagLead && k.takesOffset()) {
            throw new PlanException(child(path, "offset"), k.jsonName() + " needs a positive \"offset\"");
        }
        if (node.has("default") && !lagLead) {
            throw new PlanException(child(path, "default"), k.jsonName() + " takes no \"default\"");
        }
        Expr fallback = node.has("default") ? ExprJson.parse(node.get("default"), child(path, "default")) : null;
        if (node.has("frame") && !k.framed()) {
            throw new PlanException(child(path, "frame"), k.jsonName() + " takes no \"frame\"");
        }
        Plan.Frame frame = node.has("frame") ? frame(node.get("frame"), child(path, "frame")) : null;
        return new Plan.WindowFunc(k, e, offset, fallback, frame);
    }

    private static Plan.Frame frame(JsonNode node, String path) {
        JSON.object(node, path, "a frame {\"mode\": \"rows\"|\"range\", \"start\": n, \"end\": n, \"start_at\": ..., \"end_at\": ..., \"exclude\": ...}");
        fields(node, path, "mode", "start", "end", "start_at", "end_at", "exclude");
        String mode = string(required(node, "mode", path), child(path, "mode"));
        if (!mode.equals("rows") && !mode.equals("range")) {
            throw new PlanException(child(path, "mode"), "expected \"rows\" or \"range\"");
        }
        Long start = node.has("start") ? signedLong(node.get("start"), child(path, "start")) : null;
        Long end = node.has("end") ? signedLong(node.get("end"), child(path, "end")) : null;
        boolean rows = mode.equals("rows");
        if (!rows && (start != null && start != 0 || end != null && end != 0)) {
            throw new PlanException(path, "a range frame's \"start\" and \"end\" are 0 (CURRENT ROW) or absent (UNBOUNDED)");
        }
        Plan.Exclude exclude = Plan.Exclude.NO_OTHERS;
        if (node.has("exclude")) {
            String name = string(node.get("exclude"), child(path, "exclude"));
            exclude = java.util.Arrays.stream(Plan.Exclude.values()).filter(x -> x.jsonName().equals(name)).findFirst()
                    .orElseThrow(() -> new PlanException(child(path, "exclude"), "expected \"no_others\", \"current_row\", \"group\" or \"ties\""));
        }
        Expr startAt = node.has("start_at") ? ExprJson.parse(node.get("start_at"), child(path, "start_at")) : null;
        Expr endAt = node.has("end_at") ? ExprJson.parse(node.get("end_at"), child(path, "end_at")) : null;
        if (startAt != null && (rows || start == null) || endAt != null && (rows || end == null)) {
            throw new PlanException(path, "\"start_at\" and \"end_at\" are a range frame's, with \"start\" or \"end\" 0");
        }
        return new Plan.Frame(rows, start, end, exclude, startAt, endAt);
    }

    private static long signedLong(JsonNode node, String path) {
        if (!node.isIntegralNumber() || !node.canConvertToLong()) {
            throw new PlanException(path, "expected an integer");
        }
        return node.asLong();
    }

    private static Plan.TemporalBound temporalBound(JsonNode node, String path) {
        JSON.object(node, path, "a temporal bound {\"cmp\": ..., \"expr\": ..., \"shift\": n}");
        fields(node, path, "cmp", "expr", "shift");
        String name = string(required(node, "cmp", path), child(path, "cmp"));
        Plan.TemporalCmp cmp = Plan.TemporalCmp.fromJson(name);
        if (cmp == null) {
            throw new PlanException(child(path, "cmp"), "unknown comparison '" + name + "'; expected <, <=, >, >= or =");
        }
        Expr e = ExprJson.parse(required(node, "expr", path), child(path, "expr"));
        long shift = 0;
        if (node.has("shift")) {
            JsonNode s = node.get("shift");
            if (!s.isIntegralNumber() || !s.canConvertToLong()) {
                throw new PlanException(child(path, "shift"), "expected a 64-bit integer of microseconds, got " + ExprJson.describe(s));
            }
            shift = s.longValue();
        }
        return new Plan.TemporalBound(cmp, e, shift);
    }

    /** Parses an ordering {@code {"col": i, "desc": b, "nulls_last": b}} found at {@code path}; {@code nulls_last} defaults to {@code !desc}. */
    public static Plan.Ordering ordering(JsonNode node, String path) {
        JSON.object(node, path, "an ordering {\"col\": i, \"desc\": b, \"nulls_last\": b}");
        fields(node, path, "col", "desc", "nulls_last");
        int col = ExprJson.nonNegativeInt(required(node, "col", path), child(path, "col"));
        boolean desc = node.has("desc") && bool(node.get("desc"), child(path, "desc"));
        boolean nullsLast = node.has("nulls_last") ? bool(node.get("nulls_last"), child(path, "nulls_last")) : !desc;
        return new Plan.Ordering(col, desc, nullsLast);
    }

    private static Plan input(JsonNode node, String path) {
        return plan(required(node, "input", path), child(path, "input"));
    }

    private static List<Plan> inputs(JsonNode node, String path) {
        JsonNode is = required(node, "inputs", path);
        JSON.array(is, child(path, "inputs"), "an array of plans");
        List<Plan> out = new ArrayList<>();
        for (int i = 0; i < is.size(); i++) {
            out.add(plan(is.get(i), index(child(path, "inputs"), i)));
        }
        return out;
    }

    private static List<Integer> optionalInts(JsonNode node, String field, String path) {
        return node.has(field) ? ExprJson.intList(node.get(field), child(path, field)) : List.of();
    }

    static JsonNode required(JsonNode node, String field, String path) {
        return JSON.required(node, field, path);
    }

    static void fields(JsonNode node, String path, String... allowed) {
        JSON.onlyFields(node, path, Set.of(allowed));
    }

    static String string(JsonNode node, String path) {
        return JSON.string(node, path);
    }

    static boolean bool(JsonNode node, String path) {
        return JSON.bool(node, path);
    }

    static long nonNegativeLong(JsonNode node, String path) {
        return JSON.nonNegativeLong(node, path);
    }

    /** Writes a plan. */
    public static ObjectNode write(Plan plan) {
        ObjectNode o = NODES.objectNode();
        switch (plan) {
            case Plan.Get g -> {
                o.put("op", "get");
                if (g.id() != null) {
                    o.put("id", g.id());
                } else {
                    o.put("name", g.name());
                }
            }
            case Plan.Constant c -> {
                o.put("op", "constant");
                ArrayNode rows = o.putArray("rows");
                c.rows().forEach(r -> rows.add(RowJson.json(r)));
                ArrayNode types = o.putArray("types");
                c.types().forEach(t -> types.add(t.jsonName()));
            }
            case Plan.MapFilterProject m -> {
                o.put("op", "mfp");
                o.set("input", write(m.input()));
                ExprJson.writeMfpFields(m.mfp(), o);
            }
            case Plan.Join j -> {
                o.put("op", "join");
                o.set("inputs", writeAll(j.inputs()));
                ArrayNode on = o.putArray("on");
                for (List<Plan.JoinColumn> cls : j.on()) {
                    ArrayNode a = on.addArray();
                    cls.forEach(jc -> a.addArray().add(jc.input()).add(jc.column()));
                }
            }
            case Plan.Reduce r -> {
                o.put("op", "reduce");
                o.set("input", write(r.input()));
                o.set("group_key", ints(r.groupKey()));
                ArrayNode aggs = o.putArray("aggregates");
                for (Plan.Aggregate a : r.aggregates()) {
                    ObjectNode an = aggs.addObject();
                    an.put("func", a.func().jsonName());
                    if (a.expr() != null) {
                        an.set("expr", ExprJson.write(a.expr()));
                    }
                }
            }
            case Plan.TopK k -> {
                o.put("op", "top_k");
                o.set("input", write(k.input()));
                o.set("group_key", ints(k.groupKey()));
                ArrayNode order = o.putArray("order_by");
                for (Plan.Ordering ord : k.orderBy()) {
                    order.add(writeOrdering(ord));
                }
                if (k.limit() != null) {
                    o.put("limit", k.limit());
                }
                o.put("offset", k.offset());
            }
            case Plan.Window w -> {
                o.put("op", "window");
                o.set("input", write(w.input()));
                o.set("partition_by", ints(w.partitionBy()));
                ArrayNode order = o.putArray("order_by");
                for (Plan.Ordering ord : w.orderBy()) {
                    order.add(writeOrdering(ord));
                }
                ArrayNode fs = o.putArray("functions");
                for (Plan.WindowFunc f : w.functions()) {
                    ObjectNode fn = fs.addObject();
                    fn.put("func", f.kind().jsonName());
                    if (f.expr() != null) {
                        fn.set("expr", ExprJson.write(f.expr()));
                    }
                    if (f.kind().takesOffset()) {
                        fn.put("offset", f.offset());
                    }
                    if (f.fallback() != null) {
                        fn.set("default", ExprJson.write(f.fallback()));
                    }
                    if (f.frame() != null && !f.frame().equals(Plan.Frame.DEFAULT)) {
                        ObjectNode frame = fn.putObject("frame");
                        frame.put("mode", f.frame().rows() ? "rows" : "range");
                        if (f.frame().start() != null) {
                            frame.put("start", f.frame().start());
                        }
                        if (f.frame().end() != null) {
                            frame.put("end", f.frame().end());
                        }
                        if (f.frame().startAt() != null) {
                            frame.set("start_at", ExprJson.write(f.frame().startAt()));
                        }
                        if (f.frame().endAt() != null) {
                            frame.set("end_at", ExprJson.write(f.frame().endAt()));
                        }
                        if (f.frame().exclude() != Plan.Exclude.NO_OTHERS) {
                            frame.put("exclude", f.frame().exclude().jsonName());
                        }
                    }
                }
            }
            case Plan.FlatMap f -> {
                o.put("op", "flat_map");
                o.set("input", write(f.input()));
                o.put("func", f.func().jsonName());
                ArrayNode args = o.putArray("args");
                f.args().forEach(e -> args.add(ExprJson.write(e)));
                o.put("keep_empty", f.keepEmpty());
            }
            case Plan.Threshold t -> {
                o.put("op", "threshold");
                o.set("input", write(t.input()));
            }
            case Plan.Negate n -> {
                o.put("op", "negate");
                o.set("input", write(n.input()));
            }
            case Plan.Union u -> {
                o.put("op", "union");
                o.set("inputs", writeAll(u.inputs()));
            }
            case Plan.ArrangeBy a -> {
                o.put("op", "arrange_by");
                o.set("input", write(a.input()));
                o.set("key", ints(a.key()));
            }
            case Plan.Iterate it -> {
                o.put("op", "iterate");
                o.set("seed", write(it.seed()));
                o.set("step", write(it.step()));
                o.put("variable", it.variable());
                o.put("all", it.all());
            }
            case Plan.TemporalFilter f -> {
                o.put("op", "temporal_filter");
                o.set("input", write(f.input()));
                ArrayNode bounds = o.putArray("bounds");
                for (Plan.TemporalBound b : f.bounds()) {
                    ObjectNode bn = bounds.addObject();
                    bn.put("cmp", b.cmp().jsonName());
                    bn.set("expr", ExprJson.write(b.expr()));
                    bn.put("shift", b.shift());
                }
            }
        }
        return o;
    }

    /** Writes an ordering with all its fields. */
    public static ObjectNode writeOrdering(Plan.Ordering ord) {
        return NODES.objectNode().put("col", ord.col()).put("desc", ord.desc()).put("nulls_last", ord.nullsLast());
    }

    private static ArrayNode writeAll(List<Plan> plans) {
        ArrayNode a = NODES.arrayNode();
        plans.forEach(p -> a.add(write(p)));
        return a;
    }

    static ArrayNode ints(List<Integer> xs) {
        ArrayNode a = NODES.arrayNode();
        xs.forEach(a::add);
        return a;
    }
}
