package dev.tandem.sql;

import reactor.util.context.ContextView;

/**
 * Whose share of the server planning a statement takes: admits the planning of one statement the plan
 * cache does not hold, or refuses it with a {@link SqlException} ({@code 53400}). A statement finds its
 * admission in its subscriber's Reactor context under this type (the API and the wire protocol put the
 * caller's there, beside its {@code ReadAdmission}); without one every statement is admitted.
 */
public interface PlanningAdmission {

    /** Admits everything. */
    PlanningAdmission OPEN = () -> () -> { };

    /** Admits planning one statement, returning what to run when the planning ends, or throws {@link SqlException}. */
    Runnable plan();

    /** The admission a statement prepared with {@code context} answers to. */
    static PlanningAdmission of(ContextView context) {
        return context.getOrDefault(PlanningAdmission.class, OPEN);
    }
}
