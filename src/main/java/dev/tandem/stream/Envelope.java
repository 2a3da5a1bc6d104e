package dev.tandem.stream;

/** How a change stream presents changes: {@code DIFFS} as (row, diff), {@code UPSERT} as (key, new value or delete). */
public enum Envelope {
    DIFFS, UPSERT;

    /** Parses {@code diffs} or {@code upsert}; null means {@code diffs}. */
    public static Envelope parse(String s) {
        if (s == null || s.equals("diffs")) {
            return DIFFS;
        }
        if (s.equals("upsert")) {
            return UPSERT;
        }
        throw new IllegalArgumentException("envelope: expected 'diffs' or 'upsert', got '" + s + "'");
    }
}
