package dev.tandem.render;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The memory one dataflow may hold, and its stop signal. Resident bytes (its arrangements) are
 * measured after every step; buffer bytes (updates in flight between operators) are charged as
 * buffers grow. A charge that takes the total over the limit, or any charge or check after the
 * dataflow was stopped, throws {@link DataflowAbort}, which ends the step and fails the dataflow
 * without touching the rest of the process.
 */
public final class MemoryBudget {

    /** No limit; never stopped by memory. */
    public static final long UNLIMITED = Long.MAX_VALUE;

    private final String dataflow;
    private final long limit;
    private final AtomicLong buffers = new AtomicLong();
    private volatile long resident;
    private volatile String stopped;

    public MemoryBudget(String dataflow, long limit) {
        this.dataflow = dataflow;
        this.limit = limit;
    }

    public long limit() {
        return limit;
    }

    /** Bytes held now: arrangements as last measured plus buffers. */
    public long used() {
        return resident + buffers.get();
    }

    /** Charges {@code bytes} of buffer growth; throws when over the limit or stopped. */
    void charge(long bytes) {
        long total = buffers.addAndGet(bytes) + resident;
        if (total > limit) {
            throw over(total);
        }
        check();
    }

    /** Returns {@code bytes} of buffers. */
    void release(long bytes) {
        buffers.addAndGet(-bytes);
    }

    /** Records the arrangements' size; throws when that takes the total over the limit. */
    void resident(long bytes) {
        resident = bytes;
        long total = bytes + buffers.get();
        if (total > limit) {
            throw over(total);
        }
    }

    /** Throws if the dataflow was stopped. */
    void check() {
        String why = stopped;
        if (why != null) {
            throw new DataflowAbort(why);
        }
    }

    /** Stops the dataflow: its running step ends at the next check. */
    public void stop(String why) {
        if (stopped == null) {
            stopped = why;
        }
    }

    public boolean isStopped() {
        return stopped != null;
    }

    private DataflowAbort over(long total) {
        String why = "dataflow " + dataflow + " exceeded its memory budget of " + mb(limit) + " (it held " + mb(total)
                + "; tandem.compute.dataflow-memory-budget sets the budget): narrow the query or raise the budget";
        stop(why);
        return new DataflowAbort(why);
    }

    private static String mb(long bytes) {
        return String.format("%.1f MB", bytes / 1048576.0);
    }

    /** Ends a dataflow's step: it went over its budget or was stopped. */
    static final class DataflowAbort extends RuntimeException {
        DataflowAbort(String message) {
            super(message, null, false, false);
        }
    }
}
