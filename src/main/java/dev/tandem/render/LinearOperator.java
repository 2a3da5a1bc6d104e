package dev.tandem.render;

/** Operators that act on each update alone: {@code negate}, {@code union} and {@code arrange_by}. */
final class LinearOperator extends Operator {

    enum Kind { NEGATE, UNION, ARRANGE }

    final Kind kind;
    private final int[] key;

    LinearOperator(Kind kind, int[] key, Operator... inputs) {
        super(kind.name().toLowerCase(), inputs);
        this.kind = kind;
        this.key = key;
    }

    @Override
    Partitioner partitioner(int port) {
        return kind == Kind.ARRANGE ? Partitioners.byColumns(key) : null;
    }

    @Override
    Shard shard(int w) {
        return (in, round, out, errs) -> {
            for (Updates u : in) {
                for (int i = 0; i < u.size; i++) {
                    out.add(u, i, kind == Kind.NEGATE ? -1 : 1);
                }
            }
        };
    }
}
