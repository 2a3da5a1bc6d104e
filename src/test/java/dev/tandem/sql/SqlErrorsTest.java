package dev.tandem.sql;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.controller.ControllerException;
import dev.tandem.expr.EvalError;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The SQLSTATE of every evaluation error code and of every controller refusal reason, pinned: a new code or
 * reason fails here until it is given its state (and fails to compile in {@link SqlErrors} until then).
 */
class SqlErrorsTest {

    private static final Map<EvalError.Code, String> EVAL = new EnumMap<>(Map.ofEntries(
            Map.entry(EvalError.Code.DIVISION_BY_ZERO, "22012"),
            Map.entry(EvalError.Code.NUMERIC_OUT_OF_RANGE, "22003"),
            Map.entry(EvalError.Code.INVALID_TEXT_REPRESENTATION, "22P02"),
            Map.entry(EvalError.Code.INVALID_DATETIME_FORMAT, "22007"),
            Map.entry(EvalError.Code.DATETIME_FIELD_OVERFLOW, "22008"),
            Map.entry(EvalError.Code.INTERVAL_FIELD_OVERFLOW, "22015"),
            Map.entry(EvalError.Code.INVALID_PARAMETER_VALUE, "22023"),
            Map.entry(EvalError.Code.NULL_VALUE_NOT_ALLOWED, "22004"),
            Map.entry(EvalError.Code.UNTRANSLATABLE_CHARACTER, "22P05"),
            Map.entry(EvalError.Code.INVALID_ESCAPE_SEQUENCE, "22025"),
            Map.entry(EvalError.Code.INVALID_ARGUMENT_FOR_POWER_FUNCTION, "2201F"),
            Map.entry(EvalError.Code.INVALID_ARGUMENT_FOR_LOGARITHM, "2201E"),
            Map.entry(EvalError.Code.INVALID_REGULAR_EXPRESSION, "2201B"),
            Map.entry(EvalError.Code.STRING_DATA_RIGHT_TRUNCATION, "22001"),
            Map.entry(EvalError.Code.CARDINALITY_VIOLATION, "21000"),
            Map.entry(EvalError.Code.TEMPLATE_SYNTAX_ERROR, "42601"),
            Map.entry(EvalError.Code.PROGRAM_LIMIT_EXCEEDED, "54000"),
            Map.entry(EvalError.Code.MEMORY_BUDGET, "53200"),
            Map.entry(EvalError.Code.NOT_SUPPORTED, "0A000"),
            Map.entry(EvalError.Code.DATA_EXCEPTION, "22000")));

    private static final Map<ControllerException.Reason, String> CONTROLLER = new EnumMap<>(Map.ofEntries(
            Map.entry(ControllerException.Reason.UNKNOWN_OBJECT, "42P01"),
            Map.entry(ControllerException.Reason.WRONG_KIND, "42809"),
            Map.entry(ControllerException.Reason.NOT_RUNNING, "42P01"),
            Map.entry(ControllerException.Reason.DUPLICATE, "42P07"),
            Map.entry(ControllerException.Reason.DEPENDENT, "2BP01"),
            Map.entry(ControllerException.Reason.FED_BY_SOURCE, "55000"),
            Map.entry(ControllerException.Reason.INDEX_FAILED, "55000"),
            Map.entry(ControllerException.Reason.DROPPED_SINCE, "55000"),
            Map.entry(ControllerException.Reason.CATALOG_CONTENDED, "55000"),
            Map.entry(ControllerException.Reason.STATE_CONFLICT, "55000"),
            Map.entry(ControllerException.Reason.INVALID, "22000"),
            Map.entry(ControllerException.Reason.INVALID_NAME, "42602"),
            Map.entry(ControllerException.Reason.NOT_NULL, "23502"),
            Map.entry(ControllerException.Reason.BEFORE_SINCE, "72000"),
            Map.entry(ControllerException.Reason.TOO_LARGE, "54000"),
            Map.entry(ControllerException.Reason.OVERLOADED, "53000"),
            Map.entry(ControllerException.Reason.LIMITED, "53400"),
            Map.entry(ControllerException.Reason.TIMEOUT, "57014")));

    @Test
    void everyEvaluationCodeHasItsSqlState() {
        assertThat(EVAL.keySet()).containsExactlyInAnyOrder(EvalError.Code.values());
        for (EvalError.Code code : EvalError.Code.values()) {
            SqlException e = SqlErrors.evaluation(new EvalError(code, "m"));
            assertThat(e.sqlState()).as(code.name()).isEqualTo(EVAL.get(code));
            assertThat(e.getMessage()).isEqualTo("m");
        }
    }

    @Test
    void everyControllerReasonHasItsSqlState() {
        Set<ControllerException.Reason> all = new HashSet<>(Arrays.asList(ControllerException.Reason.values()));
        all.remove(ControllerException.Reason.EVALUATION);
        assertThat(CONTROLLER.keySet()).containsExactlyInAnyOrderElementsOf(all);
        for (ControllerException.Reason r : all) {
            Throwable t = SqlErrors.map(new ControllerException(r, "refused"));
            assertThat(t).isInstanceOfSatisfying(SqlException.class, e -> {
                assertThat(e.sqlState()).as(r.name()).isEqualTo(CONTROLLER.get(r));
                assertThat(e.getMessage()).isEqualTo("refused");
            });
        }
    }

    @Test
    void anEvaluationRefusalAnswersItsCodesState() {
        for (EvalError.Code code : EvalError.Code.values()) {
            Throwable t = SqlErrors.map(ControllerException.evaluation(code, "value too long (column 'c' of table 't')"));
            assertThat(((SqlException) t).sqlState()).as(code.name()).isEqualTo(EVAL.get(code));
        }
    }

    @Test
    void aStateIsItsCodeAndTheCodeNamesOneState() {
        Set<String> codes = new HashSet<>();
        for (SqlState s : SqlState.values()) {
            assertThat(s.code()).hasSize(5);
            assertThat(codes.add(s.code())).as(s.code() + " named twice").isTrue();
            assertThat(SqlState.of(s.code())).isEqualTo(s);
        }
    }
}
