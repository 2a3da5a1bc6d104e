package dev.tandem.sql;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.TableScan;

/**
 * A planned recursive query ({@link RecursiveWith.Planned}) as one query: the reads of each recursive item's work
 * table, in the main query and in later items, become {@link IterateRel}s, and an item's read of itself in its
 * recursive term its {@link IterateRel.WorkTable}. Such a query is maintained like any other.
 */
final class RecursiveRels {

    private RecursiveRels() {
    }

    /** The main query of {@code planned} with its recursive items inlined. */
    static SqlEngine.Query query(RecursiveWith.Planned planned) {
        Map<String, Item> items = new HashMap<>();
        for (int i = 0; i < planned.items().size(); i++) {
            RecursiveWith.Item item = planned.items().get(i);
            String name = item.table().name();
            String variable = "recursive:" + name + ":" + i;
            RelNode seed = inline(whole(item.seed()), items, null, null);
            RelNode step = inline(whole(item.step()), items, item, variable);
            items.put(name, new Item(item, seed, step, variable));
        }
        SqlEngine.Query main = planned.main();
        return new SqlEngine.Query(inline(main.body(), items, null, null), main.sort() == null ? null
                : (org.apache.calcite.rel.core.Sort) main.sort().copy(main.sort().getTraitSet(), List.of(inline(main.sort().getInput(), items, null, null))),
                main.fields(), main.columns(), main.params(), main.paramTypes(), main.paramDeclared(), main.paramComputed(), main.asOfParam(), main.asOf());
    }

    /** A recursive item planned: its terms with earlier items inlined. */
    private record Item(RecursiveWith.Item item, RelNode seed, RelNode step, String variable) {
    }

    private static RelNode whole(SqlEngine.Query q) {
        return q.sort() != null ? q.sort() : q.body();
    }

    /**
     * {@code rel} with each scan of an item's work table replaced: by the item's iteration, or, for the scan of
     * {@code self}, by its work table {@code variable}.
     */
    private static RelNode inline(RelNode rel, Map<String, Item> items, RecursiveWith.Item self, String variable) {
        if (rel instanceof TableScan scan) {
            List<String> qn = scan.getTable().getQualifiedName();
            String name = qn.get(qn.size() - 1);
            if (self != null && name.equals(self.table().name())) {
                return new IterateRel.WorkTable(scan.getCluster(), scan.getTraitSet(), variable, self.table().types(), scan.getRowType());
            }
            Item item = items.get(name);
            if (item != null) {
                return new IterateRel(scan.getCluster(), scan.getTraitSet(), item.seed(), item.item().seed().fields(), item.step(),
                        item.item().step().fields(), item.item().table().types(), item.variable(), item.item().all(), scan.getRowType());
            }
            return scan;
        }
        List<RelNode> inputs = rel.getInputs();
        if (inputs.isEmpty()) {
            return rel;
        }
        List<RelNode> replaced = inputs.stream().map(in -> inline(in, items, self, variable)).toList();
        return replaced.equals(inputs) ? rel : rel.copy(rel.getTraitSet(), replaced);
    }
}
