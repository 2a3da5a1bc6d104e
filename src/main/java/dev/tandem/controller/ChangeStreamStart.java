package dev.tandem.controller;

import dev.tandem.expr.Mfp;
import dev.tandem.row.Row;
import dev.tandem.row.Schema;
import java.util.List;
import java.util.function.Supplier;

/**
 * Where a change stream starts, as the controller resolved it: the arrangement it follows (an index, or
 * the transient dataflow the stream owns when the collection or query has no index), the literal keys it
 * watches (null: every key), the filter and projection, the output columns, and its start time
 * {@code asOf}, which the controller holds until {@link #release()} is called (the stream takes its own
 * hold on the arrangement first). {@link #ended()} is called once when the stream ends: it drops a
 * transient dataflow. {@code droppedReason} says why the arrangement went away when it does.
 */
public record ChangeStreamStart(String indexId, String indexName, Schema schema, List<String> keyColumns, List<Row> keys, Mfp mfp,
        List<String> columns, long asOf, Runnable releaseHold, Runnable onEnd, Supplier<String> droppedReason) {

    /** A stream of a maintained index: nothing to drop at its end. */
    public ChangeStreamStart(String indexId, String indexName, Schema schema, List<String> keyColumns, List<Row> keys, Mfp mfp,
            List<String> columns, long asOf, Runnable releaseHold) {
        this(indexId, indexName, schema, keyColumns, keys, mfp, columns, asOf, releaseHold, () -> { },
                () -> "index '" + indexName + "' was dropped; its change stream ends here");
    }

    /** Releases the controller's hold on the start time; further calls do nothing harmful. */
    public void release() {
        releaseHold.run();
    }

    /** The stream has ended (or was refused): a transient dataflow it owned is dropped. Idempotent. */
    public void ended() {
        onEnd.run();
    }

    /** Whether the stream follows a transient dataflow of its own rather than a maintained index. */
    public boolean transientDataflow() {
        return keyColumns.isEmpty();
    }
}
