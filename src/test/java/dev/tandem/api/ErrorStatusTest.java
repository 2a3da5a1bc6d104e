package dev.tandem.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.controller.ControllerException;
import dev.tandem.sql.SqlException;
import dev.tandem.sql.SqlState;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The HTTP answer of every controller refusal reason (status and problem type) and of every SQLSTATE, pinned:
 * a new reason fails here until it is given its answer.
 */
class ErrorStatusTest {

    private record Answer(int status, String type) {
    }

    private static final Map<ControllerException.Reason, Answer> REASONS = new EnumMap<>(Map.ofEntries(
            Map.entry(ControllerException.Reason.UNKNOWN_OBJECT, new Answer(404, "not-found")),
            Map.entry(ControllerException.Reason.WRONG_KIND, new Answer(404, "not-found")),
            Map.entry(ControllerException.Reason.NOT_RUNNING, new Answer(404, "not-found")),
            Map.entry(ControllerException.Reason.DUPLICATE, new Answer(409, "conflict")),
            Map.entry(ControllerException.Reason.DEPENDENT, new Answer(409, "conflict")),
            Map.entry(ControllerException.Reason.FED_BY_SOURCE, new Answer(409, "conflict")),
            Map.entry(ControllerException.Reason.INDEX_FAILED, new Answer(409, "conflict")),
            Map.entry(ControllerException.Reason.DROPPED_SINCE, new Answer(409, "conflict")),
            Map.entry(ControllerException.Reason.CATALOG_CONTENDED, new Answer(409, "conflict")),
            Map.entry(ControllerException.Reason.STATE_CONFLICT, new Answer(409, "conflict")),
            Map.entry(ControllerException.Reason.INVALID, new Answer(422, "invalid")),
            Map.entry(ControllerException.Reason.INVALID_NAME, new Answer(422, "invalid")),
            Map.entry(ControllerException.Reason.NOT_NULL, new Answer(422, "invalid")),
            Map.entry(ControllerException.Reason.EVALUATION, new Answer(422, "invalid")),
            Map.entry(ControllerException.Reason.BEFORE_SINCE, new Answer(409, "before-since")),
            Map.entry(ControllerException.Reason.TOO_LARGE, new Answer(413, "result-too-large")),
            Map.entry(ControllerException.Reason.OVERLOADED, new Answer(503, "overloaded")),
            Map.entry(ControllerException.Reason.LIMITED, new Answer(429, "too-many-requests")),
            Map.entry(ControllerException.Reason.TIMEOUT, new Answer(504, "timeout"))));

    @Test
    void everyControllerReasonHasItsStatusAndProblemType() {
        assertThat(REASONS.keySet()).containsExactlyInAnyOrder(ControllerException.Reason.values());
        for (ControllerException.Reason r : ControllerException.Reason.values()) {
            ControllerException c = r == ControllerException.Reason.EVALUATION
                    ? ControllerException.evaluation(dev.tandem.expr.EvalError.Code.DIVISION_BY_ZERO, "division by zero")
                    : new ControllerException(r, "refused");
            Problem p = Problem.of(c);
            assertThat(new Answer(p.status(), p.type())).as(r.name()).isEqualTo(new Answer(REASONS.get(r).status(), "https://tandem.dev/problems/" + REASONS.get(r).type()));
            assertThat(p.detail()).isEqualTo(c.getMessage());
        }
    }

    @Test
    void aReasonBelongsToTheKindWhoseStatusItAnswers() {
        for (ControllerException.Reason r : ControllerException.Reason.values()) {
            int status = REASONS.get(r).status();
            assertThat(switch (r.kind()) {
                case NOT_FOUND -> 404;
                case CONFLICT, BEFORE_SINCE -> 409;
                case INVALID -> 422;
                case TOO_LARGE -> 413;
                case OVERLOADED -> 503;
                case LIMITED -> 429;
                case TIMEOUT -> 504;
            }).as(r.name()).isEqualTo(status);
        }
    }

    @Test
    void everySqlStateHasItsStatus() {
        Map<SqlState, Integer> special = Map.ofEntries(
                Map.entry(SqlState.UNDEFINED_TABLE, 404), Map.entry(SqlState.UNDEFINED_OBJECT, 404),
                Map.entry(SqlState.DUPLICATE_TABLE, 409), Map.entry(SqlState.DEPENDENT_OBJECTS_STILL_EXIST, 409),
                Map.entry(SqlState.OBJECT_NOT_IN_PREREQUISITE_STATE, 409), Map.entry(SqlState.SNAPSHOT_TOO_OLD, 409),
                Map.entry(SqlState.UNIQUE_VIOLATION, 409), Map.entry(SqlState.QUERY_CANCELED, 504),
                Map.entry(SqlState.INSUFFICIENT_RESOURCES, 503), Map.entry(SqlState.OUT_OF_MEMORY, 503),
                Map.entry(SqlState.CONFIGURATION_LIMIT_EXCEEDED, 429), Map.entry(SqlState.DISK_FULL, 507),
                Map.entry(SqlState.PROGRAM_LIMIT_EXCEEDED, 413), Map.entry(SqlState.STATEMENT_TOO_COMPLEX, 413),
                Map.entry(SqlState.INTERNAL_ERROR, 500));
        for (SqlState s : SqlState.values()) {
            int expected = special.getOrDefault(s, s.sqlClass().equals("22") || s.sqlClass().equals("23") ? 422 : 400);
            assertThat(SqlHandler.status(new SqlException(s, "refused"))).as(s.name()).isEqualTo(expected);
        }
    }
}
