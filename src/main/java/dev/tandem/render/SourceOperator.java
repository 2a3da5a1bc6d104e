package dev.tandem.render;

/**
 * The entry of an external collection (a table, or an imported index read as a collection): the
 * driver hands each shard the updates of the round before it runs.
 */
final class SourceOperator extends Operator {

    final String collection;
    final Updates[] pending;

    SourceOperator(String collection, int shards) {
        super("source " + collection);
        this.collection = collection;
        this.pending = new Updates[shards];
        for (int w = 0; w < shards; w++) {
            pending[w] = new Updates();
        }
    }

    @Override
    Shard shard(int w) {
        return (in, round, out, errs) -> {
            out.moveFrom(pending[w]);
        };
    }
}
