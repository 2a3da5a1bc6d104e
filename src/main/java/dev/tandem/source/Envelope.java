package dev.tandem.source;

import java.util.Arrays;
import java.util.Locale;

/** How a source reads its topic's records into rows. */
public enum Envelope {
    /** Every record's value is a row that is inserted. */
    APPEND,
    /** The record's key names a row by its key columns; its value is that row's latest value, a null value deletes it. */
    UPSERT,
    /** Debezium's change events ({@code before}, {@code after}, {@code op}), optionally inside {@code payload}. */
    DEBEZIUM;

    public String jsonName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The envelope spelled {@code name}; throws {@link IllegalArgumentException} naming the valid ones. */
    public static Envelope fromJson(String name) {
        for (Envelope e : values()) {
            if (e.jsonName().equals(name)) {
                return e;
            }
        }
        throw new IllegalArgumentException("unknown envelope '" + name + "'; use one of "
                + Arrays.stream(values()).map(Envelope::jsonName).toList());
    }

    /** Whether the table holds one row per key, which the source keeps up to date. */
    boolean keyed() {
        return this != APPEND;
    }
}
