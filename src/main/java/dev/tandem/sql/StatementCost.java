package dev.tandem.sql;

/**
 * What a statement's text costs before it is parsed: its length in UTF-8 bytes and the literals in it
 * (numbers and quoted strings, outside comments), measured in one pass over the text without building
 * tokens. Decides whether a statement is within {@link SqlLimits}, and whether its planning is heavy
 * (planned apart from light statements, so that a long statement never queues a short one).
 */
record StatementCost(long bytes, int literals) {

    /** A statement longer than this, or with more literals, is planned in the heavy lane. */
    static final int HEAVY_BYTES = 16 << 10;
    static final int HEAVY_LITERALS = 512;

    /** Measures {@code sql}; stops counting once past {@code limits} (the answer is then only known to be over). */
    static StatementCost of(CharSequence sql, SqlLimits limits) {
        int n = sql.length();
        long bytes = 0;
        for (int i = 0; i < n; i++) {
            char c = sql.charAt(i);
            if (c < 0x80) {
                bytes++;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(sql.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else {
                bytes += 3;
            }
            if (bytes > limits.maxStatementBytes()) {
                return new StatementCost(bytes, 0);
            }
        }
        return new StatementCost(bytes, literals(sql, limits.maxLiterals()));
    }

    /** The literals in {@code sql} (numbers and quoted strings), counting no further than {@code max} + 1. */
    static int literals(CharSequence sql, int max) {
        int n = sql.length();
        int count = 0;
        int i = 0;
        while (i < n && count <= max) {
            char c = sql.charAt(i);
            if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
                while (i < n && sql.charAt(i) != '\n') {
                    i++;
                }
            } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
                i += 2;
                while (i < n && !(sql.charAt(i) == '*' && i + 1 < n && sql.charAt(i + 1) == '/')) {
                    i++;
                }
                i += 2;
            } else if (c == '\'' || c == '"') {
                // a string, or a quoted identifier (no literal); a doubled quote stays inside
                i++;
                while (i < n) {
                    if (sql.charAt(i) == c) {
                        if (i + 1 < n && sql.charAt(i + 1) == c) {
                            i += 2;
                            continue;
                        }
                        break;
                    }
                    i++;
                }
                i++;
                if (c == '\'') {
                    count++;
                }
            } else if (Character.isLetter(c) || c == '_' || c == '$') {
                // a word or a parameter: digits in it are no literal
                i++;
                while (i < n && (Character.isLetterOrDigit(sql.charAt(i)) || sql.charAt(i) == '_' || sql.charAt(i) == '$')) {
                    i++;
                }
            } else if (Character.isDigit(c) || (c == '.' && i + 1 < n && Character.isDigit(sql.charAt(i + 1)))) {
                i++;
                while (i < n && (Character.isLetterOrDigit(sql.charAt(i)) || sql.charAt(i) == '.')) {
                    i++;
                }
                count++;
            } else {
                i++;
            }
        }
        return count;
    }

    /** Whether the statement is over a bound of {@code limits}: the refusal ({@code 54000}), else null. */
    SqlException refusal(SqlLimits limits) {
        if (bytes > limits.maxStatementBytes()) {
            return SqlException.tooComplex(SqlLimits.Bound.STATEMENT_BYTES, "more than " + limits.maxStatementBytes());
        }
        if (literals > limits.maxLiterals()) {
            return SqlException.tooComplex(SqlLimits.Bound.LITERALS, "more than " + limits.maxLiterals());
        }
        return null;
    }

    /** Whether planning the statement is heavy work (planned in the heavy lane). */
    boolean heavy() {
        return bytes > HEAVY_BYTES || literals > HEAVY_LITERALS;
    }
}
