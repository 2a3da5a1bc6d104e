package dev.tandem.row;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Tuple;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/** The JSON mapping of datums and rows (DESIGN §3). */
class RowJsonTest {

    static final JsonMapper JSON = JsonMapper.builder().build();
    static final Schema ALL = new Schema(List.of(new Column("b", DatumType.BOOL, true), new Column("i", DatumType.INT64, true),
            new Column("f", DatumType.FLOAT64, true), new Column("s", DatumType.STRING, true), new Column("t", DatumType.TIMESTAMP, true)));

    @Test
    void int64BeyondTwoToThe53IsAStringAndNonFiniteFloatsAreNamed() {
        Row r = Row.pack(ALL.types(), Arrays.asList(true, (1L << 53) + 1, Double.NaN, "é", new Timestamp(1_700_000_000_123_456L)));
        assertThat(RowJson.json(r).toString()).isEqualTo("[true,\"9007199254740993\",\"NaN\",\"é\",\"2023-11-14T22:13:20.123456Z\"]");
        assertThat(RowJson.json(Row.of(1L << 53, Double.NEGATIVE_INFINITY)).toString()).isEqualTo("[9007199254740992,\"-Infinity\"]");
        assertThat(RowJson.row(JSON.readTree("[null,\"-9007199254740993\",\"Infinity\",null,null]"), ALL))
                .isEqualTo(Row.pack(ALL.types(), Arrays.asList(null, -(1L << 53) - 1, Double.POSITIVE_INFINITY, null, null)));
    }

    @Test
    void numericsAreStringsOfTheirExactDigits() {
        Schema n = new Schema(List.of(new Column("a", DatumType.NUMERIC, true), new Column("b", DatumType.NUMERIC, true)));
        Row r = Row.pack(n.types(), Arrays.asList(new java.math.BigDecimal("1.50"), new java.math.BigDecimal("-123456789012345678901234.000001")));
        assertThat(RowJson.json(r).toString()).isEqualTo("[\"1.50\",\"-123456789012345678901234.000001\"]");
        dev.tandem.json.JsonBytes out = new dev.tandem.json.JsonBytes(16);
        RowJson.write(r, out);
        assertThat(new String(out.toByteArray(), java.nio.charset.StandardCharsets.UTF_8)).isEqualTo(RowJson.json(r).toString());
        assertThat(RowJson.row(JSON.readTree("[\"1.50\",\"-123456789012345678901234.000001\"]"), n)).isEqualTo(r);
        assertThat(RowJson.row(JSON.readTree("[\" 2.250\",12345678901234567890123]"), n))
                .isEqualTo(Row.pack(n.types(), Arrays.asList(new java.math.BigDecimal("2.250"), new java.math.BigDecimal("12345678901234567890123"))));
        assertThatThrownBy(() -> RowJson.row(JSON.readTree("[2.5,null]"), n)).hasMessageContaining("a numeric is a JSON string of its digits");
        assertThatThrownBy(() -> RowJson.row(JSON.readTree("[\"x\",null]"), n)).hasMessage("column 'a': expected numeric, got string 'x'");
    }

    @Test
    void badValuesAreNamedPrecisely() {
        assertThatThrownBy(() -> RowJson.row(JSON.readTree("[true,1.5,0,\"x\",null]"), ALL)).hasMessage("column 'i': expected int64, got number 1.5");
        assertThatThrownBy(() -> RowJson.row(JSON.readTree("[true,1]"), ALL)).hasMessage("expected 5 values, got 2");
        assertThatThrownBy(() -> RowJson.row(JSON.readTree("[true,1,0,\"x\",\"yesterday\"]"), ALL))
                .hasMessage("column 't': not an ISO-8601 timestamp: 'yesterday'");
        Schema strict = new Schema(List.of(new Column("k", DatumType.INT64, false)));
        assertThatThrownBy(() -> RowJson.row(JSON.readTree("[null]"), strict)).hasMessage("column 'k' is not nullable");
    }

    @Property(tries = 500)
    void rowsRoundTripThroughJson(@ForAll("rowPairs") Tuple.Tuple3<List<DatumType>, List<Object>, List<Object>> pair) {
        Row row = Row.pack(pair.get1(), pair.get2());
        Row back = RowJson.row(JSON.readTree(RowJson.json(row).toString()), Schema.ofTypes(pair.get1()));
        assertThat(back).isEqualTo(row);
    }

    @net.jqwik.api.Provide
    net.jqwik.api.Arbitrary<Tuple.Tuple3<List<DatumType>, List<Object>, List<Object>>> rowPairs() {
        return new RowEncodingProperties().rowPairs();
    }
}
