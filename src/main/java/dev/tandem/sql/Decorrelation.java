package dev.tandem.sql;

import java.util.List;
import org.apache.calcite.plan.Contexts;
import org.apache.calcite.plan.hep.HepPlanner;
import org.apache.calcite.plan.hep.HepProgram;
import org.apache.calcite.plan.hep.HepProgramBuilder;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelRoot;
import org.apache.calcite.rel.core.Correlate;
import org.apache.calcite.rel.core.CorrelationId;
import org.apache.calcite.rex.RexCorrelVariable;
import org.apache.calcite.rel.core.RelFactories;
import org.apache.calcite.rel.rules.CoreRules;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexSubQuery;
import org.apache.calcite.sql2rel.RelDecorrelator;
import org.apache.calcite.tools.RelBuilder;
import org.apache.calcite.tools.RelBuilderFactory;

/**
 * Removes the subqueries of a query's expressions ({@code IN}, {@code EXISTS}, {@code ANY}/{@code
 * ALL}, scalar subqueries), correlated or not, by Calcite's rules: each becomes a join (inner, semi,
 * anti or left) with the subquery, grouped where it must be, and a correlated subquery is then
 * decorrelated into a join on its correlation columns. The result has no subquery and no correlation,
 * so it translates into joins, reductions and anti-joins that a view maintains like any other; a
 * correlation the decorrelator cannot remove is refused.
 */
final class Decorrelation {

    /**
     * Builds the rules' and the decorrelator's relations without simplifying their conditions: Calcite's
     * simplifier fails (a ClassCastException) on a condition comparing one double column with literals it
     * holds in two representations ({@code (f = 8.45 OR f < 1.93) AND k IN (SELECT ...)}), and the
     * translation simplifies what it needs anyway.
     */
    private static final RelBuilderFactory PLAIN = RelBuilder.proto(Contexts.of(RelBuilder.Config.DEFAULT.withSimplify(false)));

    private static final HepProgram REMOVE = new HepProgramBuilder()
            .addRuleCollection(List.of(
                    CoreRules.FILTER_SUB_QUERY_TO_CORRELATE.config.withRelBuilderFactory(PLAIN).toRule(),
                    CoreRules.PROJECT_SUB_QUERY_TO_CORRELATE.config.withRelBuilderFactory(PLAIN).toRule(),
                    CoreRules.JOIN_SUB_QUERY_TO_CORRELATE.config.withRelBuilderFactory(PLAIN).toRule()))
            .build();

    private Decorrelation() {
    }

    /** The query without subqueries in expressions (the query itself when it has none). */
    static RelRoot apply(RelRoot root) {
        if (!hasSubQuery(root.rel)) {
            RelNode outer = OuterJoins.rewrite(root.rel);
            return outer == root.rel ? root : root.withRel(NullSafeKeys.rewrite(outer));
        }
        refuseSkippedLevels(root.rel, java.util.Set.of(), java.util.Set.of());
        HepPlanner hep = new HepPlanner(REMOVE);
        hep.setRoot(root.rel);
        RelNode removed = hep.findBestExp();
        refuseParameterLimits(removed, false);
        RelBuilder builder = PLAIN.create(removed.getCluster(), null);
        RelNode decorrelated = RelDecorrelator.decorrelateQuery(removed, builder);
        decorrelated = NullSafeKeys.rewrite(OuterJoins.rewrite(decorrelated));
        if (!valid(decorrelated)) {
            // the decorrelator's plan reads columns its inputs do not have: refused, never run
            throw SqlException.notSupported("this nested correlated subquery (it could not be turned into joins)");
        }
        if (hasSubQuery(decorrelated) || hasCorrelate(decorrelated)) {
            throw SqlException.notSupported("this correlated subquery (its correlation could not be turned into a join)");
        }
        return root.withRel(decorrelated);
    }

    /**
     * Refuses a subquery that reads a column of a query two or more levels out (a subquery of a subquery
     * correlated with the outermost query): Calcite's decorrelator loses rows of those. {@code current}
     * are the correlations of the query the subquery is in, {@code outer} those further out.
     */
    private static void refuseSkippedLevels(RelNode rel, java.util.Set<CorrelationId> current, java.util.Set<CorrelationId> outer) {
        rel.accept(new org.apache.calcite.rex.RexShuttle() {
            @Override
            public RexNode visitCorrelVariable(RexCorrelVariable v) {
                if (!current.contains(v.id) && outer.contains(v.id)) {
                    throw SqlException.notSupported("a subquery that reads a column of a query two or more levels out");
                }
                return v;
            }

            @Override
            public RexNode visitSubQuery(RexSubQuery sub) {
                java.util.Set<CorrelationId> further = new java.util.HashSet<>(current);
                further.addAll(outer);
                refuseSkippedLevels(sub.rel, rel.getVariablesSet(), further);
                return super.visitSubQuery(sub);
            }
        });
        for (RelNode in : rel.getInputs()) {
            refuseSkippedLevels(in, current, outer);
        }
    }

    /**
     * Refuses a correlated subquery whose {@code LIMIT} or {@code OFFSET} is a parameter: the decorrelator
     * needs the count as a constant. (A literal count, lifted into a parameter for the plan cache, is
     * then planned as written.)
     */
    private static void refuseParameterLimits(RelNode rel, boolean correlated) {
        if (correlated && rel instanceof org.apache.calcite.rel.core.Sort s && (!constant(s.fetch) || !constant(s.offset))) {
            throw SqlException.notSupported("a parameter as the LIMIT or OFFSET of a correlated subquery (write the count as a literal)");
        }
        for (int i = 0; i < rel.getInputs().size(); i++) {
            refuseParameterLimits(rel.getInput(i), correlated || rel instanceof Correlate && i == 1);
        }
    }

    private static boolean constant(RexNode count) {
        return count == null || count instanceof org.apache.calcite.rex.RexLiteral;
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

    private static boolean valid(RelNode rel) {
        if (!rel.isValid(org.apache.calcite.util.Litmus.IGNORE, null)) {
            return false;
        }
        for (RelNode in : rel.getInputs()) {
            if (!valid(in)) {
                return false;
            }
        }
        return true;
    }

    private static boolean hasCorrelate(RelNode rel) {
        if (rel instanceof Correlate c && !RelLateral.rowLocal(c)) {
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
