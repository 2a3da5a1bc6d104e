package dev.tandem.controller;

import dev.tandem.time.Frontier;
import reactor.core.publisher.Sinks;

/**
 * What the controller knows of one running index, introspection collection or change-stream dataflow:
 * where its dataflow started ({@code asOf}), how far compute has reported it complete ({@code upper}),
 * whether it has hydrated, and its compaction frontier with the read holds that keep it back. Written by
 * the compute response thread ({@link IndexTracker#advance}); read by any thread.
 */
final class IndexState {

    /** An introspection collection's state starts with no as_of of its own. */
    private static final long SYSTEM_AS_OF = 0;

    final CatalogEntry.Index index;
    final long asOf;
    /**
     * An introspection collection: its logging dataflow starts at a time of its own, which compute's
     * first report tells. Marked rather than told by its {@code asOf}: an index created before the
     * storage's first tick starts at time 0 too, and its compaction frontier must stay there.
     */
    final boolean introspection;
    /** The index's compaction frontier and the read holds that keep it back. */
    final HeldFrontier reads;
    volatile Frontier upper;
    volatile boolean hydrated;
    /** Completes at compute's first frontier report for this index. */
    final Sinks.Empty<Void> firstFrontier = Sinks.empty();
    volatile boolean reported;

    /** An index or change-stream dataflow that starts at {@code asOf}. */
    IndexState(CatalogEntry.Index index, long asOf) {
        this(index, asOf, false);
    }

    private IndexState(CatalogEntry.Index index, long asOf, boolean introspection) {
        this.index = index;
        this.asOf = asOf;
        this.introspection = introspection;
        this.upper = Frontier.at(asOf);
        this.reads = new HeldFrontier(Frontier.at(asOf));
    }

    /** An introspection collection, not yet reported. */
    static IndexState introspection(CatalogEntry.Index index) {
        return new IndexState(index, SYSTEM_AS_OF, true);
    }

    /** An introspection collection not yet reported: its read time is not known yet. */
    boolean awaitingFirstFrontier() {
        return introspection && !reported;
    }
}
