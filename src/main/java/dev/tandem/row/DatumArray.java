package dev.tandem.row;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * A one-dimensional array of datums of one scalar type, as PostgreSQL's arrays (lower bound 1); elements
 * may be NULL. Equal when the types and elements are equal, NULL elements equal to each other, as
 * PostgreSQL's array equality has them.
 */
public record DatumArray(DatumType elementType, List<Object> elements) {

    public DatumArray {
        Objects.requireNonNull(elementType, "elementType");
        if (DatumType.arrayOf(elementType) == null) {
            throw new IllegalArgumentException("no array of " + elementType.jsonName());
        }
        List<Object> copy = new ArrayList<>(elements.size());
        for (Object e : elements) {
            if (e != null && !elementType.accepts(e)) {
                throw new IllegalArgumentException("element " + e + " is not a " + elementType.jsonName());
            }
            copy.add(e);
        }
        elements = Collections.unmodifiableList(copy);
    }

    /** The array's type. */
    public DatumType type() {
        return DatumType.arrayOf(elementType);
    }

    /** The number of elements. */
    public int size() {
        return elements.size();
    }

    /** The element at 0-based {@code i}. */
    public Object get(int i) {
        return elements.get(i);
    }

    @Override
    public String toString() {
        return elements.toString();
    }
}
