package dev.tandem.row;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The variable-length int64 encoding around every length boundary: byte order is value order, each
 * value decodes to itself in as few bytes as its magnitude needs, and rows of the fixed eight-byte
 * encoding that older logs hold become the same bytes as newly packed rows.
 */
class Int64EncodingTest {

    /** Values on both sides of each byte-length boundary, both signs, and the extremes. */
    private static List<Long> boundaries() {
        List<Long> values = new ArrayList<>(List.of(Long.MIN_VALUE, Long.MIN_VALUE + 1, Long.MAX_VALUE - 1, Long.MAX_VALUE));
        for (int bits = 0; bits < 63; bits += 8) {
            long edge = 1L << bits;
            for (long v : new long[] {edge - 1, edge, edge + 1, -edge - 1, -edge, -edge + 1}) {
                values.add(v);
            }
        }
        return values;
    }

    @Test
    void byteOrderIsValueOrderAcrossLengthBoundaries() {
        List<Long> values = boundaries();
        for (long a : values) {
            Row ra = new RowPacker().pushInt64(a).finish();
            assertThat(ra.get(0)).isEqualTo(a);
            for (long b : values) {
                Row rb = new RowPacker().pushInt64(b).finish();
                assertThat(Integer.signum(ra.compareTo(rb))).as("%d vs %d", a, b).isEqualTo(Long.signum(Long.compare(a, b)));
            }
        }
    }

    @Test
    void aValueTakesOnlyTheBytesItsMagnitudeNeeds() {
        assertThat(Row.of(0L).byteSize()).isEqualTo(1);
        assertThat(Row.of(-1L).byteSize()).isEqualTo(1);
        assertThat(Row.of(255L).byteSize()).isEqualTo(2);
        assertThat(Row.of(-256L).byteSize()).isEqualTo(2);
        assertThat(Row.of(256L).byteSize()).isEqualTo(3);
        assertThat(Row.of(2_000_000L).byteSize()).isEqualTo(4);
        assertThat(Row.of(Long.MAX_VALUE).byteSize()).isEqualTo(9);
        assertThat(Row.of(Long.MIN_VALUE).byteSize()).isEqualTo(9);
        // a NULL int64 still sorts after every value
        Row nul = new RowPacker().pushNull(DatumType.INT64).finish();
        assertThat(nul.compareTo(Row.of(Long.MAX_VALUE))).isPositive();
        assertThat(nul.typeAt(0)).isEqualTo(DatumType.INT64);
        assertThat(Row.of(-5L).typeAt(0)).isEqualTo(DatumType.INT64);
    }

    @Test
    void legacyFixedWidthRowsBecomeTheirCanonicalEncoding() {
        for (long v : boundaries()) {
            // the encoding logs were written in before: tag 2, then the value with its sign bit flipped, big-endian
            byte[] legacy = new byte[12];
            legacy[0] = 2;
            long flipped = v ^ Long.MIN_VALUE;
            for (int i = 0; i < 8; i++) {
                legacy[1 + i] = (byte) (flipped >>> (56 - 8 * i));
            }
            legacy[9] = 1; // a bool true follows, copied as it is
            legacy[10] = 1;
            legacy[11] = (byte) 0x42; // then a NULL int64
            Row canonical = Row.canonical(legacy, 0, 12);
            Row fresh = new RowPacker().pushInt64(v).pushBool(true).pushNull(DatumType.INT64).finish();
            assertThat(canonical).as("%d", v).isEqualTo(fresh);
            assertThat(canonical.compareTo(fresh)).isZero();
        }
        Row current = Row.of(7L, "x");
        byte[] bytes = new byte[current.byteSize()];
        current.copyTo(bytes, 0);
        assertThat(Row.canonical(bytes, 0, bytes.length)).isEqualTo(current);
    }
}
