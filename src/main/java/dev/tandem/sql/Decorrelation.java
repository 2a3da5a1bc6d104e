package dev.tandem.sql;

import java.util.List;
import org.apache.calcite.plan.hep.HepPlanner;
import org.apache.calcite.plan.hep.HepProgram;
import org.apache.calcite.plan.hep.HepProgramBuilder;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelRoot;
import org.apache.calcite.rel.core.Correlate;
import org.apache.calcite.rel.core.RelFactories;
import org.apache.calcite.rel.rules.CoreRules;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexSubQuery;
import org.apache.calcite.sql2rel.RelDecorrelator;
import org.apache.calcite.tools.RelBuilder;

/**
 * Removes the subqueries of a query's expressions ({@code IN}, {@code EXISTS}, {@code ANY}/{@code
 * ALL}, scalar subqueries), correlated or not, by Calcite's rules: each becomes a join (inner, semi,
 * anti or left) with the subquery, grouped where it must be, and a correlated subquery is then
 * decorrelated into a join on its correlation columns. The result has no subquery and no correlation,
 * so it translates into joins, reductions and anti-joins that a view maintains like any other; a
 * correlation the decorrelator cannot remove is refused.
 */
final class Decorrelation {

    private static final HepProgram REMOVE = new HepProgramBuilder()
            .addRuleCollection(List.of(CoreRules.FILTER_SUB_QUERY_TO_CORRELATE, CoreRules.PROJECT_SUB_QUERY_TO_CORRELATE,
                    CoreRules.JOIN_SUB_QUERY_TO_CORRELATE))
            .build();

    private Decorrelation() {
    }

    /** The query without subqueries in expressions (the query itself when it has none). */
    static RelRoot apply(RelRoot root) {
        if (!hasSubQuery(root.rel)) {
            return root;
        }
        HepPlanner hep = new HepPlanner(REMOVE);
        hep.setRoot(root.rel);
        RelNode removed = hep.findBestExp();
        RelBuilder builder = RelFactories.LOGICAL_BUILDER.create(removed.getCluster(), null);
        RelNode decorrelated = RelDecorrelator.decorrelateQuery(removed, builder);
        decorrelated = NullSafeKeys.rewrite(decorrelated);
        if (hasSubQuery(decorrelated) || hasCorrelate(decorrelated)) {
            throw SqlException.notSupported("this correlated subquery (its correlation could not be turned into a join)");
        }
        return root.withRel(decorrelated);
    }

    private static boolean hasSubQuery(RelNode rel) {
        boolean[] found = {false};
        rel.accept(new org.apache.calcite.rex.RexShuttle() {
            @Override
            public RexNode visitSubQuery(RexSubQuery sub) {
                found[0] = true;
                return sub;
            }
        });
        if (found[0]) {
            return true;
        }
        for (RelNode in : rel.getInputs()) {
            if (hasSubQuery(in)) {
                return true;
            }
        }
        return false;
    }

    private static boolean hasCorrelate(RelNode rel) {
        if (rel instanceof Correlate) {
            return true;
        }
        for (RelNode in : rel.getInputs()) {
            if (hasCorrelate(in)) {
                return true;
            }
        }
        return false;
    }
}
