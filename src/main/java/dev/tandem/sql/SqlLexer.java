package dev.tandem.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A small tokenizer for the statements Calcite does not parse (CREATE TABLE/INDEX/VIEW heads, DROP,
 * SHOW, SET, EXPLAIN): identifiers (unquoted ones folded to lower case, as PostgreSQL does), quoted
 * identifiers, numbers, strings, {@code $n} parameters and punctuation, each with its offset.
 */
final class SqlLexer {

    enum Kind { WORD, QUOTED, NUMBER, STRING, PARAM, PUNCT, END }

    /** A token: its kind, its text (a string's or quoted identifier's unquoted), where it starts and ends in the statement. */
    record Token(Kind kind, String text, int offset, int end) {
        boolean is(String word) {
            return kind == Kind.WORD && text.equals(word);
        }

        boolean isPunct(String p) {
            return kind == Kind.PUNCT && text.equals(p);
        }

        /** An identifier: a word or a quoted identifier. */
        boolean isName() {
            return kind == Kind.WORD || kind == Kind.QUOTED;
        }
    }

    private final String sql;
    private final List<Token> tokens = new ArrayList<>();
    private int next;
    /** Where lexing goes on; tokens are made as they are asked for, so reading the first word of a long text costs that word. */
    private int at;
    private boolean ended;

    SqlLexer(String sql) {
        this.sql = sql;
    }

    /** Makes tokens until there are more than {@code index} (or the END token is made). */
    private void lexTo(int index) {
        while (tokens.size() <= index && !ended) {
            lexOne();
        }
    }

    /** Makes the next token (the END token at the end of the text). */
    private void lexOne() {
        int i = at;
        int n = sql.length();
        while (i < n) {
            char c = sql.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
            } else if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
                while (i < n && sql.charAt(i) != '\n') {
                    i++;
                }
            } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
                int end = sql.indexOf("*/", i + 2);
                i = end < 0 ? n : end + 2;
            } else if (Character.isLetter(c) || c == '_') {
                int s = i;
                while (i < n && (Character.isLetterOrDigit(sql.charAt(i)) || sql.charAt(i) == '_' || sql.charAt(i) == '$')) {
                    i++;
                }
                add(Kind.WORD, sql.substring(s, i).toLowerCase(Locale.ROOT), s, i);
                return;
            } else if (Character.isDigit(c) || (c == '.' && i + 1 < n && Character.isDigit(sql.charAt(i + 1)))) {
                int s = i;
                while (i < n && (Character.isDigit(sql.charAt(i)) || sql.charAt(i) == '.')) {
                    i++;
                }
                add(Kind.NUMBER, sql.substring(s, i), s, i);
                return;
            } else if (c == '\'' || c == '"') {
                int s = i;
                StringBuilder b = new StringBuilder();
                i++;
                while (true) {
                    if (i >= n) {
                        throw error("unterminated " + (c == '"' ? "quoted identifier" : "quoted string"), s);
                    }
                    char d = sql.charAt(i);
                    if (d == c) {
                        if (i + 1 < n && sql.charAt(i + 1) == c) {
                            b.append(c);
                            i += 2;
                            continue;
                        }
                        i++;
                        break;
                    }
                    b.append(d);
                    i++;
                }
                add(c == '"' ? Kind.QUOTED : Kind.STRING, b.toString(), s, i);
                return;
            } else if (c == '$' && i + 1 < n && Character.isDigit(sql.charAt(i + 1))) {
                int s = i++;
                while (i < n && Character.isDigit(sql.charAt(i))) {
                    i++;
                }
                add(Kind.PARAM, sql.substring(s + 1, i), s, i);
                return;
            } else if (c == '$' && dollarTagEnd(i) > 0) {
                // PostgreSQL's dollar quoting: $$text$$ or $tag$text$tag$, no escapes inside
                int open = dollarTagEnd(i);
                String delimiter = sql.substring(i, open);
                int close = sql.indexOf(delimiter, open);
                if (close < 0) {
                    throw error("unterminated dollar-quoted string", i);
                }
                add(Kind.STRING, sql.substring(open, close), i, close + delimiter.length());
                return;
            } else {
                add(Kind.PUNCT, String.valueOf(c), i, i + 1);
                return;
            }
        }
        at = n;
        tokens.add(new Token(Kind.END, "", n, n));
        ended = true;
    }

    private void add(Kind kind, String text, int start, int end) {
        tokens.add(new Token(kind, text, start, end));
        at = end;
    }

    /**
     * Where the dollar-quote delimiter starting at {@code i} ends ({@code $$} or {@code $tag$}, a tag being
     * an identifier without {@code $}), or -1 when the {@code $} there opens none.
     */
    private int dollarTagEnd(int i) {
        int n = sql.length();
        int j = i + 1;
        if (j < n && (Character.isLetter(sql.charAt(j)) || sql.charAt(j) == '_')) {
            while (j < n && (Character.isLetterOrDigit(sql.charAt(j)) || sql.charAt(j) == '_')) {
                j++;
            }
        }
        return j < n && sql.charAt(j) == '$' ? j + 1 : -1;
    }

    /** The text with each dollar-quoted string written as a standard one ({@code $$it's$$} as {@code 'it''s'}), for Calcite. */
    static String standardQuotes(String sql) {
        int dollar = sql.indexOf('$');
        while (dollar >= 0 && dollar + 1 < sql.length() && Character.isDigit(sql.charAt(dollar + 1))) {
            dollar = sql.indexOf('$', dollar + 1);
        }
        if (dollar < 0) {
            return sql;
        }
        StringBuilder out = null;
        int copied = 0;
        for (Token t : new SqlLexer(sql).tokens()) {
            if (t.kind() == Kind.STRING && sql.charAt(t.offset()) == '$') {
                if (out == null) {
                    out = new StringBuilder(sql.length() + 8);
                }
                out.append(sql, copied, t.offset()).append('\'').append(t.text().replace("'", "''")).append('\'');
                copied = t.end();
            }
        }
        return out == null ? sql : out.append(sql, copied, sql.length()).toString();
    }

    /** The tokens of the text, ending with an END token. */
    List<Token> tokens() {
        lexTo(Integer.MAX_VALUE);
        return tokens;
    }

    /** In {@code tokens}, the index after the parenthesis that closes the one at {@code open}, or -1 when none does. */
    static int afterClosing(List<Token> tokens, int open) {
        int depth = 0;
        for (int j = open; j < tokens.size(); j++) {
            if (tokens.get(j).isPunct("(")) {
                depth++;
            } else if (tokens.get(j).isPunct(")") && --depth == 0) {
                return j + 1;
            }
        }
        return -1;
    }

    Token peek() {
        lexTo(next);
        return tokens.get(next);
    }

    Token peek(int ahead) {
        lexTo(next + ahead);
        return tokens.get(Math.min(next + ahead, tokens.size() - 1));
    }

    Token take() {
        Token t = peek();
        if (t.kind() != Kind.END) {
            next++;
        }
        return t;
    }

    /** Takes the next token if it is the word. */
    boolean accept(String word) {
        if (peek().is(word)) {
            next++;
            return true;
        }
        return false;
    }

    boolean acceptPunct(String p) {
        if (peek().isPunct(p)) {
            next++;
            return true;
        }
        return false;
    }

    void expect(String word) {
        if (!accept(word)) {
            throw error("expected " + word.toUpperCase(Locale.ROOT), peek());
        }
    }

    void expectPunct(String p) {
        if (!acceptPunct(p)) {
            throw error("expected \"" + p + "\"", peek());
        }
    }

    String name(String what) {
        Token t = peek();
        if (!t.isName()) {
            throw error("expected " + what, t);
        }
        next++;
        return t.text();
    }

    /** Expects the end of the statement (a trailing semicolon allowed). */
    void end() {
        acceptPunct(";");
        if (peek().kind() != Kind.END) {
            throw error("unexpected text", peek());
        }
    }

    /** The rest of the text from the current token on. */
    int offset() {
        return peek().offset();
    }

    SqlException error(String message, Token at) {
        String near = at.kind() == Kind.END ? "end of input" : "\"" + at.text() + "\"";
        return error("syntax error at or near " + near + ": " + message, at.offset());
    }

    SqlException error(String message, int offset) {
        int[] lc = lineColumn(sql, offset);
        return new SqlException(SqlException.SYNTAX, message, lc[0], lc[1]);
    }

    /** The 1-based line and column of an offset. */
    static int[] lineColumn(String sql, int offset) {
        int line = 1;
        int col = 1;
        for (int i = 0; i < offset && i < sql.length(); i++) {
            if (sql.charAt(i) == '\n') {
                line++;
                col = 1;
            } else {
                col++;
            }
        }
        return new int[] {line, col};
    }

    /** The text with {@code [from, to)} blanked out by spaces (newlines kept), so positions after it stay the same. */
    static String blank(String sql, int from, int to) {
        StringBuilder b = new StringBuilder(sql);
        for (int i = from; i < to && i < b.length(); i++) {
            if (b.charAt(i) != '\n') {
                b.setCharAt(i, ' ');
            }
        }
        return b.toString();
    }

    /** Splits a simple-query string into statements at semicolons outside quotes and comments. */
    static List<String> split(String sql) {
        return splitAt(sql).stream().map(SqlEngine.Part::text).toList();
    }

    /** Splits a simple-query string as {@link #split} does, each statement with its offset in the string. */
    static List<SqlEngine.Part> splitAt(String sql) {
        List<SqlEngine.Part> out = new ArrayList<>();
        int start = 0;
        int i = 0;
        int n = sql.length();
        while (i < n) {
            char c = sql.charAt(i);
            if (c == '\'' || c == '"') {
                i++;
                while (i < n && sql.charAt(i) != c) {
                    i++;
                }
                i++;
            } else if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
                while (i < n && sql.charAt(i) != '\n') {
                    i++;
                }
            } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
                int end = sql.indexOf("*/", i + 2);
                i = end < 0 ? n : end + 2;
            } else if (c == ';') {
                out.add(new SqlEngine.Part(sql.substring(start, i), start));
                start = ++i;
            } else {
                i++;
            }
        }
        if (start < n) {
            out.add(new SqlEngine.Part(sql.substring(start), start));
        }
        return out.stream().filter(s -> new SqlLexer(s.text()).peek().kind() != Kind.END).toList();
    }
}
