package dev.tandem.sql.catalog;

import static dev.tandem.sql.catalog.TokenScan.closing;
import static dev.tandem.sql.catalog.TokenScan.depthStep;
import static dev.tandem.sql.catalog.TokenScan.nameEnd;

import dev.tandem.sql.catalog.CatalogToken.Kind;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Finds, in a client's tokens, the reads that return no rows whatever the catalog holds: those that
 * inner-join a relation Tandem never fills ({@code pg_policy}, {@code pg_inherits}…) or require a kind of
 * constraint it never has, so that they are answered without planning.
 */
final class EmptyRelationReads {

    /** Relations PostgreSQL has that are always empty in Tandem (no policies, inheritance, publications, sequences, triggers…). */
    static final Set<String> EMPTY_RELATIONS = Set.of("pg_policy", "pg_statistic_ext", "pg_publication", "pg_publication_rel",
            "pg_publication_namespace", "pg_inherits", "pg_sequence", "pg_enum", "pg_trigger", "pg_rewrite", "pg_foreign_table",
            "pg_partitioned_table", "pg_event_trigger", "pg_extension", "pg_foreign_data_wrapper", "pg_foreign_server",
            "pg_user_mapping", "pg_subscription", "pg_shdescription", "pg_seclabel", "pg_init_privs", "pg_opclass", "pg_depend");

    private static final Set<String> AGGREGATES = Set.of("count", "sum", "min", "max", "avg", "string_agg", "array_agg", "bool_and",
            "bool_or", "every", "json_agg", "jsonb_agg", "json_object_agg", "jsonb_object_agg");

    /** The kinds of constraint Tandem never has: foreign keys, checks, exclusions, constraint triggers. */
    private static final Set<String> ABSENT_CONSTRAINT_KINDS = Set.of("'f'", "'c'", "'x'", "'t'");

    private final List<CatalogToken> toks;

    private EmptyRelationReads(List<CatalogToken> toks) {
        this.toks = toks;
    }

    /** The select list's column names when the whole statement reads an always-empty relation in each of its branches, or null. */
    static List<String> emptyQuery(List<CatalogToken> toks) {
        return new EmptyRelationReads(toks).emptyQuery();
    }

    /** Scalar subqueries that read an always-empty relation (and aggregate nothing) become NULL. */
    static void emptySubqueries(List<CatalogToken> toks) {
        new EmptyRelationReads(toks).emptySubqueries();
    }

    private void emptySubqueries() {
        for (int i = 0; i + 1 < toks.size(); i++) {
            if (toks.get(i).is("(") && toks.get(i + 1).is("select")) {
                int close = closing(toks, i);
                if (i > 0 && (toks.get(i - 1).is("exists") || toks.get(i - 1).is("in") || toks.get(i - 1).is("array")
                        || toks.get(i - 1).is("any") || toks.get(i - 1).is("some") || toks.get(i - 1).is("all"))) {
                    continue;
                }
                if (selectIsEmpty(i + 1, close)) {
                    toks.subList(i, close + 1).clear();
                    toks.add(i, new CatalogToken(Kind.WORD, "NULL"));
                }
            }
        }
    }

    private List<String> emptyQuery() {
        if (toks.isEmpty() || !toks.getFirst().is("select")) {
            return null;
        }
        // branches split at depth-0 UNION / INTERSECT / EXCEPT; the statement's ORDER BY / LIMIT follows the last
        List<int[]> branches = new ArrayList<>();
        int depth = 0;
        int start = 0;
        boolean intersect = false;
        for (int i = 0; i < toks.size(); i++) {
            CatalogToken t = toks.get(i);
            int step = depthStep(t);
            if (step != 0) {
                depth += step;
            } else if (depth == 0 && (t.is("union") || t.is("intersect") || t.is("except"))) {
                intersect |= !t.is("union");
                branches.add(new int[] {start, i});
                start = i + 1;
                while (start < toks.size() && (toks.get(start).is("all") || toks.get(start).is("distinct"))) {
                    start++;
                }
            }
        }
        branches.add(new int[] {start, toks.size()});
        if (intersect) {
            return null;
        }
        for (int[] b : branches) {
            if (!toks.get(b[0]).is("select") || !selectIsEmpty(b[0], b[1])) {
                return null;
            }
        }
        return SelectListNames.of(toks, branches.getFirst()[0]);
    }

    /**
     * Whether the WHERE of the SELECT whose FROM is at {@code fromAt} has, as one of its top-level AND
     * terms, {@code [alias.]contype = 'f'} (or 'c', 'x', 't'): no {@code pg_constraint} row has such a
     * kind, and a NULL (an outer join's) fails the test too, so no row qualifies.
     */
    private boolean whereNeverHolds(int fromAt, int to) {
        int depth = 0;
        int where = -1;
        for (int i = fromAt + 1; i < to; i++) {
            CatalogToken t = toks.get(i);
            int step = depthStep(t);
            if (step != 0) {
                depth += step;
            } else if (depth == 0 && where < 0 && t.is("where")) {
                where = i;
            } else if (depth == 0 && where >= 0 && (t.is("or") || t.is("order") || t.is("limit") || t.is("offset") || t.is("fetch"))) {
                if (t.is("or")) {
                    return false;
                }
                to = i;
                break;
            }
        }
        if (where < 0) {
            return false;
        }
        depth = 0;
        for (int i = where + 1; i + 2 < to; i++) {
            CatalogToken t = toks.get(i);
            int step = depthStep(t);
            if (step != 0) {
                depth += step;
            } else if (depth == 0 && t.is("contype") && toks.get(i + 1).kind() == Kind.OP && toks.get(i + 1).text().equals("=")
                    && toks.get(i + 2).kind() == Kind.STRING && ABSENT_CONSTRAINT_KINDS.contains(toks.get(i + 2).text())) {
                CatalogToken before = toks.get(i - 1).is(".") ? toks.get(i - 3) : toks.get(i - 1);
                CatalogToken after = i + 3 < to ? toks.get(i + 3) : null;
                if ((before.is("where") || before.is("and")) && (after == null || after.is("and") || after.is(";"))) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Whether the SELECT at {@code [from, to)} inner-joins an always-empty relation, and neither groups
     * nor aggregates (an aggregate over no rows still answers one row).
     */
    private boolean selectIsEmpty(int from, int to) {
        int depth = 0;
        int fromAt = -1;
        for (int i = from + 1; i < to; i++) {
            CatalogToken t = toks.get(i);
            int step = depthStep(t);
            if (step != 0) {
                depth += step;
            } else if (depth == 0) {
                if (t.is("from") && fromAt < 0) {
                    fromAt = i;
                } else if (t.is("group") || t.is("having")) {
                    return false;
                } else if (fromAt < 0 && t.kind() == Kind.WORD && AGGREGATES.contains(t.lower()) && i + 1 < to && toks.get(i + 1).is("(")) {
                    return false;
                }
            }
        }
        if (fromAt < 0) {
            return false;
        }
        if (whereNeverHolds(fromAt, to)) {
            return true;
        }
        return fromReadsEmptyRelation(fromAt, to);
    }

    /** Whether the FROM items at depth 0 after {@code fromAt} (up to WHERE / ORDER / LIMIT / the end) inner-join an always-empty relation. */
    private boolean fromReadsEmptyRelation(int fromAt, int to) {
        int depth = 0;
        boolean expectItem = true;
        boolean itemInner = true;
        for (int i = fromAt + 1; i < to; i++) {
            CatalogToken t = toks.get(i);
            int step = depthStep(t);
            if (step != 0) {
                depth += step;
                if (step > 0) {
                    expectItem = false;
                }
                continue;
            }
            if (depth != 0) {
                continue;
            }
            if (t.is("where") || t.is("order") || t.is("limit") || t.is("offset") || t.is("fetch")) {
                break;
            }
            if (t.is(",")) {
                expectItem = true;
                itemInner = true;
            } else if (t.is("join")) {
                String before = toks.get(i - 1).lower();
                String before2 = i >= 2 ? toks.get(i - 2).lower() : "";
                boolean left = before.equals("left") || before2.equals("left");
                boolean right = before.equals("right") || before2.equals("right") || before.equals("full") || before2.equals("full");
                itemInner = !left && !right;
                expectItem = true;
            } else if (expectItem && t.isName()) {
                int end = nameEnd(toks, i);
                String last = toks.get(end - 1).name();
                boolean qualifiedElsewhere = end - i > 1 && !toks.get(i).is("pg_catalog");
                boolean first = toks.get(i - 1).is("from");
                if (!qualifiedElsewhere && EMPTY_RELATIONS.contains(last) && (itemInner && !first || first)) {
                    if (!first || !rightOrFullJoinAfter(i, to)) {
                        return true;
                    }
                }
                expectItem = false;
                i = end - 1;
            }
        }
        return false;
    }

    private boolean rightOrFullJoinAfter(int i, int to) {
        int depth = 0;
        for (int k = i; k < to; k++) {
            CatalogToken t = toks.get(k);
            if (t.is("(")) {
                depth++;
            } else if (t.is(")")) {
                depth--;
            } else if (depth == 0 && (t.is("right") || t.is("full"))) {
                return true;
            } else if (depth == 0 && t.is("where")) {
                return false;
            }
        }
        return false;
    }
}
