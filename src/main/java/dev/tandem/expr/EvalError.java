package dev.tandem.expr;

import java.util.Objects;

/**
 * A runtime error of evaluating an expression on one row (division by zero, int64 overflow, a failed
 * cast): a {@link Code} saying what kind of error it is, and PostgreSQL's message. It is cheap — no stack
 * trace — because operators catch it and turn it into an update of the dataflow's error collection.
 */
public final class EvalError extends RuntimeException {

    /**
     * What kind of evaluation error: each is one PostgreSQL SQLSTATE, which the SQL layer chooses by an
     * exhaustive switch over the code (the state is named beside each constant).
     */
    public enum Code {
        /** 22012: a division or a modulo by zero. */
        DIVISION_BY_ZERO,
        /** 22003: a number outside its type's range (an overflow, an underflow). */
        NUMERIC_OUT_OF_RANGE,
        /** 22P02: a text that is no value of the type it is read as. */
        INVALID_TEXT_REPRESENTATION,
        /** 22007: a date, timestamp or interval text, or an interval's format template, that does not read. */
        INVALID_DATETIME_FORMAT,
        /** 22008: a date or timestamp outside its range. */
        DATETIME_FIELD_OVERFLOW,
        /** 22015: an interval field outside its range. */
        INTERVAL_FIELD_OVERFLOW,
        /** 22023: a function argument outside what the function accepts. */
        INVALID_PARAMETER_VALUE,
        /** 22004: a NULL where a value is required ({@code format('%I', NULL)}). */
        NULL_VALUE_NOT_ALLOWED,
        /** 22P05: a character PostgreSQL's text cannot hold (a {@code \u0000} escape). */
        UNTRANSLATABLE_CHARACTER,
        /** 22025: a LIKE escape that is not one character, or a pattern ending with it. */
        INVALID_ESCAPE_SEQUENCE,
        /** 2201F: a power or a square root without a real result. */
        INVALID_ARGUMENT_FOR_POWER_FUNCTION,
        /** 2201E: the logarithm of zero or of a negative number. */
        INVALID_ARGUMENT_FOR_LOGARITHM,
        /** 2201B: a regular expression that does not compile. */
        INVALID_REGULAR_EXPRESSION,
        /** 22001: a text longer than its declared type allows. */
        STRING_DATA_RIGHT_TRUNCATION,
        /** 21000: more than one row from a scalar subquery. */
        CARDINALITY_VIOLATION,
        /** 42601: a to_char template that is malformed. */
        TEMPLATE_SYNTAX_ERROR,
        /** 54000: a result larger than a value may be ({@code repeat}, {@code lpad}). */
        PROGRAM_LIMIT_EXCEEDED,
        /** 53200: a dataflow over its memory budget. */
        MEMORY_BUDGET,
        /** 0A000: a value or an argument Tandem does not support. */
        NOT_SUPPORTED,
        /** 22000: any other data error. */
        DATA_EXCEPTION;

        /** The code's name in an expression's JSON ({@code error}'s second argument): the lower-case constant name. */
        public String jsonName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }

        /** The code named {@code name} in JSON, or null. */
        public static Code fromJson(String name) {
            for (Code c : values()) {
                if (c.jsonName().equals(name)) {
                    return c;
                }
            }
            return null;
        }
    }

    private final Code code;

    public EvalError(Code code, String message) {
        super(message, null, false, false);
        this.code = Objects.requireNonNull(code, "code");
    }

    public Code code() {
        return code;
    }

    /** This error as an error collection holds it. */
    public DataError error() {
        return new DataError(getMessage(), code);
    }
}
