package dev.tandem.multiplex;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.expr.Expr;
import dev.tandem.expr.Func;
import dev.tandem.expr.Mfp;
import dev.tandem.plan.Plan;
import dev.tandem.protocol.ComputeCommand;
import dev.tandem.protocol.ComputeResponse;
import dev.tandem.protocol.Finishing;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.storage.RowDiff;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * For random update streams (inserts, duplicates, retractions of present rows, NULL values) written in
 * a few writes under an index, and random peeks (literal keys or a scan, a filter — sometimes one that
 * fails on a row — an order, a limit and an offset), SOLO and two-runtime mode both answer exactly what
 * a model of the table computes: the fast path's filter, order, limit and offset are checked, not only
 * compared between modes. Coverage of the interesting cases is asserted, not just counted.
 */
class SoloEquivalenceProperties {

    static ComputeTesting solo;
    static ComputeTesting two;
    static final AtomicInteger ids = new AtomicInteger(100);

    @BeforeContainer
    static void start() {
        solo = new ComputeTesting(false);
        two = new ComputeTesting(true);
    }

    @AfterContainer
    static void stop() {
        solo.close();
        two.close();
    }

    /** One change: insert (k, v), or with {@code retract} delete one copy of a present row (the k-th, cyclically; an insert when none is). */
    record Change(long k, Long v, boolean retract) {
    }

    /**
     * One random peek: literal keys (distinct) or a scan; a filter {@code v >= minValue}, or with
     * {@code failOn} a filter {@code 100 / (v - failOn) >= -1000} that fails on a row whose v is
     * {@code failOn}; an order by v; a limit and an offset.
     */
    record PeekSpec(List<Long> keys, Long minValue, Long failOn, boolean desc, Long limit, long offset) {
    }

    @Provide
    Arbitrary<List<Change>> changes() {
        return Combinators.combine(Arbitraries.longs().between(0, 12), Arbitraries.longs().between(-5, 5).injectNull(0.15),
                Arbitraries.integers().between(0, 3).map(i -> i == 0)).as(Change::new).list().ofMinSize(5).ofMaxSize(60);
    }

    @Provide
    Arbitrary<List<PeekSpec>> peeks() {
        Arbitrary<List<Long>> keys = Arbitraries.longs().between(0, 12).list().uniqueElements().ofMinSize(1).ofMaxSize(4).injectNull(0.4);
        Arbitrary<Long> failOn = Arbitraries.longs().between(-5, 5).injectNull(0.5);
        return Combinators.combine(keys, Arbitraries.longs().between(-5, 5).injectNull(0.5), failOn, Arbitraries.of(true, false),
                Arbitraries.longs().between(1, 10).injectNull(0.5), Arbitraries.longs().between(0, 2))
                .as(PeekSpec::new).list().ofMinSize(1).ofMaxSize(6);
    }

    @Property(tries = 30)
    void soloAndTwoRuntimesAnswerWhatTheModelComputes(@ForAll("changes") List<Change> changes, @ForAll("peeks") List<PeekSpec> randomPeeks,
            @ForAll("splits") List<Integer> splits) {
        String table = "u" + ids.incrementAndGet();
        String index = "u" + ids.incrementAndGet();
        List<List<RowDiff>> writes = writes(changes, splits);
        Map<Row, Long> model = new TreeMap<>();
        writes.forEach(w -> w.forEach(d -> model.merge(d.row(), d.diff(), Long::sum)));
        model.values().removeIf(n -> n == 0);
        assertThat(model.values()).as("a table is a multiset").allMatch(n -> n > 0);

        // Besides the random peeks, one scan whose filter fails on a row known to be present.
        List<PeekSpec> all = new ArrayList<>(randomPeeks);
        model.keySet().stream().map(r -> (Long) r.get(1)).filter(java.util.Objects::nonNull).findFirst()
                .ifPresent(v -> all.add(new PeekSpec(null, null, v, false, null, 0)));
        List<Object> expected = new ArrayList<>();
        for (PeekSpec p : all) {
            expected.add(expect(model, p));
        }
        assertThat(answers(solo, table, index, writes, all)).as("SOLO").isEqualTo(expected);
        assertThat(answers(two, table, index, writes, all)).as("two runtimes").isEqualTo(expected);

        Statistics.label("retractions").collect(writes.stream().flatMap(List::stream).anyMatch(d -> d.diff() < 0));
        Statistics.label("nulls").collect(model.keySet().stream().anyMatch(r -> r.get(1) == null));
        for (Object e : expected.subList(0, randomPeeks.size())) {
            Statistics.label("result").collect(e instanceof String ? "error" : ((List<?>) e).isEmpty() ? "empty" : "rows");
        }
        Statistics.label("errors seen").collect(expected.stream().anyMatch(e -> e instanceof String));
        Statistics.label("retractions").coverage(c -> c.check(true).percentage(p -> p >= 20));
        Statistics.label("nulls").coverage(c -> c.check(true).percentage(p -> p >= 10));
        Statistics.label("result").coverage(c -> {
            c.check("rows").percentage(p -> p >= 12);
            c.check("empty").count(n -> n > 0);
        });
        Statistics.label("errors seen").coverage(c -> c.check(true).percentage(p -> p >= 50));
    }

    @Provide
    Arbitrary<List<Integer>> splits() {
        return Arbitraries.integers().between(0, 60).list().ofMaxSize(2);
    }

    /** The changes as up to three writes (split at {@code splits}); no row's multiplicity ever goes negative. */
    static List<List<RowDiff>> writes(List<Change> changes, List<Integer> splits) {
        Set<Integer> cuts = new HashSet<>(splits);
        Map<Row, Long> present = new TreeMap<>();
        List<List<RowDiff>> out = new ArrayList<>();
        List<RowDiff> current = new ArrayList<>();
        for (int i = 0; i < changes.size(); i++) {
            if (cuts.contains(i) && !current.isEmpty()) {
                out.add(current);
                current = new ArrayList<>();
            }
            Change c = changes.get(i);
            Row row = Row.pack(ComputeTesting.KV.types(), java.util.Arrays.asList(c.k(), c.v()));
            long diff = 1;
            if (c.retract() && !present.isEmpty()) {
                row = new ArrayList<>(present.keySet()).get((int) (c.k() % present.size()));
                diff = -1;
            }
            if (present.merge(row, diff, Long::sum) == 0) {
                present.remove(row);
            }
            current.add(new RowDiff(row, diff));
        }
        if (!current.isEmpty()) {
            out.add(current);
        }
        return out;
    }

    /** The model's answer: the rows in order, or the error message. */
    static Object expect(Map<Row, Long> model, PeekSpec p) {
        List<Map.Entry<Row, Long>> visited = model.entrySet().stream()
                .filter(e -> p.keys() == null || p.keys().contains((Long) e.getKey().get(0))).toList();
        if (p.failOn() != null && visited.stream().anyMatch(e -> p.failOn().equals(e.getKey().get(1)))) {
            return "division by zero";
        }
        List<Map.Entry<Row, Long>> kept = new ArrayList<>();
        for (Map.Entry<Row, Long> e : visited) {
            Long v = (Long) e.getKey().get(1);
            boolean keep = p.failOn() != null ? v != null : p.minValue() == null || (v != null && v >= p.minValue());
            if (keep) {
                kept.add(e);
            }
        }
        Comparator<Long> values = p.desc() ? Comparator.reverseOrder() : Comparator.naturalOrder();
        kept.sort((a, b) -> {
            Long x = (Long) a.getKey().get(1);
            Long y = (Long) b.getKey().get(1);
            int c = x == null || y == null ? Boolean.compare(x == null, y == null) : values.compare(x, y);
            return c != 0 ? c : a.getKey().compareTo(b.getKey());
        });
        List<Row> rows = new ArrayList<>();
        long position = 0;
        long end = p.limit() == null ? Long.MAX_VALUE : p.offset() + p.limit();
        for (Map.Entry<Row, Long> e : kept) {
            for (long i = 0; i < e.getValue(); i++, position++) {
                if (position >= p.offset() && position < end) {
                    rows.add(e.getKey());
                }
            }
        }
        return rows;
    }

    private static List<Object> answers(ComputeTesting c, String table, String index, List<List<RowDiff>> writes, List<PeekSpec> peeks) {
        c.storage.createTable(table, ComputeTesting.KV);
        long t = Math.max(0, c.storage.lastWriteTime());
        boolean indexed = false;
        for (List<RowDiff> w : writes) {
            t = c.storage.write(table, w).block(Duration.ofSeconds(20));
            if (!indexed) {
                // The index starts after the first write, so later writes (retractions among them) reach it as updates.
                c.mux.send(new ComputeCommand.CreateDataflow(ComputeTesting.index(table, index, t)));
                c.mux.send(new ComputeCommand.Schedule(index));
                indexed = true;
            }
        }
        if (!indexed) {
            c.mux.send(new ComputeCommand.CreateDataflow(ComputeTesting.index(table, index, t)));
            c.mux.send(new ComputeCommand.Schedule(index));
        }
        List<Object> out = new ArrayList<>();
        for (PeekSpec p : peeks) {
            List<Expr> filter;
            if (p.failOn() != null) {
                Expr quotient = Expr.call(Func.DIV, Expr.lit(100L, DatumType.INT64),
                        Expr.call(Func.SUB, Expr.col(1), Expr.lit(p.failOn(), DatumType.INT64)));
                filter = List.of(Expr.call(Func.GTE, quotient, Expr.lit(-1000L, DatumType.INT64)));
            } else {
                filter = p.minValue() == null ? List.of() : List.of(Expr.call(Func.GTE, Expr.col(1), Expr.lit(p.minValue(), DatumType.INT64)));
            }
            Finishing fin = new Finishing(List.of(new Plan.Ordering(1, p.desc(), true)), p.limit(), p.offset());
            List<Row> keys = p.keys() == null ? null : p.keys().stream().map(Row::of).toList();
            UUID uuid = UUID.randomUUID();
            c.mux.send(new ComputeCommand.Peek(uuid, index, t, keys, new Mfp(List.of(), filter, null), fin, null));
            ComputeResponse.PeekResult r = c.awaitPeek(uuid);
            out.add(r instanceof ComputeResponse.Rows rr ? rr.rows() : r instanceof ComputeResponse.Error e ? e.message() : r);
        }
        return out;
    }
}
