package dev.tandem.sql.catalog;

import dev.tandem.sql.SqlException;
import dev.tandem.sql.catalog.CatalogToken.Kind;
import java.util.List;
import java.util.Set;

/** Finds the extent of brackets, names and operands in a list of {@link CatalogToken}s, for the rewrites that replace them. */
final class TokenScan {

    private static final Set<String> KEYWORDS_BEFORE_PAREN = Set.of("and", "or", "not", "in", "select", "where", "on", "when", "then",
            "else", "from", "exists", "any", "some", "all", "array", "as", "by", "join", "using", "values");

    private TokenScan() {
    }

    /** +1 for an opening bracket ( or [, -1 for a closing one, else 0. */
    static int depthStep(CatalogToken t) {
        return t.is("(") || t.is("[") ? 1 : t.is(")") || t.is("]") ? -1 : 0;
    }

    /** The index of the bracket closing the one at {@code open}. */
    static int closing(List<CatalogToken> toks, int open) {
        String o = toks.get(open).text();
        String c = o.equals("(") ? ")" : "]";
        int depth = 0;
        for (int i = open; i < toks.size(); i++) {
            CatalogToken t = toks.get(i);
            if (t.kind() == Kind.PUNCT && (t.text().equals("(") || t.text().equals("["))) {
                depth++;
            } else if (t.kind() == Kind.PUNCT && (t.text().equals(")") || t.text().equals("]"))) {
                depth--;
                if (depth == 0) {
                    if (!t.text().equals(c)) {
                        break;
                    }
                    return i;
                }
            }
        }
        throw new SqlException(SqlException.SYNTAX, "syntax error: unbalanced " + o);
    }

    /** The index of the bracket opening the one at {@code close}. */
    static int opening(List<CatalogToken> toks, int close) {
        int depth = 0;
        for (int i = close; i >= 0; i--) {
            CatalogToken t = toks.get(i);
            if (t.kind() == Kind.PUNCT && (t.text().equals(")") || t.text().equals("]"))) {
                depth++;
            } else if (t.kind() == Kind.PUNCT && (t.text().equals("(") || t.text().equals("["))) {
                depth--;
                if (depth == 0) {
                    return i;
                }
            }
        }
        throw new SqlException(SqlException.SYNTAX, "syntax error: unbalanced )");
    }

    /** The index after a possibly qualified name starting at {@code i}. */
    static int nameEnd(List<CatalogToken> toks, int i) {
        if (i >= toks.size() || !toks.get(i).isName()) {
            throw new SqlException(SqlException.SYNTAX, "syntax error: a name expected");
        }
        i++;
        while (i + 1 < toks.size() && toks.get(i).is(".") && toks.get(i + 1).isName()) {
            i += 2;
        }
        return i;
    }

    /** The first token of the operand that ends just before {@code i}: a name, literal, call or bracketed expression, with subscripts. */
    static int operandStart(List<CatalogToken> toks, int i) {
        int j = i - 1;
        if (j < 0) {
            throw new SqlException(SqlException.SYNTAX, "syntax error: an operand expected");
        }
        while (toks.get(j).is("]")) {
            j = opening(toks, j) - 1;
        }
        CatalogToken t = toks.get(j);
        if (t.is(")")) {
            j = opening(toks, j);
            if (j > 0 && toks.get(j - 1).isName() && !isKeywordBeforeParen(toks.get(j - 1))) {
                j--;
            } else {
                return j;
            }
        } else if (!(t.isName() || t.kind() == Kind.STRING || t.kind() == Kind.NUMBER || t.kind() == Kind.PARAM)) {
            throw SqlException.notSupported("this operand of " + toks.get(i).text() + " in a catalog query");
        }
        while (j >= 2 && toks.get(j - 1).is(".") && toks.get(j - 2).isName()) {
            j -= 2;
        }
        return j;
    }

    /** The index after the operand that starts at {@code i}: a name, literal, call, bracketed expression or CAST, with subscripts. */
    static int operandEnd(List<CatalogToken> toks, int i) {
        if (i >= toks.size()) {
            throw new SqlException(SqlException.SYNTAX, "syntax error at end of input");
        }
        CatalogToken t = toks.get(i);
        int j;
        if (t.is("(")) {
            j = closing(toks, i) + 1;
        } else if (t.kind() == Kind.STRING || t.kind() == Kind.NUMBER || t.kind() == Kind.PARAM) {
            j = i + 1;
        } else if (t.isName()) {
            j = nameEnd(toks, i);
            if (j < toks.size() && toks.get(j).is("(")) {
                j = closing(toks, j) + 1;
            }
        } else {
            throw SqlException.notSupported("this operand in a catalog query");
        }
        while (j < toks.size() && toks.get(j).is("[")) {
            j = closing(toks, j) + 1;
        }
        return j;
    }

    /** Whether {@code t} is a keyword a parenthesis may follow without making a call of it ({@code IN (…)}, {@code EXISTS (…)}). */
    static boolean isKeywordBeforeParen(CatalogToken t) {
        return t.kind() == Kind.WORD && KEYWORDS_BEFORE_PAREN.contains(t.lower());
    }
}
