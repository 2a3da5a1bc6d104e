package dev.tandem.pgwire;

import dev.tandem.row.DatumType;
import dev.tandem.sql.SqlState;
import dev.tandem.sql.catalog.PgOids;
import dev.tandem.row.Timestamp;
import dev.tandem.sql.SqlColumn;
import dev.tandem.sql.SqlException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Function;

/** Backend messages written into one buffer, to be sent (and flushed) together. */
final class PgWriter {

    /** Microseconds from the Unix epoch to PostgreSQL's, 2000-01-01. */
    private static final long PG_EPOCH_MICROS = 946_684_800_000_000L;
    private static final long PG_EPOCH_DAYS = 10_957L;

    private final ByteBuf buf = Unpooled.buffer(256);
    private int start = -1;

    ByteBuf buffer() {
        return buf;
    }

    private PgWriter begin(char type) {
        buf.writeByte(type);
        start = buf.writerIndex();
        buf.writeInt(0);
        return this;
    }

    private PgWriter end() {
        buf.setInt(start, buf.writerIndex() - start);
        return this;
    }

    private void cstring(String s) {
        buf.writeBytes(s.getBytes(StandardCharsets.UTF_8));
        buf.writeByte(0);
    }

    PgWriter raw(byte b) {
        buf.writeByte(b);
        return this;
    }

    PgWriter authenticationOk() {
        begin('R');
        buf.writeInt(0);
        return end();
    }

    /** AuthenticationCleartextPassword: the client answers with a PasswordMessage. */
    PgWriter authenticationCleartextPassword() {
        begin('R');
        buf.writeInt(3);
        return end();
    }

    /** AuthenticationSASL: the mechanisms offered; the client answers with a SASLInitialResponse. */
    PgWriter authenticationSasl(String mechanism) {
        begin('R');
        buf.writeInt(10);
        cstring(mechanism);
        buf.writeByte(0);
        return end();
    }

    /** AuthenticationSASLContinue: a server SASL message; the client answers with a SASLResponse. */
    PgWriter authenticationSaslContinue(byte[] data) {
        begin('R');
        buf.writeInt(11);
        buf.writeBytes(data);
        return end();
    }

    /** AuthenticationSASLFinal: the server's last SASL message, before AuthenticationOk. */
    PgWriter authenticationSaslFinal(byte[] data) {
        begin('R');
        buf.writeInt(12);
        buf.writeBytes(data);
        return end();
    }

    PgWriter parameterStatus(String name, String value) {
        begin('S');
        cstring(name);
        cstring(value);
        return end();
    }

    PgWriter backendKeyData(int pid, int secret) {
        begin('K');
        buf.writeInt(pid);
        buf.writeInt(secret);
        return end();
    }

    /** ReadyForQuery with the transaction status: {@code I} idle, {@code T} in a block, {@code E} in a failed block. */
    /** ReadyForQuery, after a ParameterStatus of the session's new {@code TimeZone} when it changed ({@code zone} not null). */
    PgWriter readyForQuery(char status, String zone) {
        if (zone != null) {
            parameterStatus("TimeZone", zone);
        }
        return readyForQuery(status);
    }

    PgWriter readyForQuery(char status) {
        begin('Z');
        buf.writeByte(status);
        return end();
    }

    PgWriter simple(char type) {
        return begin(type).end();
    }

    PgWriter commandComplete(String tag) {
        begin('C');
        cstring(tag);
        return end();
    }

    PgWriter parameterDescription(int[] oids) {
        begin('t');
        buf.writeShort(oids.length);
        for (int oid : oids) {
            buf.writeInt(oid);
        }
        return end();
    }

    /** A RowDescription; {@code format} gives each column's format code (0 text, 1 binary). */
    PgWriter rowDescription(List<SqlColumn> columns, Function<Integer, Integer> format) {
        begin('T');
        buf.writeShort(columns.size());
        for (int i = 0; i < columns.size(); i++) {
            SqlColumn c = columns.get(i);
            cstring(c.name());
            buf.writeInt(0);
            buf.writeShort(0);
            buf.writeInt(oid(c));
            buf.writeShort(typeLength(c));
            buf.writeInt(bpchar(c) || varcharArray(c) || numericArray(c) || bpcharArray(c) ? (int) c.declared().typmod() : -1);
            buf.writeShort(format.apply(i));
        }
        return end();
    }

    PgWriter dataRow(Object[] stored, List<SqlColumn> columns, Function<Integer, Integer> format) {
        return dataRow(stored, columns, format, java.time.ZoneOffset.UTC);
    }

    /** A DataRow, each value in its column's format; a {@code timestamptz} in text in the session's time zone {@code zone}. */
    PgWriter dataRow(Object[] stored, List<SqlColumn> columns, Function<Integer, Integer> format, java.time.ZoneId zone) {
        Object[] row = SqlColumn.output(stored, columns);
        for (int i = 0; i < row.length; i++) {
            int bytes = row[i] == null || format.apply(i) != 1 ? 0 : integerBytes(columns.get(i));
            if (bytes > 0 && (bytes == 4 ? (Long) row[i] != ((Long) row[i]).intValue() : (Long) row[i] != ((Long) row[i]).shortValue())) {
                // an expression typed integer whose value is not (PostgreSQL would have refused it computing it)
                throw new SqlException(SqlException.OUT_OF_RANGE, (bytes == 4 ? "integer" : "smallint") + " out of range");
            }
            int elementBytes = row[i] == null ? 0 : elementBytes(columns.get(i));
            if (elementBytes > 0) {
                for (Object e : ((dev.tandem.row.DatumArray) row[i]).elements()) {
                    if (e != null && (elementBytes == 4 ? (Long) e != ((Long) e).intValue() : (Long) e != ((Long) e).shortValue())) {
                        throw new SqlException(SqlException.OUT_OF_RANGE, (elementBytes == 4 ? "integer" : "smallint") + " out of range");
                    }
                }
            }
        }
        begin('D');
        buf.writeShort(row.length);
        for (int i = 0; i < row.length; i++) {
            Object v = row[i];
            if (v == null) {
                buf.writeInt(-1);
                continue;
            }
            if (format.apply(i) == 1) {
                binary(v, columns.get(i));
            } else {
                byte[] b = dev.tandem.sql.SqlValues.text(v, zone).getBytes(StandardCharsets.UTF_8);
                buf.writeInt(b.length);
                buf.writeBytes(b);
            }
        }
        return end();
    }

    /** A CopyOutResponse: text format, {@code columns} columns. */
    PgWriter copyOutResponse(int columns) {
        begin('H');
        buf.writeByte(0);
        buf.writeShort(columns);
        for (int i = 0; i < columns; i++) {
            buf.writeShort(0);
        }
        return end();
    }

    /** CopyInResponse: the client may send its COPY data, {@code columns} columns in text format. */
    PgWriter copyInResponse(int columns) {
        begin('G');
        buf.writeByte(0);
        buf.writeShort(columns);
        for (int i = 0; i < columns; i++) {
            buf.writeShort(0);
        }
        return end();
    }

    /** A CopyData holding {@code bytes} as they are (a line COPY TO formatted). */
    PgWriter copyData(byte[] bytes) {
        begin('d');
        buf.writeBytes(bytes);
        return end();
    }

    /** A CopyData with one row in COPY's text format: tab-separated, {@code \N} for NULL, escaped, ending in a newline. */
    PgWriter copyData(Object[] row, java.time.ZoneId zone) {
        begin('d');
        buf.writeBytes(dev.tandem.sql.SqlValues.copyTextLine(row, zone).getBytes(StandardCharsets.UTF_8));
        return end();
    }

    private void binary(Object v, SqlColumn c) {
        int elementBytes = elementBytes(c);
        if (elementBytes > 0) {
            array((dev.tandem.row.DatumArray) v, elementBytes == 4 ? 23 : 21, e -> {
                buf.writeInt(elementBytes);
                if (elementBytes == 4) {
                    buf.writeInt((int) (long) (Long) e);
                } else {
                    buf.writeShort((short) (long) (Long) e);
                }
            });
            return;
        }
        if (varcharArray(c) || bpcharArray(c)) {
            array((dev.tandem.row.DatumArray) v, varcharArray(c) ? 1043 : 1042, e -> binary(e, DatumType.STRING));
            return;
        }
        int bytes = integerBytes(c);
        if (bytes > 0) {
            long l = (Long) v;
            buf.writeInt(bytes);
            if (bytes == 4) {
                buf.writeInt((int) l);
            } else {
                buf.writeShort((short) l);
            }
            return;
        }
        binary(v, c.type());
    }

    /** {@code v}, of type {@code t}, in PostgreSQL's binary format with its length first. */
    private void binary(Object v, DatumType t) {
        switch (t) {
            case BOOL -> {
                buf.writeInt(1);
                buf.writeByte((Boolean) v ? 1 : 0);
            }
            case INT64 -> {
                buf.writeInt(8);
                buf.writeLong((Long) v);
            }
            case FLOAT64 -> {
                buf.writeInt(8);
                buf.writeDouble((Double) v);
            }
            case TIMESTAMP -> {
                buf.writeInt(8);
                buf.writeLong(((Timestamp) v).micros() - PG_EPOCH_MICROS);
            }
            case STRING -> {
                byte[] b = ((String) v).getBytes(StandardCharsets.UTF_8);
                buf.writeInt(b.length);
                buf.writeBytes(b);
            }
            case NUMERIC -> PgNumeric.write(buf, (java.math.BigDecimal) v);
            case DATE -> {
                buf.writeInt(4);
                buf.writeInt(Math.toIntExact(((java.time.LocalDate) v).toEpochDay() - PG_EPOCH_DAYS));
            }
            case INTERVAL -> {
                dev.tandem.row.Interval i = (dev.tandem.row.Interval) v;
                buf.writeInt(16);
                buf.writeLong(i.micros());
                buf.writeInt(i.days());
                buf.writeInt(i.months());
            }
            case UUID -> {
                buf.writeInt(16);
                buf.writeLong(((java.util.UUID) v).getMostSignificantBits());
                buf.writeLong(((java.util.UUID) v).getLeastSignificantBits());
            }
            case TIMESTAMPTZ -> {
                buf.writeInt(8);
                buf.writeLong(((dev.tandem.row.TimestampTz) v).micros() - PG_EPOCH_MICROS);
            }
            case TIME -> {
                // microseconds since midnight
                buf.writeInt(8);
                buf.writeLong(((dev.tandem.row.TimeOfDay) v).micros());
            }
            case BYTEA -> {
                byte[] b = ((dev.tandem.row.Bytea) v).bytes();
                buf.writeInt(b.length);
                buf.writeBytes(b);
            }
            case JSONB -> {
                // jsonb's binary format: a version byte (1), then the text
                byte[] b = ((dev.tandem.row.Jsonb) v).text().getBytes(StandardCharsets.UTF_8);
                buf.writeInt(b.length + 1);
                buf.writeByte(1);
                buf.writeBytes(b);
            }
            case BOOL_ARRAY, INT64_ARRAY, FLOAT64_ARRAY, STRING_ARRAY, TIMESTAMP_ARRAY, NUMERIC_ARRAY, DATE_ARRAY, TIMESTAMPTZ_ARRAY,
                    UUID_ARRAY -> {
                array((dev.tandem.row.DatumArray) v, oid(t.element()), e -> binary(e, t.element()));
            }
        }
    }

    /**
     * An array in PostgreSQL's {@code array_send} form with its length first: dimensions, a has-NULLs flag, the element type,
     * each dimension's length and lower bound, then each element as its length and binary form ({@code element}), -1 for NULL.
     */
    private void array(dev.tandem.row.DatumArray a, int elementOid, java.util.function.Consumer<Object> element) {
        int lengthAt = buf.writerIndex();
        buf.writeInt(0);
        buf.writeInt(a.size() == 0 ? 0 : 1);
        buf.writeInt(a.elements().contains(null) ? 1 : 0);
        buf.writeInt(elementOid);
        if (a.size() > 0) {
            buf.writeInt(a.size());
            buf.writeInt(1);
        }
        for (Object e : a.elements()) {
            if (e == null) {
                buf.writeInt(-1);
            } else {
                element.accept(e);
            }
        }
        buf.setInt(lengthAt, buf.writerIndex() - lengthAt - 4);
    }

    /** An ErrorResponse: severity, SQLSTATE, message and, when known, the 1-based character position. */
    PgWriter error(String severity, SqlState sqlState, String message, int position) {
        begin('E');
        buf.writeByte('S');
        cstring(severity);
        buf.writeByte('V');
        cstring(severity);
        buf.writeByte('C');
        cstring(sqlState.code());
        buf.writeByte('M');
        cstring(message == null ? "error" : message);
        if (position > 0) {
            buf.writeByte('P');
            cstring(Integer.toString(position));
        }
        buf.writeByte(0);
        return end();
    }

    PgWriter error(SqlException e, int position) {
        if (e.detail() == null && e.constraint() == null) {
            return error("ERROR", e.state(), e.getMessage(), position);
        }
        begin('E');
        buf.writeByte('S');
        cstring("ERROR");
        buf.writeByte('V');
        cstring("ERROR");
        buf.writeByte('C');
        cstring(e.sqlState());
        buf.writeByte('M');
        cstring(e.getMessage() == null ? "error" : e.getMessage());
        if (e.detail() != null) {
            buf.writeByte('D');
            cstring(e.detail());
        }
        if (position > 0) {
            buf.writeByte('P');
            cstring(Integer.toString(position));
        }
        if (e.constraint() != null) {
            buf.writeByte('n');
            cstring(e.constraint());
        }
        buf.writeByte(0);
        return end();
    }

    static int oid(DatumType t) {
        return PgOids.ofType(t);
    }

    /** PostgreSQL's type of a result column: its declared type's ({@code integer}: int4) or its datum type's. */
    static int oid(SqlColumn c) {
        return integerBytes(c) > 0 || bpchar(c) || elementBytes(c) > 0 || varcharArray(c) || bpcharArray(c) ? (int) c.declared().oid() : oid(c.type());
    }

    /** The width of the elements of an array column typed {@code integer[]} (4) or {@code smallint[]} (2), else 0. */
    private static int elementBytes(SqlColumn c) {
        if (c.type() != DatumType.INT64_ARRAY || c.declared() == null) {
            return 0;
        }
        return c.declared().kind() == dev.tandem.controller.DeclaredType.Kind.INTEGER_ARRAY ? 4
                : c.declared().kind() == dev.tandem.controller.DeclaredType.Kind.SMALLINT_ARRAY ? 2 : 0;
    }

    /** Whether {@code c} is a {@code character varying[]} or {@code character varying(n)[]} column (OID 1015, elements 1043). */
    private static boolean varcharArray(SqlColumn c) {
        return c.type() == DatumType.STRING_ARRAY && c.declared() != null && c.declared().kind() == dev.tandem.controller.DeclaredType.Kind.VARCHAR_ARRAY;
    }

    /** Whether {@code c} is a {@code character(n)[]} column (OID 1014, elements 1042, blank-padded by {@link SqlColumn#output}). */
    private static boolean bpcharArray(SqlColumn c) {
        return c.type() == DatumType.STRING_ARRAY && c.declared() != null && c.declared().kind() == dev.tandem.controller.DeclaredType.Kind.BPCHAR_ARRAY;
    }

    /** Whether {@code c} is a {@code numeric(p, s)[]} column (OID 1231, its precision and scale in the type modifier). */
    private static boolean numericArray(SqlColumn c) {
        return c.type() == DatumType.NUMERIC_ARRAY && c.declared() != null && c.declared().kind() == dev.tandem.controller.DeclaredType.Kind.NUMERIC_ARRAY;
    }

    /** Whether {@code c} is a {@code character(n)} column (OID 1042, its length in the type modifier). */
    private static boolean bpchar(SqlColumn c) {
        return c.type() == DatumType.STRING && c.declared() != null && c.declared().kind() == dev.tandem.controller.DeclaredType.Kind.BPCHAR;
    }

    /** The width of an int64 column typed {@code integer} (4) or {@code smallint} (2), else 0. */
    private static int integerBytes(SqlColumn c) {
        if (c.type() != DatumType.INT64 || c.declared() == null) {
            return 0;
        }
        return switch (c.declared().kind()) {
            case INTEGER -> 4;
            case SMALLINT -> 2;
            case VARCHAR, BPCHAR, NUMERIC, SMALLINT_ARRAY, INTEGER_ARRAY, VARCHAR_ARRAY, NUMERIC_ARRAY, BPCHAR_ARRAY -> 0;
        };
    }

    private static int typeLength(SqlColumn c) {
        int bytes = integerBytes(c);
        return bytes > 0 ? bytes : typeLength(c.type());
    }

    private static int typeLength(DatumType t) {
        return switch (t) {
            case BOOL -> 1;
            case INT64, FLOAT64, TIMESTAMP, TIMESTAMPTZ, TIME -> 8;
            case DATE -> 4;
            case UUID, INTERVAL -> 16;
            case STRING, NUMERIC, JSONB, BYTEA, BOOL_ARRAY, INT64_ARRAY, FLOAT64_ARRAY, STRING_ARRAY, TIMESTAMP_ARRAY, NUMERIC_ARRAY, DATE_ARRAY, TIMESTAMPTZ_ARRAY,
                    UUID_ARRAY -> -1;
        };
    }

    /** A binary parameter of type {@code oid} as a Java value the SQL engine converts. */
    static Object decodeBinary(byte[] b, int oid) {
        ByteBuf in = Unpooled.wrappedBuffer(b);
        return switch (oid) {
            case 16 -> b.length == 1 ? (Object) (b[0] != 0) : bad(oid);
            case 20 -> b.length == 8 ? (Object) in.readLong() : bad(oid);
            case 23 -> b.length == 4 ? (Object) (long) in.readInt() : bad(oid);
            case 21 -> b.length == 2 ? (Object) (long) in.readShort() : bad(oid);
            case 701 -> b.length == 8 ? (Object) in.readDouble() : bad(oid);
            case 700 -> b.length == 4 ? (Object) (double) in.readFloat() : bad(oid);
            case 25, 1043, 705, 19, 1042, 0 -> PgReader.utf8(b);
            case 17 -> new dev.tandem.row.Bytea(b);
            case 3802 -> b.length >= 1 && b[0] == 1 ? (Object) PgReader.utf8(java.util.Arrays.copyOfRange(b, 1, b.length)) : bad(oid);
            case 1700 -> PgNumeric.read(in, b.length);
            case 1114 -> b.length == 8 ? (Object) new Timestamp(in.readLong() + PG_EPOCH_MICROS) : bad(oid);
            case 1184 -> b.length == 8 ? (Object) new dev.tandem.row.TimestampTz(in.readLong() + PG_EPOCH_MICROS) : bad(oid);
            case 1186 -> b.length == 16 ? (Object) readInterval(in) : bad(oid);
            case 2950 -> b.length == 16 ? (Object) new java.util.UUID(in.readLong(), in.readLong()) : bad(oid);
            case 1083 -> b.length == 8 ? (Object) timeParameter(in.readLong(), oid) : bad(oid);
            case 1082 -> b.length == 4 ? (Object) java.time.LocalDate.ofEpochDay(in.readInt() + PG_EPOCH_DAYS) : bad(oid);
            case 1000, 1016, 1007, 1005, 1022, 1021, 1231, 1009, 1015, 1014, 1182, 1115, 1185, 2951 -> decodeArray(in, oid);
            default -> throw new SqlException(SqlException.NOT_SUPPORTED, "not supported: binary parameters of type oid " + oid + " (send text)");
        };
    }

    /**
     * A binary array parameter (PostgreSQL's {@code array_send}: dimensions, a has-NULLs flag, the element type, each
     * dimension's length and lower bound, then each element as its length, -1 for NULL, and binary form) as an array of
     * its elements' values; a multidimensional array or one whose lower bound is not 1 is refused, as in array text.
     */
    private static Object decodeArray(ByteBuf in, int oid) {
        if (in.readableBytes() < 12) {
            return bad(oid);
        }
        int dimensions = in.readInt();
        in.readInt();
        int elementOid = in.readInt();
        DatumType element = switch (elementOid) {
            case 16 -> DatumType.BOOL;
            case 20, 23, 21 -> DatumType.INT64;
            case 701, 700 -> DatumType.FLOAT64;
            case 1700 -> DatumType.NUMERIC;
            case 25, 1043, 1042 -> DatumType.STRING;
            case 1082 -> DatumType.DATE;
            case 1114 -> DatumType.TIMESTAMP;
            case 1184 -> DatumType.TIMESTAMPTZ;
            case 2950 -> DatumType.UUID;
            default -> null;
        };
        if (element == null || dimensions < 0) {
            return bad(oid);
        }
        if (dimensions > 1) {
            throw new SqlException(SqlException.NOT_SUPPORTED, "not supported: multidimensional arrays");
        }
        List<Object> elements = new java.util.ArrayList<>();
        if (dimensions == 1) {
            if (in.readableBytes() < 8) {
                return bad(oid);
            }
            int length = in.readInt();
            if (in.readInt() != 1) {
                throw new SqlException(SqlException.NOT_SUPPORTED, "not supported: arrays with explicit bounds");
            }
            for (int i = 0; i < length; i++) {
                if (in.readableBytes() < 4) {
                    return bad(oid);
                }
                int n = in.readInt();
                if (n == -1) {
                    elements.add(null);
                    continue;
                }
                if (n < 0 || in.readableBytes() < n) {
                    return bad(oid);
                }
                byte[] e = new byte[n];
                in.readBytes(e);
                elements.add(decodeBinary(e, elementOid));
            }
        }
        if (in.isReadable()) {
            return bad(oid);
        }
        try {
            return new dev.tandem.row.DatumArray(element, elements);
        } catch (IllegalArgumentException e) {
            return bad(oid);
        }
    }

    private static dev.tandem.row.TimeOfDay timeParameter(long micros, int oid) {
        return micros < 0 || micros > dev.tandem.row.TimeOfDay.MICROS_PER_DAY ? (dev.tandem.row.TimeOfDay) bad(oid) : new dev.tandem.row.TimeOfDay(micros);
    }

    private static dev.tandem.row.Interval readInterval(ByteBuf in) {
        long micros = in.readLong();
        int days = in.readInt();
        return new dev.tandem.row.Interval(in.readInt(), days, micros);
    }

    private static Object bad(int oid) {
        throw new SqlException(SqlState.INVALID_BINARY_REPRESENTATION, "invalid binary parameter for type oid " + oid);
    }
}
