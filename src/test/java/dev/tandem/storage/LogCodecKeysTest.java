package dev.tandem.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tandem.row.Column;
import dev.tandem.row.DatumType;
import dev.tandem.row.Schema;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A table's keys in the log: written with its creation (or added and dropped later), read back; a creation
 * written without keys reads as before.
 */
class LogCodecKeysTest {

    static final Schema SCHEMA = new Schema(List.of(new Column("id", DatumType.INT64, false), new Column("v", DatumType.STRING, true)));

    static byte[] payload(LogRecord r) {
        LogCodec.FrameBuffer f = new LogCodec.FrameBuffer();
        f.frame(r);
        return Arrays.copyOfRange(f.array(), LogCodec.FRAME_HEADER, f.length());
    }

    @Test
    void keysRoundTrip() {
        LogRecord.CreateTable c = new LogRecord.CreateTable("u1", SCHEMA,
                List.of(new UniqueKey("t_pkey", List.of(0), true), new UniqueKey("t_v_key", List.of(1), false)));
        assertThat(LogCodec.decode(payload(c))).isEqualTo(c);
    }

    @Test
    void addedAndDroppedKeysRoundTrip() {
        CatalogSwap swap = new CatalogSwap("meta/next", "{\"next\":3}", java.util.Map.of("index/t_v_idx", "{}", "meta/next", "{\"next\":4}"), List.of());
        for (LogRecord r : List.of(
                new LogRecord.AddKey("u1", new UniqueKey("t_v_idx", List.of(1, 0), false), swap),
                new LogRecord.AddKey("u1", new UniqueKey("t_v_idx", List.of(1), false), null),
                new LogRecord.DropKey("u1", "t_v_idx", swap),
                new LogRecord.DropKey("u1", "t_v_idx", null))) {
            assertThat(LogCodec.decode(payload(r))).isEqualTo(r);
        }
        byte[] p = payload(new LogRecord.AddKey("u1", new UniqueKey("t_v_idx", List.of(1), false), null));
        assertThatThrownBy(() -> LogCodec.decode(Arrays.copyOf(p, p.length - 2))).isInstanceOf(IllegalStateException.class);
    }

    /** The creation record as logs hold it from before keys existed, byte for byte: it reads as a table without keys. */
    @Test
    void aCreationWithoutKeysIsTheOldRecord() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeByte(1);
        string(out, "u1");
        out.writeInt(2);
        string(out, "id");
        string(out, "int64");
        out.writeByte(0);
        string(out, "v");
        string(out, "string");
        out.writeByte(1);
        byte[] old = bytes.toByteArray();
        assertThat(LogCodec.decode(old)).isEqualTo(new LogRecord.CreateTable("u1", SCHEMA));
        assertThat(payload(new LogRecord.CreateTable("u1", SCHEMA))).isEqualTo(old);
    }

    @Test
    void malformedKeysAreCorruption() {
        byte[] p = payload(new LogRecord.CreateTable("u1", SCHEMA, List.of(new UniqueKey("t_pkey", List.of(0), true))));
        byte[] bad = p.clone();
        bad[bad.length - 1] = 7; // a key column beyond the schema
        assertThatThrownBy(() -> LogCodec.decode(bad)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> LogCodec.decode(Arrays.copyOf(p, p.length - 2))).isInstanceOf(IllegalStateException.class);
    }

    private static void string(DataOutputStream out, String s) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(b.length);
        out.write(b);
    }
}
