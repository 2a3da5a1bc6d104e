package dev.tandem.row;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/** Round-trip and order of the packed row encoding agree with the datum order, for every type. */
class RowEncodingProperties {

    /** A datum value with its type; null values are NULLs of that type. */
    record Typed(DatumType type, Object value) {
    }

    static Arbitrary<Object> valuesOf(DatumType type) {
        Arbitrary<Object> v = switch (type) {
            case BOOL -> Arbitraries.of(true, false).map(b -> (Object) b);
            case INT64 -> Arbitraries.oneOf(Arbitraries.longs(), Arbitraries.of(Long.MIN_VALUE, Long.MAX_VALUE, 0L, -1L, 1L << 53, -(1L << 53) - 1)).map(l -> (Object) l);
            case FLOAT64 -> Arbitraries.oneOf(Arbitraries.doubles(),
                    Arbitraries.of(Double.NaN, -0.0, 0.0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.MIN_VALUE, -Double.MAX_VALUE))
                    .map(d -> (Object) d);
            case STRING -> Arbitraries.oneOf(Arbitraries.strings().all().ofMaxLength(12).filter(RowEncodingProperties::wellFormed), Arbitraries.of("", "\u0000", "a\u0000b", "é", "日本", "\uD83D\uDE00"))
                    .map(s -> (Object) s);
            case TIMESTAMP -> Arbitraries.longs().between(-62_135_596_800_000_000L, 253_402_300_799_000_000L).map(m -> (Object) new Timestamp(m));
            case DATE -> Arbitraries.oneOf(Arbitraries.longs().between(-719_162L, 2_932_896L),
                    Arbitraries.of(-1L, 0L, 1L, 19_724L)).map(d -> (Object) java.time.LocalDate.ofEpochDay(d));
            case TIMESTAMPTZ -> Arbitraries.oneOf(Arbitraries.longs().between(-62_135_596_800_000_000L, 253_402_300_799_000_000L),
                    Arbitraries.of(-1L, 0L, 1L)).map(m -> (Object) new TimestampTz(m));
            case INTERVAL -> Combinators.combine(
                    Arbitraries.oneOf(Arbitraries.integers(), Arbitraries.of(0, 1, -1, Integer.MIN_VALUE, Integer.MAX_VALUE)),
                    Arbitraries.oneOf(Arbitraries.integers().between(-100, 100), Arbitraries.of(0, 30, -30, Integer.MIN_VALUE, Integer.MAX_VALUE)),
                    Arbitraries.oneOf(Arbitraries.longs(), Arbitraries.of(0L, Interval.MICROS_PER_DAY, -Interval.MICROS_PER_DAY, Long.MIN_VALUE, Long.MAX_VALUE)))
                    .as((m, d, u) -> (Object) new Interval(m, d, u));
            case JSONB -> JsonbProperties.documents().map(j -> (Object) j);
            case BYTEA -> Arbitraries.bytes().array(byte[].class).ofMaxSize(6).map(b -> (Object) new Bytea(b));
            case TIME -> Arbitraries.oneOf(Arbitraries.longs().between(0, TimeOfDay.MICROS_PER_DAY),
                    Arbitraries.of(0L, 1L, TimeOfDay.MICROS_PER_DAY)).map(m -> (Object) new TimeOfDay(m));
            case BOOL_ARRAY, INT64_ARRAY, FLOAT64_ARRAY, STRING_ARRAY, TIMESTAMP_ARRAY, NUMERIC_ARRAY, DATE_ARRAY, TIMESTAMPTZ_ARRAY, UUID_ARRAY -> valuesOf(type.element()).list().ofMaxSize(4).map(l -> (Object) new DatumArray(type.element(), l));
            case UUID -> Combinators.combine(Arbitraries.oneOf(Arbitraries.longs(), Arbitraries.of(0L, -1L, Long.MIN_VALUE, Long.MAX_VALUE)),
                    Arbitraries.oneOf(Arbitraries.longs(), Arbitraries.of(0L, -1L, Long.MIN_VALUE, Long.MAX_VALUE)))
                    .as((a, b) -> (Object) new java.util.UUID(a, b));
            case NUMERIC -> Arbitraries.oneOf(
                    Combinators.combine(Arbitraries.bigIntegers().between(java.math.BigInteger.TEN.pow(40).negate(), java.math.BigInteger.TEN.pow(40)),
                            Arbitraries.integers().between(0, 30)).as((u, s) -> (Object) new java.math.BigDecimal(u, s)),
                    Arbitraries.of(new java.math.BigDecimal("0"), new java.math.BigDecimal("0.00"), new java.math.BigDecimal("1.0"),
                            new java.math.BigDecimal("1.00"), new java.math.BigDecimal("-1"), new java.math.BigDecimal("100"),
                            new java.math.BigDecimal("0.001"), new java.math.BigDecimal("-0.0010"), new java.math.BigDecimal("99.99"))
                            .map(d -> (Object) d));
        };
        return v.injectNull(0.15);
    }

    @Provide
    Arbitrary<List<DatumType>> schemas() {
        return Arbitraries.of(DatumType.class).list().ofMinSize(0).ofMaxSize(4);
    }

    static Arbitrary<List<Object>> rowOf(List<DatumType> types) {
        List<Arbitrary<Object>> cols = new ArrayList<>();
        for (DatumType t : types) {
            cols.add(valuesOf(t));
        }
        return Combinators.combine(cols).as(ArrayList::new);
    }

    @Provide
    Arbitrary<Tuple.Tuple3<List<DatumType>, List<Object>, List<Object>>> rowPairs() {
        return schemas().flatMap(types -> Combinators.combine(rowOf(types), rowOf(types)).as((a, b) -> Tuple.of(types, a, b)));
    }

    @Property(tries = 2000)
    void roundTripsAndOrdersLikeTheDatums(@ForAll("rowPairs") Tuple.Tuple3<List<DatumType>, List<Object>, List<Object>> pair) {
        List<DatumType> types = pair.get1();
        Row a = Row.pack(types, pair.get2());
        Row b = Row.pack(types, pair.get3());

        // a float64 reads back as the value PostgreSQL's float8 equality makes it: -0.0 as 0.0
        assertThat(decoded(a)).isEqualTo(asFloat8(pair.get2()));
        assertThat(decoded(b)).isEqualTo(asFloat8(pair.get3()));
        assertThat(a.arity()).isEqualTo(types.size());
        for (int i = 0; i < types.size(); i++) {
            assertThat(a.typeAt(i)).isEqualTo(types.get(i));
        }

        int expected = Integer.signum(compareValues(pair.get2(), pair.get3()));
        assertThat(Integer.signum(a.compareTo(b))).isEqualTo(expected);
        assertThat(a.equals(b)).isEqualTo(expected == 0);
        if (expected == 0) {
            assertThat(a.hashCode()).isEqualTo(b.hashCode());
        }
    }

    /** The NULL tests read from the tags say what the decoded datums say. */
    @Property(tries = 1000)
    void nullTestsAgreeWithTheDecodedDatums(@ForAll("rowPairs") Tuple.Tuple3<List<DatumType>, List<Object>, List<Object>> pair,
            @ForAll long seed) {
        List<Object> values = pair.get2();
        Row row = Row.pack(pair.get1(), values);
        assertThat(row.hasNull()).isEqualTo(values.contains(null));
        java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
        int[] columns = random.ints(random.nextInt(values.size() + 1), 0, Math.max(1, values.size())).filter(c -> c < values.size()).toArray();
        byte[] bytes = new byte[row.byteSize() + 3];
        row.copyTo(bytes, 3);
        boolean expected = java.util.Arrays.stream(columns).anyMatch(c -> values.get(c) == null);
        assertThat(Row.anyNull(bytes, 3, bytes.length, columns)).isEqualTo(expected);
    }

    /** {@code sqlEquals} is SQL's {@code =} on the datums: equal values ({@code -0.0 = 0.0}, NaN = NaN), neither NULL. */
    @Property(tries = 1000)
    void sqlEqualsComparesDatumsAndNeverMatchesNull(@ForAll("rowPairs") Tuple.Tuple3<List<DatumType>, List<Object>, List<Object>> pair,
            @ForAll long seed) {
        List<DatumType> types = pair.get1();
        java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
        // b takes some of a's values, so equal datums are common
        List<Object> bValues = new ArrayList<>(pair.get3());
        for (int i = 0; i < types.size(); i++) {
            if (random.nextBoolean()) {
                bValues.set(i, pair.get2().get(i));
            }
        }
        Row a = Row.pack(types, pair.get2());
        Row b = Row.pack(types, bValues);
        for (int i = 0; i < types.size(); i++) {
            Object x = pair.get2().get(i);
            Object y = bValues.get(i);
            assertThat(a.sqlEquals(i, b, i)).isEqualTo(x != null && y != null && asFloat8(x).equals(asFloat8(y)));
            assertThat(a.sqlEquals(i, a, i)).isEqualTo(x != null);
        }
    }

    @Property(tries = 1000)
    void orderPrefixesOrderLikeTheRowsWhereTheyDiffer(@ForAll("rowPairs") Tuple.Tuple3<List<DatumType>, List<Object>, List<Object>> pair) {
        Row a = Row.pack(pair.get1(), pair.get2());
        Row b = Row.pack(pair.get1(), pair.get3());
        if (a.orderPrefix() != b.orderPrefix()) {
            assertThat(Integer.signum(Long.compareUnsigned(a.orderPrefix(), b.orderPrefix()))).isEqualTo(Integer.signum(a.compareTo(b)));
        }
    }

    @Property(tries = 1000)
    void orderPrefixesAfterSharedBytesOrderLikeTheRowsWhereTheyDiffer(
            @ForAll("rowPairs") Tuple.Tuple3<List<DatumType>, List<Object>, List<Object>> pair) {
        Row a = Row.pack(pair.get1(), pair.get2());
        Row b = Row.pack(pair.get1(), pair.get3());
        byte[] aBytes = new byte[a.byteSize()];
        a.copyTo(aBytes, 0);
        byte[] bBytes = new byte[b.byteSize()];
        b.copyTo(bBytes, 0);
        int shared = 0;
        while (shared < aBytes.length && shared < bBytes.length && aBytes[shared] == bBytes[shared]) {
            shared++;
        }
        for (int length = 0; length <= aBytes.length; length++) {
            Row head = Row.wrap(aBytes, 0, length);
            assertThat(a.startsWith(head)).as("starts with its first %d bytes", length).isTrue();
            assertThat(b.startsWith(head)).as("b starts with a's first %d bytes", length).isEqualTo(length <= shared);
        }
        for (int skip = 0; skip <= shared; skip++) {
            long pa = a.orderPrefix(skip);
            long pb = b.orderPrefix(skip);
            if (pa != pb) {
                assertThat(Integer.signum(Long.compareUnsigned(pa, pb))).as("after %d shared bytes", skip)
                        .isEqualTo(Integer.signum(a.compareTo(b)));
            }
        }
    }

    @Property(tries = 1000)
    void hash64IsThatOfTheBytesWhateverSliceHoldsThem(@ForAll("rowPairs") Tuple.Tuple3<List<DatumType>, List<Object>, List<Object>> pair) {
        Row a = Row.pack(pair.get1(), pair.get2());
        Row b = Row.pack(pair.get1(), pair.get3());
        byte[] both = new byte[a.byteSize() + b.byteSize()];
        a.copyTo(both, 0);
        b.copyTo(both, a.byteSize());
        Row bInSlice = Row.wrap(both, a.byteSize(), b.byteSize());
        assertThat(bInSlice.hash64()).isEqualTo(b.hash64()).isEqualTo(Row.hash64(both, a.byteSize(), both.length));
        assertThat(Row.hash64(both, 0, a.byteSize())).isEqualTo(a.hash64());
        if (!a.equals(b)) {
            assertThat(a.hash64()).as("distinct rows, distinct 64-bit hashes (a collision is 2^-64 unlikely)").isNotEqualTo(b.hash64());
        }
    }

    @Property(tries = 300)
    void projectionAndConcatenationPreserveDatums(@ForAll("rowPairs") Tuple.Tuple3<List<DatumType>, List<Object>, List<Object>> pair) {
        Row a = Row.pack(pair.get1(), pair.get2());
        Row b = Row.pack(pair.get1(), pair.get3());
        List<Object> joined = new ArrayList<>(pair.get2());
        joined.addAll(pair.get3());
        assertThat(decoded(a.concat(b))).isEqualTo(asFloat8(joined));
        int n = pair.get1().size();
        int[] reversed = new int[n];
        for (int i = 0; i < n; i++) {
            reversed[i] = n - 1 - i;
        }
        List<Object> expected = asFloat8(pair.get2());
        java.util.Collections.reverse(expected);
        assertThat(decoded(a.project(reversed))).isEqualTo(expected);
    }

    @Example
    void nullSortsLastAndFloatOrderIsPostgresFloat8Order() {
        List<DatumType> f = List.of(DatumType.FLOAT64);
        List<Row> rows = new ArrayList<>();
        for (Object v : new Object[] {null, Double.NaN, Double.POSITIVE_INFINITY, 0.0, -0.0, -1.5, Double.NEGATIVE_INFINITY}) {
            rows.add(Row.pack(f, java.util.Arrays.asList(v)));
        }
        rows.sort(Comparator.naturalOrder());
        // -0.0 is 0.0 (PostgreSQL: -0 = 0), so it reads back as 0.0; NaN is above +Infinity; NULL last
        assertThat(rows.stream().map(r -> r.get(0)).toList())
                .containsExactly(Double.NEGATIVE_INFINITY, -1.5, 0.0, 0.0, Double.POSITIVE_INFINITY, Double.NaN, null);
        assertThat(Double.doubleToRawLongBits((Double) rows.get(2).get(0))).isZero();
        assertThat(Double.doubleToRawLongBits((Double) rows.get(3).get(0))).isZero();
    }

    @Example
    void negativeZeroAndZeroAreOneValueAndEveryNanIsOne() {
        List<DatumType> f = List.of(DatumType.FLOAT64, DatumType.INT64);
        Row negative = Row.pack(f, List.of(-0.0, 1L));
        Row positive = Row.pack(f, List.of(0.0, 1L));
        assertThat(negative).isEqualTo(positive);
        assertThat(negative.compareTo(positive)).isZero();
        assertThat(negative.hashCode()).isEqualTo(positive.hashCode());
        assertThat(negative.hash64()).isEqualTo(positive.hash64());
        assertThat(negative.sqlEquals(0, positive, 0)).isTrue();
        Row nan = Row.pack(f, List.of(Double.NaN, 1L));
        Row otherNan = Row.pack(f, List.of(Double.longBitsToDouble(0xfff0_0000_0000_0001L), 1L));
        Row quietNan = Row.pack(f, List.of(Double.longBitsToDouble(0x7ff8_0000_dead_beefL), 1L));
        assertThat(otherNan).isEqualTo(nan);
        assertThat(quietNan).isEqualTo(nan);
        assertThat(nan.compareTo(Row.pack(f, List.of(Double.POSITIVE_INFINITY, 1L)))).isPositive();
    }

    @Example
    void rowsLoggedWithNegativeZeroOrAnotherNanReadBackCanonical() {
        // the bytes an older packer wrote for -0.0 and for a NaN with a payload: sign-flipped IEEE bits
        for (long bits : new long[] {Double.doubleToRawLongBits(-0.0), 0xfff0_0000_0000_0001L, 0x7ff8_0000_dead_beefL}) {
            long packed = bits < 0 ? ~bits : bits ^ Long.MIN_VALUE;
            byte[] bytes = new byte[3 + 9 + 1];
            bytes[3] = DatumType.FLOAT64.tag;
            for (int i = 0; i < 8; i++) {
                bytes[4 + i] = (byte) (packed >>> (56 - 8 * i));
            }
            bytes[12] = DatumType.BOOL.nullTag();
            Row stored = Row.canonical(bytes, 3, 10);
            Object expected = Double.isNaN(Double.longBitsToDouble(bits)) ? Double.NaN : 0.0;
            assertThat(stored).isEqualTo(Row.pack(List.of(DatumType.FLOAT64, DatumType.BOOL), java.util.Arrays.asList(expected, null)));
        }
        Row plain = Row.of(1.5, 2L);
        byte[] bytes = new byte[plain.byteSize()];
        plain.copyTo(bytes, 0);
        assertThat(Row.canonical(bytes, 0, bytes.length)).isEqualTo(plain);
    }

    @Example
    void stringsWithNulCharactersStayPrefixOrdered() {
        Row a = Row.of("a", 1L);
        Row b = Row.of("a\u0000", 0L);
        Row c = Row.of("ab", 0L);
        assertThat(a).isLessThan(b);
        assertThat(b).isLessThan(c);
        assertThat(b.get(0)).isEqualTo("a\u0000");
        assertThat(b.get(1)).isEqualTo(0L);
    }

    /** The values with each float64 {@code -0.0} as {@code 0.0}, the one value PostgreSQL's float8 makes them. */
    static List<Object> asFloat8(List<Object> values) {
        List<Object> out = new ArrayList<>();
        for (Object v : values) {
            out.add(asFloat8(v));
        }
        return out;
    }

    static Object asFloat8(Object v) {
        if (v instanceof DatumArray a) {
            return new DatumArray(a.elementType(), asFloat8(a.elements()));
        }
        return v instanceof Double d && d == 0.0 ? (Object) 0.0 : v;
    }

    private static List<Object> decoded(Row r) {
        return java.util.Arrays.asList(r.unpack());
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static int compareValues(List<Object> a, List<Object> b) {
        for (int i = 0; i < a.size(); i++) {
            Object x = a.get(i);
            Object y = b.get(i);
            int c;
            if (x == null || y == null) {
                c = x == null ? (y == null ? 0 : 1) : -1;
            } else if (x instanceof String s) {
                c = java.util.Arrays.compare(s.codePoints().toArray(), ((String) y).codePoints().toArray());
            } else if (x instanceof Double d) {
                // PostgreSQL's float8 order: -0 = 0, NaN = NaN and above every other value
                double p = d;
                double q = (Double) y;
                c = Double.isNaN(p) || Double.isNaN(q) ? Boolean.compare(Double.isNaN(p), Double.isNaN(q)) : p < q ? -1 : p > q ? 1 : 0;
            } else if (x instanceof java.math.BigDecimal d) {
                // numerics by value, then one value of several scales (1.5, 1.50) by scale
                java.math.BigDecimal e = (java.math.BigDecimal) y;
                c = d.compareTo(e) != 0 ? d.compareTo(e) : Integer.compare(d.scale(), e.scale());
            } else if (x instanceof Interval iv) {
                // PostgreSQL's order of intervals: by span, a month as 30 days; one span (1 mon, 30 days) by its parts
                Interval jv = (Interval) y;
                java.math.BigInteger day = java.math.BigInteger.valueOf(Interval.MICROS_PER_DAY);
                java.math.BigInteger p = java.math.BigInteger.valueOf(iv.months() * 30L + iv.days()).multiply(day).add(java.math.BigInteger.valueOf(iv.micros()));
                java.math.BigInteger q = java.math.BigInteger.valueOf(jv.months() * 30L + jv.days()).multiply(day).add(java.math.BigInteger.valueOf(jv.micros()));
                c = p.compareTo(q) != 0 ? p.compareTo(q) : java.util.Comparator.comparingInt(Interval::months).thenComparingInt(Interval::days)
                        .thenComparingLong(Interval::micros).compare(iv, jv);
            } else if (x instanceof DatumArray xa) {
                // PostgreSQL's order of arrays: element by element (NULL last), then the shorter first
                DatumArray ya = (DatumArray) y;
                int n = Math.min(xa.size(), ya.size());
                c = compareValues(xa.elements().subList(0, n), ya.elements().subList(0, n));
                c = c != 0 ? c : Integer.compare(xa.size(), ya.size());
            } else if (x instanceof java.util.UUID u) {
                // PostgreSQL's order of uuids: their bytes unsigned, which is the order of their lower-case text
                c = u.toString().compareTo(y.toString());
            } else {
                c = ((Comparable) x).compareTo(y);
            }
            if (c != 0) {
                return c;
            }
        }
        return 0;
    }

    /** Strings without unpaired surrogates, which UTF-8 cannot carry. */
    static boolean wellFormed(String s) {
        return s.equals(new String(s.getBytes(java.nio.charset.StandardCharsets.UTF_8), java.nio.charset.StandardCharsets.UTF_8));
    }
}
