package dev.tandem.sql;

import dev.tandem.row.DatumType;
import dev.tandem.row.Timestamp;
import dev.tandem.row.TimestampTz;
import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.sql.type.SqlTypeName;

/** Between SQL types (PostgreSQL spellings, Calcite's types) and Tandem's datum types, and values between them. */
final class SqlTypes {

    private SqlTypes() {
    }

    /** The datum type of a PostgreSQL type name as written in DDL ({@code bigint}, {@code double precision}...), or null. */
    static DatumType ofName(String name) {
        String n = name.toLowerCase(Locale.ROOT).replaceAll("\\s+", " ").trim();
        return switch (n) {
            case "bigint", "int8", "integer", "int", "int4", "smallint", "int2" -> DatumType.INT64;
            case "double precision", "float8", "float", "real", "float4" -> DatumType.FLOAT64;
            case "text", "varchar", "character varying", "string" -> DatumType.STRING;
            case "boolean", "bool" -> DatumType.BOOL;
            case "timestamp", "timestamp without time zone" -> DatumType.TIMESTAMP;
            case "numeric", "decimal" -> DatumType.NUMERIC;
            case "date" -> DatumType.DATE;
            case "time", "time without time zone" -> DatumType.TIME;
            case "uuid" -> DatumType.UUID;
            case "interval" -> DatumType.INTERVAL;
            case "jsonb" -> DatumType.JSONB;
            case "bytea" -> DatumType.BYTEA;
            case "timestamptz", "timestamp with time zone", "timestamp_tz", "timestamp_with_local_time_zone" -> DatumType.TIMESTAMPTZ;
            default -> null;
        };
    }

    /** The datum type of a Calcite type; throws "not supported" for types Tandem has no datum for. */
    static DatumType of(RelDataType type) {
        SqlTypeName n = type.getSqlTypeName();
        if (SqlTypeName.INTERVAL_TYPES.contains(n)) {
            return DatumType.INTERVAL;
        }
        return switch (n) {
            case BOOLEAN -> DatumType.BOOL;
            case TINYINT, SMALLINT, INTEGER, BIGINT -> DatumType.INT64;
            case DECIMAL -> type.getScale() == 0 && type.getPrecision() <= 18 ? DatumType.INT64 : DatumType.NUMERIC;
            case FLOAT, REAL, DOUBLE -> DatumType.FLOAT64;
            case CHAR, VARCHAR -> DatumType.STRING;
            case TIMESTAMP -> DatumType.TIMESTAMP;
            case DATE -> DatumType.DATE;
            case TIME -> DatumType.TIME;
            case UUID -> DatumType.UUID;
            case VARIANT -> DatumType.JSONB;
            case BINARY, VARBINARY -> DatumType.BYTEA;
            case TIMESTAMP_TZ, TIMESTAMP_WITH_LOCAL_TIME_ZONE -> DatumType.TIMESTAMPTZ;
            case NULL -> null;
            case ARRAY -> {
                DatumType element = type.getComponentType() == null ? null : of(type.getComponentType());
                DatumType array = element == null ? null : DatumType.arrayOf(element);
                if (array == null) {
                    throw SqlException.notSupported(element == null ? "arrays of unknown type (cast the array or an element)"
                            : "arrays of " + pgName(element) + (element.isArray() ? " (multidimensional arrays)" : ""));
                }
                yield array;
            }
            default -> throw SqlException.notSupported("type " + n.getName().toLowerCase(Locale.ROOT));
        };
    }

    /**
     * The precision and scale of the Calcite type of a {@code numeric} (whose values carry their own scale, as
     * PostgreSQL's do): wide enough that Calcite's derived types stay decimals Tandem reads as numerics.
     */
    static final int NUMERIC_PRECISION = 1000;
    static final int NUMERIC_SCALE = 0;

    /** Calcite's type of a {@code jsonb} (Calcite has no JSON type; Tandem has no other variant). */
    static final SqlTypeName JSONB = SqlTypeName.VARIANT;

    /** Calcite's type of a {@code timestamp with time zone}: an instant, as PostgreSQL's is. */
    static final SqlTypeName TIMESTAMPTZ = SqlTypeName.TIMESTAMP_WITH_LOCAL_TIME_ZONE;

    /** Calcite's type of an {@code interval}, whatever its parts: day to second. */
    static RelDataType interval(RelDataTypeFactory f) {
        return f.createSqlIntervalType(new org.apache.calcite.sql.SqlIntervalQualifier(org.apache.calcite.avatica.util.TimeUnit.DAY,
                org.apache.calcite.avatica.util.TimeUnit.SECOND, org.apache.calcite.sql.parser.SqlParserPos.ZERO));
    }

    /**
     * The Calcite type of a column of datum type {@code t} declared {@code declared} (or null): an int64
     * declared {@code integer} or {@code smallint} is Calcite's {@code INTEGER} or {@code SMALLINT}, so that
     * arithmetic over it is held to its range and its results are typed as PostgreSQL types them; a string
     * declared {@code character(n)} is Calcite's {@code CHAR(n)}.
     */
    static RelDataType calcite(RelDataTypeFactory f, DatumType t, dev.tandem.controller.DeclaredType declared, boolean nullable) {
        if (t == DatumType.STRING && declared != null && declared.kind() == dev.tandem.controller.DeclaredType.Kind.BPCHAR) {
            // a character(n) is Calcite's CHAR(n): BpcharSemantics follows it through a plan
            return f.createTypeWithNullability(f.createSqlType(SqlTypeName.CHAR, declared.length()), nullable);
        }
        if (t == DatumType.INT64_ARRAY && declared != null && (declared.kind() == dev.tandem.controller.DeclaredType.Kind.INTEGER_ARRAY
                || declared.kind() == dev.tandem.controller.DeclaredType.Kind.SMALLINT_ARRAY)) {
            SqlTypeName n = declared.kind() == dev.tandem.controller.DeclaredType.Kind.INTEGER_ARRAY ? SqlTypeName.INTEGER : SqlTypeName.SMALLINT;
            return f.createTypeWithNullability(f.createArrayType(f.createTypeWithNullability(f.createSqlType(n), true), -1), nullable);
        }
        if (t == DatumType.INT64 && declared != null && (declared.kind() == dev.tandem.controller.DeclaredType.Kind.INTEGER
                || declared.kind() == dev.tandem.controller.DeclaredType.Kind.SMALLINT)) {
            SqlTypeName n = declared.kind() == dev.tandem.controller.DeclaredType.Kind.INTEGER ? SqlTypeName.INTEGER : SqlTypeName.SMALLINT;
            return f.createTypeWithNullability(f.createSqlType(n), nullable);
        }
        return calcite(f, t, nullable);
    }

    /**
     * PostgreSQL's type of a value of Calcite type {@code type} where it says more than its datum type: an
     * {@code INTEGER} is an {@code integer}, a {@code SMALLINT} (or {@code TINYINT}) a {@code smallint}, an array of
     * them an {@code integer[]} or {@code smallint[]}; else null.
     */
    static dev.tandem.controller.DeclaredType declared(RelDataType type) {
        return switch (type.getSqlTypeName()) {
            case INTEGER -> dev.tandem.controller.DeclaredType.INTEGER;
            case SMALLINT, TINYINT -> dev.tandem.controller.DeclaredType.SMALLINT;
            case ARRAY -> type.getComponentType() == null ? null : switch (type.getComponentType().getSqlTypeName()) {
                case INTEGER -> dev.tandem.controller.DeclaredType.INTEGER_ARRAY;
                case SMALLINT, TINYINT -> dev.tandem.controller.DeclaredType.SMALLINT_ARRAY;
                default -> null;
            };
            default -> null;
        };
    }

    /** The Calcite type of a datum type. */
    static RelDataType calcite(RelDataTypeFactory f, DatumType t, boolean nullable) {
        RelDataType base = switch (t) {
            case BOOL -> f.createSqlType(SqlTypeName.BOOLEAN);
            case INT64 -> f.createSqlType(SqlTypeName.BIGINT);
            case FLOAT64 -> f.createSqlType(SqlTypeName.DOUBLE);
            case STRING -> f.createSqlType(SqlTypeName.VARCHAR);
            case TIMESTAMP -> f.createSqlType(SqlTypeName.TIMESTAMP, 6);
            case NUMERIC -> f.createSqlType(SqlTypeName.DECIMAL, NUMERIC_PRECISION, NUMERIC_SCALE);
            case DATE -> f.createSqlType(SqlTypeName.DATE);
            case TIME -> f.createSqlType(SqlTypeName.TIME, 6);
            case TIMESTAMPTZ -> f.createSqlType(TIMESTAMPTZ, 6);
            case UUID -> f.createSqlType(SqlTypeName.UUID);
            case INTERVAL -> interval(f);
            case JSONB -> f.createSqlType(JSONB);
            case BYTEA -> f.createSqlType(SqlTypeName.VARBINARY);
            case BOOL_ARRAY, INT64_ARRAY, FLOAT64_ARRAY, STRING_ARRAY, TIMESTAMP_ARRAY, NUMERIC_ARRAY, DATE_ARRAY, TIMESTAMPTZ_ARRAY,
                    UUID_ARRAY -> f.createArrayType(calcite(f, t.element(), true), -1);
        };
        return f.createTypeWithNullability(base, nullable);
    }

    /** The binary literal PostgreSQL reads the quoted literal {@code l} cast to {@code bytea} as (22P02 when it reads none). */
    static org.apache.calcite.sql.SqlLiteral byteaLiteral(org.apache.calcite.sql.SqlCharStringLiteral l, org.apache.calcite.sql.parser.SqlParserPos pos) {
        try {
            return org.apache.calcite.sql.SqlLiteral.createBinaryString(dev.tandem.expr.Byteas.parse(l.getValueAs(String.class)).bytes(), pos);
        } catch (dev.tandem.expr.EvalError e) {
            SqlException x = SqlErrors.evaluation(e);
            throw pos == null || pos.getLineNum() == 0 ? x : x.at(pos.getLineNum(), pos.getColumnNum());
        }
    }

    /** The PostgreSQL name of a datum type, as {@code SHOW COLUMNS} and errors spell it. */
    static String pgName(DatumType t) {
        return switch (t) {
            case BOOL -> "boolean";
            case INT64 -> "bigint";
            case FLOAT64 -> "double precision";
            case STRING -> "text";
            case TIMESTAMP -> "timestamp";
            case NUMERIC -> "numeric";
            case DATE -> "date";
            case TIMESTAMPTZ -> "timestamp with time zone";
            case UUID -> "uuid";
            case INTERVAL -> "interval";
            case JSONB -> "jsonb";
            case BYTEA -> "bytea";
            case TIME -> "time without time zone";
            case BOOL_ARRAY, INT64_ARRAY, FLOAT64_ARRAY, STRING_ARRAY, TIMESTAMP_ARRAY, NUMERIC_ARRAY, DATE_ARRAY, TIMESTAMPTZ_ARRAY,
                    UUID_ARRAY -> pgName(t.element()) + "[]";
        };
    }

    /**
     * PostgreSQL's input forms of a timestamp: a date, then optionally a time with optional seconds and
     * fraction (up to nanoseconds) and a zone offset, which a timestamp without time zone ignores.
     */
    private static final DateTimeFormatter PG_TIMESTAMP = new java.time.format.DateTimeFormatterBuilder()
            .appendPattern("uuuu-MM-dd")
            .optionalStart()
            .appendLiteral(' ')
            .appendPattern("HH:mm")
            .optionalStart()
            .appendPattern(":ss")
            .optionalStart()
            .appendFraction(java.time.temporal.ChronoField.NANO_OF_SECOND, 1, 9, true)
            .optionalEnd()
            .optionalEnd()
            .optionalStart()
            .appendPattern("[XXX][XX][X]")
            .optionalEnd()
            .optionalEnd()
            .parseDefaulting(java.time.temporal.ChronoField.HOUR_OF_DAY, 0)
            .parseDefaulting(java.time.temporal.ChronoField.MINUTE_OF_HOUR, 0)
            .parseDefaulting(java.time.temporal.ChronoField.SECOND_OF_MINUTE, 0)
            .toFormatter(Locale.ROOT)
            .withResolverStyle(java.time.format.ResolverStyle.STRICT);

    /** The session's time zone of the conversions running on this thread ({@link #inZone}); null: UTC. */
    private static final ThreadLocal<java.time.ZoneId> ZONE = new ThreadLocal<>();

    /**
     * {@code work}'s result, its {@link #convert conversions} between instants and local times (and their text) made in
     * {@code zone}, the session's; in UTC nothing is set.
     */
    static <T> T inZone(java.time.ZoneId zone, java.util.function.Supplier<T> work) {
        if (zone == null || zone.equals(ZoneOffset.UTC)) {
            return work.get();
        }
        java.time.ZoneId before = ZONE.get();
        ZONE.set(zone);
        try {
            return work.get();
        } finally {
            ZONE.set(before);
        }
    }

    /** The zone of the conversions running on this thread (see {@link #inZone}). */
    static java.time.ZoneId zone() {
        java.time.ZoneId z = ZONE.get();
        return z == null ? ZoneOffset.UTC : z;
    }

    /**
     * A value given for a column or parameter of type {@code t}, converted as PostgreSQL converts a
     * quoted literal or a client's parameter: numbers, booleans and strings (parsed by the target type).
     * Throws 22P02 when a string does not parse.
     */
    static Object convert(Object v, DatumType t) {
        if (v == null) {
            return null;
        }
        try {
            return switch (t) {
                case INT64 -> switch (v) {
                    case Long l -> l;
                    case Integer i -> (long) i;
                    case BigDecimal b -> numericToBigint(b);
                    case Double d when d == Math.rint(d) && Math.abs(d) < 0x1p63 -> d.longValue();
                    case String s -> Long.parseLong(s.trim());
                    default -> throw mismatch(v, t);
                };
                case FLOAT64 -> switch (v) {
                    case Number n -> n.doubleValue();
                    case String s -> parseDouble(s.trim());
                    default -> throw mismatch(v, t);
                };
                case STRING -> switch (v) {
                    case String s -> s;
                    case java.time.LocalDate d -> dev.tandem.expr.Datetimes.text(d);
                    case TimestampTz ts -> dev.tandem.expr.Datetimes.text(ts, zone());
                    case java.util.UUID u -> u.toString();
                    case dev.tandem.row.Interval i -> dev.tandem.expr.Intervals.text(i);
                    case dev.tandem.row.Bytea b -> b.hex();
                    case dev.tandem.row.TimeOfDay d -> d.toString();
                    case Boolean b -> b ? "true" : "false";
                    case Number n -> n instanceof BigDecimal b ? b.toPlainString() : n.toString();
                    default -> throw mismatch(v, t);
                };
                case BOOL -> switch (v) {
                    case Boolean b -> b;
                    case String s -> parseBool(s);
                    default -> throw mismatch(v, t);
                };
                case TIMESTAMP -> switch (v) {
                    case Timestamp ts -> ts;
                    case TimestampTz ts -> new Timestamp(dev.tandem.expr.TimeZones.local(ts.micros(), zone()));
                    case java.time.LocalDate d -> new Timestamp(dev.tandem.expr.Datetimes.startOfDay(d));
                    case String s -> parseTimestamp(s.trim());
                    default -> throw mismatch(v, t);
                };
                case NUMERIC -> switch (v) {
                    case BigDecimal b -> dev.tandem.expr.Numerics.checked(b);
                    case Long l -> BigDecimal.valueOf(l);
                    case Integer i -> BigDecimal.valueOf(i);
                    case Double d -> dev.tandem.expr.Numerics.ofDouble(d);
                    case String s -> dev.tandem.expr.Numerics.parse(s);
                    default -> throw mismatch(v, t);
                };
                case DATE -> switch (v) {
                    case java.time.LocalDate d -> dev.tandem.expr.Datetimes.checked(d);
                    case String s -> dev.tandem.expr.Datetimes.parseDate(s);
                    case Timestamp ts -> dev.tandem.expr.Datetimes.dateOf(ts.micros());
                    case TimestampTz ts -> dev.tandem.expr.Datetimes.dateOf(dev.tandem.expr.TimeZones.local(ts.micros(), zone()));
                    default -> throw mismatch(v, t);
                };
                case TIMESTAMPTZ -> switch (v) {
                    case TimestampTz ts -> ts;
                    case Timestamp ts -> new TimestampTz(dev.tandem.expr.TimeZones.instant(ts.micros(), zone()));
                    case java.time.LocalDate d -> new TimestampTz(dev.tandem.expr.TimeZones.instant(dev.tandem.expr.Datetimes.startOfDay(d), zone()));
                    case String s -> dev.tandem.expr.Datetimes.parseTimestampTz(s, zone());
                    default -> throw mismatch(v, t);
                };
                case TIME -> switch (v) {
                    case dev.tandem.row.TimeOfDay d -> d;
                    case String s -> dev.tandem.expr.Times.parse(s);
                    case Timestamp ts -> dev.tandem.expr.Times.of(ts.micros());
                    default -> throw mismatch(v, t);
                };
                case INTERVAL -> switch (v) {
                    case dev.tandem.row.Interval i -> i;
                    case String s -> dev.tandem.expr.Intervals.parse(s);
                    default -> throw mismatch(v, t);
                };
                case UUID -> switch (v) {
                    case java.util.UUID u -> u;
                    case String s -> dev.tandem.expr.Uuids.parse(s);
                    default -> throw mismatch(v, t);
                };
                case BYTEA -> switch (v) {
                    case dev.tandem.row.Bytea b -> b;
                    case String s -> dev.tandem.expr.Byteas.parse(s);
                    default -> throw mismatch(v, t);
                };
                case JSONB -> switch (v) {
                    case dev.tandem.row.Jsonb j -> j;
                    case String s -> dev.tandem.expr.Jsonbs.parse(s);
                    default -> throw mismatch(v, t);
                };
                case BOOL_ARRAY, INT64_ARRAY, FLOAT64_ARRAY, STRING_ARRAY, TIMESTAMP_ARRAY, NUMERIC_ARRAY, DATE_ARRAY, TIMESTAMPTZ_ARRAY,
                    UUID_ARRAY -> switch (v) {
                    case dev.tandem.row.DatumArray a when a.elementType() == t.element() -> a;
                    case dev.tandem.row.DatumArray a -> {
                        java.util.List<Object> out = new java.util.ArrayList<>(a.size());
                        for (Object e : a.elements()) {
                            out.add(convert(e, t.element()));
                        }
                        yield new dev.tandem.row.DatumArray(t.element(), out);
                    }
                    case String s -> dev.tandem.expr.ArrayValues.parse(s, t.element(), zone());
                    // (a value where an array must be: x = ANY($1) of a scalar)
                    default -> throw new SqlException(SqlState.WRONG_OBJECT_TYPE, "op ANY/ALL (array) requires array on right side");
                };
            };
        } catch (dev.tandem.expr.EvalError e) {
            throw SqlErrors.evaluation(e);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new SqlException(SqlException.INVALID_TEXT, "invalid input syntax for type " + pgName(t) + ": \"" + v + "\"");
        }
    }

    /** PostgreSQL's numeric input of {@code s}; {@code 22P02} when it is not a number. */
    static BigDecimal numeric(String s) {
        return (BigDecimal) convert(s, DatumType.NUMERIC);
    }

    /** {@code v} as a {@code numeric(precision, scale)} holds it: rounded to the scale, {@code 22003} when too large. */
    static BigDecimal fitNumeric(BigDecimal v, int precision, int scale) {
        if (precision < 1 || precision > 1000 || scale > precision) {
            throw new SqlException(SqlException.INVALID_PARAMETER, "NUMERIC precision " + precision + " must be between 1 and 1000"
                    + (scale > precision ? " and scale " + scale + " between 0 and precision " + precision : ""));
        }
        try {
            return dev.tandem.expr.Numerics.fit(v, precision, scale);
        } catch (dev.tandem.expr.EvalError e) {
            throw new SqlException(SqlException.OUT_OF_RANGE, e.getMessage());
        }
    }

    /** A numeric as PostgreSQL assigns it to a bigint: rounded half away from zero, {@code 22003} beyond bigint's range. */
    static long numericToBigint(BigDecimal v) {
        BigDecimal r = v.setScale(0, java.math.RoundingMode.HALF_UP);
        if (r.compareTo(BigDecimal.valueOf(Long.MIN_VALUE)) < 0 || r.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
            throw new SqlException(SqlException.OUT_OF_RANGE, "bigint out of range");
        }
        return r.longValueExact();
    }

    private static double parseDouble(String s) {
        return switch (s.toLowerCase(Locale.ROOT)) {
            case "nan" -> Double.NaN;
            case "infinity", "inf" -> Double.POSITIVE_INFINITY;
            case "-infinity", "-inf" -> Double.NEGATIVE_INFINITY;
            default -> Double.parseDouble(s);
        };
    }

    private static boolean parseBool(String s) {
        return switch (s.trim().toLowerCase(Locale.ROOT)) {
            case "t", "true", "yes", "y", "on", "1" -> true;
            case "f", "false", "no", "n", "off", "0" -> false;
            default -> throw new SqlException(SqlException.INVALID_TEXT, "invalid input syntax for type boolean: \"" + s + "\"");
        };
    }

    static Timestamp parseTimestamp(String s) {
        try {
            LocalDateTime t = LocalDateTime.from(PG_TIMESTAMP.parse(s.replace('T', ' ')));
            // to microseconds, a finer fraction rounded as PostgreSQL rounds it
            long micros = Math.round(t.getNano() / 1000.0);
            return new Timestamp(t.withNano(0).toEpochSecond(ZoneOffset.UTC) * 1_000_000L + micros);
        } catch (java.time.DateTimeException e) {
            throw new SqlException(SqlException.INVALID_TEXT, "invalid input syntax for type timestamp: \"" + s + "\"");
        }
    }

    private static SqlException mismatch(Object v, DatumType t) {
        return new SqlException(SqlException.DATATYPE_MISMATCH, "a " + describe(v) + " value cannot be a " + pgName(t));
    }

    private static String describe(Object v) {
        return switch (v) {
            case Boolean b -> "boolean";
            case Number n -> "numeric";
            case String s -> "text";
            case Timestamp t -> "timestamp";
            case java.time.LocalDate d -> "date";
            case TimestampTz ts -> "timestamp with time zone";
            case java.util.UUID u -> "uuid";
            case dev.tandem.row.Interval i -> "interval";
            case dev.tandem.row.Jsonb j -> "jsonb";
            case dev.tandem.row.Bytea b -> "bytea";
            case dev.tandem.row.TimeOfDay d -> "time without time zone";
            case dev.tandem.row.DatumArray a -> pgName(a.type());
            default -> v.getClass().getSimpleName();
        };
    }

    /** A datum in PostgreSQL's text output format ({@code t}/{@code f}, {@code 2} for 2.0, {@code 2024-01-02 03:04:05}). */
    static String text(Object v) {
        return text(v, ZoneOffset.UTC);
    }

    /** A datum in PostgreSQL's text output format, a {@code timestamptz} in the session's time zone {@code zone}. */
    static String text(Object v, java.time.ZoneId zone) {
        return switch (v) {
            case null -> null;
            case Boolean b -> b ? "t" : "f";
            case Double d -> floatText(d);
            case BigDecimal d -> d.toPlainString();
            case java.time.LocalDate d -> dev.tandem.expr.Datetimes.text(d);
            case TimestampTz ts -> dev.tandem.expr.Datetimes.text(ts, zone);
            case dev.tandem.row.Interval i -> dev.tandem.expr.Intervals.text(i);
            case dev.tandem.row.DatumArray a -> dev.tandem.expr.ArrayValues.text(a, zone);
            case Timestamp ts -> {
                LocalDateTime t = LocalDateTime.ofInstant(ts.toInstant(), ZoneOffset.UTC);
                String s = t.format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss"));
                int micros = (int) Math.floorMod(ts.micros(), 1_000_000L);
                yield micros == 0 ? s : s + "." + String.format("%06d", micros).replaceAll("0+$", "");
            }
            default -> v.toString();
        };
    }

    /**
     * A double as PostgreSQL 15 prints it: the shortest digits that read back as the same double, in plain
     * notation when the decimal exponent is from -4 to 14 ({@code 0.0005}, {@code 12345678.5}), else as
     * {@code 1.5e-07}, {@code 1e+20} (at least two exponent digits).
     */
    static String floatText(double d) {
        return dev.tandem.expr.ArrayValues.floatText(d);
    }
}
