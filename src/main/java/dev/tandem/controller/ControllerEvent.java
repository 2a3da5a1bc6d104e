package dev.tandem.controller;

import dev.tandem.time.Frontier;

/** A change worth streaming to clients: an index's frontier advanced, or it hydrated or failed. */
public record ControllerEvent(String kind, String index, String id, Frontier writeFrontier, boolean hydrated, String detail) {
}
