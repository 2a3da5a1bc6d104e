package dev.tandem.sharing;

/** A reader waited for a shared collection that was dropped. */
public final class SharedCollectionDroppedException extends RuntimeException {
    public SharedCollectionDroppedException(String id) {
        super("collection " + id + " was dropped while a reader waited for it", null, false, false);
    }
}
