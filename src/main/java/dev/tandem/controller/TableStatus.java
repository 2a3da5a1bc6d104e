package dev.tandem.controller;

import dev.tandem.time.Frontier;

/**
 * A table as storage holds it now: its catalog entry, where it is in time (every write below
 * {@code writeFrontier} is applied; reads at or beyond {@code since} are exact) and how many updates
 * it holds.
 */
public record TableStatus(CatalogEntry.Table table, Frontier writeFrontier, Frontier since, long records) {
}
