package dev.tandem.sql.catalog;

import static dev.tandem.sql.catalog.CatalogLexer.quote;

import dev.tandem.sql.SqlException;
import dev.tandem.sql.catalog.CatalogToken.Kind;
import java.util.List;

/**
 * Replaces the session functions in a client's tokens by the session's values: {@code current_user} and
 * its synonyms, {@code current_catalog}, {@code current_schema}, {@code current_schemas(b)} and
 * {@code pg_backend_pid()}, a lone one in a select list named as PostgreSQL names its column.
 */
final class SessionFunctionRewrite {

    private SessionFunctionRewrite() {
    }

    /** Rewrites the session functions in {@code toks} for {@code user}'s session, whose process id is {@code pid} (0 outside the wire protocol). */
    static void rewrite(List<CatalogToken> toks, String user, int pid) {
        for (int i = 0; i < toks.size(); i++) {
            CatalogToken t = toks.get(i);
            if (t.kind() != Kind.WORD || (i > 0 && toks.get(i - 1).is("."))) {
                continue;
            }
            boolean call = i + 2 < toks.size() && toks.get(i + 1).is("(") && toks.get(i + 2).is(")");
            String replacement = switch (t.lower()) {
                case "current_user", "session_user", "user", "current_role" -> i + 1 < toks.size() && toks.get(i + 1).is("(") ? null : quote(user);
                case "current_catalog" -> quote(PgCatalogData.DATABASE);
                case "current_schema" -> call || !(i + 1 < toks.size() && toks.get(i + 1).is("(")) ? quote("public") : null;
                case "current_schemas" -> schemas(toks, i);
                case "pg_backend_pid" -> call ? backendPid(pid) : null;
                default -> null;
            };
            if (replacement != null && t.lower().equals("current_schemas")) {
                toks.subList(i, i + 4).clear();
                toks.addAll(i, CatalogLexer.lex(replacement));
            } else if (replacement != null) {
                String alias = t.lower();
                toks.set(i, new CatalogToken(t.lower().equals("pg_backend_pid") ? Kind.NUMBER : Kind.STRING, replacement));
                if (call) {
                    toks.subList(i + 1, i + 3).clear();
                }
                if (selectListItemEnds(toks, i + 1) && aliasable(toks, i)) {
                    toks.add(i + 1, new CatalogToken(Kind.WORD, "AS"));
                    toks.add(i + 2, new CatalogToken(Kind.QUOTED, "\"" + alias + "\""));
                }
            }
        }
    }

    private static String backendPid(int pid) {
        if (pid <= 0) {
            throw SqlException.notSupported("pg_backend_pid() outside a wire-protocol session");
        }
        return Integer.toString(pid);
    }

    /** {@code current_schemas(b)}: the search path, with pg_catalog when {@code b} is true. */
    private static String schemas(List<CatalogToken> toks, int i) {
        if (!(i + 3 < toks.size() && toks.get(i + 1).is("(") && toks.get(i + 3).is(")"))) {
            throw SqlException.notSupported("this call of current_schemas");
        }
        CatalogToken b = toks.get(i + 2);
        boolean implicit = b.text().equalsIgnoreCase("true") || b.text().equalsIgnoreCase("'t'") || b.text().equalsIgnoreCase("'true'");
        return implicit ? "ARRAY['pg_catalog', 'public']" : "ARRAY['public']";
    }

    /** Whether the expression at {@code i} stands alone between select-list separators (so PostgreSQL would name its column after it). */
    private static boolean aliasable(List<CatalogToken> toks, int i) {
        return i > 0 && (toks.get(i - 1).is("select") || toks.get(i - 1).is(","));
    }

    private static boolean selectListItemEnds(List<CatalogToken> toks, int i) {
        return i >= toks.size() || toks.get(i).is(",") || toks.get(i).is("from");
    }
}
