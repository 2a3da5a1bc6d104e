package dev.tandem.runtime;

/**
 * The path a read takes: a peek of an index, or of a dataflow built for that read alone. Its {@link #tag}
 * is how metrics (the {@code path} tag) and the API (a read's {@code path} field) name it.
 */
public enum ReadPath {
    /** A peek of an index, maintained by this runtime or published by the maintenance runtime. */
    FAST,
    /** A peek of a bounded dataflow (one with an {@code until}) built for that read alone. */
    SLOW,
    /**
     * A slow read answered before its dataflow's output was complete (a limit with no order); only the
     * controller tells it from {@link #SLOW}, by the answer's upper.
     */
    SLOW_EARLY;

    private final String tag = name().toLowerCase(java.util.Locale.ROOT);

    /** The name metrics and the API give this path: {@code fast}, {@code slow} or {@code slow_early}. */
    public String tag() {
        return tag;
    }
}
