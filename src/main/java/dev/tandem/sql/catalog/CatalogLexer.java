package dev.tandem.sql.catalog;

import dev.tandem.sql.SqlException;
import dev.tandem.sql.catalog.CatalogToken.Kind;
import java.util.ArrayList;
import java.util.List;

/**
 * Splits a client's PostgreSQL text into {@link CatalogToken}s as PostgreSQL's lexer does: comments dropped,
 * {@code E'..'} strings read into plain literals, {@code $n} parameters, operators of several characters.
 */
final class CatalogLexer {

    private static final String OP_CHARS = "+-*/<>=~!@#%^&|?";

    private CatalogLexer() {
    }

    static List<CatalogToken> lex(String s) {
        List<CatalogToken> out = new ArrayList<>();
        int i = 0;
        int n = s.length();
        while (i < n) {
            char c = s.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
            } else if (c == '-' && i + 1 < n && s.charAt(i + 1) == '-') {
                while (i < n && s.charAt(i) != '\n') {
                    i++;
                }
            } else if (c == '/' && i + 1 < n && s.charAt(i + 1) == '*') {
                int end = s.indexOf("*/", i + 2);
                if (end < 0) {
                    throw new SqlException(SqlException.SYNTAX, "unterminated /* comment");
                }
                i = end + 2;
            } else if ((c == 'E' || c == 'e') && i + 1 < n && s.charAt(i + 1) == '\'') {
                StringBuilder b = new StringBuilder();
                i = escapeString(s, i + 2, b);
                out.add(new CatalogToken(Kind.STRING, quote(b.toString())));
            } else if (c == '\'' || c == '"') {
                int j = closingQuote(s, i);
                out.add(new CatalogToken(c == '\'' ? Kind.STRING : Kind.QUOTED, s.substring(i, j + 1)));
                i = j + 1;
            } else if (c == '$' && i + 1 < n && Character.isDigit(s.charAt(i + 1))) {
                int j = i + 1;
                while (j < n && Character.isDigit(s.charAt(j))) {
                    j++;
                }
                out.add(new CatalogToken(Kind.PARAM, s.substring(i + 1, j)));
                i = j;
            } else if (Character.isDigit(c) || (c == '.' && i + 1 < n && Character.isDigit(s.charAt(i + 1)))) {
                int j = i;
                while (j < n && (Character.isDigit(s.charAt(j)) || s.charAt(j) == '.'
                        || ((s.charAt(j) == 'e' || s.charAt(j) == 'E') && j + 1 < n && Character.isDigit(s.charAt(j + 1))))) {
                    j++;
                }
                out.add(new CatalogToken(Kind.NUMBER, s.substring(i, j)));
                i = j;
            } else if (Character.isLetter(c) || c == '_') {
                int j = i;
                while (j < n && (Character.isLetterOrDigit(s.charAt(j)) || s.charAt(j) == '_' || s.charAt(j) == '$')) {
                    j++;
                }
                out.add(new CatalogToken(Kind.WORD, s.substring(i, j)));
                i = j;
            } else if (c == ':' && i + 1 < n && s.charAt(i + 1) == ':') {
                out.add(new CatalogToken(Kind.OP, "::"));
                i += 2;
            } else if (OP_CHARS.indexOf(c) >= 0) {
                int j = operatorEnd(s, i);
                out.add(new CatalogToken(Kind.OP, s.substring(i, j)));
                i = j;
            } else if ("()[],;.:".indexOf(c) >= 0) {
                out.add(new CatalogToken(Kind.PUNCT, String.valueOf(c)));
                i++;
            } else {
                throw new SqlException(SqlException.SYNTAX, "syntax error at or near \"" + c + "\"");
            }
        }
        return out;
    }

    /** Reads the body of an {@code E'..'} string starting at {@code i} into {@code b}, its escapes resolved; the index after its closing quote. */
    private static int escapeString(String s, int i, StringBuilder b) {
        int n = s.length();
        while (true) {
            if (i >= n) {
                throw new SqlException(SqlException.SYNTAX, "unterminated quoted string");
            }
            char d = s.charAt(i);
            if (d == '\\' && i + 1 < n) {
                char e = s.charAt(i + 1);
                b.append(switch (e) {
                    case 'n' -> '\n';
                    case 't' -> '\t';
                    case 'r' -> '\r';
                    case 'b' -> '\b';
                    case 'f' -> '\f';
                    default -> e;
                });
                i += 2;
            } else if (d == '\'' && i + 1 < n && s.charAt(i + 1) == '\'') {
                b.append('\'');
                i += 2;
            } else if (d == '\'') {
                return i + 1;
            } else {
                b.append(d);
                i++;
            }
        }
    }

    /** The index of the quote closing the string literal or quoted identifier that opens at {@code open} (a doubled quote is one inside it). */
    private static int closingQuote(String s, int open) {
        char q = s.charAt(open);
        int n = s.length();
        int j = open + 1;
        while (true) {
            if (j >= n) {
                throw new SqlException(SqlException.SYNTAX, q == '\'' ? "unterminated quoted string" : "unterminated quoted identifier");
            }
            if (s.charAt(j) == q) {
                if (j + 1 < n && s.charAt(j + 1) == q) {
                    j += 2;
                    continue;
                }
                return j;
            }
            j++;
        }
    }

    /** The index after the operator that starts at {@code i}. */
    private static int operatorEnd(String s, int i) {
        int n = s.length();
        int j = i;
        while (j < n && OP_CHARS.indexOf(s.charAt(j)) >= 0 && !(s.charAt(j) == '-' && j + 1 < n && s.charAt(j + 1) == '-')) {
            j++;
        }
        // as PostgreSQL lexes: an operator of several characters ends in + or - only when it has one of ~ ! @ # % ^ & | ` ?
        while (j - i > 1 && "+-".indexOf(s.charAt(j - 1)) >= 0 && s.substring(i, j).chars().noneMatch(ch -> "~!@#%^&|`?".indexOf(ch) >= 0)) {
            j--;
        }
        return j;
    }

    /** {@code s} as a string literal. */
    static String quote(String s) {
        return "'" + s.replace("'", "''") + "'";
    }
}
