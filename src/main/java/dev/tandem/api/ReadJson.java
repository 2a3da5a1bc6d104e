package dev.tandem.api;

import tools.jackson.databind.JsonNode;

/**
 * A read as a peek body (or a WebSocket message) states it, its parts still JSON; {@link RequestDecoder}
 * turns it into the controller's typed {@link dev.tandem.controller.ReadRequest} against the target's
 * schema. Access checks ({@link ObjectGrants}) look at it before anything is decoded.
 *
 * @param from a table, view or index name
 * @param plan a plan over tables and views by name
 * @param key literal key rows for an index lookup: {@code [[v, ...], ...]}
 * @param filter predicates over the target's columns: {@code [expr, ...]}
 * @param project output columns, by index or name
 * @param orderBy {@code [{"col": name|index, "desc": bool, "nulls_last": bool}]}, over output columns
 * @param isolation {@code serializable} (default) or {@code strict}
 * @param asOf an explicit read time (e.g. a write's timestamp, for read-your-writes)
 * @param timeoutMs how long to wait for the read to be answerable
 */
public record ReadJson(String from, JsonNode plan, JsonNode key, JsonNode filter, JsonNode project, JsonNode orderBy,
        Long limit, Long offset, String isolation, Long asOf, Long timeoutMs) {

    /** A plain read of everything in {@code from}. */
    public static ReadJson of(String from) {
        return new ReadJson(from, null, null, null, null, null, null, null, null, null, null);
    }
}
