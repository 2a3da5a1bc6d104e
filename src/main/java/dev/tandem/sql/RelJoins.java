package dev.tandem.sql;

import dev.tandem.expr.Expr;
import dev.tandem.expr.Func;
import dev.tandem.expr.Mfp;
import dev.tandem.plan.Plan;
import dev.tandem.row.DatumType;
import dev.tandem.sql.RelTranslator.Translated;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.IntUnaryOperator;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinRelType;

/**
 * The translation of a join into Tandem's equi-join: the equalities between the sides are its keys, the rest of an
 * inner join's condition a filter after it. An outer join is the inner join plus the unmatched rows padded with NULLs
 * (the input less its semi-join with the other side's distinct keys); a right join is the left join with the sides
 * swapped.
 */
final class RelJoins {

    private RelJoins() {
    }

    /** Equality keys between the two sides, and the rest of the condition. */
    private record JoinKeys(List<int[]> keys, List<Expr> rest) {
    }

    /** {@code join} of its translated inputs {@code left} and {@code right}. */
    static Translated join(Join join, Translated left, Translated right, RexTranslator rex) {
        JoinRelType type = join.getJoinType();
        List<Expr> conjuncts = RelTranslator.conjuncts(rex.rex(join.getCondition(), concat(left.types(), right.types())));
        return switch (type) {
            case INNER -> innerJoin(left, right, conjuncts);
            case LEFT -> leftJoin(left, right, conjuncts, false);
            case RIGHT -> rightJoin(left, right, conjuncts);
            case FULL -> leftJoin(left, right, conjuncts, true);
            default -> throw SqlException.notSupported(type.name().toLowerCase(Locale.ROOT) + " join");
        };
    }

    /** {@code left RIGHT JOIN right}: {@code right LEFT JOIN left}, with the columns put back in order. */
    private static Translated rightJoin(Translated left, Translated right, List<Expr> conjuncts) {
        int nl = left.types().size();
        int nr = right.types().size();
        List<Expr> remapped = new ArrayList<>();
        for (Expr c : conjuncts) {
            remapped.add(shift(c, i -> i < nl ? i + nr : i - nl));
        }
        Translated lj = leftJoin(right, left, remapped, false);
        List<Expr> swapped = new ArrayList<>();
        for (int i = 0; i < nl; i++) {
            swapped.add(Expr.col(nr + i));
        }
        for (int i = 0; i < nr; i++) {
            swapped.add(Expr.col(i));
        }
        return lj.project(swapped);
    }

    private static JoinKeys keys(List<Expr> conjuncts, List<DatumType> concat, int nl) {
        List<int[]> keys = new ArrayList<>();
        List<Expr> rest = new ArrayList<>();
        for (Expr c : conjuncts) {
            int[] pair = keyPair(c, concat);
            if (pair != null && (pair[0] < nl) != (pair[1] < nl)) {
                keys.add(new int[] {Math.min(pair[0], pair[1]), Math.max(pair[0], pair[1]) - nl});
            } else {
                rest.add(c);
            }
        }
        return new JoinKeys(keys, rest);
    }

    /**
     * The two columns of {@code c} when it is an equality of two columns a join can match on as keys (of one type, and
     * not jsonb, whose SQL equality is not its datums': {@code '1.0' = '1.00'}); null otherwise.
     */
    static int[] keyPair(Expr c, List<DatumType> types) {
        if (c instanceof Expr.Call call && call.func() == Func.EQ
                && call.args().get(0) instanceof Expr.Col a && call.args().get(1) instanceof Expr.Col b
                && types.get(a.index()) == types.get(b.index()) && types.get(a.index()) != DatumType.JSONB) {
            return new int[] {a.index(), b.index()};
        }
        return null;
    }

    /** {@code left JOIN right}: the equalities between the sides of {@code conjuncts} its keys, the rest a filter after it. */
    static Translated innerJoin(Translated left, Translated right, List<Expr> conjuncts) {
        int nl = left.types().size();
        List<DatumType> concat = concat(left.types(), right.types());
        JoinKeys k = keys(conjuncts, concat, nl);
        Plan join = new Plan.Join(List.of(left.plan(), right.plan()), on(k.keys()));
        if (!k.rest().isEmpty()) {
            join = new Plan.MapFilterProject(join, Mfp.filter(k.rest()));
        }
        return new Translated(join, concat);
    }

    private static List<List<Plan.JoinColumn>> on(List<int[]> keys) {
        List<List<Plan.JoinColumn>> on = new ArrayList<>();
        for (int[] k : keys) {
            on.add(List.of(new Plan.JoinColumn(0, k[0]), new Plan.JoinColumn(1, k[1])));
        }
        return on;
    }

    /**
     * {@code left LEFT JOIN right} (and with {@code full}, FULL JOIN): the inner join, plus each left
     * row without a match padded with NULLs (plus, for a full join, each unmatched right row). The
     * condition must be equalities between the sides, and for a left join conditions on the right side alone.
     */
    private static Translated leftJoin(Translated left, Translated right, List<Expr> conjuncts, boolean full) {
        int nl = left.types().size();
        int nr = right.types().size();
        List<DatumType> concat = concat(left.types(), right.types());
        JoinKeys k = keys(conjuncts, concat, nl);
        List<Expr> rightOnly = new ArrayList<>();
        for (Expr c : k.rest()) {
            if (!full && minColumn(c) >= nl) {
                rightOnly.add(shift(c, i -> i - nl));
            } else {
                throw SqlException.notSupported((full ? "full" : "outer") + " join condition other than equalities between the two sides"
                        + (full ? "" : " and conditions on the inner side"));
            }
        }
        Translated r = rightOnly.isEmpty() ? right
                : new Translated(new Plan.MapFilterProject(right.plan(), Mfp.filter(rightOnly)), right.types());
        Plan inner = new Plan.Join(List.of(left.plan(), r.plan()), on(k.keys()));
        List<int[]> flipped = k.keys().stream().map(a -> new int[] {a[1], a[0]}).toList();
        List<Plan> parts = new ArrayList<>();
        parts.add(inner);
        parts.add(padRight(unmatched(left, k.keys().stream().map(a -> a[0]).toList(), r, k.keys().stream().map(a -> a[1]).toList()), right.types()));
        if (full) {
            Plan unmatchedRight = unmatched(r, flipped.stream().map(a -> a[0]).toList(), left, flipped.stream().map(a -> a[1]).toList());
            List<Expr> map = new ArrayList<>();
            List<Integer> cols = new ArrayList<>();
            for (int i = 0; i < nl; i++) {
                map.add(Expr.lit(null, left.types().get(i)));
                cols.add(nr + i);
            }
            for (int i = 0; i < nr; i++) {
                cols.add(i);
            }
            parts.add(new Plan.MapFilterProject(unmatchedRight, new Mfp(map, List.of(), cols)));
        }
        return new Translated(new Plan.Union(parts), concat);
    }

    /** The rows of {@code side} whose {@code keys} match no row of {@code other} on {@code otherKeys}, with their multiplicities. */
    private static Plan unmatched(Translated side, List<Integer> keys, Translated other, List<Integer> otherKeys) {
        Plan distinctKeys = new Plan.Reduce(other.plan(), otherKeys, List.of());
        List<List<Plan.JoinColumn>> on = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++) {
            on.add(List.of(new Plan.JoinColumn(0, keys.get(i)), new Plan.JoinColumn(1, i)));
        }
        List<Integer> sideCols = new ArrayList<>();
        for (int i = 0; i < side.types().size(); i++) {
            sideCols.add(i);
        }
        Plan matched = new Plan.MapFilterProject(new Plan.Join(List.of(side.plan(), distinctKeys), on), Mfp.project(sideCols));
        return new Plan.Union(List.of(side.plan(), new Plan.Negate(matched)));
    }

    private static Plan padRight(Plan rows, List<DatumType> padTypes) {
        List<Expr> map = new ArrayList<>();
        for (DatumType t : padTypes) {
            map.add(Expr.lit(null, t));
        }
        return new Plan.MapFilterProject(rows, new Mfp(map, List.of(), null));
    }

    private static List<DatumType> concat(List<DatumType> a, List<DatumType> b) {
        List<DatumType> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }

    private static int minColumn(Expr e) {
        return switch (e) {
            case Expr.Col c -> c.index();
            case Expr.Lit l -> Integer.MAX_VALUE;
            case Expr.Call c -> c.args().stream().mapToInt(RelJoins::minColumn).min().orElse(Integer.MAX_VALUE);
        };
    }

    static Expr shift(Expr e, IntUnaryOperator map) {
        return switch (e) {
            case Expr.Col c -> Expr.col(map.applyAsInt(c.index()));
            case Expr.Lit l -> l;
            case Expr.Call c -> new Expr.Call(c.func(), c.args().stream().map(a -> shift(a, map)).toList(), c.type());
        };
    }
}
