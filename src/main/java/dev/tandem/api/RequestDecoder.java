package dev.tandem.api;

import dev.tandem.controller.CatalogEntry;
import dev.tandem.controller.Controller;
import dev.tandem.controller.ControllerException;
import dev.tandem.controller.ReadRequest;
import dev.tandem.expr.Expr;
import dev.tandem.expr.ExprException;
import dev.tandem.expr.ExprJson;
import dev.tandem.expr.Mfp;
import dev.tandem.plan.Plan;
import dev.tandem.plan.PlanJson;
import dev.tandem.protocol.Finishing;
import dev.tandem.row.Column;
import dev.tandem.row.Row;
import dev.tandem.row.RowJson;
import dev.tandem.row.Schema;
import dev.tandem.storage.RowDiff;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import tools.jackson.databind.JsonNode;

/**
 * Decodes the JSON parts of requests — rows, key rows, plans, filters and projections, orderings — into
 * the typed values the controller takes, so that the controller never sees JSON. Names of columns become
 * positions against the target's schema, which the decoder asks the controller's catalog for; an
 * undecodable part is refused with the controller's own error (so the same HTTP status and message as
 * when the controller decoded it), naming where in the request it is.
 *
 * <p>Stateless and thread-safe; it reads the catalog at the moment it decodes, so a catalog change
 * between decoding and the controller acting on the result is caught by the controller's own checks.
 */
public final class RequestDecoder {

    private final Controller controller;

    public RequestDecoder(Controller controller) {
        this.controller = controller;
    }

    // ------------------------------------------------------------------ reads

    /** A peek: its target decides the schema its filter, projection, order and keys are read against. */
    public ReadRequest read(ReadJson r) {
        exactlyOneTarget(r);
        ReadRequest.Isolation isolation = isolation(r.isolation());
        if (r.limit() != null && r.limit() < 0) {
            throw invalid("limit must not be negative, got " + r.limit());
        }
        if (r.offset() != null && r.offset() < 0) {
            throw invalid("offset must not be negative, got " + r.offset());
        }
        if (r.from() != null) {
            CatalogEntry e = controller.readable(r.from());
            CatalogEntry.Index index = e instanceof CatalogEntry.Index i ? i : controller.indexOn(e.name(), keyArity(r.key()));
            if (index == null && present(r.key())) {
                throw invalid("key: a key lookup needs an index; '" + r.from() + "' has none");
            }
            Shaping shape = shaping(r, index != null ? index.schema() : e.schema(), true);
            List<Row> keys = index != null && present(r.key()) ? keyRows(r.key(), index) : null;
            return new ReadRequest(r.from(), null, keys, shape.mfp, shape.finishing, isolation, r.asOf(), r.timeoutMs());
        }
        Plan plan = plan(r.plan(), "plan");
        Shaping shape = shaping(r, controller.resultSchema(plan), true);
        if (present(r.key())) {
            throw invalid("key: a key lookup needs 'from' naming an indexed collection");
        }
        return new ReadRequest(null, plan, null, shape.mfp, shape.finishing, isolation, r.asOf(), r.timeoutMs());
    }

    /** A read of introspection collection {@code name} with a body's options (its own from and plan are not used). */
    public ReadRequest readIntrospection(String name, ReadJson r) {
        controller.introspectionEntry(name);
        return read(new ReadJson(name, null, r.key(), r.filter(), r.project(), r.orderBy(), r.limit(), r.offset(), r.isolation(),
                r.asOf(), r.timeoutMs()));
    }

    /**
     * A change stream: of {@code from} (an index, or a collection, watched through an index with a key of
     * the keys' arity when keys are given) or of a query ({@code plan}). A change stream has no order.
     */
    public ReadRequest changeStream(ReadJson r) {
        if (present(r.orderBy()) || r.limit() != null || r.offset() != null) {
            throw invalid("a change stream has no order: order_by, limit and offset do not apply (a top-k inside the query does)");
        }
        exactlyOneTarget(r);
        if (r.from() != null) {
            CatalogEntry e = controller.readable(r.from());
            CatalogEntry.Index index = e instanceof CatalogEntry.Index i ? i : controller.indexOn(e.name(), keyArity(r.key()));
            if (index == null && present(r.key())) {
                throw invalid("key: watching keys needs an index, and '" + r.from() + "' has none"
                        + (controller.indexOn(e.name(), -1) != null ? " with a key of that arity" : "")
                        + "; create one on it first, or watch it whole");
            }
            Shaping shape = shaping(r, index != null ? index.schema() : e.schema(), false);
            List<Row> keys = index != null && present(r.key()) ? keyRows(r.key(), index) : null;
            return new ReadRequest(r.from(), null, keys, shape.mfp, null, null, r.asOf(), null);
        }
        if (present(r.key())) {
            throw invalid("key: watching keys needs 'from' naming an indexed collection");
        }
        Plan plan = plan(r.plan(), "plan");
        Shaping shape = shaping(r, controller.resultSchema(plan), false);
        return new ReadRequest(null, plan, null, shape.mfp, null, null, r.asOf(), null);
    }

    /** Literal key rows {@code [[v, ...], ...]} for a lookup in {@code index}, in its key order, without repeats. */
    public List<Row> keyRows(JsonNode key, CatalogEntry.Index index) {
        if (!key.isArray()) {
            throw invalid("key: expected an array of key rows, e.g. [[1]]");
        }
        Schema keySchema = index.keySchema();
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < key.size(); i++) {
            try {
                rows.add(RowJson.row(key.get(i), keySchema));
            } catch (IllegalArgumentException e) {
                throw invalid("key[" + i + "]: " + e.getMessage() + " (index '" + index.name() + "' is keyed by " + index.key() + ")");
            }
        }
        return List.copyOf(new LinkedHashSet<>(rows));
    }

    /** The isolation level a request names (null: serializable). */
    public static ReadRequest.Isolation isolation(String isolation) {
        if (isolation == null || isolation.equals("serializable")) {
            return ReadRequest.Isolation.SERIALIZABLE;
        }
        if (isolation.equals("strict")) {
            return ReadRequest.Isolation.STRICT;
        }
        throw invalid("isolation: expected 'serializable' or 'strict', got '" + isolation + "'");
    }

    private static void exactlyOneTarget(ReadJson r) {
        if ((r.from() == null) == !present(r.plan())) {
            throw invalid("give exactly one of 'from' and 'plan'");
        }
    }

    /** The arity of the first key row, or -1 when there is none to go by. */
    private static int keyArity(JsonNode key) {
        return key != null && key.isArray() && !key.isEmpty() && key.get(0).isArray() ? key.get(0).size() : -1;
    }

    private static boolean present(JsonNode n) {
        return n != null && !n.isNull();
    }

    // ------------------------------------------------------------------ filter, projection, order

    /** The MFP and finishing a request asks for. */
    private record Shaping(Mfp mfp, Finishing finishing) {
    }

    /** Reads filter and projection against {@code schema} and (when {@code ordered}) the order over the output. */
    private static Shaping shaping(ReadJson r, Schema schema, boolean ordered) {
        List<Expr> filter = List.of();
        if (present(r.filter())) {
            try {
                filter = ExprJson.parseList(r.filter(), "filter");
            } catch (ExprException e) {
                throw invalid(e.getMessage());
            }
        }
        List<Integer> project = null;
        List<String> columns = schema.columns().stream().map(Column::name).toList();
        if (present(r.project())) {
            if (!r.project().isArray()) {
                throw invalid("project: expected an array of column names or positions");
            }
            project = new ArrayList<>();
            List<String> names = new ArrayList<>();
            for (int i = 0; i < r.project().size(); i++) {
                int c = columnIndex(schema, r.project().get(i), "project[" + i + "]");
                project.add(c);
                names.add(schema.column(c).name());
            }
            columns = names;
        }
        Mfp mfp = new Mfp(List.of(), filter, project);
        try {
            mfp.outputTypes(schema.types(), "");
        } catch (ExprException e) {
            throw invalid(e.getMessage());
        }
        if (!ordered) {
            return new Shaping(mfp, null);
        }
        List<Plan.Ordering> orderings = new ArrayList<>();
        if (present(r.orderBy())) {
            if (!r.orderBy().isArray()) {
                throw invalid("order_by: expected an array of {\"col\", \"desc\", \"nulls_last\"}");
            }
            Schema out = outputSchema(schema, columns, project);
            for (int i = 0; i < r.orderBy().size(); i++) {
                JsonNode o = r.orderBy().get(i);
                String at = "order_by[" + i + "]";
                if (!o.isObject() || o.get("col") == null) {
                    throw invalid(at + ": expected {\"col\": name or position, \"desc\": bool, \"nulls_last\": bool}");
                }
                int col = columnIndex(out, o.get("col"), at + ".col");
                boolean desc = bool(o.get("desc"), false, at + ".desc");
                boolean nullsLast = bool(o.get("nulls_last"), !desc, at + ".nulls_last");
                orderings.add(new Plan.Ordering(col, desc, nullsLast));
            }
        }
        return new Shaping(mfp, new Finishing(orderings, r.limit(), r.offset() == null ? 0 : r.offset()));
    }

    /** The projected columns, a repeated name suffixed by its position (so order_by can name each). */
    private static Schema outputSchema(Schema schema, List<String> names, List<Integer> project) {
        if (project == null) {
            return schema;
        }
        List<Column> cols = new ArrayList<>();
        for (int i = 0; i < project.size(); i++) {
            cols.add(new Column(names.get(i) + (cols.stream().anyMatch(c -> c.name().equals(names.get(cols.size()))) ? "_" + i : ""),
                    schema.type(project.get(i)), true));
        }
        return new Schema(cols);
    }

    private static boolean bool(JsonNode n, boolean dflt, String at) {
        if (n == null || n.isNull()) {
            return dflt;
        }
        if (!n.isBoolean()) {
            throw invalid(at + ": expected true or false");
        }
        return n.booleanValue();
    }

    private static int columnIndex(Schema schema, JsonNode n, String at) {
        if (n.isIntegralNumber()) {
            int c = n.intValue();
            if (c < 0 || c >= schema.arity()) {
                throw invalid(at + ": column " + c + " does not exist; there are " + schema.arity());
            }
            return c;
        }
        if (n.isString()) {
            return Controller.columnIndex(schema, n.stringValue(), at);
        }
        throw invalid(at + ": expected a column name or position");
    }

    // ------------------------------------------------------------------ plans and rows

    /** A plan by names, e.g. a view's or a query's. */
    public static Plan plan(JsonNode json, String path) {
        if (!present(json)) {
            throw invalid(path + ": a plan is required");
        }
        try {
            return PlanJson.parse(json, path);
        } catch (ExprException e) {
            throw invalid(e.getMessage());
        }
    }

    /**
     * The rows a write to {@code table} inserts ({@code insert}) and deletes ({@code delete}), each a JSON
     * array of rows of the table's schema; the table is checked as writable first.
     */
    public List<RowDiff> writeRows(String table, JsonNode insert, JsonNode delete) {
        Schema schema = controller.writableTable(table).schema();
        List<RowDiff> diffs = new ArrayList<>();
        rows(insert, schema, "insert", 1, diffs);
        rows(delete, schema, "delete", -1, diffs);
        return diffs;
    }

    private static void rows(JsonNode rows, Schema schema, String field, long diff, List<RowDiff> out) {
        if (!present(rows)) {
            return;
        }
        if (!rows.isArray()) {
            throw invalid(field + ": expected an array of rows");
        }
        for (int i = 0; i < rows.size(); i++) {
            try {
                out.add(new RowDiff(RowJson.row(rows.get(i), schema), diff));
            } catch (IllegalArgumentException x) {
                throw invalid(field + "[" + i + "]: " + x.getMessage());
            }
        }
    }

    private static ControllerException invalid(String message) {
        return new ControllerException(ControllerException.Reason.INVALID, message);
    }
}
