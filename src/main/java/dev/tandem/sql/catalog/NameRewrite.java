package dev.tandem.sql.catalog;

import static dev.tandem.sql.catalog.TokenScan.closing;
import static dev.tandem.sql.catalog.TokenScan.nameEnd;

import dev.tandem.sql.catalog.CatalogToken.Kind;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.calcite.sql.parser.SqlAbstractParserImpl;
import org.apache.calcite.sql.parser.SqlParser;

/**
 * Rewrites the names in a client's tokens that Calcite reads otherwise than PostgreSQL: {@code pg_catalog.}
 * before a function, words Calcite reserves used as names, {@code COLLATE} clauses and set-returning
 * functions in FROM.
 */
final class NameRewrite {

    private static final SqlAbstractParserImpl.Metadata CALCITE_WORDS = SqlParser.create("").getMetadata();

    private static final Set<String> FOLLOWS_ALIAS = Set.of("where", "order", "group", "join", "left", "right", "inner", "cross", "full",
            "on", "union", "limit", "having", ",", ")");

    /** The words that, after a closing parenthesis, continue the expression rather than alias it. */
    private static final Set<String> NOT_ALIASES = Set.of("is", "isnull", "notnull", "like", "ilike", "similar", "between", "in", "and",
            "or", "then", "else", "end", "when", "from", "where", "order", "group", "having", "limit", "offset", "union", "except",
            "intersect", "join", "left", "right", "inner", "cross", "full", "natural", "on", "as", "not", "asc", "desc", "nulls", "for",
            "fetch", "window", "over", "filter", "using");

    private NameRewrite() {
    }

    /** {@code pg_catalog.f(…)} → {@code f(…)}, so built-in functions resolve too; relations keep their schema. */
    static void stripCatalogPrefix(List<CatalogToken> toks) {
        for (int i = 0; i + 3 < toks.size(); i++) {
            if (toks.get(i).is("pg_catalog") && toks.get(i + 1).is(".") && toks.get(i + 2).kind() == Kind.WORD && toks.get(i + 3).is("(")
                    && !(i > 0 && toks.get(i - 1).is("."))) {
                toks.subList(i, i + 2).clear();
            }
        }
    }

    /** Words Calcite reserves that PostgreSQL lets name columns and aliases ({@code result}, {@code cardinality}, {@code default}…). */
    private static boolean calciteReserved(CatalogToken t) {
        return t.kind() == Kind.WORD && CALCITE_WORDS.isReservedWord(t.text().toUpperCase(Locale.ROOT));
    }

    /** A Calcite-reserved word used as a name (after AS, beside a dot, or as a subquery's alias) in double quotes, lower-cased. */
    static void reservedWords(List<CatalogToken> toks) {
        for (int i = 0; i < toks.size(); i++) {
            CatalogToken t = toks.get(i);
            if (!calciteReserved(t)) {
                continue;
            }
            CatalogToken prev = i > 0 ? toks.get(i - 1) : null;
            CatalogToken next = i + 1 < toks.size() ? toks.get(i + 1) : null;
            boolean name = prev != null && (prev.is("as") || prev.is("."))
                    || next != null && next.is(".")
                    || prev != null && prev.is(")") && (next == null || FOLLOWS_ALIAS.contains(next.lower())) && !NOT_ALIASES.contains(t.lower());
            if (name && !(prev != null && prev.is("as") && (t.is("varchar") || t.is("integer") || t.is("bigint") || t.is("boolean")
                    || t.is("smallint") || t.is("double") || t.is("real")))) {
                toks.set(i, new CatalogToken(Kind.QUOTED, "\"" + t.lower() + "\""));
            }
        }
    }

    /** {@code FROM generate_series(a, b) AS s(r)}: the set-returning function as a Calcite table function. */
    static void tableFunctions(List<CatalogToken> toks) {
        for (int i = 1; i + 1 < toks.size(); i++) {
            CatalogToken t = toks.get(i);
            CatalogToken prev = toks.get(i - 1);
            if (t.is("generate_series") && toks.get(i + 1).is("(") && (prev.is("from") || prev.is(",") || prev.is("join"))) {
                int close = closing(toks, i + 1);
                toks.add(close + 1, new CatalogToken(Kind.PUNCT, ")"));
                toks.add(i, new CatalogToken(Kind.PUNCT, "("));
                toks.add(i, new CatalogToken(Kind.WORD, "TABLE"));
                i = close + 3;
            }
        }
    }

    /** {@code x COLLATE name} → {@code x}: the clause dropped, its collation name with it. */
    static void dropCollate(List<CatalogToken> toks) {
        for (int i = 0; i < toks.size(); i++) {
            if (toks.get(i).is("collate")) {
                int j = nameEnd(toks, i + 1);
                toks.subList(i, j).clear();
                i--;
            }
        }
    }
}
