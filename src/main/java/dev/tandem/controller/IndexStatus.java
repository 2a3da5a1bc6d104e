package dev.tandem.controller;

import dev.tandem.time.Frontier;
import java.util.List;

/**
 * An index as the controller sees it: its state ({@code hydrating}, {@code hydrated} or {@code failed},
 * with the failure's {@code error}), where it is in time, and how large it is.
 */
public record IndexStatus(String id, String name, String on, List<String> key, String state, String error, boolean hydrated, Frontier writeFrontier,
        Frontier since, long records, long asOf, long windowMillis) {
}
