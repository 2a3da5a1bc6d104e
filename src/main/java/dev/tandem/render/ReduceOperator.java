package dev.tandem.render;

import dev.tandem.expr.Datums;
import dev.tandem.expr.EvalError;
import dev.tandem.expr.Expr;
import dev.tandem.plan.AggregateFunc;
import dev.tandem.plan.GroupFunctions;
import dev.tandem.plan.Plan;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.row.RowPacker;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A {@code reduce} whose aggregates are all maintained incrementally: count, int64 sum, min and max.
 * Its output is that of {@link GroupOperator} over {@link GroupFunctions#reduce}: for each group touched
 * in a round, at each distinct time in order, the retraction of the group's previous output and its
 * new output, when they differ. A reduce with a float64 sum (defined in row order, so not maintainable
 * by adding and retracting) is rendered as a {@link GroupOperator} instead.
 *
 * <p><b>State.</b> Instead of an arrangement of its input, each shard keeps the multiplicity of each
 * distinct input row (a row of negative multiplicity makes its group an error) and, per group, in
 * primitive arrays indexed by a group slot: the number of member rows and of negative ones, and per
 * aggregate the multiplicity of non-NULL arguments (count, and whether a sum, min or max is NULL), the
 * exact int64 sum (a long, spilling into a {@link BigInteger} only while it is out of range), and for
 * min and max a sorted multiset of the argument values. A group whose last member leaves gives its
 * slot back.
 *
 * <p><b>Allocation.</b> Rows and group keys are copied into the byte slabs of {@link RowSlots}, so
 * the state holds no object per row or group, except min and max, whose multisets hold an entry per
 * distinct value. Applying an update of a row already present allocates nothing; a new row's group key
 * is projected into reused scratch bytes (only its view is allocated). Evaluating aggregate arguments
 * decodes the row ({@link Row#unpack()}), and each changed group output is a new row; both are
 * short-lived.
 */
final class ReduceOperator extends Operator {

    private final int[] key;
    private final AggregateFunc[] funcs;
    private final Expr[] exprs;
    private final boolean decodes;
    private final List<DatumType> outTypes;
    private final long asOf;

    ReduceOperator(Operator input, Plan.Reduce reduce, List<DatumType> outTypes, long asOf) {
        super("reduce", input);
        if (!supports(reduce, outTypes)) {
            throw new IllegalArgumentException("reduce has an aggregate that is not maintained incrementally");
        }
        this.key = reduce.groupKey().stream().mapToInt(Integer::intValue).toArray();
        this.funcs = reduce.aggregates().stream().map(Plan.Aggregate::func).toArray(AggregateFunc[]::new);
        this.exprs = reduce.aggregates().stream().map(Plan.Aggregate::expr).toArray(Expr[]::new);
        this.decodes = Arrays.stream(exprs).anyMatch(Objects::nonNull);
        this.outTypes = List.copyOf(outTypes);
        this.asOf = asOf;
    }

    /** Whether every aggregate of {@code reduce} (output types {@code outTypes}) is maintained incrementally. */
    static boolean supports(Plan.Reduce reduce, List<DatumType> outTypes) {
        int keyArity = reduce.groupKey().size();
        for (int a = 0; a < reduce.aggregates().size(); a++) {
            if (reduce.aggregates().get(a).func() == AggregateFunc.SUM && outTypes.get(keyArity + a) != DatumType.INT64) {
                return false;
            }
        }
        return true;
    }

    @Override
    Partitioner partitioner(int port) {
        return Partitioners.byColumns(key);
    }

    @Override
    Shard shard(int w) {
        return new ReduceShard();
    }

    /** A multiset of non-NULL datums in the datum order, with multiplicities. */
    private static final class ValueCounts extends TreeMap<Object, long[]> {
        ValueCounts() {
            super(Datums.ORDER);
        }

        void add(Object value, long diff) {
            long[] count = get(value);
            if (count == null) {
                put(value, new long[] {diff});
            } else if ((count[0] += diff) == 0) {
                remove(value);
            }
        }
    }

    private final class ReduceShard implements Shard {
        private final int aggs = funcs.length;
        private final Object[] args = new Object[aggs];
        private final RowPacker packer = new RowPacker();
        /** Scratch for a new row's group key; {@link #groups} copies the keys it keeps. */
        private byte[] keyBytes = new byte[0];

        /** Distinct input rows of nonzero multiplicity (their bytes copied): their multiplicity and group slot. */
        private final RowSlots rows = new RowSlots();
        private long[] rowMult = new long[0];
        private int[] rowGroup = new int[0];

        /** Groups with at least one member row, by slot. */
        private final RowSlots groups = new RowSlots();
        private long[] members = new long[0];
        private long[] negatives = new long[0];
        /** Whether the group key's datums have the output's key types, so its encoding is the output's. */
        private boolean[] keyIsOutput = new boolean[0];
        private Row[] outRow = new Row[0];
        private String[] outError = new String[0];
        private int[] touchedIn = new int[0];
        /** Per group slot × aggregate. */
        private long[] nonNull = new long[0];
        private long[] sums = new long[0];
        private BigInteger[] wideSums = new BigInteger[0];
        private ValueCounts[] values = new ValueCounts[0];

        /** The groups touched at the time being applied, and that time's epoch number. */
        private int[] touched = new int[16];
        private int touchedCount;
        private int epoch = 1;

        /** Scratch for ordering a round's updates by time. */
        private long[] times = new long[0];
        private long[] order = new long[0];

        @Override
        public long residentBytes() {
            // arrays per row and per group; a group's output row and min/max entries counted roughly
            return rows.byteSize() + groups.byteSize() + 12L * rowMult.length
                    + (8L + 8 + 1 + 4 + 4 + 4 + 64) * members.length + (8L + 8 + 4 + 4) * nonNull.length;
        }

        ReduceShard() {
            if (!decodes) {
                Arrays.fill(args, Boolean.TRUE);
            }
        }

        @Override
        public void step(Updates[] in, Round round, Updates out, Updates errs) {
            Updates u = in[0];
            int n = u.size;
            if (n == 0) {
                return;
            }
            long first = Math.max(u.times[0], asOf);
            int i = 1;
            while (i < n && Math.max(u.times[i], asOf) == first) {
                i++;
            }
            if (i == n) {
                for (int j = 0; j < n; j++) {
                    apply(u, j, errs);
                }
                emitTouched(first, out, errs);
                return;
            }
            stepInTimeOrder(u, out, errs);
        }

        /** Applies the updates time by time, emitting the touched groups' changes after each time. */
        private void stepInTimeOrder(Updates u, Updates out, Updates errs) {
            int n = u.size;
            if (times.length < n) {
                times = new long[n];
                order = new long[n];
            }
            for (int i = 0; i < n; i++) {
                times[i] = Math.max(u.times[i], asOf);
            }
            Arrays.sort(times, 0, n);
            int distinct = 0;
            for (int i = 0; i < n; i++) {
                if (i == 0 || times[i] != times[distinct - 1]) {
                    times[distinct++] = times[i];
                }
            }
            for (int i = 0; i < n; i++) {
                long rank = Arrays.binarySearch(times, 0, distinct, Math.max(u.times[i], asOf));
                order[i] = rank << 32 | i;
            }
            Arrays.sort(order, 0, n);
            int i = 0;
            while (i < n) {
                int rank = (int) (order[i] >>> 32);
                for (; i < n && (int) (order[i] >>> 32) == rank; i++) {
                    apply(u, (int) order[i], errs);
                }
                emitTouched(times[rank], out, errs);
            }
        }

        /** Applies update {@code i} to its row's multiplicity and its group's aggregates. */
        private void apply(Updates u, int i, Updates errs) {
            Row row = u.row(i);
            long diff = u.diffs[i];
            if (decodes) {
                Object[] decoded = row.unpack();
                try {
                    for (int a = 0; a < aggs; a++) {
                        args[a] = exprs[a] == null ? Boolean.TRUE : exprs[a].eval(decoded);
                    }
                } catch (EvalError err) {
                    errs.add(Row.of(err.getMessage()), u.times[i], diff);
                    return;
                }
            }
            if (diff == 0) {
                return;
            }
            int r = rows.find(row);
            int g;
            long before;
            if (r < 0) {
                Row k = projectKey(row);
                g = groups.find(k);
                if (g < 0) {
                    g = addGroup(k);
                }
                r = rows.add(row);
                if (r >= rowMult.length) {
                    rowMult = Arrays.copyOf(rowMult, rows.capacity());
                    rowGroup = Arrays.copyOf(rowGroup, rows.capacity());
                }
                rowGroup[r] = g;
                before = 0;
            } else {
                g = rowGroup[r];
                before = rowMult[r];
            }
            long after = before + diff;
            if (after == 0) {
                rows.remove(r);
            } else {
                rowMult[r] = after;
            }
            if (before == 0) {
                members[g]++;
            } else if (after == 0) {
                members[g]--;
            }
            if ((before < 0) != (after < 0)) {
                negatives[g] += after < 0 ? 1 : -1;
            }
            for (int a = 0; a < aggs; a++) {
                Object v = args[a];
                if (v == null) {
                    continue;
                }
                int s = g * aggs + a;
                nonNull[s] += diff;
                switch (funcs[a]) {
                    case COUNT -> {
                    }
                    case SUM -> {
                        if (v instanceof Long l) {
                            addToSum(s, l, diff);
                        }
                    }
                    case MIN, MAX -> {
                        ValueCounts vc = values[s];
                        if (vc == null) {
                            vc = values[s] = new ValueCounts();
                        }
                        vc.add(v, diff);
                    }
                }
            }
            if (touchedIn[g] != epoch) {
                touchedIn[g] = epoch;
                if (touchedCount == touched.length) {
                    touched = Arrays.copyOf(touched, touchedCount * 2);
                }
                touched[touchedCount++] = g;
            }
        }

        /** The group key of {@code row}: a view of {@link #keyBytes}, valid until the next call. */
        private Row projectKey(Row row) {
            // each key column is at most the whole row (a column may be grouped on twice)
            int room = row.byteSize() * key.length;
            if (keyBytes.length < room) {
                keyBytes = new byte[Math.max(room, 2 * keyBytes.length)];
            }
            return Row.wrap(keyBytes, 0, row.projectInto(key, keyBytes, 0));
        }

        /** Adds {@code value × diff} to the exact sum of slot {@code s}. */
        private void addToSum(int s, long value, long diff) {
            BigInteger wide = wideSums[s];
            if (wide == null) {
                try {
                    sums[s] = Math.addExact(sums[s], Math.multiplyExact(value, diff));
                    return;
                } catch (ArithmeticException overflow) {
                    wide = BigInteger.valueOf(sums[s]);
                }
            }
            wide = wide.add(BigInteger.valueOf(value).multiply(BigInteger.valueOf(diff)));
            if (wide.bitLength() < 64) {
                sums[s] = wide.longValue();
                wideSums[s] = null;
            } else {
                wideSums[s] = wide;
            }
        }

        /** Emits the changes of the groups touched at time {@code t} and gives back emptied groups' slots. */
        private void emitTouched(long t, Updates out, Updates errs) {
            for (int k = 0; k < touchedCount; k++) {
                int g = touched[k];
                emit(g, t, out, errs);
                if (members[g] == 0) {
                    removeGroup(g);
                }
            }
            touchedCount = 0;
            if (++epoch == 0) {
                Arrays.fill(touchedIn, 0);
                epoch = 1;
            }
        }

        private void emit(int g, long t, Updates out, Updates errs) {
            Row nextRow = null;
            String nextError = null;
            if (members[g] != 0) {
                if (negatives[g] != 0) {
                    nextError = GroupFunctions.NEGATIVE_REDUCE;
                } else {
                    nextRow = output(g);
                    if (nextRow == null) {
                        nextError = GroupFunctions.SUM_OVERFLOW;
                    }
                }
            }
            Row prevRow = outRow[g];
            if (!Objects.equals(prevRow, nextRow)) {
                if (prevRow != null) {
                    out.add(prevRow, t, -1);
                }
                if (nextRow != null) {
                    out.add(nextRow, t, 1);
                }
                outRow[g] = nextRow;
            }
            String prevError = outError[g];
            if (!Objects.equals(prevError, nextError)) {
                if (prevError != null) {
                    errs.add(Row.of(prevError), t, -1);
                }
                if (nextError != null) {
                    errs.add(Row.of(nextError), t, 1);
                }
                outError[g] = nextError;
            }
        }

        /** The output row of a group without negative members, or null when an int64 sum is out of range. */
        private Row output(int g) {
            int base = g * aggs;
            for (int a = 0; a < aggs; a++) {
                if (funcs[a] == AggregateFunc.SUM && wideSums[base + a] != null) {
                    return null;
                }
            }
            Row groupKey = groups.key(g);
            if (keyIsOutput[g]) {
                packer.pushRow(groupKey);
            } else {
                Object[] keyValues = groupKey.unpack();
                for (int k = 0; k < key.length; k++) {
                    packer.push(outTypes.get(k), keyValues[k]);
                }
            }
            for (int a = 0; a < aggs; a++) {
                int s = base + a;
                DatumType type = outTypes.get(key.length + a);
                switch (funcs[a]) {
                    case COUNT -> pushInt64(type, nonNull[s]);
                    case SUM -> {
                        if (nonNull[s] == 0) {
                            packer.pushNull(type);
                        } else {
                            pushInt64(type, sums[s]);
                        }
                    }
                    case MIN -> packer.push(type, values[s] == null || values[s].isEmpty() ? null : values[s].firstKey());
                    case MAX -> packer.push(type, values[s] == null || values[s].isEmpty() ? null : values[s].lastKey());
                }
            }
            return packer.finish();
        }

        private boolean keyTypesMatch(Row groupKey) {
            for (int k = 0; k < key.length; k++) {
                if (groupKey.typeAt(k) != outTypes.get(k)) {
                    return false;
                }
            }
            return true;
        }

        private void pushInt64(DatumType type, long value) {
            if (type == DatumType.INT64) {
                packer.pushInt64(value);
            } else {
                packer.push(type, value);
            }
        }

        private int addGroup(Row k) {
            int g = groups.add(k);
            int capacity = groups.capacity();
            if (capacity > members.length) {
                members = Arrays.copyOf(members, capacity);
                negatives = Arrays.copyOf(negatives, capacity);
                keyIsOutput = Arrays.copyOf(keyIsOutput, capacity);
                outRow = Arrays.copyOf(outRow, capacity);
                outError = Arrays.copyOf(outError, capacity);
                touchedIn = Arrays.copyOf(touchedIn, capacity);
                nonNull = Arrays.copyOf(nonNull, capacity * aggs);
                sums = Arrays.copyOf(sums, capacity * aggs);
                wideSums = Arrays.copyOf(wideSums, capacity * aggs);
                values = Arrays.copyOf(values, capacity * aggs);
            }
            keyIsOutput[g] = keyTypesMatch(k);
            return g;
        }

        /** Gives back the slot of a group without members (its aggregates are all zero again). */
        private void removeGroup(int g) {
            groups.remove(g);
            touchedIn[g] = 0;
            outRow[g] = null;
            outError[g] = null;
            for (int s = g * aggs; s < (g + 1) * aggs; s++) {
                nonNull[s] = 0;
                sums[s] = 0;
                wideSums[s] = null;
                values[s] = null;
            }
        }
    }
}
