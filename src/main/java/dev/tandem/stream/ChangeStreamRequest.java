package dev.tandem.stream;

import dev.tandem.controller.ChangeStreamStart;

/**
 * A change stream to open: where it starts (resolved and held by the controller), whether it begins
 * with the snapshot at the start time, its envelope, and who asked (for introspection).
 */
public record ChangeStreamRequest(ChangeStreamStart start, boolean snapshot, Envelope envelope, String subscriber) {
}
