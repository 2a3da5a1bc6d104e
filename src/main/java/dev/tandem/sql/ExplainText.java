package dev.tandem.sql;

import dev.tandem.controller.AccessPath;
import dev.tandem.controller.Controller;
import dev.tandem.controller.ReadRequest;
import dev.tandem.expr.ExprJson;
import dev.tandem.expr.Mfp;
import dev.tandem.plan.Plan;
import dev.tandem.plan.PlanJson;
import dev.tandem.row.Row;
import dev.tandem.row.RowJson;
import java.util.List;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The lines of an {@code EXPLAIN}: the access path the read takes, in words, then what it reads as JSON —
 * the index, its keys and the map, filter and projection applied to each row; for a transient dataflow, the
 * plan it computes ({@link Controller#explainedPlan}: views inlined, indexed collections read through their indexes).
 */
final class ExplainText {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    /** How many keys the first line shows before it counts the rest. */
    private static final int SHOWN_KEYS = 20;

    private ExplainText() {
    }

    /** The lines explaining {@code request}, which carries the path it takes. */
    static List<String> lines(ReadRequest request, Controller controller) {
        AccessPath path = request.path() != null ? request.path() : controller.accessPath(request);
        return switch (path) {
            case AccessPath.Lookup l -> List.of("fast path: a lookup of " + (l.keys().size() == 1 ? "key " + RowJson.json(l.keys().get(0))
                    : l.keys().size() + " keys " + shownKeys(l.keys())) + " in index " + l.index().name(), read(l.index().name(), l.keys(), l.mfp()).toString());
            case AccessPath.IndexScan s -> List.of("fast path: a scan of index " + s.index().name() + " on " + s.index().on(),
                    read(s.index().name(), null, s.mfp()).toString());
            case AccessPath.Transient t -> {
                Plan plan = controller.explainedPlan(t.plan());
                if (request.from() == null) {
                    yield List.of("slow path: a transient dataflow", PlanJson.write(t.mfp().isIdentity() ? plan : new Plan.MapFilterProject(plan, t.mfp())).toString());
                }
                ObjectNode o = read(request.from(), null, t.mfp());
                o.set("plan", PlanJson.write(plan));
                yield List.of("slow path: a transient dataflow reading " + request.from(), o.toString());
            }
        };
    }

    /** A read of {@code from} as JSON: its keys, then the map, filter and projection. */
    private static ObjectNode read(String from, List<Row> keys, Mfp mfp) {
        ObjectNode o = NODES.objectNode();
        o.put("from", from);
        if (keys != null) {
            ArrayNode shown = o.putArray("key");
            keys.forEach(k -> shown.add(RowJson.json(k)));
        }
        if (!mfp.filter().isEmpty()) {
            o.set("filter", ExprJson.writeList(mfp.filter()));
        }
        if (!mfp.map().isEmpty()) {
            o.set("map", ExprJson.writeList(mfp.map()));
        }
        if (mfp.project() != null) {
            ArrayNode project = o.putArray("project");
            mfp.project().forEach(project::add);
        }
        return o;
    }

    /** The keys the first line shows: the first {@value #SHOWN_KEYS}, then how many more. */
    private static String shownKeys(List<Row> keys) {
        ArrayNode shown = NODES.arrayNode();
        for (int i = 0; i < Math.min(SHOWN_KEYS, keys.size()); i++) {
            shown.add(RowJson.json(keys.get(i)));
        }
        String text = shown.toString();
        return keys.size() <= SHOWN_KEYS ? text : text.substring(0, text.length() - 1) + ", … " + (keys.size() - SHOWN_KEYS) + " more]";
    }
}
