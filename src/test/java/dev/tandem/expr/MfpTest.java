package dev.tandem.expr;

import static dev.tandem.expr.Expr.call;
import static dev.tandem.expr.Expr.col;
import static dev.tandem.expr.Expr.lit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.ObjectMapper;

class MfpTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<DatumType> IN = List.of(DatumType.INT64, DatumType.INT64, DatumType.STRING);

    private static Row row(Object... v) {
        return Row.pack(IN, Arrays.asList(v));
    }

    @Test
    void mapAppendsFilterKeepsTrueProjectPicks() {
        Mfp mfp = new Mfp(
                List.of(call(Func.ADD, col(0), col(1)), call(Func.MUL, col(3), lit(10L, DatumType.INT64))),
                List.of(call(Func.GT, col(3), lit(2L, DatumType.INT64))),
                List.of(4, 2));
        MfpEvaluator ev = mfp.bind(IN);
        assertThat(ev.outputTypes()).containsExactly(DatumType.INT64, DatumType.STRING);
        assertThat(ev.apply(row(1L, 2L, "a"))).isEqualTo(Row.of(30L, "a"));
        assertThat(ev.apply(row(1L, 1L, "a"))).isNull();
        assertThat(ev.apply(row(null, 5L, "b"))).as("NULL predicate counts as false").isNull();
        assertThat(mfp.apply(row(2L, 2L, "c"))).isEqualTo(Row.of(40L, "c"));
    }

    @Test
    void identityAndMapWithoutProjectKeepAllColumns() {
        assertThat(Mfp.identity().bind(IN).apply(row(1L, null, "x"))).isEqualTo(row(1L, null, "x"));
        Mfp m = new Mfp(List.of(lit(null, DatumType.BOOL)), List.of(), null);
        assertThat(m.bind(IN).apply(row(1L, 2L, "x")))
                .isEqualTo(Row.pack(List.of(DatumType.INT64, DatumType.INT64, DatumType.STRING, DatumType.BOOL), Arrays.asList(1L, 2L, "x", null)));
    }

    @Test
    void predicatesRunBeforeTheMapsTheyDoNotNeed() {
        Mfp m = new Mfp(List.of(call(Func.DIV, col(0), col(1))), List.of(call(Func.NEQ, col(1), lit(0L, DatumType.INT64))), List.of(3));
        MfpEvaluator ev = m.bind(IN);
        assertThat(ev.apply(row(6L, 0L, "x"))).isNull();
        assertThat(ev.apply(row(6L, 3L, "x"))).isEqualTo(Row.of(2L));
        Mfp late = new Mfp(List.of(call(Func.DIV, col(0), col(1))), List.of(call(Func.GT, col(3), lit(0L, DatumType.INT64))), null);
        assertThatThrownBy(() -> late.bind(IN).apply(row(6L, 0L, "x"))).isInstanceOf(EvalError.class).hasMessage("division by zero");
    }

    /**
     * Without maps, a projection copies the input's encoded datums: the same row as decoding and packing
     * the values would give, for every type, NULLs, repeated and reordered columns, with and without a filter.
     */
    @Test
    void aProjectionWithoutMapsGivesTheRowPackingWouldGive() {
        List<DatumType> types = List.of(DatumType.INT64, DatumType.STRING, DatumType.FLOAT64, DatumType.NUMERIC, DatumType.TIMESTAMPTZ,
                DatumType.BOOL, DatumType.DATE);
        List<List<Object>> rows = List.of(
                Arrays.asList(-7L, "a\u00e9", 1.5, new java.math.BigDecimal("12.340"), new dev.tandem.row.TimestampTz(1_700_000_000_000_000L), true,
                        java.time.LocalDate.of(2024, 2, 29)),
                Arrays.asList(Long.MIN_VALUE, "", -0.0, new java.math.BigDecimal("-1000.5"), null, false, null),
                Arrays.asList(null, null, null, null, null, null, null));
        List<List<Integer>> projections = List.of(List.of(0), List.of(6, 0, 3), List.of(1, 1, 2, 5), List.of(4, 3, 2, 1, 0, 6, 5));
        for (List<Object> values : rows) {
            Row row = Row.pack(types, values);
            for (List<Integer> columns : projections) {
                for (List<Expr> filter : List.of(List.<Expr>of(), List.<Expr>of(call(Func.IS_NULL, col(0))))) {
                    MfpEvaluator ev = new Mfp(List.of(), filter, columns).bind(types);
                    Row packed = ev.apply(row.unpack());
                    assertThat(ev.apply(row)).as("%s %s %s", values, columns, filter).isEqualTo(packed);
                    if (packed != null) {
                        assertThat(ev.apply(row).byteSize()).isEqualTo(packed.byteSize());
                    }
                }
            }
            assertThat(Mfp.identity().bind(types).apply(row)).isEqualTo(Mfp.identity().bind(types).apply(row.unpack()));
        }
    }

    @Test
    void typeErrorsNameTheFailingPart() {
        assertThatThrownBy(() -> new Mfp(List.of(), List.of(col(0)), null).outputTypes(IN, "plan"))
                .isInstanceOf(ExprException.class).hasMessage("plan.filter[0]: a filter predicate must be bool, got int64");
        assertThatThrownBy(() -> Mfp.project(List.of(0, 3)).outputTypes(IN, ""))
                .hasMessage("project[1]: column 3 does not exist; there are 3 columns");
        assertThatThrownBy(() -> new Mfp(List.of(col(0), col(4)), List.of(), null).outputTypes(IN, ""))
                .hasMessage("map[1]: column 4 does not exist; the input has 4 columns");
    }

    @Test
    void jsonRoundTrip() {
        String text = "{\"map\":[{\"call\":\"add\",\"args\":[{\"col\":0},{\"lit\":1,\"type\":\"int64\"}]}],"
                + "\"filter\":[{\"call\":\"is_null\",\"args\":[{\"col\":2}]}],\"project\":[3,0]}";
        Mfp m = ExprJson.parseMfp(JSON.readTree(text), "");
        assertThat(m.map()).hasSize(1);
        assertThat(m.project()).containsExactly(3, 0);
        assertThat(ExprJson.writeMfp(m).toString()).isEqualTo(text);
        assertThat(ExprJson.parseMfp(JSON.readTree("{}"), "")).isEqualTo(Mfp.identity());
        assertThatThrownBy(() -> ExprJson.parseMfp(JSON.readTree("{\"filter\":[{\"call\":\"x\"}]}"), ""))
                .hasMessage("filter[0]: unknown function 'x'");
        assertThatThrownBy(() -> ExprJson.parseMfp(JSON.readTree("{\"project\":[0,\"a\"]}"), ""))
                .hasMessageStartingWith("project[1]: expected a non-negative integer");
    }
}
