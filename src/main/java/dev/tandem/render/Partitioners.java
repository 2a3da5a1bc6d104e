package dev.tandem.render;

import dev.tandem.row.Row;
import dev.tandem.sharing.SharedArrangement;

/** Exchange functions: route a row to a shard by the hash of some of its columns. */
final class Partitioners {

    private Partitioners() {
    }

    static Operator.Partitioner byColumns(int[] columns) {
        return (row, shards) -> shards == 1 ? 0 : SharedArrangement.shardOf(row.project(columns), shards);
    }

    static Operator.Partitioner wholeRow() {
        return (row, shards) -> shards == 1 ? 0 : SharedArrangement.shardOf(row, shards);
    }

    /** The key of {@code row} for {@code columns}; the row itself when the columns are all of it in order. */
    static Row key(Row row, int[] columns) {
        return row.project(columns);
    }
}
