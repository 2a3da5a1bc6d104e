package dev.tandem.render;

import dev.tandem.row.Row;
import java.util.List;

/** A constant collection: its rows appear at {@code as_of}, on shard 0. */
final class ConstantOperator extends Operator {

    private final List<Row> rows;
    private final long asOf;

    ConstantOperator(List<Row> rows, long asOf) {
        super("constant");
        this.rows = rows;
        this.asOf = asOf;
    }

    @Override
    Shard shard(int w) {
        return (in, round, out, errs) -> {
            if (round.first() && w == 0) {
                for (Row r : rows) {
                    out.add(r, asOf, 1);
                }
            }
        };
    }
}
