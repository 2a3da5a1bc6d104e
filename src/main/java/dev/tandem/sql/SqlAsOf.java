package dev.tandem.sql;

/**
 * A statement's trailing {@code AS OF n} or {@code AS OF $n} (then an optional semicolon), found by one
 * backward scan from the end of the text: each character is looked at once at most, however long a
 * run of white space the text ends with.
 */
record SqlAsOf(int start, String value) {

    /** The trailing {@code AS OF}: where its leading white space starts and its value ({@code 12} or {@code $1}); null when there is none. */
    static SqlAsOf find(CharSequence sql) {
        int i = skipSpace(sql, sql.length());
        if (i > 0 && sql.charAt(i - 1) == ';') {
            i = skipSpace(sql, i - 1);
        }
        int end = i;
        while (i > 0 && isDigit(sql.charAt(i - 1))) {
            i--;
        }
        if (i == end) {
            return null;
        }
        if (i > 0 && sql.charAt(i - 1) == '$') {
            i--;
        }
        int valueStart = i;
        int j = skipSpace(sql, i);
        if (j == i || !word(sql, j, 'o', 'f')) {
            return null;
        }
        int k = skipSpace(sql, j - 2);
        if (k == j - 2 || !word(sql, k, 'a', 's')) {
            return null;
        }
        int start = skipSpace(sql, k - 2);
        if (start == k - 2) {
            return null;
        }
        return new SqlAsOf(start, sql.subSequence(valueStart, end).toString());
    }

    /** Whether the value is a parameter ({@code $n}) rather than a timestamp. */
    boolean parameter() {
        return value.startsWith("$");
    }

    /** Where the white space that ends at {@code end} starts (as regular expressions' {@code \s}: space, tab, line breaks, form feed, vertical tab). */
    private static int skipSpace(CharSequence sql, int end) {
        int i = end;
        while (i > 0 && isSpace(sql.charAt(i - 1))) {
            i--;
        }
        return i;
    }

    /** Whether the two characters before {@code end} are the word {@code a b} in either case. */
    private static boolean word(CharSequence sql, int end, char a, char b) {
        return end >= 2 && letter(sql.charAt(end - 2), a) && letter(sql.charAt(end - 1), b);
    }

    /** Whether {@code c} is the ASCII lower-case letter {@code lower} in either case. */
    private static boolean letter(char c, char lower) {
        return c == lower || c == lower - ('a' - 'A');
    }

    private static boolean isSpace(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\u000B' || c == '\f' || c == '\r';
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }
}
