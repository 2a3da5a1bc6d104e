package dev.tandem.controller;

import dev.tandem.time.Frontier;
import java.util.List;

/**
 * An index as the controller sees it: its state ({@code hydrating}, {@code hydrated} or {@code failed},
 * with the failure's {@code error}), where it is in time, how large it is, and {@code dataError}: the
 * first evaluation error in its data at the latest readable time (a division by zero in a row of a view),
 * which reads of the index answer until the row that caused it is gone (null: none).
 */
public record IndexStatus(String id, String name, String on, List<String> key, String state, String error, boolean hydrated, Frontier writeFrontier,
        Frontier since, long records, long asOf, long windowMillis, String dataError) {
}
