package dev.tandem.expr;

import static dev.tandem.expr.Expr.call;
import static dev.tandem.expr.Expr.cast;
import static dev.tandem.expr.Expr.col;
import static dev.tandem.expr.Expr.lit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tandem.row.DatumType;
import dev.tandem.row.Timestamp;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

class ExprSemanticsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Expr T = lit(true, DatumType.BOOL);
    private static final Expr F = lit(false, DatumType.BOOL);
    private static final Expr N = lit(null, DatumType.BOOL);

    private static Object eval(Expr e, Object... row) {
        return e.eval(row);
    }

    private static Expr i(long v) {
        return lit(v, DatumType.INT64);
    }

    private static Expr s(String v) {
        return lit(v, DatumType.STRING);
    }

    private static Expr parse(String json) {
        return ExprJson.parse(JSON.readTree(json), "");
    }

    @Test
    void andOrNotFollowSqlThreeValuedLogic() {
        Expr[] vals = {T, F, N};
        Boolean[] b = {true, false, null};
        for (int x = 0; x < 3; x++) {
            for (int y = 0; y < 3; y++) {
                Boolean and = (b[x] == Boolean.FALSE || b[y] == Boolean.FALSE) ? Boolean.FALSE : (b[x] == null || b[y] == null) ? null : Boolean.TRUE;
                Boolean or = (b[x] == Boolean.TRUE || b[y] == Boolean.TRUE) ? Boolean.TRUE : (b[x] == null || b[y] == null) ? null : Boolean.FALSE;
                assertThat(eval(call(Func.AND, vals[x], vals[y]))).as("%s and %s", b[x], b[y]).isEqualTo(and);
                assertThat(eval(call(Func.OR, vals[x], vals[y]))).as("%s or %s", b[x], b[y]).isEqualTo(or);
            }
            assertThat(eval(call(Func.NOT, vals[x]))).isEqualTo(b[x] == null ? null : !b[x]);
        }
    }

    @Test
    void andOrStopAtTheDecidingValue() {
        Expr boom = call(Func.EQ, call(Func.DIV, i(1), i(0)), i(1));
        assertThat(eval(call(Func.AND, F, boom))).isEqualTo(false);
        assertThat(eval(call(Func.OR, T, boom))).isEqualTo(true);
        assertThatThrownBy(() -> eval(call(Func.AND, T, boom))).isInstanceOf(EvalError.class);
    }

    @Test
    void nullPropagatesThroughComparisonsArithmeticAndStrings() {
        Expr nullInt = lit(null, DatumType.INT64);
        for (Func f : List.of(Func.EQ, Func.NEQ, Func.LT, Func.LTE, Func.GT, Func.GTE, Func.ADD, Func.SUB, Func.MUL, Func.DIV, Func.MOD)) {
            assertThat(eval(call(f, nullInt, i(1)))).as(f.jsonName()).isNull();
            assertThat(eval(call(f, i(1), nullInt))).as(f.jsonName()).isNull();
        }
        assertThat(eval(call(Func.DIV, i(1), nullInt))).isNull();
        assertThat(eval(call(Func.NEG, nullInt))).isNull();
        assertThat(eval(call(Func.CONCAT, s("a"), lit(null, DatumType.STRING)))).isNull();
        assertThat(eval(call(Func.LENGTH, lit(null, DatumType.STRING)))).isNull();
        assertThat(eval(cast(nullInt, DatumType.STRING))).isNull();
    }

    @Test
    void isNullCoalesceAndIfHandleNull() {
        assertThat(eval(call(Func.IS_NULL, col(0)), (Object) null)).isEqualTo(true);
        assertThat(eval(call(Func.IS_NULL, col(0)), 3L)).isEqualTo(false);
        assertThat(eval(call(Func.COALESCE, col(0), col(1), i(9)), null, 4L)).isEqualTo(4L);
        assertThat(eval(call(Func.COALESCE, col(0), col(1)), null, null)).isNull();
        assertThat(eval(call(Func.COALESCE, i(1), call(Func.DIV, i(1), i(0))))).isEqualTo(1L);
        assertThat(eval(call(Func.IF, N, i(1), i(2)))).isEqualTo(2L);
        assertThat(eval(call(Func.IF, T, i(1), call(Func.DIV, i(1), i(0))))).isEqualTo(1L);
        assertThat(eval(call(Func.IF, F, call(Func.DIV, i(1), i(0)), i(2)))).isEqualTo(2L);
    }

    @Test
    void comparisonsUseTheDatumOrder() {
        assertThat(eval(call(Func.LT, s("Z"), s("a")))).isEqualTo(true);
        assertThat(eval(call(Func.LT, s("\uFFFF"), s("\uD83D\uDE00")))).as("code point order, not UTF-16").isEqualTo(true);
        assertThat(eval(call(Func.LT, F, T))).isEqualTo(true);
        assertThat(eval(call(Func.EQ, lit(Double.NaN, DatumType.FLOAT64), lit(Double.NaN, DatumType.FLOAT64)))).isEqualTo(true);
        assertThat(eval(call(Func.GT, lit(Double.NaN, DatumType.FLOAT64), lit(Double.POSITIVE_INFINITY, DatumType.FLOAT64)))).isEqualTo(true);
        // PostgreSQL's float8: -0 = 0 (neither is before the other), NaN above every other value
        assertThat(eval(call(Func.EQ, lit(-0.0, DatumType.FLOAT64), lit(0.0, DatumType.FLOAT64)))).isEqualTo(true);
        assertThat(eval(call(Func.NEQ, lit(0.0, DatumType.FLOAT64), lit(-0.0, DatumType.FLOAT64)))).isEqualTo(false);
        assertThat(eval(call(Func.LT, lit(-0.0, DatumType.FLOAT64), lit(0.0, DatumType.FLOAT64)))).isEqualTo(false);
        assertThat(eval(call(Func.GTE, lit(-0.0, DatumType.FLOAT64), lit(0.0, DatumType.FLOAT64)))).isEqualTo(true);
        assertThat(eval(call(Func.LT, lit(-Double.MIN_VALUE, DatumType.FLOAT64), lit(-0.0, DatumType.FLOAT64)))).isEqualTo(true);
        assertThat(eval(call(Func.LT, lit(Double.POSITIVE_INFINITY, DatumType.FLOAT64), lit(Double.NaN, DatumType.FLOAT64)))).isEqualTo(true);
        assertThat(eval(call(Func.LT, lit(new Timestamp(1), DatumType.TIMESTAMP), lit(new Timestamp(2), DatumType.TIMESTAMP)))).isEqualTo(true);
        assertThat(eval(call(Func.GTE, i(-1), i(-1)))).isEqualTo(true);
    }

    @Test
    void arithmeticErrorsAreEvalErrors() {
        assertThatThrownBy(() -> eval(call(Func.DIV, i(1), i(0)))).isInstanceOf(EvalError.class).hasMessage("division by zero");
        assertThatThrownBy(() -> eval(call(Func.MOD, i(1), i(0)))).isInstanceOf(EvalError.class).hasMessageContaining("division by zero");
        assertThatThrownBy(() -> eval(call(Func.DIV, lit(1.0, DatumType.FLOAT64), lit(0.0, DatumType.FLOAT64)))).isInstanceOf(EvalError.class);
        assertThatThrownBy(() -> eval(call(Func.ADD, i(Long.MAX_VALUE), i(1)))).isInstanceOf(EvalError.class).hasMessage("int64 overflow in add");
        assertThatThrownBy(() -> eval(call(Func.SUB, i(Long.MIN_VALUE), i(1)))).isInstanceOf(EvalError.class);
        assertThatThrownBy(() -> eval(call(Func.MUL, i(1L << 32), i(1L << 31)))).isInstanceOf(EvalError.class);
        assertThatThrownBy(() -> eval(call(Func.DIV, i(Long.MIN_VALUE), i(-1)))).isInstanceOf(EvalError.class);
        assertThatThrownBy(() -> eval(call(Func.NEG, i(Long.MIN_VALUE)))).isInstanceOf(EvalError.class);
        assertThatThrownBy(() -> eval(call(Func.ABS, i(Long.MIN_VALUE)))).isInstanceOf(EvalError.class);
        assertThat(new EvalError(EvalError.Code.DATA_EXCEPTION, "x").getStackTrace()).isEmpty();
    }

    @Test
    void arithmeticKeepsItsType() {
        assertThat(eval(call(Func.SUB, i(0), i(-2)))).isEqualTo(2L);
        assertThat(eval(call(Func.NEG, i(3)))).isEqualTo(-3L);
        assertThat(eval(call(Func.ABS, i(-3)))).isEqualTo(3L);
        assertThat(eval(call(Func.DIV, i(-7), i(2)))).isEqualTo(-3L);
        assertThat(eval(call(Func.MOD, i(-7), i(2)))).isEqualTo(-1L);
        assertThat(eval(call(Func.MUL, lit(1.5, DatumType.FLOAT64), lit(2.0, DatumType.FLOAT64)))).isEqualTo(3.0);
        assertThat(eval(call(Func.ABS, lit(-1.5, DatumType.FLOAT64)))).isEqualTo(1.5);
    }

    @Test
    void stringFunctions() {
        assertThat(eval(call(Func.CONCAT, s("a"), s("b"), s("c")))).isEqualTo("abc");
        assertThat(eval(call(Func.LOWER, s("AbÇ")))).isEqualTo("abç");
        assertThat(eval(call(Func.UPPER, s("i")))).isEqualTo("I");
        assertThat(eval(call(Func.LENGTH, s("a\uD83D\uDE00b")))).isEqualTo(3L);
        assertThat(eval(call(Func.SUBSTR, s("hello"), i(2), i(3)))).isEqualTo("ell");
        assertThat(eval(call(Func.SUBSTR, s("hello"), i(2)))).isEqualTo("ello");
        assertThat(eval(call(Func.SUBSTR, s("hello"), i(0), i(2)))).as("positions 0 and 1; only 1 exists").isEqualTo("h");
        assertThat(eval(call(Func.SUBSTR, s("hello"), i(-5), i(3)))).isEqualTo("");
        assertThat(eval(call(Func.SUBSTR, s("hello"), i(9)))).isEqualTo("");
        assertThat(eval(call(Func.SUBSTR, s("a\uD83D\uDE00b"), i(2), i(1)))).isEqualTo("\uD83D\uDE00");
        assertThat(eval(call(Func.SUBSTR, s("hello"), i(2), i(Long.MAX_VALUE)))).isEqualTo("ello");
        assertThatThrownBy(() -> eval(call(Func.SUBSTR, s("hello"), i(1), i(-1)))).isInstanceOf(EvalError.class);
    }

    @Test
    void like() {
        assertThat(eval(call(Func.LIKE, s("abc"), s("a%")))).isEqualTo(true);
        assertThat(eval(call(Func.LIKE, s("abc"), s("_b_")))).isEqualTo(true);
        assertThat(eval(call(Func.LIKE, s("abc"), s("%b")))).isEqualTo(false);
        assertThat(eval(call(Func.LIKE, s(""), s("%")))).isEqualTo(true);
        assertThat(eval(call(Func.LIKE, s("a\uD83D\uDE00b"), s("a_b")))).as("_ is one code point").isEqualTo(true);
        assertThat(eval(call(Func.LIKE, s("a%c"), s("a\\%c")))).as("\\ escapes by default").isEqualTo(true);
        assertThat(eval(call(Func.LIKE, s("abc"), s("a\\%c")))).isEqualTo(false);
        assertThat(eval(call(Func.LIKE, s("a%c"), s("a#%c"), s("#")))).isEqualTo(true);
        assertThat(eval(call(Func.LIKE, s("a\\c"), s("a\\c"), s("")))).as("an empty escape: \\ is literal").isEqualTo(true);
        assertThat(eval(call(Func.LIKE, s("a\\c"), s("a\\c"), s("#")))).isEqualTo(true);
        assertThat(eval(call(Func.LIKE, s("ab"), s("ab\\")))).as("the trailing escape is not reached").isEqualTo(false);
        assertThatThrownBy(() -> eval(call(Func.LIKE, s("ab\\"), s("ab\\")))).isInstanceOf(EvalError.class)
                .hasMessage("LIKE pattern must not end with escape character");
        assertThatThrownBy(() -> eval(call(Func.LIKE, s("a"), s("a"), s("xy")))).isInstanceOf(EvalError.class)
                .hasMessageContaining("invalid escape string");
        assertThat(eval(call(Func.LIKE, lit(null, DatumType.STRING), s("a")))).isNull();
        assertThat(eval(call(Func.LIKE, s("a"), lit(null, DatumType.STRING)))).isNull();
        assertThat(eval(call(Func.LIKE, s("a"), s("a"), lit(null, DatumType.STRING)))).isNull();
        assertThat(eval(call(Func.ILIKE, s("ÀbC"), s("àB%")))).isEqualTo(true);
        assertThat(eval(call(Func.LIKE, s("ÀbC"), s("àB%")))).isEqualTo(false);
        assertThatThrownBy(() -> call(Func.LIKE, s("a"), i(1)).typeOf(List.of(), "e"))
                .hasMessage("e.args[1]: function 'like' needs string, got int64");
    }

    @Test
    void casts() {
        assertThat(eval(cast(i(42), DatumType.STRING))).isEqualTo("42");
        for (Expr same : List.of(T, i(4), s("x"), lit(1.5, DatumType.FLOAT64), lit(new Timestamp(3), DatumType.TIMESTAMP))) {
            assertThat(eval(cast(same, same.typeOf(List.of())))).isEqualTo(eval(same));
        }
        assertThat(eval(cast(s(" 42 "), DatumType.INT64))).isEqualTo(42L);
        assertThat(eval(cast(s("2.5"), DatumType.FLOAT64))).isEqualTo(2.5);
        assertThat(eval(cast(s("T"), DatumType.BOOL))).isEqualTo(true);
        assertThat(eval(cast(T, DatumType.INT64))).isEqualTo(1L);
        assertThat(eval(cast(i(0), DatumType.BOOL))).isEqualTo(false);
        assertThat(eval(cast(i(3), DatumType.FLOAT64))).isEqualTo(3.0);
        assertThat(eval(cast(lit(2.5, DatumType.FLOAT64), DatumType.INT64))).isEqualTo(3L);
        assertThat(eval(cast(lit(-2.5, DatumType.FLOAT64), DatumType.INT64))).isEqualTo(-3L);
        assertThat(eval(cast(i(5), DatumType.TIMESTAMP))).isEqualTo(new Timestamp(5));
        assertThat(eval(cast(s("1970-01-01T00:00:01Z"), DatumType.TIMESTAMP))).isEqualTo(new Timestamp(1_000_000));
        assertThat(eval(cast(lit(new Timestamp(1_000_000), DatumType.TIMESTAMP), DatumType.STRING))).isEqualTo("1970-01-01T00:00:01Z");
        assertThatThrownBy(() -> eval(cast(s("4x"), DatumType.INT64))).isInstanceOf(EvalError.class).hasMessage("cannot cast string '4x' to int64");
        assertThatThrownBy(() -> eval(cast(s("1.5d"), DatumType.FLOAT64))).isInstanceOf(EvalError.class);
        assertThatThrownBy(() -> eval(cast(s("maybe"), DatumType.BOOL))).isInstanceOf(EvalError.class);
        assertThatThrownBy(() -> eval(cast(s("yesterday"), DatumType.TIMESTAMP))).isInstanceOf(EvalError.class);
        assertThatThrownBy(() -> eval(cast(lit(1e19, DatumType.FLOAT64), DatumType.INT64))).isInstanceOf(EvalError.class);
        assertThatThrownBy(() -> eval(cast(lit(Double.NaN, DatumType.FLOAT64), DatumType.INT64))).isInstanceOf(EvalError.class);
    }

    @Test
    void typeCheckingComputesResultTypes() {
        List<DatumType> in = List.of(DatumType.INT64, DatumType.STRING, DatumType.BOOL);
        assertThat(call(Func.ADD, col(0), i(1)).typeOf(in)).isEqualTo(DatumType.INT64);
        assertThat(call(Func.LENGTH, col(1)).typeOf(in)).isEqualTo(DatumType.INT64);
        assertThat(call(Func.IF, col(2), col(1), s("x")).typeOf(in)).isEqualTo(DatumType.STRING);
        assertThat(cast(col(0), DatumType.FLOAT64).typeOf(in)).isEqualTo(DatumType.FLOAT64);
        assertThat(call(Func.IS_NULL, col(1)).typeOf(in)).isEqualTo(DatumType.BOOL);
    }

    @Test
    void typeErrorsSayWhereAndWhy() {
        List<DatumType> in = List.of(DatumType.INT64, DatumType.STRING);
        assertThatThrownBy(() -> call(Func.ADD, col(0), col(1)).typeOf(in, "filter[0]"))
                .isInstanceOf(ExprException.class)
                .hasMessage("filter[0].args[1]: function 'add' needs arguments of one type: string does not match int64");
        assertThatThrownBy(() -> call(Func.AND, T, call(Func.NOT, col(0))).typeOf(in, "p"))
                .hasMessage("p.args[1].args[0]: function 'not' needs bool, got int64");
        assertThatThrownBy(() -> col(5).typeOf(in, "map[1]"))
                .hasMessage("map[1]: column 5 does not exist; the input has 2 columns");
        assertThatThrownBy(() -> call(Func.SUBSTR, col(1)).typeOf(in, ""))
                .hasMessage("function 'substr' takes 2 to 3 arguments, got 1");
        assertThatThrownBy(() -> cast(T, DatumType.TIMESTAMP).typeOf(in, "e"))
                .hasMessage("e: cannot cast bool to timestamp");
        assertThatThrownBy(() -> call(Func.CONCAT, s("a"), col(0)).typeOf(in, "e"))
                .hasMessage("e.args[1]: function 'concat' needs string, got int64");
        assertThatThrownBy(() -> call(Func.NEG, col(1)).typeOf(in, "e"))
                .hasMessage("e.args[0]: function 'neg' needs int64, float64 or numeric, got string");
    }

    @Test
    void jsonFormsParse() {
        assertThat(parse("{\"col\": 2}")).isEqualTo(col(2));
        assertThat(parse("{\"lit\": true}")).isEqualTo(T);
        assertThat(parse("{\"lit\": 7}")).isEqualTo(i(7));
        assertThat(parse("{\"lit\": 7.5}")).isEqualTo(lit(7.5, DatumType.FLOAT64));
        assertThat(parse("{\"lit\": \"x\"}")).isEqualTo(s("x"));
        assertThat(parse("{\"lit\": 7, \"type\": \"float64\"}")).isEqualTo(lit(7.0, DatumType.FLOAT64));
        assertThat(parse("{\"lit\": null, \"type\": \"string\"}")).isEqualTo(lit(null, DatumType.STRING));
        assertThat(parse("{\"lit\": \"2024-01-02T03:04:05Z\", \"type\": \"timestamp\"}")).isEqualTo(lit(Timestamp.parse("2024-01-02T03:04:05Z"), DatumType.TIMESTAMP));
        assertThat(parse("{\"lit\": \"9007199254740993\", \"type\": \"int64\"}")).isEqualTo(i(9007199254740993L));
        assertThat(parse("{\"call\": \"add\", \"args\": [{\"col\": 0}, {\"lit\": 1}]}")).isEqualTo(call(Func.ADD, col(0), i(1)));
        assertThat(parse("{\"call\": \"cast\", \"args\": [{\"col\": 0}], \"type\": \"string\"}")).isEqualTo(cast(col(0), DatumType.STRING));
    }

    @Test
    void jsonErrorsCarryThePath() {
        assertThatThrownBy(() -> ExprJson.parse(JSON.readTree("{\"call\":\"and\",\"args\":[{\"lit\":true},{\"call\":\"foo\",\"args\":[]}]}"), "filter[0]"))
                .isInstanceOf(ExprException.class).hasMessage("filter[0].args[1]: unknown function 'foo'");
        assertThatThrownBy(() -> parse("{\"lit\": null}")).hasMessage("a null literal needs a \"type\"");
        assertThatThrownBy(() -> parse("{\"lit\": \"x\", \"type\": \"int64\"}")).hasMessageStartingWith("lit: expected int64");
        assertThatThrownBy(() -> parse("{\"lit\": 1, \"type\": \"decimal\"}")).hasMessageStartingWith("type: unknown type 'decimal'");
        assertThatThrownBy(() -> parse("{\"col\": -1}")).hasMessageStartingWith("col: expected a non-negative integer");
        assertThatThrownBy(() -> parse("{\"col\": 1, \"lit\": 2}")).hasMessageStartingWith("unknown field 'lit'");
        assertThatThrownBy(() -> parse("{\"call\": \"cast\", \"args\": [{\"col\": 0}]}")).hasMessage("a cast needs a target \"type\"");
        assertThatThrownBy(() -> parse("{\"call\": \"add\", \"args\": [{\"col\": 0}], \"type\": \"int64\"}")).hasMessage("type: only a cast or an error takes a \"type\"");
        assertThatThrownBy(() -> parse("{\"call\": \"add\", \"args\": {}}")).hasMessageStartingWith("args: expected an array");
        assertThatThrownBy(() -> parse("[1]")).hasMessageStartingWith("expected an expression object");
    }

    @Test
    void writeEmitsTheDocumentedForms() {
        JsonNode n = ExprJson.write(call(Func.ADD, col(0), i(1)));
        assertThat(n.toString()).isEqualTo("{\"call\":\"add\",\"args\":[{\"col\":0},{\"lit\":1,\"type\":\"int64\"}]}");
        assertThat(ExprJson.write(cast(col(0), DatumType.STRING)).toString())
                .isEqualTo("{\"call\":\"cast\",\"args\":[{\"col\":0}],\"type\":\"string\"}");
        assertThat(ExprJson.write(lit(Double.NaN, DatumType.FLOAT64)).toString()).isEqualTo("{\"lit\":\"NaN\",\"type\":\"float64\"}");
        assertThat(Arrays.asList(Func.values())).allSatisfy(f -> assertThat(Func.fromJson(f.jsonName())).isEqualTo(f));
    }
}
