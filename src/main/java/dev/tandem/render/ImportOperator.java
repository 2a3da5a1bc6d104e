package dev.tandem.render;

import dev.tandem.row.Row;
import dev.tandem.sharing.SharedArrangement;
import dev.tandem.time.Frontier;
import dev.tandem.trace.Batch;
import dev.tandem.trace.Cursor;
import dev.tandem.trace.TraceSnapshot;
import java.util.List;
import java.util.function.Supplier;

/**
 * An imported index read as a collection: in the first round, the shared traces accumulated at
 * {@code as_of} and their updates in {@code (as_of, upper)}; in later rounds, their updates in
 * {@code [lower, upper)}. Shard {@code w} reads the
 * publisher's shards {@code s} with {@code s mod W == w}. Imported errors join the dataflow's errors.
 * The dataflow holds the shared traces one tick behind each round's lower frontier, so times there
 * are exact and old updates are never mistaken for new ones.
 */
final class ImportOperator extends Operator {

    private final Supplier<SharedArrangement.Snapshot> snapshot;
    private final long asOf;
    private final int workers;

    ImportOperator(String indexId, Supplier<SharedArrangement.Snapshot> snapshot, long asOf, int workers) {
        super("import " + indexId);
        this.snapshot = snapshot;
        this.asOf = asOf;
        this.workers = workers;
    }

    @Override
    Shard shard(int w) {
        return (in, round, out, errs) -> {
            SharedArrangement.Snapshot snap = snapshot.get();
            read(snap.oks(), w, workers, asOf, round, out, false);
            read(snap.errs(), w, workers, asOf, round, errs, true);
        };
    }

    /**
     * Reads shard {@code w}'s part of {@code shards} for the round into {@code out}: the rows (vals), or
     * with {@code keys} the keys (error messages of an errs trace).
     */
    static void read(List<TraceSnapshot> shards, int w, int workers, long asOf, Round round, Updates out, boolean keys) {
        // The first round starts with the accumulation at as_of; later updates come from the batches.
        long from = round.first() ? asOf + 1 : round.lower();
        Frontier lower = Frontier.at(from);
        for (int s = w; s < shards.size(); s += workers) {
            TraceSnapshot shard = shards.get(s);
            if (round.first()) {
                shard.scan(asOf, (k, v, d) -> out.add(keys ? k : v, asOf, d));
            }
            for (Batch b : shard.batches()) {
                if (b.upper().compareTo(lower) <= 0) {
                    continue;
                }
                Cursor c = b.cursor();
                while (c.keyValid()) {
                    Row k = c.key();
                    c.forEachUpdate((v, t, d) -> {
                        if (t >= from && t < round.upper()) {
                            out.add(keys ? k : v, t, d);
                        }
                    });
                    c.stepKey();
                }
            }
        }
    }
}
