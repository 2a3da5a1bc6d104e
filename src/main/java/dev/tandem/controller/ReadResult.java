package dev.tandem.controller;

import dev.tandem.row.Row;
import dev.tandem.runtime.ReadPath;
import dev.tandem.time.Frontier;
import java.util.List;

/**
 * The answer to a read: column names and rows, the read time {@code asOf}, and what judges its
 * freshness — the target's {@code upper} and {@code since}, the lag of the read time behind the
 * wall clock, hydration — plus which path and runtime answered it, and the access path it took.
 */
public record ReadResult(List<String> columns, List<Row> rows, long asOf, Frontier upper, Frontier since, long lagMs,
        boolean hydrated, ReadPath readPath, String runtime, AccessPath access) {

    /** The name of the path that answered, as the API shows it: {@code fast}, {@code slow} or {@code slow_early}. */
    public String path() {
        return readPath.tag();
    }
}
