package dev.tandem.render;

import dev.tandem.expr.Datums;
import dev.tandem.expr.DataError;
import dev.tandem.expr.EvalError;
import dev.tandem.expr.Expr;
import dev.tandem.plan.AggregateFunc;
import dev.tandem.plan.GroupFunctions;
import dev.tandem.plan.Plan;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.row.RowPacker;
import dev.tandem.row.Timestamp;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A {@code reduce} whose aggregates are all maintained incrementally: count, int64 sum, min and max.
 * Its output is that of {@link GroupOperator} over {@link GroupFunctions#reduce}: for each group touched
 * in a round, at each distinct time in order, the retraction of the group's previous output and its
 * new output, when they differ. A reduce with a string_agg or an array_agg, or with a float64 sum (defined in row order, so not maintainable
 * by adding and retracting) is rendered as a {@link GroupOperator} instead.
 *
 * <p><b>State.</b> Instead of an arrangement of its input, each shard keeps the multiplicity of each
 * distinct input row (a row of negative multiplicity makes its group an error) — unless its input can
 * never hold one (a table's rows, and joins, maps and reductions of them: the renderer says so), when it
 * keeps only each group's total, with no state per row — and, per group, in
 * primitive arrays indexed by a group slot: the number of member rows and of negative ones, and per
 * aggregate the multiplicity of non-NULL arguments (count, and whether a sum, min or max is NULL) and
 * the exact int64 sum (a long, spilling into a {@link BigInteger} only while it is out of range). A
 * group whose last member leaves gives its slot back.
 *
 * <p><b>Min and max.</b> Retractions can remove the current minimum, so each group keeps the multiset
 * of the argument values with their multiplicities, and the extremes are its ends. A min and a max of
 * one expression share one multiset. Values of every type but string map to a long whose signed order
 * is {@link Datums#ORDER} ({@link #orderKey}; a float64 by its IEEE bits, a negative's other bits
 * flipped, which puts {@code -0.0} below {@code 0.0} and the one NaN above {@code +Infinity}), and their
 * multisets are {@link LongMultisets} slots (group slot × multiset): a group's only value inline, more
 * in a sorted primitive array of value and count pairs, many in sorted blocks of such pairs. Strings
 * are kept in a {@link TreeMap} per group and multiset, created with the group's first string.
 *
 * <p><b>Allocation.</b> Rows and group keys are copied into the byte slabs of {@link RowSlots}, so
 * the state holds no object per row or group, except a min or max multiset's pair array once a group
 * has two distinct values of it, and string multisets' entries, one per distinct string. Applying an
 * update of a row already present allocates nothing; a new row's group key is projected into reused
 * scratch bytes (only its view is allocated). Evaluating aggregate arguments decodes the datums they
 * read (only those when every argument is a column; else the whole row, {@link Row#unpack()}), and each
 * changed group output is a new row; both are short-lived.
 *
 * <p><b>Memory.</b> {@link Shard#residentBytes()} counts the per-row and per-group arrays, the row and
 * key slabs, an estimate of each group's output row, the min and max pair arrays and blocks as
 * allocated (16-byte array headers, 4-byte references), and an estimate of each string multiset entry.
 */
final class ReduceOperator extends Operator {

    private final int[] key;
    private final AggregateFunc[] funcs;
    private final Expr[] exprs;
    /** Whether every argument is a column (or none, for count): then only those datums are decoded, not the whole row. */
    private final boolean columnsOnly;
    /** Per aggregate: its output type, which for sum, min and max is its argument's. */
    private final DatumType[] types;
    /**
     * Per min or max aggregate: its multiset's index among the group's long or string multisets (a min
     * and a max of one expression share one), and whether it is the first to use it, so feeds it.
     */
    private final int[] multiset;
    private final boolean[] feeds;
    private final int longMultisets;
    private final int stringMultisets;
    private final boolean decodes;
    private final List<DatumType> outTypes;
    private final long asOf;
    /** Whether the input never holds a row of negative multiplicity, so rows' multiplicities are not kept. */
    private final boolean nonNegative;

    /**
     * @param nonNegative whether the input never holds a row of negative multiplicity (a table's rows):
     *     then no row's multiplicity is kept, only each group's total
     */
    ReduceOperator(Operator input, Plan.Reduce reduce, List<DatumType> outTypes, long asOf, boolean nonNegative) {
        super("reduce", input);
        this.nonNegative = nonNegative;
        if (!supports(reduce, outTypes)) {
            throw new IllegalArgumentException("reduce has an aggregate that is not maintained incrementally");
        }
        this.key = reduce.groupKey().stream().mapToInt(Integer::intValue).toArray();
        this.funcs = reduce.aggregates().stream().map(Plan.Aggregate::func).toArray(AggregateFunc[]::new);
        this.exprs = reduce.aggregates().stream().map(Plan.Aggregate::expr).toArray(Expr[]::new);
        this.types = outTypes.subList(key.length, outTypes.size()).toArray(DatumType[]::new);
        this.multiset = new int[funcs.length];
        this.feeds = new boolean[funcs.length];
        int longs = 0;
        int strings = 0;
        for (int a = 0; a < funcs.length; a++) {
            if (funcs[a] != AggregateFunc.MIN && funcs[a] != AggregateFunc.MAX) {
                continue;
            }
            int shared = sameArgumentBefore(a);
            if (shared >= 0) {
                multiset[a] = multiset[shared];
            } else {
                multiset[a] = ordersAsLong(types[a]) ? longs++ : strings++;
                feeds[a] = true;
            }
        }
        this.longMultisets = longs;
        this.stringMultisets = strings;
        this.decodes = Arrays.stream(exprs).anyMatch(Objects::nonNull);
        this.columnsOnly = Arrays.stream(exprs).allMatch(e -> e == null || e instanceof Expr.Col);
        this.outTypes = List.copyOf(outTypes);
        this.asOf = asOf;
    }

    /** Whether every aggregate of {@code reduce} (output types {@code outTypes}) is maintained incrementally. */
    static boolean supports(Plan.Reduce reduce, List<DatumType> outTypes) {
        int keyArity = reduce.groupKey().size();
        for (int a = 0; a < reduce.aggregates().size(); a++) {
            if (reduce.aggregates().get(a).func() == AggregateFunc.STRING_AGG || reduce.aggregates().get(a).func().isArrayAgg()
                    || reduce.aggregates().get(a).func() == AggregateFunc.SUM && outTypes.get(keyArity + a) != DatumType.INT64
                    || outTypes.get(keyArity + a) == DatumType.NUMERIC || outTypes.get(keyArity + a) == DatumType.UUID
                    || outTypes.get(keyArity + a) == DatumType.INTERVAL || outTypes.get(keyArity + a) == DatumType.JSONB || outTypes.get(keyArity + a) == DatumType.BYTEA
                    || outTypes.get(keyArity + a).isArray()) {
                return false;
            }
        }
        return true;
    }

    /** An earlier min or max aggregate with the same argument as aggregate {@code a}, or -1. */
    private int sameArgumentBefore(int a) {
        for (int b = 0; b < a; b++) {
            if ((funcs[b] == AggregateFunc.MIN || funcs[b] == AggregateFunc.MAX) && exprs[b].equals(exprs[a])) {
                return b;
            }
        }
        return -1;
    }

    /** Whether {@link #orderKey} maps values of {@code type} to longs: all types but string. */
    private static boolean ordersAsLong(DatumType type) {
        return type != DatumType.STRING;
    }

    /** A long whose signed order among non-NULL values of {@code type} is {@link Datums#ORDER}. */
    private static long orderKey(DatumType type, Object value) {
        return switch (type) {
            case INT64 -> (Long) value;
            case TIMESTAMP -> ((Timestamp) value).micros();
            case TIMESTAMPTZ -> ((dev.tandem.row.TimestampTz) value).micros();
            case DATE -> ((java.time.LocalDate) value).toEpochDay();
            case TIME -> ((dev.tandem.row.TimeOfDay) value).micros();
            case FLOAT64 -> flipNegative(Double.doubleToLongBits((Double) value == 0.0 ? 0.0 : (Double) value));
            case BOOL -> (Boolean) value ? 1 : 0;
            default -> throw new IllegalArgumentException(type.jsonName() + " has no order key");
        };
    }

    /** Pushes the value of {@code type} whose {@link #orderKey} is {@code key}. */
    private static void pushOrderKey(RowPacker packer, DatumType type, long key) {
        switch (type) {
            case INT64 -> packer.pushInt64(key);
            case TIMESTAMP -> packer.pushTimestamp(key);
            case TIMESTAMPTZ -> packer.pushTimestampTz(key);
            case DATE -> packer.pushDate(java.time.LocalDate.ofEpochDay(key));
            case TIME -> packer.pushTime(new dev.tandem.row.TimeOfDay(key));
            case FLOAT64 -> packer.pushFloat64(Double.longBitsToDouble(flipNegative(key)));
            case BOOL -> packer.pushBool(key != 0);
            default -> throw new IllegalArgumentException(type.jsonName() + " has no order key");
        }
    }

    /**
     * IEEE double bits (NaN canonical, as {@link Double#doubleToLongBits} gives them, and {@code -0.0}
     * made {@code 0.0} by {@link #orderKey}) with a negative's other bits flipped, so signed long order is
     * {@link Datums#ORDER}'s; its own inverse.
     */
    private static long flipNegative(long bits) {
        return bits ^ ((bits >> 63) & Long.MAX_VALUE);
    }

    @Override
    Partitioner partitioner(int port) {
        return Partitioners.byColumns(key);
    }

    @Override
    Shard shard(int w) {
        return new ReduceShard();
    }

    /** A multiset of strings in the datum order (by code point), with multiplicities. */
    private static final class StringCounts extends TreeMap<String, long[]> {
        /** Estimated bytes of the map object, and of an entry without its string: the entry and its count. */
        static final long MAP_BYTES = 56;
        static final long ENTRY_BYTES = 40 + 24;

        StringCounts() {
            super(Datums.ORDER);
        }

        /** Adds {@code diff} to the count of {@code value}; returns the change in estimated bytes. */
        long add(String value, long diff) {
            long[] count = get(value);
            if (count == null) {
                put(value, new long[] {diff});
                return ENTRY_BYTES + stringBytes(value);
            }
            if ((count[0] += diff) == 0) {
                remove(value);
                return -ENTRY_BYTES - stringBytes(value);
            }
            return 0;
        }

        /** A String and its byte array, one byte per char (Latin-1, the common case). */
        private static long stringBytes(String value) {
            return 24 + 16 + value.length();
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
        private DataError[] outError = new DataError[0];
        private int[] touchedIn = new int[0];
        /** Per group slot × aggregate. */
        private long[] nonNull = new long[0];
        private long[] sums = new long[0];
        private BigInteger[] wideSums = new BigInteger[0];
        /** Per group slot × long multiset, and × string multiset (null while empty). */
        private final LongMultisets longValues = new LongMultisets();
        private StringCounts[] stringValues = new StringCounts[0];
        private long stringBytes;

        /** The groups touched at the time being applied, and that time's epoch number. */
        private int[] touched = new int[16];
        private int touchedCount;
        private int epoch = 1;

        /** Scratch for ordering a round's updates by time. */
        private long[] times = new long[0];
        private long[] order = new long[0];

        @Override
        public long residentBytes() {
            // arrays per row and per group; a group's output row counted roughly
            return rows.byteSize() + groups.byteSize() + 12L * rowMult.length
                    + (8L + 8 + 1 + 4 + 4 + 4 + 64) * members.length + (8L + 8 + 4) * nonNull.length
                    + longValues.residentBytes() + 4L * stringValues.length + stringBytes;
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
            if (decodes && columnsOnly) {
                for (int a = 0; a < aggs; a++) {
                    args[a] = exprs[a] == null ? Boolean.TRUE : row.get(((Expr.Col) exprs[a]).index());
                }
            } else if (decodes) {
                Object[] decoded = row.unpack();
                try {
                    for (int a = 0; a < aggs; a++) {
                        args[a] = exprs[a] == null ? Boolean.TRUE : exprs[a].eval(decoded);
                    }
                } catch (EvalError err) {
                    errs.add(err.error().row(), u.times[i], diff);
                    return;
                }
            }
            if (diff == 0) {
                return;
            }
            if (nonNegative) {
                applyToGroup(row, diff);
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
            applyArgs(g, diff);
        }

        /**
         * Applies an update of a row of an input that never holds negative multiplicities: only its group's
         * total changes ({@link #members} counts rows with their multiplicity, and the group is an error if
         * that total is ever negative at the end of a time, which such an input never makes it).
         */
        private void applyToGroup(Row row, long diff) {
            Row k = projectKey(row);
            int g = groups.find(k);
            if (g < 0) {
                g = addGroup(k);
            }
            members[g] += diff;
            negatives[g] = members[g] < 0 ? 1 : 0;
            applyArgs(g, diff);
        }

        /** Adds the evaluated arguments ({@link #args}) of an update with {@code diff} to group {@code g}'s aggregates. */
        private void applyArgs(int g, long diff) {
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
                        if (feeds[a]) {
                            addValue(g, a, v, diff);
                        }
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

        /** Adds {@code diff} to the multiplicity of {@code value} in group {@code g}'s multiset of aggregate {@code a}. */
        private void addValue(int g, int a, Object value, long diff) {
            if (ordersAsLong(types[a])) {
                longValues.add(g * longMultisets + multiset[a], orderKey(types[a], value), diff);
                return;
            }
            int s = g * stringMultisets + multiset[a];
            StringCounts counts = stringValues[s];
            if (counts == null) {
                counts = stringValues[s] = new StringCounts();
                stringBytes += StringCounts.MAP_BYTES;
            }
            stringBytes += counts.add((String) value, diff);
            if (counts.isEmpty()) {
                stringValues[s] = null;
                stringBytes -= StringCounts.MAP_BYTES;
            }
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
            DataError nextError = null;
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
            DataError prevError = outError[g];
            if (!Objects.equals(prevError, nextError)) {
                if (prevError != null) {
                    errs.add(prevError.row(), t, -1);
                }
                if (nextError != null) {
                    errs.add(nextError.row(), t, 1);
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
                DatumType type = types[a];
                switch (funcs[a]) {
                    case COUNT -> pushInt64(type, nonNull[s]);
                    case SUM -> {
                        if (nonNull[s] == 0) {
                            packer.pushNull(type);
                        } else {
                            pushInt64(type, sums[s]);
                        }
                    }
                    case MIN, MAX -> pushExtreme(g, a);
                }
            }
            return packer.finish();
        }

        /** Pushes the min or max (aggregate {@code a}) of group {@code g}, or NULL when it has no values. */
        private void pushExtreme(int g, int a) {
            DatumType type = types[a];
            boolean min = funcs[a] == AggregateFunc.MIN;
            if (!ordersAsLong(type)) {
                StringCounts counts = stringValues[g * stringMultisets + multiset[a]];
                packer.push(type, counts == null ? null : min ? counts.firstKey() : counts.lastKey());
                return;
            }
            int s = g * longMultisets + multiset[a];
            if (longValues.isEmpty(s)) {
                packer.pushNull(type);
                return;
            }
            pushOrderKey(packer, type, min ? longValues.min(s) : longValues.max(s));
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
                longValues.grow(capacity * longMultisets);
                stringValues = Arrays.copyOf(stringValues, capacity * stringMultisets);
            }
            keyIsOutput[g] = keyTypesMatch(k);
            return g;
        }

        /**
         * Gives back the slot of a group without members. Its aggregates are all zero again, and its
         * min and max multisets empty (each value's multiplicity is the sum of its rows').
         */
        private void removeGroup(int g) {
            groups.remove(g);
            touchedIn[g] = 0;
            outRow[g] = null;
            outError[g] = null;
            for (int s = g * aggs; s < (g + 1) * aggs; s++) {
                nonNull[s] = 0;
                sums[s] = 0;
                wideSums[s] = null;
            }
        }
    }
}
