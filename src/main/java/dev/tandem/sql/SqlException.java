package dev.tandem.sql;

/**
 * A SQL statement Tandem refuses or could not run, with the PostgreSQL SQLSTATE a client recognises
 * ({@code 42601} syntax, {@code 42P01} undefined table, {@code 42703} undefined column, {@code 0A000}
 * not supported, {@code 22xxx} data errors, {@code 57014} cancelled, {@code 54000} statement too complex,
 * {@code 53200} out of memory) and, when known, the 1-based
 * line and column in the statement text.
 */
public final class SqlException extends RuntimeException {

    public static final String SYNTAX = "42601";
    public static final String UNDEFINED_TABLE = "42P01";
    public static final String UNDEFINED_COLUMN = "42703";
    public static final String UNDEFINED_FUNCTION = "42883";
    public static final String DUPLICATE_OBJECT = "42P07";
    public static final String DATATYPE_MISMATCH = "42804";
    public static final String INVALID_NAME = "42602";
    public static final String DEPENDENT_OBJECTS = "2BP01";
    public static final String NOT_SUPPORTED = "0A000";
    public static final String DATA_EXCEPTION = "22000";
    public static final String DIVISION_BY_ZERO = "22012";
    public static final String OUT_OF_RANGE = "22003";
    public static final String INVALID_TEXT = "22P02";
    public static final String NOT_NULL_VIOLATION = "23502";
    public static final String UNIQUE_VIOLATION = "23505";
    public static final String INVALID_PARAMETER = "22023";
    public static final String CANCELED = "57014";
    public static final String TOO_MANY_READS = "53000";
    public static final String SNAPSHOT_TOO_OLD = "72000";
    public static final String PROGRAM_LIMIT = "54000";
    public static final String STACK_DEPTH = "54001";
    public static final String OUT_OF_MEMORY = "53200";
    public static final String UNDEFINED_PARAMETER = "42P02";
    public static final String INTERNAL = "XX000";

    private final String sqlState;
    private final int line;
    private final int column;
    private final String detail;
    private final String constraint;

    public SqlException(String sqlState, String message, int line, int column) {
        this(sqlState, message, line, column, null, null);
    }

    private SqlException(String sqlState, String message, int line, int column, String detail, String constraint) {
        super(message, null, false, false);
        this.sqlState = sqlState;
        this.line = line;
        this.column = column;
        this.detail = detail;
        this.constraint = constraint;
    }

    /** An error with PostgreSQL's detail line and the name of the constraint it violates (as a unique violation has). */
    public static SqlException violation(String sqlState, String message, String detail, String constraint) {
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

    public SqlException(String sqlState, String message) {
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

    public String sqlState() {
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
