package dev.tandem.row;

import java.util.Objects;

/** A named, typed column of a schema. */
public record Column(String name, DatumType type, boolean nullable) {
    public Column {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
    }
}
