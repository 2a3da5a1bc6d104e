package dev.tandem.sql;

import dev.tandem.row.DatumType;
import java.util.List;
import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.AbstractRelNode;
import org.apache.calcite.rel.BiRel;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelWriter;
import org.apache.calcite.rel.type.RelDataType;

/**
 * A recursive {@code WITH} item read by a query, as a relational node: its non-recursive term (left) and its
 * recursive term (right, reading the work table as a {@link WorkTable}), each with the fields that are the
 * item's columns; {@link RelTranslator} makes it a {@link dev.tandem.plan.Plan.Iterate}.
 */
final class IterateRel extends BiRel {

    final List<Integer> seedFields;
    final List<Integer> stepFields;
    final List<DatumType> types;
    final String variable;
    final boolean all;
    private final RelDataType rowType;

    IterateRel(RelOptCluster cluster, RelTraitSet traits, RelNode seed, List<Integer> seedFields, RelNode step, List<Integer> stepFields,
            List<DatumType> types, String variable, boolean all, RelDataType rowType) {
        super(cluster, traits, seed, step);
        this.seedFields = List.copyOf(seedFields);
        this.stepFields = List.copyOf(stepFields);
        this.types = List.copyOf(types);
        this.variable = variable;
        this.all = all;
        this.rowType = rowType;
    }

    @Override
    protected RelDataType deriveRowType() {
        return rowType;
    }

    @Override
    public RelNode copy(RelTraitSet traits, List<RelNode> inputs) {
        return new IterateRel(getCluster(), traits, inputs.get(0), seedFields, inputs.get(1), stepFields, types, variable, all, rowType);
    }

    @Override
    public RelWriter explainTerms(RelWriter pw) {
        return super.explainTerms(pw).item("variable", variable).item("all", all);
    }

    /** The work table of a recursive item, read by its recursive term: the rows the previous iteration added. */
    static final class WorkTable extends AbstractRelNode {
        final String variable;
        final List<DatumType> types;
        private final RelDataType rowType;

        WorkTable(RelOptCluster cluster, RelTraitSet traits, String variable, List<DatumType> types, RelDataType rowType) {
            super(cluster, traits);
            this.variable = variable;
            this.types = List.copyOf(types);
            this.rowType = rowType;
        }

        @Override
        protected RelDataType deriveRowType() {
            return rowType;
        }

        @Override
        public RelNode copy(RelTraitSet traits, List<RelNode> inputs) {
            return new WorkTable(getCluster(), traits, variable, types, rowType);
        }

        @Override
        public RelWriter explainTerms(RelWriter pw) {
            return super.explainTerms(pw).item("variable", variable);
        }
    }
}
