package dev.tandem.render;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tandem.expr.Expr;
import dev.tandem.expr.Func;
import dev.tandem.expr.Mfp;
import dev.tandem.plan.DataflowDescription;
import dev.tandem.plan.Plan;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.row.Schema;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Random small plans over random tables (duplicates, and deletes so the snapshot is a consolidation of
 * the history), read as a bounded dataflow with a limit and an offset. For a monotone plan whose result
 * has at least {@code offset + limit} rows, the dataflow answers early with exactly {@code limit} rows,
 * each in the naive model's result at most as often as there, and stops (never seals its output);
 * otherwise it does not answer early and its output is the model's. Plans that can retract (a negate,
 * a reduce) never answer early.
 */
class EarlyAnswerProperties {

    static final List<DatumType> TYPES = List.of(DatumType.INT64, DatumType.INT64);

    /** A plan of the test's own, with its naive meaning: a multiset of rows of longs. */
    interface Node {
        Plan plan();

        int arity();

        Map<List<Long>, Long> eval(Map<String, Map<List<Long>, Long>> tables);

        boolean monotone();
    }

    record Get(String id) implements Node {
        public Plan plan() {
            return new Plan.Get(id, null);
        }

        public int arity() {
            return 2;
        }

        public Map<List<Long>, Long> eval(Map<String, Map<List<Long>, Long>> tables) {
            return new HashMap<>(tables.get(id));
        }

        public boolean monotone() {
            return true;
        }
    }

    record Filter(Node in, int col, Func op, long value) implements Node {
        public Plan plan() {
            return new Plan.MapFilterProject(in.plan(), Mfp.filter(List.of(new Expr.Call(op, List.of(new Expr.Col(col),
                    new Expr.Lit(value, DatumType.INT64))))));
        }

        public int arity() {
            return in.arity();
        }

        public Map<List<Long>, Long> eval(Map<String, Map<List<Long>, Long>> tables) {
            Map<List<Long>, Long> out = new HashMap<>();
            in.eval(tables).forEach((r, d) -> {
                long v = r.get(col);
                boolean keep = switch (op) {
                    case LT -> v < value;
                    case GT -> v > value;
                    default -> v == value;
                };
                if (keep) {
                    out.put(r, d);
                }
            });
            return out;
        }

        public boolean monotone() {
            return in.monotone();
        }
    }

    record Project(Node in, List<Integer> cols) implements Node {
        public Plan plan() {
            return new Plan.MapFilterProject(in.plan(), Mfp.project(cols));
        }

        public int arity() {
            return cols.size();
        }

        public Map<List<Long>, Long> eval(Map<String, Map<List<Long>, Long>> tables) {
            Map<List<Long>, Long> out = new HashMap<>();
            in.eval(tables).forEach((r, d) -> out.merge(cols.stream().map(r::get).toList(), d, Long::sum));
            return out;
        }

        public boolean monotone() {
            return in.monotone();
        }
    }

    /** Join on left column {@code lc} = right column {@code rc}, or a cross join when {@code lc} is negative. */
    record Join(Node left, Node right, int lc, int rc) implements Node {
        public Plan plan() {
            List<List<Plan.JoinColumn>> on = lc < 0 ? List.of() : List.of(List.of(new Plan.JoinColumn(0, lc), new Plan.JoinColumn(1, rc)));
            return new Plan.Join(List.of(left.plan(), right.plan()), on);
        }

        public int arity() {
            return left.arity() + right.arity();
        }

        public Map<List<Long>, Long> eval(Map<String, Map<List<Long>, Long>> tables) {
            Map<List<Long>, Long> out = new HashMap<>();
            Map<List<Long>, Long> r = right.eval(tables);
            left.eval(tables).forEach((a, da) -> r.forEach((b, db) -> {
                if (lc < 0 || a.get(lc).equals(b.get(rc))) {
                    List<Long> row = new ArrayList<>(a);
                    row.addAll(b);
                    out.merge(row, da * db, Long::sum);
                }
            }));
            return out;
        }

        public boolean monotone() {
            return left.monotone() && right.monotone();
        }
    }

    /** The sum of two inputs of equal arity, the second negated when {@code negate}. */
    record Union(Node left, Node right, boolean negate) implements Node {
        public Plan plan() {
            return new Plan.Union(List.of(left.plan(), negate ? new Plan.Negate(right.plan()) : right.plan()));
        }

        public int arity() {
            return left.arity();
        }

        public Map<List<Long>, Long> eval(Map<String, Map<List<Long>, Long>> tables) {
            Map<List<Long>, Long> out = new HashMap<>(left.eval(tables));
            right.eval(tables).forEach((r, d) -> out.merge(r, negate ? -d : d, (a, b) -> a + b == 0 ? null : a + b));
            return out;
        }

        public boolean monotone() {
            return !negate && left.monotone() && right.monotone();
        }
    }

    /** Distinct rows. */
    record Distinct(Node in) implements Node {
        public Plan plan() {
            return new Plan.Reduce(in.plan(), IntStream.range(0, in.arity()).boxed().toList(), List.of());
        }

        public int arity() {
            return in.arity();
        }

        public Map<List<Long>, Long> eval(Map<String, Map<List<Long>, Long>> tables) {
            Map<List<Long>, Long> out = new HashMap<>();
            in.eval(tables).forEach((r, d) -> {
                if (d > 0) {
                    out.put(r, 1L);
                }
            });
            return out;
        }

        public boolean monotone() {
            return false;
        }
    }

    static Node randomPlan(Random rnd, int depth, List<String> tables) {
        Node leaf = new Get(tables.get(rnd.nextInt(tables.size())));
        if (depth == 0) {
            return leaf;
        }
        return switch (rnd.nextInt(8)) {
            case 0, 1 -> {
                Node l = randomPlan(rnd, depth - 1, tables);
                Node r = randomPlan(rnd, depth - 1, tables);
                yield new Join(l, r, rnd.nextInt(3) == 0 ? -1 : rnd.nextInt(l.arity()), rnd.nextInt(r.arity()));
            }
            case 2 -> {
                Node in = randomPlan(rnd, depth - 1, tables);
                yield new Filter(in, rnd.nextInt(in.arity()), List.of(Func.LT, Func.GT, Func.EQ).get(rnd.nextInt(3)), rnd.nextInt(6));
            }
            case 3 -> {
                Node in = randomPlan(rnd, depth - 1, tables);
                yield new Project(in, List.of(rnd.nextInt(in.arity()), rnd.nextInt(in.arity())));
            }
            case 4, 5 -> {
                Node l = toPair(rnd, randomPlan(rnd, depth - 1, tables));
                Node r = toPair(rnd, randomPlan(rnd, depth - 1, tables));
                yield new Union(l, r, rnd.nextInt(4) == 0);
            }
            case 6 -> new Distinct(randomPlan(rnd, depth - 1, tables));
            default -> leaf;
        };
    }

    static Node toPair(Random rnd, Node n) {
        return n.arity() == 2 ? n : new Project(n, List.of(rnd.nextInt(n.arity()), rnd.nextInt(n.arity())));
    }

    static Row row(List<Long> values) {
        return Row.of(values.toArray());
    }

    @Test
    void monotonePlansAnswerEarlyWithRowsOfTheResult() {
        Random rnd = new Random(20261201L);
        int early = 0;
        try (RenderHarness h = new RenderHarness(2)) {
            for (int iteration = 0; iteration < 120; iteration++) {
                // Two or three tables: random rows with multiplicities, then some deleted again.
                Map<String, Map<List<Long>, Long>> model = new HashMap<>();
                List<String> tables = new ArrayList<>();
                for (int n = 0, count = 2 + rnd.nextInt(2); n < count; n++) {
                    String id = "u" + iteration + "_" + n;
                    tables.add(id);
                    h.createTable(id, TYPES);
                    Map<List<Long>, Long> contents = new HashMap<>();
                    Map<Row, Long> insert = new HashMap<>();
                    for (int i = 0, rows = rnd.nextInt(12); i < rows; i++) {
                        List<Long> r = List.of((long) rnd.nextInt(6), (long) rnd.nextInt(6));
                        long m = 1 + rnd.nextInt(2);
                        contents.merge(r, m, Long::sum);
                        insert.merge(row(r), m, Long::sum);
                    }
                    if (!insert.isEmpty()) {
                        h.write(id, insert);
                    }
                    Map<Row, Long> delete = new HashMap<>();
                    for (List<Long> r : List.copyOf(contents.keySet())) {
                        if (rnd.nextInt(3) == 0) {
                            delete.put(row(r), -contents.remove(r));
                        }
                    }
                    if (!delete.isEmpty()) {
                        h.write(id, delete);
                    }
                    model.put(id, contents);
                }
                Node node = randomPlan(rnd, 1 + rnd.nextInt(3), tables);
                Map<List<Long>, Long> expected = node.eval(model);
                expected.values().removeIf(d -> d == 0);
                long size = expected.values().stream().mapToLong(Long::longValue).sum();
                long limit = 1 + rnd.nextInt(8);
                long offset = rnd.nextInt(4);
                long t = h.storage.lastWriteTime() + 1;
                await().pollInterval(Duration.ofMillis(2)).atMost(Duration.ofSeconds(10)).until(() -> tables.stream().allMatch(id -> h.storage.upper(id).isPast(t)));

                Map<String, Schema> sources = new HashMap<>();
                tables.forEach(id -> sources.put(id, Schema.ofTypes(TYPES)));
                Plan plan = node.plan();
                List<DatumType> outTypes = plan.types(id -> TYPES, "");
                String exportId = "e" + iteration;
                DataflowDescription desc = new DataflowDescription(sources, Map.of(), List.of(new DataflowDescription.BuildDesc("o", plan)),
                        List.of(new DataflowDescription.IndexExport(exportId, "o", IntStream.range(0, outTypes.size()).boxed().toList())), t, t + 1);
                desc.validate();
                Dataflow df = Dataflow.render(exportId, desc, new Dataflow.Env(h.pool, h.storage, h.registry, DataflowListener.NONE,
                        System::currentTimeMillis, Dataflow.StepObserver.NONE));
                CompletableFuture<List<Row>> answer = new CompletableFuture<>();
                boolean offered = df.answerEarly(t, offset, limit, answer::complete);
                String what = "plan " + node + " limit " + limit + " offset " + offset + " expected " + expected;
                assertThat(offered).as("offered: %s", what).isEqualTo(node.monotone());
                df.schedule();
                try {
                    if (node.monotone() && size >= offset + limit) {
                        List<Row> rows = answer.orTimeout(10, java.util.concurrent.TimeUnit.SECONDS).join();
                        early++;
                        assertThat(rows).as(what).hasSize((int) limit);
                        Map<Row, Long> counts = new HashMap<>();
                        rows.forEach(r -> counts.merge(r, 1L, Long::sum));
                        counts.forEach((r, c) -> {
                            List<Long> values = new ArrayList<>();
                            for (int i = 0; i < r.arity(); i++) {
                                values.add((Long) r.get(i));
                            }
                            assertThat(c).as("%s in %s", r, what).isLessThanOrEqualTo(expected.getOrDefault(values, 0L));
                        });
                        // It stopped: its output is never sealed at the read time.
                        Thread.sleep(20);
                        assertThat(h.registry.current(exportId).readableAt(t)).as(what).isFalse();
                    } else {
                        await().pollInterval(Duration.ofMillis(2)).atMost(Duration.ofSeconds(10)).until(() -> df.upper().isPast(t));
                        assertThat(answer).as(what).isNotDone();
                        Map<Row, Long> want = new HashMap<>();
                        expected.forEach((r, d) -> want.put(row(r), d));
                        assertThat(RenderHarness.read(df.exports().get(0), t).rows()).as(what).isEqualTo(want);
                    }
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                } finally {
                    df.drop();
                }
            }
        }
        assertThat(early).as("plans answered early").isGreaterThan(20);
    }
}
