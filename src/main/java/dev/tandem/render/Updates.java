package dev.tandem.render;

import dev.tandem.row.Row;
import java.util.Arrays;

/**
 * A growable buffer of {@code (row, time, diff)} updates flowing between operators, stored as
 * primitive columns: the rows' encodings back to back in one byte array with end offsets, and the
 * times and diffs. A buffer of a million updates is four arrays, not a million objects, so a
 * collection that runs while a long step holds it has nothing to trace and little to copy.
 *
 * <p>{@link #row(int)} returns a view into the byte array. Bytes once written are never overwritten:
 * {@link #clear()} starts a new byte array, so a view taken before it stays valid.
 */
final class Updates {

    /** Buffers keep at most this many bytes (and entries) of capacity across a {@link #clear()}. */
    private static final int RETAINED = 1 << 16;

    private byte[] bytes;
    /** {@code ends[i]} is the end of row {@code i}; row {@code i} starts at {@code ends[i - 1]} (0 for the first). */
    private int[] ends;
    long[] times;
    long[] diffs;
    int size;
    private int length;
    /** Charged for growth beyond the initial arrays, and checked for a stop now and then; may be null. */
    private final MemoryBudget budget;
    private long charged;
    /** Told as the buffer grows, at the points the budget is checked (see {@link #watch}); may be null. */
    private Runnable watcher;

    Updates() {
        this(null);
    }

    /** A buffer whose growth is charged to {@code budget} (none when null). */
    Updates(MemoryBudget budget) {
        this.budget = budget;
        int n = 16;
        bytes = new byte[n * 16];
        ends = new int[n];
        times = new long[n];
        diffs = new long[n];
    }

    /**
     * Runs {@code watcher} every 4,096 updates added, before the next one goes in, so an operator's output
     * can be looked at while its step runs (null: none). The watcher may throw to end the step.
     */
    void watch(Runnable watcher) {
        this.watcher = watcher;
    }

    /** A view of row {@code i}. */
    Row row(int i) {
        int start = start(i);
        return Row.wrap(bytes, start, ends[i] - start);
    }

    private int start(int i) {
        return i == 0 ? 0 : ends[i - 1];
    }

    void add(Row row, long time, long diff) {
        int n = row.byteSize();
        reserve(n);
        row.copyTo(bytes, length);
        push(n, time, diff);
    }

    /** Adds an update whose row is {@code a}'s datums followed by {@code b}'s. */
    void add(Row a, Row b, long time, long diff) {
        int n = a.byteSize() + b.byteSize();
        reserve(n);
        a.copyTo(bytes, length);
        b.copyTo(bytes, length + a.byteSize());
        push(n, time, diff);
    }

    /** Adds an update whose row is the encoding at {@code src[from, to)}. */
    void add(byte[] src, int from, int to, long time, long diff) {
        int n = to - from;
        reserve(n);
        System.arraycopy(src, from, bytes, length, n);
        push(n, time, diff);
    }

    /**
     * Adds every update to {@code builder}, keyed by the datums at {@code key}, and tells {@code progress}
     * of every 32,768 updates added. An empty builder borrows this buffer's rows rather than copying
     * them, so the buffer must not change until the builder has built.
     */
    void arrangeInto(dev.tandem.trace.BatchBuilder builder, int[] key, java.util.function.LongConsumer progress) {
        builder.addAllKeyedBy(key, bytes, ends, times, diffs, size, progress);
    }

    /** Whether any update's row has a NULL at one of {@code columns}. */
    boolean anyNullAt(int[] columns) {
        for (int i = 0; i < size; i++) {
            if (Row.anyNull(bytes, start(i), ends[i], columns)) {
                return true;
            }
        }
        return false;
    }

    /** Adds update {@code i} of {@code from}, its diff multiplied by {@code weight}. */
    void add(Updates from, int i, long weight) {
        int start = from.start(i);
        int n = from.ends[i] - start;
        reserve(n);
        System.arraycopy(from.bytes, start, bytes, length, n);
        push(n, from.times[i], from.diffs[i] * weight);
    }

    private void push(int n, long time, long diff) {
        if ((size & 0xfff) == 0xfff) {
            if (budget != null) {
                budget.check();
            }
            if (watcher != null) {
                watcher.run();
            }
        }
        length += n;
        ends[size] = length;
        times[size] = time;
        diffs[size] = diff;
        size++;
    }

    /** Makes room for one more update of {@code n} bytes. */
    private void reserve(int n) {
        reserve(1, n);
    }

    /**
     * Makes room for {@code rows} more updates of {@code rowBytes} bytes in all: exactly, for a batch
     * of known size (a table's snapshot), or by doubling, for one update at a time.
     */
    void reserve(int rows, long rowBytes) {
        long needBytes = length + rowBytes;
        if (needBytes > bytes.length) {
            if (needBytes > MAX_ARRAY) {
                throw tooLarge("2 GB of rows");
            }
            long want = rows == 1 ? Math.min(Math.max(2L * bytes.length, needBytes), MAX_ARRAY) : needBytes;
            charge(want - bytes.length);
            bytes = Arrays.copyOf(bytes, (int) want);
        }
        long needRows = (long) size + rows;
        if (needRows > ends.length) {
            if (needRows > MAX_ARRAY) {
                throw tooLarge("2^31 updates");
            }
            long cap = rows == 1 ? Math.min(Math.max(2L * ends.length, needRows), MAX_ARRAY) : needRows;
            charge(20L * (cap - ends.length));
            ends = Arrays.copyOf(ends, (int) cap);
            times = Arrays.copyOf(times, (int) cap);
            diffs = Arrays.copyOf(diffs, (int) cap);
        }
    }

    /** The largest array a buffer grows to. */
    private static final long MAX_ARRAY = Integer.MAX_VALUE - 8;

    /**
     * A step whose updates in flight outgrow one buffer: the dataflow fails (its read answers the
     * error), the process goes on, as for a dataflow over its memory budget.
     */
    private static MemoryBudget.DataflowAbort tooLarge(String what) {
        return new MemoryBudget.DataflowAbort("a dataflow step produced more than " + what
                + " of updates in one buffer: narrow the query (a join of many inputs without conditions between them multiplies their rows)");
    }

    private void charge(long bytes) {
        if (budget != null) {
            charged += bytes;
            budget.charge(bytes);
        }
    }

    void addAll(Updates other) {
        if (other.size == 0) {
            return;
        }
        if ((long) length + other.length > bytes.length) {
            if ((long) length + other.length > MAX_ARRAY) {
                throw tooLarge("2 GB of rows");
            }
            long want = Math.min(Math.max(2L * bytes.length, (long) length + other.length), MAX_ARRAY);
            charge(want - bytes.length);
            bytes = Arrays.copyOf(bytes, (int) want);
        }
        if ((long) size + other.size > ends.length) {
            if ((long) size + other.size > MAX_ARRAY) {
                throw tooLarge("2^31 updates");
            }
            int cap = (int) Math.min(Math.max(2L * ends.length, (long) size + other.size), MAX_ARRAY);
            charge(20L * (cap - ends.length));
            ends = Arrays.copyOf(ends, cap);
            times = Arrays.copyOf(times, cap);
            diffs = Arrays.copyOf(diffs, cap);
        }
        System.arraycopy(other.bytes, 0, bytes, length, other.length);
        for (int i = 0; i < other.size; i++) {
            ends[size + i] = other.ends[i] + length;
        }
        System.arraycopy(other.times, 0, times, size, other.size);
        System.arraycopy(other.diffs, 0, diffs, size, other.size);
        size += other.size;
        length += other.length;
    }

    /**
     * Appends every update of {@code other} and empties it. When this buffer is empty it takes
     * {@code other}'s arrays instead of copying them (views of their rows stay valid: bytes are never
     * overwritten), so a large snapshot passes from operator to operator without a copy.
     */
    void moveFrom(Updates other) {
        if (size != 0 || other.size == 0) {
            addAll(other);
            other.clear();
            return;
        }
        if (other.budget != null) {
            other.budget.release(other.charged);
        }
        long taken = other.byteSize();
        byte[] b = bytes;
        int[] e = ends;
        long[] t = times;
        long[] d = diffs;
        bytes = other.bytes;
        ends = other.ends;
        times = other.times;
        diffs = other.diffs;
        size = other.size;
        length = other.length;
        other.bytes = b;
        other.ends = e;
        other.times = t;
        other.diffs = d;
        other.size = 0;
        other.length = 0;
        other.charged = 0;
        charge(taken - byteSize(b, e));
    }

    private static long byteSize(byte[] bytes, int[] ends) {
        return bytes.length + 20L * ends.length;
    }

    boolean isEmpty() {
        return size == 0;
    }

    /** Heap bytes held by this buffer's arrays. */
    long byteSize() {
        return byteSize(bytes, ends);
    }

    /** Empties the buffer: views of its rows stay valid; capacity beyond a small bound is released. */
    void clear() {
        if (length > 0) {
            bytes = new byte[Math.min(Math.max(length, 256), RETAINED)];
        }
        if (ends.length > RETAINED) {
            ends = new int[RETAINED];
            times = new long[RETAINED];
            diffs = new long[RETAINED];
        }
        size = 0;
        length = 0;
        if (budget != null && charged > 0) {
            budget.release(charged);
            charged = 0;
        }
    }
}
