package dev.tandem.render;

import dev.tandem.expr.DataError;
import dev.tandem.expr.EvalError;
import dev.tandem.plan.Plan;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A maintained {@link Plan.Iterate}: the fixed point of a recursive query, kept up to date as its seed and the
 * collections its step reads change, as differential dataflow's iterate keeps it over (time, iteration).
 *
 * <p><em>State.</em> Per iteration {@code i >= 1} an instance of the step's operators ({@link IterateBody})
 * computes iteration {@code i}'s production from the work table {@code W(i-1)}; it is made when {@code W(i-1)}
 * first has rows and hydrated from the current contents of the step's other inputs, which this operator keeps.
 * Under {@code UNION ALL}, {@code W(i)} is the production itself. Under {@code UNION} a row belongs to
 * {@code W(i)} iff {@code i} is the first iteration producing it (the seed is iteration 0), so for every row
 * the counts produced per iteration are kept, and a change moves the row between work tables.
 *
 * <p><em>A change</em> at time {@code t} is processed iteration by iteration in increasing order: the change of
 * {@code W(i-1)} and of the other inputs enter instance {@code i}, whose output changes {@code W(i)} (or, under
 * {@code UNION}, moves rows to their new first iteration, at or after {@code i}); it ends when no iteration
 * has a pending change. The output's change is the sum of the work tables' changes. Deleting a fact retracts
 * what it derived, cycles included, since each derivation is counted at its own iteration.
 *
 * <p><em>Bounds.</em> An iteration past {@link Plan.Iterate#MAX_ITERATIONS} is an evaluation error
 * ({@code 54000}), kept from then on, and the operator stops maintaining its output. It runs on shard 0.
 */
final class IterateOperator extends Operator {

    private final Plan.Iterate iterate;
    private final List<String> reads;
    private final Map<String, List<DatumType>> bodyTypes;

    /** {@code inputs}: the seed, then the collections of {@code reads} (the step's inputs besides the work table). */
    IterateOperator(Plan.Iterate iterate, List<String> reads, Map<String, List<DatumType>> bodyTypes, Operator... inputs) {
        super("iterate", inputs);
        this.iterate = iterate;
        this.reads = List.copyOf(reads);
        this.bodyTypes = bodyTypes;
    }

    @Override
    Partitioner partitioner(int port) {
        return (row, shards) -> 0;
    }

    @Override
    Shard shard(int w) {
        return w == 0 ? new State() : (in, round, out, errs) -> { };
    }

    /** The operator's state on shard 0. */
    private final class State implements Shard {
        /** The current contents of the step's other inputs, by {@link #reads} position. */
        private final List<Map<Row, Long>> contents = new ArrayList<>();
        /** bodies[i] produces iteration i + 1 from W(i). */
        private final List<IterateBody> bodies = new ArrayList<>();
        /** Under UNION: per row, the counts produced at each iteration where it is produced. */
        private final Map<Row, TreeMap<Integer, Long>> produced = new HashMap<>();
        private long stateBytes;
        private boolean failed;

        State() {
            for (int i = 0; i < reads.size(); i++) {
                contents.add(new HashMap<>());
            }
        }

        @Override
        public void step(Updates[] in, Round round, Updates out, Updates errs) {
            if (failed) {
                return;
            }
            // per time, per port, the consolidated changes
            TreeMap<Long, List<Map<Row, Long>>> byTime = new TreeMap<>();
            for (int p = 0; p < in.length; p++) {
                Updates u = in[p];
                for (int i = 0; i < u.size; i++) {
                    List<Map<Row, Long>> ports = byTime.computeIfAbsent(u.times[i], t -> {
                        List<Map<Row, Long>> l = new ArrayList<>();
                        for (int q = 0; q < in.length; q++) {
                            l.add(new HashMap<>());
                        }
                        return l;
                    });
                    add(ports.get(p), copy(u.row(i)), u.diffs[i]);
                }
            }
            for (Map.Entry<Long, List<Map<Row, Long>>> e : byTime.entrySet()) {
                if (!change(e.getKey(), e.getValue(), round, out, errs)) {
                    failed = true;
                    errs.add(new DataError(Plan.Iterate.TOO_MANY_ITERATIONS, EvalError.Code.PROGRAM_LIMIT_EXCEEDED).row(), e.getKey(), 1);
                    return;
                }
            }
        }

        /** Processes the changes at {@code time}; false when the iteration passed its bound. */
        private boolean change(long time, List<Map<Row, Long>> ports, Round round, Updates out, Updates errs) {
            Map<String, Map<Row, Long>> others = new HashMap<>();
            for (int r = 0; r < reads.size(); r++) {
                Map<Row, Long> delta = ports.get(r + 1);
                if (!delta.isEmpty()) {
                    others.put(reads.get(r), delta);
                    Map<Row, Long> content = contents.get(r);
                    delta.forEach((row, d) -> stateBytes += sizeChange(content, row, d));
                }
            }
            TreeMap<Integer, Map<Row, Long>> pending = new TreeMap<>();
            produce(0, ports.get(0), pending);
            for (int i = 0; i < bodies.size() || !pending.isEmpty(); i++) {
                Map<Row, Long> work = pending.remove(i);
                if (work == null) {
                    work = Map.of();
                }
                work.forEach((row, d) -> out.add(row, time, d));
                if (work.isEmpty() && (others.isEmpty() || i >= bodies.size())) {
                    continue;
                }
                Map<String, Map<Row, Long>> in = new HashMap<>(others);
                in.put(iterate.variable(), work);
                if (i == bodies.size()) {
                    if (i == Plan.Iterate.MAX_ITERATIONS) {
                        return false;
                    }
                    bodies.add(new IterateBody(iterate.step(), bodyTypes));
                    for (int r = 0; r < reads.size(); r++) {
                        in.put(reads.get(r), contents.get(r));
                    }
                }
                Updates next = new Updates();
                bodies.get(i).step(in, time, next, errs, round.processed());
                Map<Row, Long> production = new HashMap<>();
                for (int k = 0; k < next.size; k++) {
                    add(production, copy(next.row(k)), next.diffs[k]);
                }
                produce(i + 1, production, pending);
            }
            return true;
        }

        /** Records iteration {@code i}'s change of production, adding the work tables' changes it causes to {@code pending}. */
        private void produce(int i, Map<Row, Long> production, TreeMap<Integer, Map<Row, Long>> pending) {
            if (iterate.all()) {
                if (!production.isEmpty()) {
                    production.forEach((row, d) -> add(pending.computeIfAbsent(i, x -> new HashMap<>()), row, d));
                }
                return;
            }
            production.forEach((row, d) -> {
                TreeMap<Integer, Long> counts = produced.get(row);
                if (counts == null) {
                    counts = new TreeMap<>();
                    produced.put(row, counts);
                    stateBytes += row.byteSize() + 96;
                }
                Integer before = first(counts);
                int entries = counts.size();
                counts.merge(i, d, (a, b) -> a + b == 0 ? null : a + b);
                stateBytes += 48L * (counts.size() - entries);
                Integer after = first(counts);
                if (counts.isEmpty()) {
                    produced.remove(row);
                    stateBytes -= row.byteSize() + 96;
                }
                if (before == null ? after != null : !before.equals(after)) {
                    if (before != null) {
                        add(pending.computeIfAbsent(before, x -> new HashMap<>()), row, -1);
                    }
                    if (after != null) {
                        add(pending.computeIfAbsent(after, x -> new HashMap<>()), row, 1);
                    }
                }
            });
        }

        @Override
        public long residentBytes() {
            long bytes = stateBytes;
            for (IterateBody b : bodies) {
                bytes += b.residentBytes();
            }
            return bytes;
        }
    }

    /** The first iteration at which a row is produced (a positive count), or null. */
    private static Integer first(TreeMap<Integer, Long> counts) {
        for (Map.Entry<Integer, Long> e : counts.entrySet()) {
            if (e.getValue() > 0) {
                return e.getKey();
            }
        }
        return null;
    }

    /** Adds {@code d} to {@code row}'s multiplicity in {@code content}; returns the change of its estimated heap bytes. */
    private static long sizeChange(Map<Row, Long> content, Row row, long d) {
        boolean had = content.containsKey(row);
        add(content, row, d);
        boolean has = content.containsKey(row);
        return had == has ? 0 : (has ? 1 : -1) * (row.byteSize() + 64L);
    }

    private static void add(Map<Row, Long> m, Row row, long d) {
        if (d != 0) {
            m.merge(row, d, (a, b) -> a + b == 0 ? null : a + b);
        }
    }

    private static Row copy(Row row) {
        byte[] b = new byte[row.byteSize()];
        row.copyTo(b, 0);
        return Row.wrap(b, 0, b.length);
    }
}
