package dev.tandem.pgwire;

import dev.tandem.sql.SqlException;
import dev.tandem.sql.SqlState;
import io.netty.buffer.ByteBuf;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;

/**
 * PostgreSQL's binary form of a {@code numeric}: {@code int16} count of base-10000 digits, {@code int16}
 * weight of the first, {@code int16} sign ({@code 0x0000}, {@code 0x4000} negative, {@code 0xC000} NaN),
 * {@code int16} display scale, then the digits, most significant first.
 */
final class PgNumeric {

    private static final BigInteger NBASE = BigInteger.valueOf(10_000);
    private static final int NEGATIVE = 0x4000;

    private PgNumeric() {
    }

    /** Writes {@code v} (length word first). */
    static void write(ByteBuf buf, BigDecimal v) {
        int scale = v.scale();
        int fractionGroups = (scale + 3) / 4;
        BigInteger u = v.abs().setScale(fractionGroups * 4).unscaledValue();
        List<Integer> groups = new ArrayList<>();
        while (u.signum() > 0) {
            BigInteger[] qr = u.divideAndRemainder(NBASE);
            groups.add(qr[1].intValue());
            u = qr[0];
        }
        // groups are least significant first; drop zero groups at the low end
        int low = 0;
        while (low < groups.size() && groups.get(low) == 0) {
            low++;
        }
        int n = groups.size() - low;
        int weight = groups.size() - 1 - fractionGroups;
        buf.writeInt(8 + 2 * n);
        buf.writeShort(n);
        buf.writeShort(n == 0 ? 0 : weight);
        buf.writeShort(v.signum() < 0 ? NEGATIVE : 0);
        buf.writeShort(scale);
        for (int i = groups.size() - 1; i >= low; i--) {
            buf.writeShort(groups.get(i));
        }
    }

    /** Reads a binary numeric parameter. */
    static BigDecimal read(ByteBuf in, int length) {
        if (length < 8) {
            throw new SqlException(SqlState.INVALID_BINARY_REPRESENTATION, "invalid binary parameter for type numeric");
        }
        int n = in.readShort();
        int weight = in.readShort();
        int sign = in.readUnsignedShort();
        int scale = in.readUnsignedShort();
        if (sign != 0 && sign != NEGATIVE) {
            throw new SqlException(SqlException.NOT_SUPPORTED, "not supported: numeric NaN and infinities");
        }
        if (n < 0 || length != 8 + 2 * n || scale > 0x3FFF) {
            throw new SqlException(SqlState.INVALID_BINARY_REPRESENTATION, "invalid binary parameter for type numeric");
        }
        BigInteger u = BigInteger.ZERO;
        for (int i = 0; i < n; i++) {
            int d = in.readShort();
            if (d < 0 || d >= 10_000) {
                throw new SqlException(SqlState.INVALID_BINARY_REPRESENTATION, "invalid binary parameter for type numeric");
            }
            u = u.multiply(NBASE).add(BigInteger.valueOf(d));
        }
        BigDecimal v = new BigDecimal(u).scaleByPowerOfTen(4 * (weight - n + 1)).setScale(scale, RoundingMode.HALF_UP);
        return sign == NEGATIVE ? v.negate() : v;
    }
}
