package dev.tandem;

import tools.jackson.databind.JsonNode;

/**
 * Matching of expected JSON against actual JSON in tests that compare answers with data files: objects
 * by subset, arrays element by element; the string {@code "<int>"} matches any integer and a string
 * {@code "~text"} any string containing {@code text}.
 */
public final class JsonSubset {

    private JsonSubset() {
    }

    public static boolean contains(JsonNode actual, JsonNode expected) {
        if (actual == null) {
            return false;
        }
        if (expected.isString() && expected.stringValue().equals("<int>")) {
            return actual.isIntegralNumber();
        }
        if (expected.isString() && expected.stringValue().startsWith("~")) {
            return actual.isString() && actual.stringValue().contains(expected.stringValue().substring(1));
        }
        if (expected.isObject()) {
            if (!actual.isObject()) {
                return false;
            }
            for (var e : expected.properties()) {
                if (!contains(actual.get(e.getKey()), e.getValue())) {
                    return false;
                }
            }
            return true;
        }
        if (expected.isArray()) {
            if (!actual.isArray() || actual.size() != expected.size()) {
                return false;
            }
            for (int i = 0; i < expected.size(); i++) {
                if (!contains(actual.get(i), expected.get(i))) {
                    return false;
                }
            }
            return true;
        }
        return expected.equals(actual);
    }
}
