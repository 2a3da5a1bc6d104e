package dev.tandem.sql.catalog;

import dev.tandem.sql.SqlException;
import dev.tandem.sql.SqlState;
import dev.tandem.sql.catalog.CatalogToken.Kind;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Rewrites a PostgreSQL client's catalog query into the SQL Calcite's parser reads: casts
 * ({@code x::regclass}), regular-expression operators ({@code ~}, {@code OPERATOR(pg_catalog.~)}),
 * {@code E'..'} strings, {@code COLLATE} clauses, {@code $n} parameters, {@code pg_catalog.}-qualified
 * function names, the session functions ({@code current_schema()}, {@code current_user}), and the
 * drivers' set-returning idioms over index and key columns; reads of relations Tandem never fills
 * ({@code pg_policy}, {@code pg_inherits}…) are answered empty without planning. What it cannot
 * rewrite it refuses with {@code 0A000}.
 *
 * <p>The text's idioms are rewritten first ({@link DriverIdiomRewrite}), then it is lexed ({@link CatalogLexer})
 * and its tokens pass, in order, through the rewrites of names ({@link NameRewrite}), session functions
 * ({@link SessionFunctionRewrite}), operators ({@link OperatorRewrite}) and casts ({@link CastRewrite});
 * {@link EmptyRelationReads} finds the reads that return nothing.
 */
final class PgCatalogRewriter {

    /** The rewritten text, the PostgreSQL parameter number of each {@code ?} in it, and whether it is known to return no rows. */
    record Rewritten(String sql, List<Integer> parameters, int parameterCount, List<String> emptyColumns) {
        boolean empty() {
            return emptyColumns != null;
        }
    }

    /** The operators Calcite takes as PostgreSQL writes them; any other left after the rewrites is refused. */
    private static final Set<String> CALCITE_OPERATORS = Set.of("=", "<>", "!=", "<", ">", "<=", ">=", "+", "-", "*", "/", "||", "%");

    /** The functions of a {@code regclass} whose argument may be a parameter (read as text). */
    static final Set<String> SIZE_FUNCTIONS = Set.of("pg_relation_size", "pg_table_size", "pg_indexes_size", "pg_total_relation_size");

    private PgCatalogRewriter() {
    }

    static Rewritten rewrite(String sql, String user) {
        return rewrite(sql, user, 0);
    }

    /** {@code sql} rewritten for the session of {@code user} whose process id is {@code pid} (0 outside the wire protocol). */
    static Rewritten rewrite(String sql, String user, int pid) {
        List<CatalogToken> toks = CatalogLexer.lex(DriverIdiomRewrite.rewrite(sql));
        while (!toks.isEmpty() && toks.getLast().is(";")) {
            toks.removeLast();
        }
        List<String> empty = EmptyRelationReads.emptyQuery(toks);
        NameRewrite.stripCatalogPrefix(toks);
        NameRewrite.reservedWords(toks);
        NameRewrite.tableFunctions(toks);
        NameRewrite.dropCollate(toks);
        OperatorRewrite.operatorSyntax(toks);
        SessionFunctionRewrite.rewrite(toks, user, pid);
        EmptyRelationReads.emptySubqueries(toks);
        OperatorRewrite.booleanLiterals(toks);
        CastRewrite.casts(toks);
        OperatorRewrite.anyOfParameters(toks);
        OperatorRewrite.subscripts(toks);
        OperatorRewrite.likeEscapes(toks);
        OperatorRewrite.infix(toks);
        NameRewrite.stripCatalogPrefix(toks);
        List<Integer> params = new ArrayList<>();
        int count = 0;
        for (CatalogToken t : toks) {
            if (t.kind() == Kind.PARAM) {
                int k = Integer.parseInt(t.text());
                if (k < 1 || k > 65535) {
                    throw new SqlException(SqlState.UNDEFINED_PARAMETER, "there is no parameter $" + t.text());
                }
                params.add(k);
                count = Math.max(count, k);
            }
        }
        for (CatalogToken t : toks) {
            if (t.kind() == Kind.OP && !t.text().equals("::") && !CALCITE_OPERATORS.contains(t.text())) {
                throw SqlException.notSupported("the operator " + t.text() + " in a catalog query");
            }
        }
        return new Rewritten(render(toks), params, count, empty);
    }

    /** The column names PostgreSQL gives a SELECT's select list (aliases, column and function names, else ?column?). */
    static List<String> selectNames(String sql) {
        List<CatalogToken> toks = CatalogLexer.lex(sql);
        return toks.isEmpty() || !toks.getFirst().is("select") ? null : SelectListNames.of(toks, 0);
    }

    /** The tokens as text, spaced as SQL is written, each parameter a {@code ?}. */
    private static String render(List<CatalogToken> toks) {
        StringBuilder b = new StringBuilder();
        CatalogToken prev = null;
        CatalogToken before = null;
        for (CatalogToken t : toks) {
            if (prev != null && !(prev.is("(") || prev.is("[") || prev.is(".") || t.is(")") || t.is("]") || t.is(",") || t.is(".")
                    || (t.is("(") && (prev.kind() == Kind.WORD && !TokenScan.isKeywordBeforeParen(prev) || prev.kind() == Kind.QUOTED))
                    || t.is("["))) {
                b.append(' ');
            }
            // a parameter as a size function's relation has no type Calcite can infer: it is the relation's name or OID, as text
            boolean sizeArgument = t.kind() == Kind.PARAM && prev != null && prev.is("(") && before != null && before.kind() == Kind.WORD
                    && SIZE_FUNCTIONS.contains(before.lower());
            b.append(t.kind() == Kind.PARAM ? sizeArgument ? "CAST(? AS VARCHAR)" : "?" : t.text());
            before = prev;
            prev = t;
        }
        return b.toString();
    }
}
