package dev.tandem.storage;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Catalog changes that travel with a write in the same log record, applied only if the catalog entry
 * {@code guardKey} holds {@code guardValue} (null: the entry is absent) when the write is admitted; a
 * write whose guard does not hold is refused whole. A source records its offsets this way, so rows and
 * offsets are durable together or not at all, and two writers racing from the same offsets cannot both
 * succeed.
 *
 * @param puts entries to store (or replace)
 * @param removes entries to remove (absent ones are ignored)
 */
public record CatalogSwap(String guardKey, String guardValue, Map<String, String> puts, List<String> removes) {
    public CatalogSwap {
        Objects.requireNonNull(guardKey, "guardKey");
        puts = Map.copyOf(puts);
        removes = List.copyOf(removes);
    }
}
