package dev.tandem.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.json.StrictJson;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.row.Timestamp;
import dev.tandem.stream.ChangeMessage;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Change messages written straight into bytes read back, with Jackson's parser, as the JSON the API
 * documents. The expected JSON is built here from the datums by the documented mapping (int64 beyond
 * ±2^53 and float64 NaN/infinities as strings, timestamps as ISO-8601), not by the product's code.
 */
class ChangeJsonProperties {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final List<DatumType> TYPES = List.of(DatumType.BOOL, DatumType.INT64, DatumType.FLOAT64, DatumType.STRING,
            DatumType.TIMESTAMP);

    @Property(tries = 300)
    void updatesReadBackAsTheDocumentedJson(@ForAll long seed, @ForAll @IntRange(max = 12) int changes, @ForAll boolean upsert) {
        SplittableRandom random = new SplittableRandom(seed);
        List<DatumType> types = new ArrayList<>();
        for (int c = 1 + random.nextInt(4); c > 0; c--) {
            types.add(TYPES.get(random.nextInt(TYPES.size())));
        }
        long timestamp = random.nextLong(Long.MAX_VALUE);
        List<ChangeMessage.Change> list = new ArrayList<>();
        ObjectNode expected = NODES.objectNode();
        expected.put("op", "changes");
        expected.put("id", "s-1");
        expected.put("timestamp", timestamp);
        ArrayNode updates = expected.putArray("updates");
        for (int i = 0; i < changes; i++) {
            List<Object> values = values(types, random);
            ArrayNode pair = updates.addArray();
            pair.add(expectedRow(values));
            if (upsert) {
                boolean delete = random.nextInt(4) == 0;
                List<Object> newValues = values(types, random);
                list.add(new ChangeMessage.Upsert(Row.pack(types, values), delete ? null : Row.pack(types, newValues)));
                pair.add(delete ? NODES.nullNode() : expectedRow(newValues));
            } else {
                long diff = random.nextLong() >> random.nextInt(64);
                list.add(new ChangeMessage.Diff(Row.pack(types, values), diff));
                pair.add(diff);
            }
        }
        byte[] prefix = ChangeJson.prefix("\"op\":\"changes\",\"id\":\"s-1\"");
        byte[] bytes = ChangeJson.message(new ChangeMessage.Updates(timestamp, list), prefix, ChangeJson.prefix("\"op\":\"progress\""));
        assertThat(readBack(bytes)).isEqualTo(expected.toString());
    }

    @Test
    void progressAndEmptyPrefixes() {
        byte[] open = ChangeJson.prefix("");
        assertThat(new String(ChangeJson.message(new ChangeMessage.Progress(42), open, open), StandardCharsets.UTF_8))
                .isEqualTo("{\"progress\":42}");
        assertThat(new String(ChangeJson.message(new ChangeMessage.Updates(-7, List.of()), open, open), StandardCharsets.UTF_8))
                .isEqualTo("{\"timestamp\":-7,\"updates\":[]}");
        byte[] ws = ChangeJson.prefix("\"op\":\"progress\",\"id\":9");
        assertThat(readBack(ChangeJson.message(new ChangeMessage.Progress(Long.MIN_VALUE), open, ws)))
                .isEqualTo("{\"op\":\"progress\",\"id\":9,\"progress\":" + Long.MIN_VALUE + "}");
    }

    /** Parsed and written again by Jackson, so that number and escape spellings compare equal. */
    private static String readBack(byte[] bytes) {
        JsonNode parsed = StrictJson.MAPPER.readTree(bytes);
        return parsed.toString();
    }

    private static List<Object> values(List<DatumType> types, SplittableRandom random) {
        List<Object> out = new ArrayList<>();
        for (DatumType t : types) {
            out.add(random.nextInt(8) == 0 ? null : value(t, random));
        }
        return out;
    }

    private static Object value(DatumType type, SplittableRandom random) {
        return switch (type) {
            case BOOL -> random.nextBoolean();
            case INT64 -> switch (random.nextInt(4)) {
                case 0 -> random.nextLong();
                case 1 -> (1L << 53) + random.nextInt(3) - 1;
                case 2 -> -(1L << 53) + random.nextInt(3) - 1;
                default -> (long) random.nextInt(-1000, 1000);
            };
            case FLOAT64 -> switch (random.nextInt(6)) {
                case 0 -> Double.NaN;
                case 1 -> Double.POSITIVE_INFINITY;
                case 2 -> Double.NEGATIVE_INFINITY;
                case 3 -> random.nextDouble() * 1e300;
                case 4 -> -random.nextDouble() * 1e-300;
                default -> (double) random.nextInt(100);
            };
            case STRING -> string(random);
            case TIMESTAMP -> new Timestamp(random.nextLong(-62_135_596_800_000_000L, 253_402_300_799_999_999L));
            case NUMERIC -> java.math.BigDecimal.valueOf(random.nextLong(), random.nextInt(8));
            case DATE -> java.time.LocalDate.ofEpochDay(random.nextLong(-719_162L, 2_932_896L));
            case TIMESTAMPTZ -> new dev.tandem.row.TimestampTz(random.nextLong(-62_135_596_800_000_000L, 253_402_300_799_999_999L));
            case UUID -> new java.util.UUID(random.nextLong(), random.nextLong());
            case INTERVAL -> new dev.tandem.row.Interval(random.nextInt(), random.nextInt(), random.nextLong());
            case JSONB -> dev.tandem.row.Jsonb.of(java.util.Map.of(string(random), java.util.List.of(random.nextLong(), string(random))));
            case BYTEA -> new dev.tandem.row.Bytea(string(random).getBytes(java.nio.charset.StandardCharsets.UTF_8));
            case TIME -> new dev.tandem.row.TimeOfDay(random.nextLong(0, dev.tandem.row.TimeOfDay.MICROS_PER_DAY + 1));
            case BOOL_ARRAY, INT64_ARRAY, FLOAT64_ARRAY, STRING_ARRAY, TIMESTAMP_ARRAY, NUMERIC_ARRAY, DATE_ARRAY, TIMESTAMPTZ_ARRAY, UUID_ARRAY -> new dev.tandem.row.DatumArray(type.element(), java.util.Arrays.asList(value(type.element(), random), null));
        };
    }

    /** Strings of ASCII, control characters, quotes, backslashes, two- and three-byte characters and surrogate pairs. */
    private static String string(SplittableRandom random) {
        StringBuilder s = new StringBuilder();
        for (int i = random.nextInt(12); i > 0; i--) {
            switch (random.nextInt(7)) {
                case 0 -> s.append((char) random.nextInt(0x20));
                case 1 -> s.append(random.nextBoolean() ? '"' : '\\');
                case 2 -> s.append((char) random.nextInt(0x80, 0x800));
                case 3 -> s.append((char) random.nextInt(0x800, 0xd800));
                case 4 -> s.appendCodePoint(random.nextInt(0x10000, 0x110000));
                case 5 -> s.append('\u007f').append('/');
                default -> s.append((char) random.nextInt(0x20, 0x7f));
            }
        }
        return s.toString();
    }

    private static JsonNode expectedRow(List<Object> values) {
        ArrayNode row = NODES.arrayNode();
        for (Object v : values) {
            row.add(expectedDatum(v));
        }
        return row;
    }

    private static JsonNode expectedDatum(Object v) {
        if (v == null) {
            return NODES.nullNode();
        }
        if (v instanceof Long l) {
            return l > (1L << 53) || l < -(1L << 53) ? NODES.stringNode(String.valueOf(l)) : NODES.numberNode(l);
        }
        if (v instanceof Double d) {
            return Double.isNaN(d) ? NODES.stringNode("NaN") : Double.isInfinite(d) ? NODES.stringNode(d > 0 ? "Infinity" : "-Infinity")
                    : NODES.numberNode(d);
        }
        if (v instanceof Timestamp t) {
            return NODES.stringNode(t.toInstant().toString());
        }
        if (v instanceof Boolean b) {
            return NODES.booleanNode(b);
        }
        return NODES.stringNode((String) v);
    }
}
