package dev.tandem.controller;

import dev.tandem.expr.Mfp;
import dev.tandem.plan.Plan;
import dev.tandem.protocol.Finishing;
import dev.tandem.row.Row;
import java.util.List;

/**
 * A read in typed form: the API decodes a peek body into one against the target's schema (reporting
 * precise errors), SQL builds one from its plan. Exactly one of {@code from} and {@code plan}.
 *
 * @param from a table, view or index name
 * @param plan a plan over tables and views by name
 * @param keys literal key rows for an index lookup, in the index's key column order (null: no lookup)
 * @param mfp the filter and projection over the target's columns (null: everything)
 * @param finishing the order, limit and offset over the output columns (null: none)
 * @param isolation serializable or strict (null: serializable)
 * @param asOf an explicit read time (e.g. a write's timestamp, for read-your-writes)
 * @param timeoutMs how long to wait for the read to be answerable
 * @param path the access path chosen for it when it was planned ({@link Controller#accessPath}), which the read
 *     takes while its index runs, else chooses again (null: chosen when the read runs)
 */
public record ReadRequest(String from, Plan plan, List<Row> keys, Mfp mfp, Finishing finishing, Isolation isolation, Long asOf,
        Long timeoutMs, AccessPath path) {

    /** How fresh a read must be. */
    public enum Isolation {
        /** The freshest time at which every input is sealed. */
        SERIALIZABLE,
        /** At or after every write acknowledged before the read. */
        STRICT
    }

    public ReadRequest {
        mfp = mfp != null ? mfp : Mfp.identity();
        finishing = finishing != null ? finishing : Finishing.NONE;
        isolation = isolation != null ? isolation : Isolation.SERIALIZABLE;
    }

    /** A read whose access path is chosen when it runs. */
    public ReadRequest(String from, Plan plan, List<Row> keys, Mfp mfp, Finishing finishing, Isolation isolation, Long asOf, Long timeoutMs) {
        this(from, plan, keys, mfp, finishing, isolation, asOf, timeoutMs, null);
    }

    /** This read, taking {@code chosen}. */
    public ReadRequest withPath(AccessPath chosen) {
        return new ReadRequest(from, plan, keys, mfp, finishing, isolation, asOf, timeoutMs, chosen);
    }

    /** A plain read of everything in {@code from}. */
    public static ReadRequest of(String from) {
        return new ReadRequest(from, null, null, null, null, null, null, null);
    }

    boolean strict() {
        return isolation == Isolation.STRICT;
    }
}
