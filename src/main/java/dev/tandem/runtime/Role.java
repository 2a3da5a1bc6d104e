package dev.tandem.runtime;

/** What a compute runtime does: everything ({@code SOLO}), maintain indexes, or answer reads. */
public enum Role {
    SOLO,
    MAINTENANCE,
    INTERACTIVE;

    private final String tag = name().toLowerCase(java.util.Locale.ROOT);

    /** The value of the {@code role} tag on metrics. */
    public String tag() {
        return tag;
    }
}
