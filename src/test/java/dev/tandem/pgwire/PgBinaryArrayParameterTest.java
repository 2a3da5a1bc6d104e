package dev.tandem.pgwire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tandem.row.DatumArray;
import dev.tandem.row.DatumType;
import dev.tandem.sql.SqlException;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * A binary array parameter (PostgreSQL's {@code array_send} format, as a client sends it with format code 1) read as the
 * array of its elements, each in its element type's binary form; malformed ones refused with {@code 22P03}, a
 * multidimensional one or one with explicit bounds with {@code 0A000}.
 */
class PgBinaryArrayParameterTest {

    /** {@code array_send}'s bytes: one dimension of {@code elements} (null for NULL), each already in binary form. */
    private static byte[] array(int elementOid, int lowerBound, byte[]... elements) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeInt(1);
        out.writeInt(Arrays.stream(elements).anyMatch(e -> e == null) ? 1 : 0);
        out.writeInt(elementOid);
        out.writeInt(elements.length);
        out.writeInt(lowerBound);
        for (byte[] e : elements) {
            if (e == null) {
                out.writeInt(-1);
            } else {
                out.writeInt(e.length);
                out.write(e);
            }
        }
        return bytes.toByteArray();
    }

    private static byte[] int8(long v) {
        return java.nio.ByteBuffer.allocate(8).putLong(v).array();
    }

    private static byte[] int4(int v) {
        return java.nio.ByteBuffer.allocate(4).putInt(v).array();
    }

    @Test
    void arraysOfEachElementTypeAreRead() throws IOException {
        assertThat(PgWriter.decodeBinary(array(20, 1, int8(1), null, int8(-3)), 1016))
                .isEqualTo(new DatumArray(DatumType.INT64, Arrays.asList(1L, null, -3L)));
        assertThat(PgWriter.decodeBinary(array(23, 1, int4(7), int4(-2)), 1007)).isEqualTo(new DatumArray(DatumType.INT64, Arrays.asList(7L, -2L)));
        assertThat(PgWriter.decodeBinary(array(25, 1, "a b".getBytes(StandardCharsets.UTF_8), null), 1009))
                .isEqualTo(new DatumArray(DatumType.STRING, Arrays.asList("a b", null)));
        assertThat(PgWriter.decodeBinary(array(16, 1, new byte[] {1}, new byte[] {0}), 1000))
                .isEqualTo(new DatumArray(DatumType.BOOL, Arrays.asList(true, false)));
        assertThat(PgWriter.decodeBinary(array(701, 1, java.nio.ByteBuffer.allocate(8).putDouble(1.5).array()), 1022))
                .isEqualTo(new DatumArray(DatumType.FLOAT64, Arrays.asList(1.5)));
        // numeric's binary form: digit count, weight, sign, display scale, then base-10000 digits (1.50 and -20000)
        byte[] onePointFifty = java.nio.ByteBuffer.allocate(12).putShort((short) 2).putShort((short) 0).putShort((short) 0).putShort((short) 2)
                .putShort((short) 1).putShort((short) 5000).array();
        byte[] minusTwentyThousand = java.nio.ByteBuffer.allocate(10).putShort((short) 1).putShort((short) 1).putShort((short) 0x4000)
                .putShort((short) 0).putShort((short) 2).array();
        assertThat(PgWriter.decodeBinary(array(1700, 1, onePointFifty, null, minusTwentyThousand), 1231))
                .isEqualTo(new DatumArray(DatumType.NUMERIC, Arrays.asList(new java.math.BigDecimal("1.50"), null, new java.math.BigDecimal("-20000"))));
        // no dimensions: the empty array
        assertThat(PgWriter.decodeBinary(new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 20}, 1016))
                .isEqualTo(new DatumArray(DatumType.INT64, java.util.List.of()));
    }

    @Test
    void malformedOrUnsupportedArraysAreRefused() throws IOException {
        byte[] truncated = Arrays.copyOf(array(20, 1, int8(1)), 20);
        assertThatThrownBy(() -> PgWriter.decodeBinary(truncated, 1016)).isInstanceOfSatisfying(SqlException.class,
                e -> assertThat(e.sqlState()).isEqualTo("22P03"));
        assertThatThrownBy(() -> PgWriter.decodeBinary(array(20, 1, int4(1)), 1016)).isInstanceOfSatisfying(SqlException.class,
                e -> assertThat(e.sqlState()).isEqualTo("22P03"));
        assertThatThrownBy(() -> PgWriter.decodeBinary(array(20, 0, int8(1)), 1016)).isInstanceOfSatisfying(SqlException.class,
                e -> assertThat(e.sqlState()).isEqualTo("0A000"));
        byte[] twoDimensions = {0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 20, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
        assertThatThrownBy(() -> PgWriter.decodeBinary(twoDimensions, 1016)).isInstanceOfSatisfying(SqlException.class,
                e -> assertThat(e.sqlState()).isEqualTo("0A000"));
    }
}
