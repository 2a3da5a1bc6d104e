package dev.tandem.protocol;

import dev.tandem.plan.Plan;
import java.util.List;

/** How a peek's rows are finished: ordered by {@code orderBy} (then by row), then offset, then limit. */
public record Finishing(List<Plan.Ordering> orderBy, Long limit, long offset) {

    public static final Finishing NONE = new Finishing(List.of(), null, 0);

    public Finishing {
        orderBy = List.copyOf(orderBy);
        if (limit != null && limit < 0 || offset < 0) {
            throw new IllegalArgumentException("limit and offset must not be negative");
        }
    }

    public boolean isTrivial() {
        return orderBy.isEmpty() && limit == null && offset == 0;
    }
}
