package dev.tandem.pgwire;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.math.BigDecimal;
import org.junit.jupiter.api.Test;

/** PostgreSQL's binary numeric: base-10000 digits, weight, sign and display scale, as its numeric_send writes them. */
class PgNumericTest {

    private static short[] encoded(String v) {
        ByteBuf buf = Unpooled.buffer();
        PgNumeric.write(buf, new BigDecimal(v));
        int length = buf.readInt();
        short[] out = new short[length / 2];
        for (int i = 0; i < out.length; i++) {
            out[i] = buf.readShort();
        }
        return out;
    }

    @Test
    void writesPostgresDigitsWeightSignAndScale() {
        // ndigits, weight, sign, dscale, digits...
        assertThat(encoded("1.50")).containsExactly((short) 2, (short) 0, (short) 0, (short) 2, (short) 1, (short) 5000);
        assertThat(encoded("-12345.678")).containsExactly((short) 3, (short) 1, (short) 0x4000, (short) 3, (short) 1, (short) 2345,
                (short) 6780);
        assertThat(encoded("0.00")).containsExactly((short) 0, (short) 0, (short) 0, (short) 2);
        assertThat(encoded("0.0001")).containsExactly((short) 1, (short) -1, (short) 0, (short) 4, (short) 1);
        assertThat(encoded("100000000")).containsExactly((short) 1, (short) 2, (short) 0, (short) 0, (short) 1);
    }

    @Test
    void readsWhatItWrites() {
        for (String v : new String[] {"1.50", "-12345.678", "0.00", "0.0001", "100000000", "123456789012345678901234567890.123456789",
                "-0.000000001", "9999.9999", "10000"}) {
            ByteBuf buf = Unpooled.buffer();
            PgNumeric.write(buf, new BigDecimal(v));
            int length = buf.readInt();
            BigDecimal back = PgNumeric.read(buf, length);
            assertThat(back.toPlainString()).isEqualTo(v);
        }
    }
}
