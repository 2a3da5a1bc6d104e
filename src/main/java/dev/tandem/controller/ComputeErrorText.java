package dev.tandem.controller;

import dev.tandem.expr.EvalError;

/**
 * The {@link EvalError.Code} of a failed peek, read from the text compute answers it with: a
 * {@code ComputeResponse.Error} carries a message but no code, so this is the one place that reads a
 * code back from PostgreSQL's message (the messages are those of the {@link EvalError}s the operators
 * caught, of the reductions' errors, and of a dataflow that could not run).
 */
final class ComputeErrorText {

    private ComputeErrorText() {
    }

    static EvalError.Code code(String m) {
        return m.contains("division by zero") ? EvalError.Code.DIVISION_BY_ZERO
                : m.startsWith("invalid format specification for an interval value") ? EvalError.Code.INVALID_DATETIME_FORMAT
                : m.startsWith("multiple decimal points") || m.startsWith("cannot use \"")
                        || m.startsWith("\"EEEE\" must be the last pattern used") ? EvalError.Code.TEMPLATE_SYNTAX_ERROR
                : m.startsWith("unterminated format() type specifier") || m.startsWith("unrecognized format() type specifier")
                        || m.startsWith("too few arguments for format()") || m.startsWith("format specifies argument 0") ? EvalError.Code.INVALID_PARAMETER_VALUE
                : m.startsWith("null values cannot be formatted as an SQL identifier") ? EvalError.Code.NULL_VALUE_NOT_ALLOWED
                : m.startsWith("invalid input syntax for type date") || m.startsWith("invalid input syntax for type timestamp with time zone")
                        || m.startsWith("invalid input syntax for type interval") ? EvalError.Code.INVALID_DATETIME_FORMAT
                : m.startsWith("invalid input syntax for type uuid") || m.startsWith("invalid input syntax for type json")
                        || m.startsWith("malformed array literal")
                        || m.startsWith("invalid input syntax for type bytea") ? EvalError.Code.INVALID_TEXT_REPRESENTATION
                : m.startsWith("invalid hexadecimal") ? EvalError.Code.INVALID_PARAMETER_VALUE
                : m.startsWith("unsupported Unicode escape sequence") ? EvalError.Code.UNTRANSLATABLE_CHARACTER
                : m.startsWith("cannot get array length of") || m.startsWith("argument list must have even number")
                        || m.contains(": key must not be null") || m.startsWith("cannot cast jsonb ") ? EvalError.Code.INVALID_PARAMETER_VALUE
                : m.startsWith("interval field value out of range") ? EvalError.Code.INTERVAL_FIELD_OVERFLOW
                : m.startsWith("date/time field value out of range") || m.startsWith("date out of range")
                        || m.startsWith("date field value out of range") || m.startsWith("timestamp cannot be NaN")
                        || m.startsWith("timestamp out of range") || m.startsWith("interval out of range") ? EvalError.Code.DATETIME_FIELD_OVERFLOW
                : m.startsWith("unit \"") && m.contains("not supported for type") ? EvalError.Code.NOT_SUPPORTED
                : m.startsWith("unit \"") || m.startsWith("time zone \"") ? EvalError.Code.INVALID_PARAMETER_VALUE
                : m.contains("exceeded its memory budget") ? EvalError.Code.MEMORY_BUDGET
                : m.startsWith("more than one row returned by a subquery used as an expression") ? EvalError.Code.CARDINALITY_VIOLATION
                : m.contains("escape string") || m.contains("escape character") ? EvalError.Code.INVALID_ESCAPE_SEQUENCE
                : m.contains("square root of a negative") || m.contains("raised to a negative power")
                        || m.contains("non-integer power") ? EvalError.Code.INVALID_ARGUMENT_FOR_POWER_FUNCTION
                : m.contains("cannot take logarithm") ? EvalError.Code.INVALID_ARGUMENT_FOR_LOGARITHM
                : m.contains("invalid regular expression option") || m.contains("field position must not be zero") ? EvalError.Code.INVALID_PARAMETER_VALUE
                : m.contains("invalid regular expression") ? EvalError.Code.INVALID_REGULAR_EXPRESSION
                : m.contains("requested length too large") ? EvalError.Code.PROGRAM_LIMIT_EXCEEDED
                : m.contains("not supported: ") ? EvalError.Code.NOT_SUPPORTED
                : m.contains("overflow") || m.contains("out of range") ? EvalError.Code.NUMERIC_OUT_OF_RANGE
                : m.startsWith("value too long for type") ? EvalError.Code.STRING_DATA_RIGHT_TRUNCATION
                : m.contains("cannot cast") ? EvalError.Code.INVALID_TEXT_REPRESENTATION
                : EvalError.Code.DATA_EXCEPTION;
    }
}
