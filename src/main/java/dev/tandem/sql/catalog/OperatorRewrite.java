package dev.tandem.sql.catalog;

import static dev.tandem.sql.catalog.TokenScan.closing;
import static dev.tandem.sql.catalog.TokenScan.operandEnd;
import static dev.tandem.sql.catalog.TokenScan.operandStart;

import dev.tandem.sql.SqlException;
import dev.tandem.sql.catalog.CatalogToken.Kind;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Rewrites PostgreSQL's operators and operand forms in a client's tokens into what Calcite reads:
 * {@code OPERATOR(pg_catalog.~)}, the regular-expression, LIKE and bitwise operators Calcite lacks as
 * function calls, {@code x = ANY($n)}, subscripts, LIKE's default escape and string literals compared with
 * the catalog's boolean columns.
 */
final class OperatorRewrite {

    /** The operators Calcite lacks, each rewritten as a call ({@link #infix}). */
    private static final Set<String> INFIX = Set.of("~", "!~", "~*", "!~*", "~~", "!~~", "~~*", "!~~*", "&", "|");

    private static final Set<String> BEFORE_OPERAND = Set.of("where", "and", "or", "not", "on", "when", "then", "else", "select", "having");

    /** Names of the catalog's boolean columns, and of its columns of any other type. */
    private static final Set<String> BOOLEAN_COLUMNS = new HashSet<>();
    private static final Set<String> OTHER_COLUMNS = new HashSet<>();

    static {
        for (CatalogRelations.Relation r : CatalogRelations.ALL.values()) {
            for (CatalogRelations.Col c : r.columns()) {
                (c.type().equals("bool") ? BOOLEAN_COLUMNS : OTHER_COLUMNS).add(c.name());
            }
        }
        BOOLEAN_COLUMNS.removeAll(OTHER_COLUMNS);
    }

    private OperatorRewrite() {
    }

    /** {@code OPERATOR(pg_catalog.~)} → {@code ~}. */
    static void operatorSyntax(List<CatalogToken> toks) {
        for (int i = 0; i + 1 < toks.size(); i++) {
            if (toks.get(i).is("operator") && toks.get(i + 1).is("(")) {
                int close = closing(toks, i + 1);
                CatalogToken op = toks.get(close - 1);
                if (op.kind() != Kind.OP) {
                    throw SqlException.notSupported("this OPERATOR() form");
                }
                toks.subList(i, close + 1).clear();
                toks.add(i, op);
            }
        }
    }

    /**
     * {@code x = ANY($n)}, an array bound as a parameter (psycopg 3 binds a list so), becomes
     * {@code tandem_any(x, $n)}; another comparison with a quantified parameter is refused.
     */
    static void anyOfParameters(List<CatalogToken> toks) {
        for (int i = 2; i + 3 < toks.size(); i++) {
            CatalogToken q = toks.get(i);
            if (!((q.is("any") || q.is("some") || q.is("all")) && toks.get(i + 1).is("(") && toks.get(i + 2).kind() == Kind.PARAM
                    && toks.get(i + 3).is(")"))) {
                continue;
            }
            int start = i - 2;
            if (start >= 2 && toks.get(start - 1).is(".") && toks.get(start - 2).isName()) {
                start -= 2;
            }
            CatalogToken before = start > 0 ? toks.get(start - 1) : null;
            boolean simple = Set.of(Kind.WORD, Kind.QUOTED, Kind.STRING, Kind.NUMBER, Kind.PARAM).contains(toks.get(i - 2).kind())
                    && (before == null || before.is("(") || before.is(",") || before.kind() == Kind.WORD && BEFORE_OPERAND.contains(before.lower()));
            if (!(q.is("any") || q.is("some")) || !(toks.get(i - 1).kind() == Kind.OP && toks.get(i - 1).text().equals("=")) || !simple) {
                throw SqlException.notSupported("a comparison with " + q.text().toUpperCase(Locale.ROOT)
                        + " of a parameter in a catalog query (only column = ANY($n))");
            }
            List<CatalogToken> args = new ArrayList<>(toks.subList(start, i - 1));
            args.add(new CatalogToken(Kind.PUNCT, ","));
            args.add(toks.get(i + 2));
            List<CatalogToken> call = CatalogToken.call("tandem_any", args);
            toks.subList(start, i + 4).clear();
            toks.addAll(start, call);
            i = start + call.size() - 1;
        }
    }

    /** {@code a[i]} → {@code a[CAST(i AS INTEGER)]}: Calcite's subscripts take an INTEGER, the catalog's numbers are BIGINT. */
    static void subscripts(List<CatalogToken> toks) {
        for (int i = 1; i < toks.size(); i++) {
            if (toks.get(i).is("[") && !toks.get(i - 1).is("array") && i + 1 < toks.size() && !toks.get(i + 1).is("]")) {
                int close = closing(toks, i);
                toks.add(close, new CatalogToken(Kind.PUNCT, ")"));
                toks.add(close, new CatalogToken(Kind.WORD, "INTEGER"));
                toks.add(close, new CatalogToken(Kind.WORD, "AS"));
                toks.add(i + 1, new CatalogToken(Kind.PUNCT, "("));
                toks.add(i + 1, new CatalogToken(Kind.WORD, "CAST"));
            }
        }
    }

    /** {@code a LIKE p} → {@code a LIKE p ESCAPE '\'}: PostgreSQL's LIKE escapes with a backslash by default, Calcite's with nothing. */
    static void likeEscapes(List<CatalogToken> toks) {
        for (int i = 0; i + 1 < toks.size(); i++) {
            if (toks.get(i).is("like") || toks.get(i).is("ilike")) {
                int end = operandEnd(toks, i + 1);
                if (end < toks.size() && toks.get(end).is("escape")) {
                    continue;
                }
                toks.add(end, new CatalogToken(Kind.STRING, "'\\'"));
                toks.add(end, new CatalogToken(Kind.WORD, "ESCAPE"));
            }
        }
    }

    /** {@code indisprimary = 'f'}: a string literal compared with a boolean column of the catalog, as the boolean it spells. */
    static void booleanLiterals(List<CatalogToken> toks) {
        for (int i = 1; i + 1 < toks.size(); i++) {
            CatalogToken op = toks.get(i);
            if (op.kind() != Kind.OP || !Set.of("=", "<>", "!=").contains(op.text())) {
                continue;
            }
            CatalogToken left = toks.get(i - 1);
            CatalogToken right = toks.get(i + 1);
            if (left.kind() == Kind.WORD && BOOLEAN_COLUMNS.contains(left.lower()) && right.kind() == Kind.STRING) {
                toks.set(i + 1, booleanLiteral(right));
            } else if (right.kind() == Kind.WORD && BOOLEAN_COLUMNS.contains(right.lower()) && left.kind() == Kind.STRING
                    && !(i + 2 < toks.size() && toks.get(i + 2).is("."))) {
                toks.set(i - 1, booleanLiteral(left));
            }
        }
    }

    private static CatalogToken booleanLiteral(CatalogToken s) {
        return new CatalogToken(Kind.WORD, PgCatalogFunctions.parseBool(s.unquoted()) ? "TRUE" : "FALSE");
    }

    /** Binary operators Calcite lacks ({@link #INFIX}), as function calls: {@code a ~ b} → {@code tandem_regex(a, b, FALSE)}. */
    static void infix(List<CatalogToken> toks) {
        for (int i = 0; i < toks.size(); i++) {
            CatalogToken t = toks.get(i);
            if (t.kind() != Kind.OP || !INFIX.contains(t.text())) {
                continue;
            }
            int start = operandStart(toks, i);
            int end = operandEnd(toks, i + 1);
            String op = t.text();
            boolean negated = op.startsWith("!");
            String base = negated ? op.substring(1) : op;
            String fn = switch (base) {
                case "~", "~*" -> "tandem_regex";
                case "~~", "~~*" -> "tandem_like";
                case "&" -> "tandem_bitand";
                case "|" -> "tandem_bitor";
                default -> throw SqlException.notSupported("the operator " + op);
            };
            List<CatalogToken> args = new ArrayList<>(toks.subList(start, i));
            args.add(new CatalogToken(Kind.PUNCT, ","));
            args.addAll(toks.subList(i + 1, end));
            if (fn.equals("tandem_regex") || fn.equals("tandem_like")) {
                args.add(new CatalogToken(Kind.PUNCT, ","));
                args.add(new CatalogToken(Kind.WORD, base.endsWith("*") ? "TRUE" : "FALSE"));
            }
            List<CatalogToken> call = CatalogToken.call(fn, args);
            if (negated) {
                call.addFirst(new CatalogToken(Kind.WORD, "NOT"));
                call.addFirst(new CatalogToken(Kind.PUNCT, "("));
                call.add(new CatalogToken(Kind.PUNCT, ")"));
            }
            toks.subList(start, end).clear();
            toks.addAll(start, call);
            i = start;
        }
    }
}
