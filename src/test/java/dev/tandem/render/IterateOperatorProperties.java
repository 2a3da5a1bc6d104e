package dev.tandem.render;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.expr.Expr;
import dev.tandem.expr.Func;
import dev.tandem.expr.Mfp;
import dev.tandem.plan.Plan;
import dev.tandem.plan.PlanEvaluator;
import dev.tandem.plan.PlanJson;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.ShrinkingMode;

/**
 * A maintained {@code iterate} against a naive fixed point computed here, at every write: random small graphs
 * (cycles, self-loops, duplicate edges) changed by random inserts and deletes over several rounds, under the
 * transitive closure ({@code UNION}) and paths from node 0 counted by hops up to a depth ({@code UNION ALL}).
 */
class IterateOperatorProperties {

    private static final List<DatumType> PAIR = List.of(DatumType.INT64, DatumType.INT64);
    private static final int NODES = 6;

    /** {@code WITH RECURSIVE tc(a, b) AS (SELECT src, dst FROM e UNION SELECT tc.a, e.dst FROM tc JOIN e ON tc.b = e.src)}. */
    private static Plan closure() {
        Plan step = new Plan.MapFilterProject(new Plan.Join(List.of(Plan.get("w"), Plan.get("e")),
                List.of(List.of(new Plan.JoinColumn(0, 1), new Plan.JoinColumn(1, 0)))), Mfp.project(List.of(0, 3)));
        return new Plan.Iterate(Plan.get("e"), step, "w", false);
    }

    /** {@code WITH RECURSIVE p(n, d) AS (SELECT 0, 0 UNION ALL SELECT e.dst, p.d + 1 FROM p JOIN e ON e.src = p.n WHERE p.d < k)}. */
    private static Plan paths(int k) {
        Plan join = new Plan.Join(List.of(Plan.get("w"), Plan.get("e")), List.of(List.of(new Plan.JoinColumn(0, 0), new Plan.JoinColumn(1, 0))));
        Mfp mfp = new Mfp(List.of(Expr.call(Func.ADD, Expr.col(1), Expr.lit(1L, DatumType.INT64))),
                List.of(Expr.call(Func.LT, Expr.col(1), Expr.lit((long) k, DatumType.INT64))), List.of(3, 4));
        return new Plan.Iterate(new Plan.Constant(List.of(pair(0, 0)), PAIR), new Plan.MapFilterProject(join, mfp), "w", true);
    }

    @Property(tries = 40, shrinking = ShrinkingMode.OFF)
    void maintainedIterationEqualsANaiveFixedPointAtEveryWrite(@ForAll long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        boolean union = rnd.nextBoolean();
        int depth = 1 + rnd.nextInt(4);
        Plan plan = union ? closure() : paths(depth);
        assertThat(PlanJson.parse(PlanJson.write(plan), "plan")).isEqualTo(plan);
        try (RenderHarness h = new RenderHarness(1 + rnd.nextInt(2))) {
            h.createTable("e", PAIR);
            Map<Row, Long> edges = new HashMap<>();
            List<Long> times = new ArrayList<>();
            List<Map<Row, Long>> graphs = new ArrayList<>();
            times.add(h.write("e", batch(rnd, edges)));
            graphs.add(new HashMap<>(edges));
            Dataflow df = h.start("x", plan, List.of(0), times.get(0));
            for (int w = 0; w < 8; w++) {
                times.add(h.write("e", batch(rnd, edges)));
                graphs.add(new HashMap<>(edges));
            }
            h.awaitSealed(df, times.getLast());
            for (int i = 0; i < times.size(); i++) {
                long t = times.get(i);
                Map<Row, Long> expected = union ? naiveClosure(graphs.get(i)) : naivePaths(graphs.get(i), depth);
                PlanEvaluator.Result got = RenderHarness.read(df.exports().get(0), t);
                assertThat(got.errors()).isEmpty();
                assertThat(got.rows()).as("at write %d over %s", i, graphs.get(i)).isEqualTo(expected);
                assertThat(h.expected(plan, t).rows()).as("the reference evaluator at write %d", i).isEqualTo(expected);
            }
        }
    }

    /** The closure as sets: pairs joined by an edge until no new pair appears. */
    private static Map<Row, Long> naiveClosure(Map<Row, Long> edges) {
        List<long[]> es = new ArrayList<>();
        edges.forEach((r, n) -> {
            if (n > 0) {
                es.add(new long[] {(Long) r.get(0), (Long) r.get(1)});
            }
        });
        boolean[][] reach = new boolean[NODES][NODES];
        for (long[] e : es) {
            reach[(int) e[0]][(int) e[1]] = true;
        }
        for (boolean grew = true; grew; ) {
            grew = false;
            for (int a = 0; a < NODES; a++) {
                for (int b = 0; b < NODES; b++) {
                    if (!reach[a][b]) {
                        continue;
                    }
                    for (long[] e : es) {
                        if (e[0] == b && !reach[a][(int) e[1]]) {
                            reach[a][(int) e[1]] = true;
                            grew = true;
                        }
                    }
                }
            }
        }
        Map<Row, Long> out = new HashMap<>();
        for (int a = 0; a < NODES; a++) {
            for (int b = 0; b < NODES; b++) {
                if (reach[a][b]) {
                    out.put(pair(a, b), 1L);
                }
            }
        }
        return out;
    }

    /** Per (node, hops) the number of walks from node 0 of that many hops, for hops up to {@code depth}. */
    private static Map<Row, Long> naivePaths(Map<Row, Long> edges, int depth) {
        long[] walks = new long[NODES];
        walks[0] = 1;
        Map<Row, Long> out = new HashMap<>();
        for (int d = 0; d <= depth; d++) {
            for (int n = 0; n < NODES; n++) {
                if (walks[n] != 0) {
                    out.put(pair(n, d), walks[n]);
                }
            }
            long[] next = new long[NODES];
            for (Map.Entry<Row, Long> e : edges.entrySet()) {
                int src = (int) (long) (Long) e.getKey().get(0);
                int dst = (int) (long) (Long) e.getKey().get(1);
                next[dst] += walks[src] * e.getValue();
            }
            walks = next;
        }
        return out;
    }

    /** Inserts of edges (some twice, self-loops included) and deletes of present ones. */
    private static Map<Row, Long> batch(SplittableRandom rnd, Map<Row, Long> present) {
        Map<Row, Long> diffs = new HashMap<>();
        for (int i = 0, n = 1 + rnd.nextInt(4); i < n; i++) {
            List<Row> rows = new ArrayList<>(present.keySet());
            Row r;
            long d;
            if (!rows.isEmpty() && rnd.nextInt(5) < 2) {
                r = rows.get(rnd.nextInt(rows.size()));
                d = -Math.min(present.get(r), 1 + rnd.nextInt(2));
            } else {
                r = pair(rnd.nextInt(NODES), rnd.nextInt(NODES));
                d = 1 + rnd.nextInt(2);
            }
            diffs.merge(r, d, (a, b) -> a + b == 0 ? null : a + b);
            present.merge(r, d, (a, b) -> a + b == 0 ? null : a + b);
        }
        if (diffs.isEmpty()) {
            Row r = pair(rnd.nextInt(NODES), rnd.nextInt(NODES));
            diffs.put(r, 1L);
            present.merge(r, 1L, (a, b) -> a + b == 0 ? null : a + b);
        }
        return diffs;
    }

    private static Row pair(long a, long b) {
        return Row.pack(PAIR, List.of(a, b));
    }
}
