package dev.tandem.render;

import dev.tandem.time.Frontier;
import dev.tandem.trace.BatchBuilder;
import dev.tandem.trace.Spine;

/** An exported index: its input exchanged by the key columns and arranged in one spine per shard. */
final class ExportOperator extends Operator {

    final String exportId;
    final int[] key;
    final Spine[] spines;

    ExportOperator(String exportId, Operator input, int[] key, int shards, long asOf) {
        super("export " + exportId, input);
        this.exportId = exportId;
        this.key = key;
        this.spines = new Spine[shards];
        for (int w = 0; w < shards; w++) {
            spines[w] = new Spine(exportId + " oks shard " + w, Frontier.at(asOf));
        }
    }

    @Override
    Partitioner partitioner(int port) {
        return Partitioners.byColumns(key);
    }

    @Override
    Shard shard(int w) {
        BatchBuilder builder = new BatchBuilder();
        Spine spine = spines[w];
        return (in, round, out, errs) -> {
            Updates u = in[0];
            // Arranging a large snapshot is one long step: report progress as it goes.
            builder.onProgress(round.processed()::add);
            u.arrangeInto(builder, key, round.processed()::add);
            spine.insert(builder.build(Frontier.at(round.lower()), Frontier.at(round.upper()), spine.since()));
        };
    }
}
