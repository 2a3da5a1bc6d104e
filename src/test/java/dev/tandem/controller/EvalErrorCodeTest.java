package dev.tandem.controller;

import static dev.tandem.expr.Expr.call;
import static dev.tandem.expr.Expr.lit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.tandem.expr.Byteas;
import dev.tandem.expr.DataError;
import dev.tandem.expr.Datetimes;
import dev.tandem.expr.EvalError;
import dev.tandem.expr.Expr;
import dev.tandem.expr.Func;
import dev.tandem.expr.Intervals;
import dev.tandem.expr.Jsonbs;
import dev.tandem.expr.Uuids;
import dev.tandem.protocol.ComputeResponse;
import dev.tandem.protocol.ProtocolJson;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import java.math.BigDecimal;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Every evaluation error keeps its code on the way to a client: each case is a real failing evaluation (so this
 * pins the code every throw site gives), and its error travels as a dataflow's error collection holds it (its
 * row) and as a replica answers a peek with it (the compute protocol's JSON), and answers the same code.
 */
class EvalErrorCodeTest {

    private record Case(EvalError.Code code, Runnable failing) {
    }

    private static Runnable eval(Expr e) {
        return () -> e.eval(new Object[0]);
    }

    private static Expr i(long v) {
        return lit(v, DatumType.INT64);
    }

    private static Expr d(double v) {
        return lit(v, DatumType.FLOAT64);
    }

    private static Expr s(String v) {
        return lit(v, DatumType.STRING);
    }

    private static final List<Case> CASES = List.of(
            new Case(EvalError.Code.DIVISION_BY_ZERO, eval(call(Func.DIV, i(1), i(0)))),
            new Case(EvalError.Code.DIVISION_BY_ZERO, eval(call(Func.MOD, i(1), i(0)))),
            new Case(EvalError.Code.NUMERIC_OUT_OF_RANGE, eval(call(Func.ADD, i(Long.MAX_VALUE), i(1)))),
            new Case(EvalError.Code.NUMERIC_OUT_OF_RANGE, eval(call(Func.FIT_INT4, i(1L << 40)))),
            new Case(EvalError.Code.INVALID_TEXT_REPRESENTATION, eval(Expr.cast(s("x"), DatumType.INT64))),
            new Case(EvalError.Code.INVALID_TEXT_REPRESENTATION, () -> Uuids.parse("x")),
            new Case(EvalError.Code.INVALID_TEXT_REPRESENTATION, () -> Jsonbs.parse("{")),
            new Case(EvalError.Code.INVALID_TEXT_REPRESENTATION, () -> Byteas.parse("\\")),
            new Case(EvalError.Code.INVALID_PARAMETER_VALUE, () -> Byteas.parse("\\xzz")),
            new Case(EvalError.Code.UNTRANSLATABLE_CHARACTER, () -> Jsonbs.parse("\"\\u0000\"")),
            new Case(EvalError.Code.INVALID_DATETIME_FORMAT, () -> Datetimes.parseDate("x")),
            new Case(EvalError.Code.INVALID_DATETIME_FORMAT, () -> Intervals.parse("x")),
            new Case(EvalError.Code.DATETIME_FIELD_OVERFLOW, () -> Datetimes.parseDate("2024-13-01")),
            new Case(EvalError.Code.DATETIME_FIELD_OVERFLOW, eval(call(Func.MAKE_DATE, i(2024), i(13), i(1)))),
            new Case(EvalError.Code.NOT_SUPPORTED, () -> Datetimes.parseDate("infinity")),
            new Case(EvalError.Code.INVALID_PARAMETER_VALUE, eval(call(Func.FORMAT, s("%")))),
            new Case(EvalError.Code.INVALID_PARAMETER_VALUE, eval(call(Func.FORMAT, s("%s")))),
            new Case(EvalError.Code.NULL_VALUE_NOT_ALLOWED, eval(call(Func.FORMAT, s("%I"), lit(null, DatumType.STRING)))),
            new Case(EvalError.Code.INVALID_ESCAPE_SEQUENCE, eval(call(Func.LIKE, s("a"), s("a"), s("xy")))),
            new Case(EvalError.Code.INVALID_ARGUMENT_FOR_POWER_FUNCTION, eval(call(Func.SQRT, d(-1)))),
            new Case(EvalError.Code.INVALID_ARGUMENT_FOR_POWER_FUNCTION, eval(call(Func.POWER, d(0), d(-1)))),
            new Case(EvalError.Code.INVALID_ARGUMENT_FOR_LOGARITHM, eval(call(Func.LN, d(0)))),
            new Case(EvalError.Code.INVALID_REGULAR_EXPRESSION, eval(call(Func.REGEXP_LIKE, s("a"), s("(")))),
            new Case(EvalError.Code.PROGRAM_LIMIT_EXCEEDED, eval(call(Func.REPEAT, s("ab"), i(Integer.MAX_VALUE)))),
            new Case(EvalError.Code.TEMPLATE_SYNTAX_ERROR, eval(call(Func.TO_CHAR, lit(BigDecimal.ONE, DatumType.NUMERIC), s("9.9.9")))),
            new Case(EvalError.Code.STRING_DATA_RIGHT_TRUNCATION, () -> DeclaredType.varchar(1).fit("ab")),
            new Case(EvalError.Code.CARDINALITY_VIOLATION, eval(new Expr.Call(Func.ERROR,
                    List.of(s("more than one row returned by a subquery used as an expression")), DatumType.INT64))),
            new Case(EvalError.Code.DATA_EXCEPTION, eval(call(Func.SUBSTR, s("abc"), i(1), i(-1)))));

    @Test
    void everyEvaluationErrorKeepsItsCodeInItsErrorRowAndOnTheWire() {
        Set<EvalError.Code> seen = EnumSet.noneOf(EvalError.Code.class);
        for (Case c : CASES) {
            EvalError e = catchThrowableOfType(EvalError.class, c.failing()::run);
            assertThat(e).as("a case of %s fails", c.code()).isNotNull();
            assertThat(e.code()).as(e.getMessage()).isEqualTo(c.code());
            assertCarried(e.error(), c.code());
            seen.add(c.code());
        }
        // the two codes no expression raises: a dataflow over its memory budget, and an interval's field
        assertCarried(new DataError("the query could not run: dataflow t3 exceeded its memory budget", EvalError.Code.MEMORY_BUDGET),
                EvalError.Code.MEMORY_BUDGET);
        seen.add(EvalError.Code.MEMORY_BUDGET);
        assertCarried(new DataError("interval field value out of range: \"99999999999 years\"", EvalError.Code.INTERVAL_FIELD_OVERFLOW),
                EvalError.Code.INTERVAL_FIELD_OVERFLOW);
        seen.add(EvalError.Code.INTERVAL_FIELD_OVERFLOW);
        assertThat(seen).as("every code has a case").containsExactlyInAnyOrder(EvalError.Code.values());
    }

    /** The error read back from its error row, and from a replica's peek answer, has {@code code} and its message. */
    private static void assertCarried(DataError error, EvalError.Code code) {
        assertThat(DataError.of(error.row().concat(Row.of(7L)))).as(error.message()).isEqualTo(new DataError(error.message(), code));
        String json = ProtocolJson.write(new ComputeResponse.PeekResponse(UUID.randomUUID(), ComputeResponse.Error.failed(error)));
        ComputeResponse.PeekResponse read = (ComputeResponse.PeekResponse) ProtocolJson.parseResponse(json);
        assertThat(read.result()).as(json).isEqualTo(ComputeResponse.Error.failed(code, error.message()));
        assertThat(PeekDispatch.mapPeekError((ComputeResponse.Error) read.result()).evalCode()).as(json).isEqualTo(code);
    }

    @Test
    void anErrorRaisedByAnExpressionTakesTheCodeItNames() {
        Expr raise = new Expr.Call(Func.ERROR, List.of(s("boom"), s("division_by_zero")), DatumType.INT64);
        EvalError e = catchThrowableOfType(EvalError.class, () -> raise.eval(new Object[0]));
        assertThat(e.code()).isEqualTo(EvalError.Code.DIVISION_BY_ZERO);
        assertThat(e.getMessage()).isEqualTo("boom");
    }
}
