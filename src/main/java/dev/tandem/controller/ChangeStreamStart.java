package dev.tandem.controller;

import dev.tandem.expr.Mfp;
import dev.tandem.row.Row;
import dev.tandem.row.Schema;
import java.util.List;

/**
 * Where a change stream starts, as the controller resolved it: the index it follows, the literal keys
 * it watches (null: every key), the filter and projection, the output columns, and its start time
 * {@code asOf}, which the controller holds on the index until {@link #release()} is called (the
 * stream takes its own hold on the arrangement first).
 */
public record ChangeStreamStart(String indexId, String indexName, Schema schema, List<String> keyColumns, List<Row> keys, Mfp mfp,
        List<String> columns, long asOf, Runnable releaseHold) {

    /** Releases the controller's hold on the start time; further calls do nothing harmful. */
    public void release() {
        releaseHold.run();
    }
}
