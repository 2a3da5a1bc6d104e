package dev.tandem.sql;

/**
 * A SQL statement Tandem refuses or could not run, with the PostgreSQL {@link SqlState} a client recognises
 * ({@code 42601} syntax, {@code 42P01} undefined table, {@code 42703} undefined column, {@code 0A000}
 * not supported, {@code 22xxx} data errors, {@code 57014} cancelled, {@code 54000} statement too complex,
 * {@code 53200} out of memory) and, when known, the 1-based
 * line and column in the statement text.
 */
public final class SqlException extends RuntimeException {

    /* Short names of the states most statements answer. */
    public static final SqlState SYNTAX = SqlState.SYNTAX_ERROR;
    public static final SqlState UNDEFINED_TABLE = SqlState.UNDEFINED_TABLE;
    public static final SqlState UNDEFINED_COLUMN = SqlState.UNDEFINED_COLUMN;
    public static final SqlState UNDEFINED_FUNCTION = SqlState.UNDEFINED_FUNCTION;
    public static final SqlState DUPLICATE_OBJECT = SqlState.DUPLICATE_TABLE;
    public static final SqlState DATATYPE_MISMATCH = SqlState.DATATYPE_MISMATCH;
    public static final SqlState INVALID_NAME = SqlState.INVALID_NAME;
    public static final SqlState DEPENDENT_OBJECTS = SqlState.DEPENDENT_OBJECTS_STILL_EXIST;
    public static final SqlState NOT_SUPPORTED = SqlState.FEATURE_NOT_SUPPORTED;
    public static final SqlState DATA_EXCEPTION = SqlState.DATA_EXCEPTION;
    public static final SqlState DIVISION_BY_ZERO = SqlState.DIVISION_BY_ZERO;
    public static final SqlState OUT_OF_RANGE = SqlState.NUMERIC_VALUE_OUT_OF_RANGE;
    public static final SqlState INVALID_TEXT = SqlState.INVALID_TEXT_REPRESENTATION;
    public static final SqlState NOT_NULL_VIOLATION = SqlState.NOT_NULL_VIOLATION;
    public static final SqlState UNIQUE_VIOLATION = SqlState.UNIQUE_VIOLATION;
    public static final SqlState INVALID_PARAMETER = SqlState.INVALID_PARAMETER_VALUE;
    public static final SqlState CANCELED = SqlState.QUERY_CANCELED;
    public static final SqlState TOO_MANY_READS = SqlState.INSUFFICIENT_RESOURCES;
    public static final SqlState SNAPSHOT_TOO_OLD = SqlState.SNAPSHOT_TOO_OLD;
    public static final SqlState PROGRAM_LIMIT = SqlState.PROGRAM_LIMIT_EXCEEDED;
    public static final SqlState STACK_DEPTH = SqlState.STATEMENT_TOO_COMPLEX;
    public static final SqlState OUT_OF_MEMORY = SqlState.OUT_OF_MEMORY;
    public static final SqlState UNDEFINED_PARAMETER = SqlState.UNDEFINED_PARAMETER;
    public static final SqlState INTERNAL = SqlState.INTERNAL_ERROR;

    private final SqlState sqlState;
    private final int line;
    private final int column;
    private final String detail;
    private final String constraint;

    public SqlException(SqlState sqlState, String message, int line, int column) {
        this(sqlState, message, line, column, null, null);
    }

    private SqlException(SqlState sqlState, String message, int line, int column, String detail, String constraint) {
        super(message, null, false, false);
        this.sqlState = java.util.Objects.requireNonNull(sqlState, "sqlState");
        this.line = line;
        this.column = column;
        this.detail = detail;
        this.constraint = constraint;
    }

    /** An error with PostgreSQL's detail line and the name of the constraint it violates (as a unique violation has). */
    public static SqlException violation(SqlState sqlState, String message, String detail, String constraint) {
        return new SqlException(sqlState, message, 0, 0, detail, constraint);
    }

    /** PostgreSQL's detail line (ErrorResponse field {@code D}), or null. */
    public String detail() {
        return detail;
    }

    /** The violated constraint's name (ErrorResponse field {@code n}), or null. */
    public String constraint() {
        return constraint;
    }

    public SqlException(SqlState sqlState, String message) {
        this(sqlState, message, 0, 0);
    }

    /** The "not supported: construct" error every construct outside the dialect gets. */
    public static SqlException notSupported(String construct) {
        return new SqlException(NOT_SUPPORTED, "not supported: " + construct);
    }

    /**
     * The refusal of a statement over one of its bounds ({@code 54000} "statement too complex"), naming the
     * bound, how far over it the statement is ({@code over}: "more than 4194304") and the property that sets it.
     */
    public static SqlException tooComplex(SqlLimits.Bound bound, String over) {
        return new SqlException(PROGRAM_LIMIT, "statement too complex: " + over + " " + bound.unit() + " (the limit is "
                + bound.property() + ")");
    }

    /** The SQLSTATE's five characters, as the wire and the HTTP answer carry them. */
    public String sqlState() {
        return sqlState.code();
    }

    public SqlState state() {
        return sqlState;
    }

    /** 1-based line of the error in the statement, or 0 when it has no position. */
    public int line() {
        return line;
    }

    /** 1-based column of the error in the statement, or 0 when it has no position. */
    public int column() {
        return column;
    }

    /** The error at a position, unless it already has one. */
    SqlException at(int line, int column) {
        return this.line > 0 || line <= 0 ? this : new SqlException(sqlState, getMessage(), line, column, detail, constraint);
    }
}
