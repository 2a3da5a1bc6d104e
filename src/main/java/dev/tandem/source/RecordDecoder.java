package dev.tandem.source;

import dev.tandem.row.Column;
import dev.tandem.row.Row;
import dev.tandem.row.RowJson;
import dev.tandem.row.RowPacker;
import dev.tandem.row.Schema;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Reads one Kafka record (key and value bytes) as a change to a source's table, by the source's
 * envelope. A record that does not parse or does not fit the columns throws
 * {@link IllegalArgumentException} saying why; it then belongs in the source's error collection.
 *
 * <p>JSON objects name columns by field; a missing field is NULL, and fields that name no column are
 * ignored. Keyed envelopes reduce to upserts: a key and the row it now holds, or none.
 */
final class RecordDecoder {

    /** What a record does to the table. */
    sealed interface Change {
    }

    /** Insert {@code row} (append). */
    record Insert(Row row) implements Change {
    }

    /** The row with key {@code key} is now {@code row}; null: there is none. */
    record Upsert(Row key, Row row) implements Change {
    }

    /** Two upserts: a Debezium update that changed the key retracts the old key. */
    record Rekey(Upsert removeOld, Upsert setNew) implements Change {
    }

    /** Nothing to do (a Debezium tombstone, which follows every delete for Kafka's log compaction). */
    record Skip() implements Change {
    }

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final Envelope envelope;
    private final Schema schema;
    private final int[] keyColumns;

    RecordDecoder(SourceDefinition def) {
        this.envelope = def.envelope();
        this.schema = def.schema();
        this.keyColumns = def.keyColumns();
    }

    Change decode(byte[] key, byte[] value) {
        return switch (envelope) {
            case APPEND -> {
                if (value == null) {
                    throw new IllegalArgumentException("the record has no value (an append source inserts every record's value)");
                }
                yield new Insert(row(object(parse(value, "value"), "value")));
            }
            case UPSERT -> upsert(key, value);
            case DEBEZIUM -> debezium(value);
        };
    }

    private Change upsert(byte[] keyBytes, byte[] value) {
        if (keyBytes == null) {
            throw new IllegalArgumentException("the record has no key (an upsert source finds the row by the record's key)");
        }
        JsonNode keyJson = parse(keyBytes, "key");
        Row key;
        if (keyJson.isObject()) {
            key = keyOf(keyJson, "key");
        } else if (keyColumns.length == 1 && keyJson.isValueNode() && !keyJson.isNull()) {
            Column c = schema.column(keyColumns[0]);
            key = new RowPacker().push(c.type(), datum(keyJson, c, "key")).finish();
        } else {
            throw new IllegalArgumentException("key: expected a JSON object with the key columns" + (keyColumns.length == 1 ? " or the key's value" : ""));
        }
        if (value == null) {
            return new Upsert(key, null);
        }
        JsonNode v = object(parse(value, "value"), "value");
        Row row = row(v);
        if (!row.project(keyColumns).equals(key)) {
            throw new IllegalArgumentException("the value's key columns " + row.project(keyColumns) + " differ from the record's key " + key);
        }
        return new Upsert(key, row);
    }

    private Change debezium(byte[] value) {
        if (value == null) {
            return new Skip();
        }
        JsonNode event = object(parse(value, "value"), "value");
        if (event.has("payload") && !event.has("op")) {
            event = object(event.get("payload"), "payload");
        }
        JsonNode op = event.get("op");
        if (op == null || !op.isString()) {
            throw new IllegalArgumentException("a Debezium event needs \"op\" (c, r, u or d)");
        }
        JsonNode before = event.get("before");
        JsonNode after = event.get("after");
        return switch (op.stringValue()) {
            case "c", "r" -> {
                Row row = row(object(after, "after"));
                yield new Upsert(row.project(keyColumns), row);
            }
            case "u" -> {
                Row row = row(object(after, "after"));
                Row key = row.project(keyColumns);
                if (before != null && !before.isNull()) {
                    Row oldKey = keyOf(object(before, "before"), "before");
                    if (!oldKey.equals(key)) {
                        yield new Rekey(new Upsert(oldKey, null), new Upsert(key, row));
                    }
                }
                yield new Upsert(key, row);
            }
            case "d" -> new Upsert(keyOf(object(before, "before"), "before"), null);
            default -> throw new IllegalArgumentException("Debezium op '" + op.stringValue() + "' is not supported; use c, r, u or d");
        };
    }

    private static JsonNode parse(byte[] bytes, String what) {
        try {
            return JSON.readTree(bytes);
        } catch (JacksonException e) {
            throw new IllegalArgumentException(what + ": not JSON (" + e.getOriginalMessage() + ")");
        }
    }

    private static JsonNode object(JsonNode n, String what) {
        if (n == null || !n.isObject()) {
            throw new IllegalArgumentException(what + ": expected a JSON object, got " + (n == null ? "nothing" : n.getNodeType().name().toLowerCase()));
        }
        return n;
    }

    /** The row an object describes, with every column type-checked. */
    private Row row(JsonNode obj) {
        RowPacker p = new RowPacker();
        for (Column c : schema.columns()) {
            Object v = datum(obj.get(c.name()), c, "column");
            if (v == null && !c.nullable()) {
                throw new IllegalArgumentException("column '" + c.name() + "' is not nullable but is " + (obj.has(c.name()) ? "null" : "missing"));
            }
            p.push(c.type(), v);
        }
        return p.finish();
    }

    /** The key columns of an object (which may hold only those); none may be NULL. */
    private Row keyOf(JsonNode obj, String what) {
        RowPacker p = new RowPacker();
        for (int k : keyColumns) {
            Column c = schema.column(k);
            Object v = datum(obj.get(c.name()), c, what);
            if (v == null) {
                throw new IllegalArgumentException(what + ": key column '" + c.name() + "' is missing or null");
            }
            p.push(c.type(), v);
        }
        return p.finish();
    }

    private static Object datum(JsonNode n, Column c, String what) {
        try {
            return RowJson.datum(n, c.type());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(what + " '" + c.name() + "': " + e.getMessage());
        }
    }
}
