package dev.tandem.sql.catalog;

import dev.tandem.sql.SqlException;
import dev.tandem.sql.SqlState;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Rewrites a PostgreSQL client's catalog query into the SQL Calcite's parser reads: casts
 * ({@code x::regclass}), regular-expression operators ({@code ~}, {@code OPERATOR(pg_catalog.~)}),
 * {@code E'..'} strings, {@code COLLATE} clauses, {@code $n} parameters, {@code pg_catalog.}-qualified
 * function names, the session functions ({@code current_schema()}, {@code current_user}), and the
 * drivers' set-returning idioms over index and key columns; reads of relations Tandem never fills
 * ({@code pg_policy}, {@code pg_inherits}…) are answered empty without planning. What it cannot
 * rewrite it refuses with {@code 0A000}.
 */
final class PgCatalogRewriter {

    /** The rewritten text, the PostgreSQL parameter number of each {@code ?} in it, and whether it is known to return no rows. */
    record Rewritten(String sql, List<Integer> parameters, int parameterCount, List<String> emptyColumns) {
        boolean empty() {
            return emptyColumns != null;
        }
    }

    /** Relations PostgreSQL has that are always empty in Tandem (no policies, inheritance, publications, sequences, triggers…). */
    static final Set<String> EMPTY_RELATIONS = Set.of("pg_policy", "pg_statistic_ext", "pg_publication", "pg_publication_rel",
            "pg_publication_namespace", "pg_inherits", "pg_sequence", "pg_enum", "pg_trigger", "pg_rewrite", "pg_foreign_table",
            "pg_partitioned_table", "pg_event_trigger", "pg_extension", "pg_foreign_data_wrapper", "pg_foreign_server",
            "pg_user_mapping", "pg_subscription", "pg_shdescription", "pg_seclabel", "pg_init_privs", "pg_opclass", "pg_depend");

    private static final Set<String> AGGREGATES = Set.of("count", "sum", "min", "max", "avg", "string_agg", "array_agg", "bool_and",
            "bool_or", "every", "json_agg", "jsonb_agg", "json_object_agg", "jsonb_object_agg");

    /** The user names the session functions return. */
    private final String user;
    /** The session's process id, as {@code pg_backend_pid()} returns it. */
    private final int pid;
    private List<Tok> toks;

    private PgCatalogRewriter(String user, int pid) {
        this.user = user;
        this.pid = pid;
    }

    static Rewritten rewrite(String sql, String user) {
        return rewrite(sql, user, 0);
    }

    static Rewritten rewrite(String sql, String user, int pid) {
        return new PgCatalogRewriter(user, pid).run(sql);
    }

    /** The column names PostgreSQL gives a SELECT's select list (aliases, column and function names, else ?column?). */
    static List<String> selectNames(String sql) {
        PgCatalogRewriter r = new PgCatalogRewriter("", 0);
        r.toks = lex(sql);
        return r.toks.isEmpty() || !r.toks.getFirst().is("select") ? null : r.selectListNames(0);
    }

    // ------------------------------------------------------------------ client idioms (text level)

    /** pgjdbc's {@code information_schema._pg_expandarray(x)} over a key or index's columns, in getPrimaryKeys and getIndexInfo. */
    private static final Pattern FIELD_X = Pattern.compile("(?i)\\(\\s*(\\w+)\\.(\\w+)\\s*\\)\\.x");
    /** SQLAlchemy's {@code unnest(ix.indkey) attnum, generate_subscripts(ix.indkey, 1) ord FROM pg_index ix}. */
    private static final Pattern UNNEST_SUBSCRIPTS = Pattern.compile("(?is)SELECT\\s+unnest\\((\\w+)\\.(\\w+)\\)\\s+(\\w+)\\s*,\\s*"
            + "generate_subscripts\\(\\1\\.\\2\\s*,\\s*1\\)\\s+(\\w+)\\s+FROM\\s+((?:pg_catalog\\.)?\\w+)\\s+\\1\\b");

    private static final Pattern EXPAND = Pattern.compile("(?i)information_schema\\._pg_expandarray\\(\\s*(\\w+)\\.(\\w+)\\s*\\)");

    private static String idioms(String sql) {
        Matcher m = UNNEST_SUBSCRIPTS.matcher(sql);
        if (m.find()) {
            sql = m.replaceAll("SELECT k.x AS $3, k.n AS $4 FROM $5 $1 CROSS JOIN UNNEST($1.$2) WITH ORDINALITY AS k(x, n)");
        }
        Matcher e = EXPAND.matcher(sql);
        if (!e.find()) {
            return sql;
        }
        String alias = e.group(1);
        String column = e.group(2);
        String call = Pattern.quote(e.group());
        if (sql.replaceAll(call, "").matches("(?is).*_pg_expandarray.*")) {
            throw SqlException.notSupported("information_schema._pg_expandarray of more than one array");
        }
        sql = sql.replaceAll("\\(\\s*" + call + "\\s*\\)\\.n\\b", "tandem_keys.n");
        sql = sql.replaceAll("\\(\\s*" + call + "\\s*\\)\\.x\\b", "tandem_keys.x");
        Matcher as = Pattern.compile("(?i)" + call + "\\s+AS\\s+(\\w+)").matcher(sql);
        if (as.find()) {
            String name = as.group(1);
            sql = as.replaceFirst("tandem_keys.x AS " + name + "_x");
            sql = FIELD_X.matcher(sql).replaceAll(r -> r.group(2).equalsIgnoreCase(name) ? r.group(1) + "." + name + "_x"
                    : Matcher.quoteReplacement(r.group()));
        }
        if (sql.matches("(?is).*_pg_expandarray.*")) {
            throw SqlException.notSupported("this use of information_schema._pg_expandarray");
        }
        // the expansion joins the FROM item whose alias it reads
        Matcher im = Pattern.compile("(?i)(pg_catalog\\.\\w+\\s+" + Pattern.quote(alias) + ")\\b(?!\\.)").matcher(sql);
        if (!im.find()) {
            throw SqlException.notSupported("this use of information_schema._pg_expandarray");
        }
        int at = im.end();
        // after the item's own join condition, if it has one
        Matcher on = Pattern.compile("(?i)^\\s*ON\\s*\\(").matcher(sql.substring(at));
        if (on.find()) {
            int depth = 0;
            int i = at + on.end() - 1;
            for (; i < sql.length(); i++) {
                if (sql.charAt(i) == '(') {
                    depth++;
                } else if (sql.charAt(i) == ')' && --depth == 0) {
                    break;
                }
            }
            at = i + 1;
        }
        return sql.substring(0, at) + " CROSS JOIN UNNEST(" + alias + "." + column + ") WITH ORDINALITY AS tandem_keys(x, n)" + sql.substring(at);
    }

    // ------------------------------------------------------------------ tokens

    enum Kind { WORD, QUOTED, STRING, NUMBER, PARAM, OP, PUNCT }

    record Tok(Kind kind, String text) {
        boolean is(String word) {
            return (kind == Kind.WORD || kind == Kind.OP || kind == Kind.PUNCT) && text.equalsIgnoreCase(word);
        }

        String lower() {
            return text.toLowerCase(Locale.ROOT);
        }
    }

    private static final String OP_CHARS = "+-*/<>=~!@#%^&|?";

    static List<Tok> lex(String s) {
        List<Tok> out = new ArrayList<>();
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
                i += 2;
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
                        i++;
                        break;
                    } else {
                        b.append(d);
                        i++;
                    }
                }
                out.add(new Tok(Kind.STRING, quote(b.toString())));
            } else if (c == '\'') {
                int j = i + 1;
                while (true) {
                    if (j >= n) {
                        throw new SqlException(SqlException.SYNTAX, "unterminated quoted string");
                    }
                    if (s.charAt(j) == '\'') {
                        if (j + 1 < n && s.charAt(j + 1) == '\'') {
                            j += 2;
                            continue;
                        }
                        break;
                    }
                    j++;
                }
                out.add(new Tok(Kind.STRING, s.substring(i, j + 1)));
                i = j + 1;
            } else if (c == '"') {
                int j = i + 1;
                while (true) {
                    if (j >= n) {
                        throw new SqlException(SqlException.SYNTAX, "unterminated quoted identifier");
                    }
                    if (s.charAt(j) == '"') {
                        if (j + 1 < n && s.charAt(j + 1) == '"') {
                            j += 2;
                            continue;
                        }
                        break;
                    }
                    j++;
                }
                out.add(new Tok(Kind.QUOTED, s.substring(i, j + 1)));
                i = j + 1;
            } else if (c == '$' && i + 1 < n && Character.isDigit(s.charAt(i + 1))) {
                int j = i + 1;
                while (j < n && Character.isDigit(s.charAt(j))) {
                    j++;
                }
                out.add(new Tok(Kind.PARAM, s.substring(i + 1, j)));
                i = j;
            } else if (Character.isDigit(c) || (c == '.' && i + 1 < n && Character.isDigit(s.charAt(i + 1)))) {
                int j = i;
                while (j < n && (Character.isDigit(s.charAt(j)) || s.charAt(j) == '.'
                        || ((s.charAt(j) == 'e' || s.charAt(j) == 'E') && j + 1 < n && Character.isDigit(s.charAt(j + 1))))) {
                    j++;
                }
                out.add(new Tok(Kind.NUMBER, s.substring(i, j)));
                i = j;
            } else if (Character.isLetter(c) || c == '_') {
                int j = i;
                while (j < n && (Character.isLetterOrDigit(s.charAt(j)) || s.charAt(j) == '_' || s.charAt(j) == '$')) {
                    j++;
                }
                out.add(new Tok(Kind.WORD, s.substring(i, j)));
                i = j;
            } else if (c == ':' && i + 1 < n && s.charAt(i + 1) == ':') {
                out.add(new Tok(Kind.OP, "::"));
                i += 2;
            } else if (OP_CHARS.indexOf(c) >= 0) {
                int j = i;
                while (j < n && OP_CHARS.indexOf(s.charAt(j)) >= 0 && !(s.charAt(j) == '-' && j + 1 < n && s.charAt(j + 1) == '-')) {
                    j++;
                }
                // as PostgreSQL lexes: an operator of several characters ends in + or - only when it has one of ~ ! @ # % ^ & | ` ?
                while (j - i > 1 && "+-".indexOf(s.charAt(j - 1)) >= 0 && s.substring(i, j).chars().noneMatch(ch -> "~!@#%^&|`?".indexOf(ch) >= 0)) {
                    j--;
                }
                out.add(new Tok(Kind.OP, s.substring(i, j)));
                i = j;
            } else if ("()[],;.:".indexOf(c) >= 0) {
                out.add(new Tok(Kind.PUNCT, String.valueOf(c)));
                i++;
            } else {
                throw new SqlException(SqlException.SYNTAX, "syntax error at or near \"" + c + "\"");
            }
        }
        return out;
    }

    static String quote(String s) {
        return "'" + s.replace("'", "''") + "'";
    }

    static String unquote(Tok t) {
        String s = t.text();
        return s.substring(1, s.length() - 1).replace(t.kind() == Kind.STRING ? "''" : "\"\"", t.kind() == Kind.STRING ? "'" : "\"");
    }

    private static String render(List<Tok> toks) {
        StringBuilder b = new StringBuilder();
        Tok prev = null;
        Tok before = null;
        for (Tok t : toks) {
            if (prev != null && !(prev.is("(") || prev.is("[") || prev.is(".") || t.is(")") || t.is("]") || t.is(",") || t.is(".")
                    || (t.is("(") && (prev.kind() == Kind.WORD && !isKeywordBeforeParen(prev) || prev.kind() == Kind.QUOTED)) || t.is("["))) {
                b.append(' ');
            }
            // a parameter as a size function's relation has no type Calcite can infer: it is the relation's name or OID, as text
            boolean sizeArgument = t.kind() == Kind.PARAM && prev != null && prev.is("(") && before != null && before.kind() == Kind.WORD
                    && SIZE_FUNCTIONS.contains(before.text().toLowerCase(java.util.Locale.ROOT));
            b.append(t.kind() == Kind.PARAM ? sizeArgument ? "CAST(? AS VARCHAR)" : "?" : t.text());
            before = prev;
            prev = t;
        }
        return b.toString();
    }

    /** The functions of a {@code regclass} whose argument may be a parameter (read as text). */
    private static final Set<String> SIZE_FUNCTIONS = Set.of("pg_relation_size", "pg_table_size", "pg_indexes_size", "pg_total_relation_size");

    // ------------------------------------------------------------------ the rewrite

    private Rewritten run(String sql) {
        toks = lex(idioms(sql));
        while (!toks.isEmpty() && toks.getLast().is(";")) {
            toks.removeLast();
        }
        List<String> empty = emptyQuery();
        stripCatalogPrefix();
        reservedWords();
        tableFunctions();
        dropCollate();
        operatorSyntax();
        sessionFunctions();
        emptySubqueries();
        booleanLiterals();
        casts();
        anyOfParameters();
        subscripts();
        likeEscapes();
        infix(Set.of("~", "!~", "~*", "!~*", "~~", "!~~", "~~*", "!~~*", "&", "|"));
        stripCatalogPrefix();
        List<Integer> params = new ArrayList<>();
        int count = 0;
        for (Tok t : toks) {
            if (t.kind() == Kind.PARAM) {
                int k = Integer.parseInt(t.text());
                if (k < 1 || k > 65535) {
                    throw new SqlException(SqlState.UNDEFINED_PARAMETER, "there is no parameter $" + t.text());
                }
                params.add(k);
                count = Math.max(count, k);
            }
        }
        for (Tok t : toks) {
            if (t.kind() == Kind.OP && !t.text().equals("::") && !Set.of("=", "<>", "!=", "<", ">", "<=", ">=", "+", "-", "*", "/", "||", "%")
                    .contains(t.text())) {
                throw SqlException.notSupported("the operator " + t.text() + " in a catalog query");
            }
        }
        return new Rewritten(render(toks), params, count, empty);
    }

    private static final Set<String> BEFORE_OPERAND = Set.of("where", "and", "or", "not", "on", "when", "then", "else", "select", "having");

    /**
     * {@code x = ANY($n)}, an array bound as a parameter (psycopg 3 binds a list so), becomes
     * {@code tandem_any(x, $n)}; another comparison with a quantified parameter is refused.
     */
    private void anyOfParameters() {
        for (int i = 2; i + 3 < toks.size(); i++) {
            Tok q = toks.get(i);
            if (!((q.is("any") || q.is("some") || q.is("all")) && toks.get(i + 1).is("(") && toks.get(i + 2).kind() == Kind.PARAM
                    && toks.get(i + 3).is(")"))) {
                continue;
            }
            int start = i - 2;
            if (start >= 2 && toks.get(start - 1).is(".") && Set.of(Kind.WORD, Kind.QUOTED).contains(toks.get(start - 2).kind())) {
                start -= 2;
            }
            Tok before = start > 0 ? toks.get(start - 1) : null;
            boolean simple = Set.of(Kind.WORD, Kind.QUOTED, Kind.STRING, Kind.NUMBER, Kind.PARAM).contains(toks.get(i - 2).kind())
                    && (before == null || before.is("(") || before.is(",") || before.kind() == Kind.WORD && BEFORE_OPERAND.contains(before.lower()));
            if (!(q.is("any") || q.is("some")) || !(toks.get(i - 1).kind() == Kind.OP && toks.get(i - 1).text().equals("=")) || !simple) {
                throw SqlException.notSupported("a comparison with " + q.text().toUpperCase(Locale.ROOT)
                        + " of a parameter in a catalog query (only column = ANY($n))");
            }
            List<Tok> operand = new ArrayList<>(toks.subList(start, i - 1));
            Tok param = toks.get(i + 2);
            toks.subList(start, i + 4).clear();
            List<Tok> call = new ArrayList<>(List.of(new Tok(Kind.WORD, "tandem_any"), new Tok(Kind.PUNCT, "(")));
            call.addAll(operand);
            call.addAll(List.of(new Tok(Kind.PUNCT, ","), param, new Tok(Kind.PUNCT, ")")));
            toks.addAll(start, call);
            i = start + call.size() - 1;
        }
    }

    private void dropCollate() {
        for (int i = 0; i < toks.size(); i++) {
            if (toks.get(i).is("collate")) {
                int j = i + 1;
                j = nameEnd(j);
                toks.subList(i, j).clear();
                i--;
            }
        }
    }

    /** The index after a possibly qualified name starting at {@code i}. */
    private int nameEnd(int i) {
        if (i >= toks.size() || (toks.get(i).kind() != Kind.WORD && toks.get(i).kind() != Kind.QUOTED)) {
            throw new SqlException(SqlException.SYNTAX, "syntax error: a name expected");
        }
        i++;
        while (i + 1 < toks.size() && toks.get(i).is(".") && (toks.get(i + 1).kind() == Kind.WORD || toks.get(i + 1).kind() == Kind.QUOTED)) {
            i += 2;
        }
        return i;
    }

    /** {@code OPERATOR(pg_catalog.~)} → {@code ~}. */
    private void operatorSyntax() {
        for (int i = 0; i + 1 < toks.size(); i++) {
            if (toks.get(i).is("operator") && toks.get(i + 1).is("(")) {
                int close = closing(i + 1);
                Tok op = toks.get(close - 1);
                if (op.kind() != Kind.OP) {
                    throw SqlException.notSupported("this OPERATOR() form");
                }
                toks.subList(i, close + 1).clear();
                toks.add(i, op);
            }
        }
    }

    /** The index of the bracket closing the one at {@code open}. */
    private int closing(int open) {
        String o = toks.get(open).text();
        String c = o.equals("(") ? ")" : "]";
        int depth = 0;
        for (int i = open; i < toks.size(); i++) {
            Tok t = toks.get(i);
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

    private void sessionFunctions() {
        for (int i = 0; i < toks.size(); i++) {
            Tok t = toks.get(i);
            if (t.kind() != Kind.WORD || (i > 0 && toks.get(i - 1).is("."))) {
                continue;
            }
            boolean call = i + 2 < toks.size() && toks.get(i + 1).is("(") && toks.get(i + 2).is(")");
            String replacement = switch (t.lower()) {
                case "current_user", "session_user", "user", "current_role" -> i + 1 < toks.size() && toks.get(i + 1).is("(") ? null : quote(user);
                case "current_catalog" -> quote(PgCatalogData.DATABASE);
                case "current_schema" -> call || !(i + 1 < toks.size() && toks.get(i + 1).is("(")) ? quote("public") : null;
                case "current_schemas" -> schemas(i);
                case "pg_backend_pid" -> call ? backendPid() : null;
                default -> null;
            };
            if (replacement != null && t.lower().equals("current_schemas")) {
                toks.subList(i, i + 4).clear();
                toks.addAll(i, lex(replacement));
            } else if (replacement != null) {
                String alias = t.lower();
                toks.set(i, new Tok(t.lower().equals("pg_backend_pid") ? Kind.NUMBER : Kind.STRING, replacement));
                if (call) {
                    toks.subList(i + 1, i + 3).clear();
                }
                if (selectListItemEnds(i + 1) && aliasable(i)) {
                    toks.add(i + 1, new Tok(Kind.WORD, "AS"));
                    toks.add(i + 2, new Tok(Kind.QUOTED, "\"" + alias + "\""));
                }
            }
        }
    }

    private String backendPid() {
        if (pid <= 0) {
            throw SqlException.notSupported("pg_backend_pid() outside a wire-protocol session");
        }
        return Integer.toString(pid);
    }

    /** {@code current_schemas(b)}: the search path, with pg_catalog when {@code b} is true. */
    private String schemas(int i) {
        if (!(i + 3 < toks.size() && toks.get(i + 1).is("(") && toks.get(i + 3).is(")"))) {
            throw SqlException.notSupported("this call of current_schemas");
        }
        Tok b = toks.get(i + 2);
        boolean implicit = b.text().equalsIgnoreCase("true") || b.text().equalsIgnoreCase("'t'") || b.text().equalsIgnoreCase("'true'");
        return implicit ? "ARRAY['pg_catalog', 'public']" : "ARRAY['public']";
    }

    /** Whether the expression at {@code i} stands alone between select-list separators (so PostgreSQL would name its column after it). */
    private boolean aliasable(int i) {
        return i > 0 && (toks.get(i - 1).is("select") || toks.get(i - 1).is(","));
    }

    private boolean selectListItemEnds(int i) {
        return i >= toks.size() || toks.get(i).is(",") || toks.get(i).is("from");
    }

    /** {@code a[i]} → {@code a[CAST(i AS INTEGER)]}: Calcite's subscripts take an INTEGER, the catalog's numbers are BIGINT. */
    private void subscripts() {
        for (int i = 1; i < toks.size(); i++) {
            if (toks.get(i).is("[") && !toks.get(i - 1).is("array") && i + 1 < toks.size() && !toks.get(i + 1).is("]")) {
                int close = closing(i);
                toks.add(close, new Tok(Kind.PUNCT, ")"));
                toks.add(close, new Tok(Kind.WORD, "INTEGER"));
                toks.add(close, new Tok(Kind.WORD, "AS"));
                toks.add(i + 1, new Tok(Kind.PUNCT, "("));
                toks.add(i + 1, new Tok(Kind.WORD, "CAST"));
            }
        }
    }

    /** {@code a LIKE p} → {@code a LIKE p ESCAPE '\'}: PostgreSQL's LIKE escapes with a backslash by default, Calcite's with nothing. */
    private void likeEscapes() {
        for (int i = 0; i + 1 < toks.size(); i++) {
            if (toks.get(i).is("like") || toks.get(i).is("ilike")) {
                int end = operandEnd(i + 1);
                if (end < toks.size() && toks.get(end).is("escape")) {
                    continue;
                }
                toks.add(end, new Tok(Kind.STRING, "'\\'"));
                toks.add(end, new Tok(Kind.WORD, "ESCAPE"));
            }
        }
    }

    /** Names of the catalog's boolean columns, and of its columns of any other type. */
    private static final Set<String> BOOLEAN_COLUMNS = new java.util.HashSet<>();
    private static final Set<String> OTHER_COLUMNS = new java.util.HashSet<>();

    static {
        for (PgCatalogData.Relation r : PgCatalogData.RELATIONS.values()) {
            for (PgCatalogData.Col c : r.columns()) {
                (c.type().equals("bool") ? BOOLEAN_COLUMNS : OTHER_COLUMNS).add(c.name());
            }
        }
        BOOLEAN_COLUMNS.removeAll(OTHER_COLUMNS);
    }

    /** {@code indisprimary = 'f'}: a string literal compared with a boolean column of the catalog, as the boolean it spells. */
    private void booleanLiterals() {
        for (int i = 1; i + 1 < toks.size(); i++) {
            Tok op = toks.get(i);
            if (op.kind() != Kind.OP || !Set.of("=", "<>", "!=").contains(op.text())) {
                continue;
            }
            Tok left = toks.get(i - 1);
            Tok right = toks.get(i + 1);
            if (left.kind() == Kind.WORD && BOOLEAN_COLUMNS.contains(left.lower()) && right.kind() == Kind.STRING) {
                toks.set(i + 1, booleanLiteral(right));
            } else if (right.kind() == Kind.WORD && BOOLEAN_COLUMNS.contains(right.lower()) && left.kind() == Kind.STRING
                    && !(i + 2 < toks.size() && toks.get(i + 2).is("."))) {
                toks.set(i - 1, booleanLiteral(left));
            }
        }
    }

    private static Tok booleanLiteral(Tok s) {
        String v = unquote(s).trim().toLowerCase(Locale.ROOT);
        return switch (v) {
            case "t", "true", "y", "yes", "on", "1" -> new Tok(Kind.WORD, "TRUE");
            case "f", "false", "n", "no", "off", "0" -> new Tok(Kind.WORD, "FALSE");
            default -> throw new SqlException(SqlException.INVALID_TEXT, "invalid input syntax for type boolean: \"" + unquote(s) + "\"");
        };
    }

    /** {@code x::type} → {@code CAST(x AS type)}, or the function that reads a name as an OID ({@code 't'::regclass}). */
    private void casts() {
        for (int i = 0; i < toks.size(); i++) {
            if (!(toks.get(i).kind() == Kind.OP && toks.get(i).text().equals("::"))) {
                continue;
            }
            int start = operandStart(i);
            int typeEnd = nameEnd(i + 1);
            StringBuilder typeName = new StringBuilder();
            for (int k = i + 1; k < typeEnd; k++) {
                typeName.append(toks.get(k).kind() == Kind.QUOTED ? unquote(toks.get(k)) : toks.get(k).lower());
            }
            String type = typeName.toString().replaceFirst("^pg_catalog\\.", "");
            // multi-word type names
            while (typeEnd < toks.size() && toks.get(typeEnd).kind() == Kind.WORD
                    && Set.of("precision", "varying", "with", "without", "time", "zone").contains(toks.get(typeEnd).lower())) {
                type = type + " " + toks.get(typeEnd).lower();
                typeEnd++;
            }
            if (typeEnd < toks.size() && toks.get(typeEnd).is("(")) {
                typeEnd = closing(typeEnd) + 1;
            }
            boolean array = false;
            if (typeEnd + 1 < toks.size() && toks.get(typeEnd).is("[") && toks.get(typeEnd + 1).is("]")) {
                array = true;
                typeEnd += 2;
            }
            List<Tok> operand = new ArrayList<>(toks.subList(start, i));
            List<Tok> replacement = cast(operand, type, array);
            toks.subList(start, typeEnd).clear();
            toks.addAll(start, replacement);
            i = start;
        }
    }

    private static final Set<String> INT2VECTOR_COLUMNS = Set.of("indkey", "indoption", "indclass", "indcollation", "stxkeys", "proargtypes");

    private List<Tok> cast(List<Tok> operand, String type, boolean array) {
        boolean literal = operand.size() == 1 && operand.getFirst().kind() == Kind.STRING;
        if (array) {
            if (Set.of("int2", "int4", "int8", "oid", "smallint", "integer", "bigint", "text", "name", "varchar").contains(type)) {
                return operand;
            }
            throw SqlException.notSupported("a cast to " + type + "[] in a catalog query");
        }
        String sqlType = switch (type) {
            case "int2", "smallint" -> "SMALLINT";
            case "int4", "integer", "int" -> "INTEGER";
            case "int8", "bigint", "oid", "xid", "regproc", "regprocedure", "regoper", "regtype", "regclass", "regnamespace", "regrole" -> "BIGINT";
            case "text", "name", "varchar", "character varying", "bpchar", "char", "information_schema.sql_identifier",
                    "information_schema.character_data", "information_schema.yes_or_no" -> "VARCHAR";
            case "bool", "boolean" -> "BOOLEAN";
            case "float4", "real" -> "REAL";
            case "float8", "double precision" -> "DOUBLE";
            case "numeric", "information_schema.cardinal_number" -> "BIGINT";
            default -> throw SqlException.notSupported("a cast to " + type + " in a catalog query");
        };
        String fn = null;
        if (type.startsWith("reg")) {
            fn = switch (type) {
                case "regclass" -> literal ? "tandem_regclass_in" : "tandem_regclass_out";
                case "regtype" -> literal ? "tandem_regtype_in" : "tandem_regtype_out";
                case "regnamespace" -> literal ? "tandem_regnamespace_in" : "tandem_regnamespace_out";
                case "regproc", "regprocedure" -> literal ? null : "tandem_regproc_out";
                case "regrole" -> literal ? "tandem_regrole_in" : "pg_get_userbyid";
                default -> throw SqlException.notSupported("a cast to " + type + " in a catalog query");
            };
            if (type.startsWith("regproc") && literal) {
                // a function named by its text: Tandem's pg_proc names its few functions without a schema
                return List.of(new Tok(Kind.STRING, quote(unquote(operand.getFirst()).replaceFirst("^pg_catalog\\.", ""))));
            }
        } else if (sqlType.equals("VARCHAR") && operand.size() >= 1 && operand.getLast().kind() == Kind.WORD
                && INT2VECTOR_COLUMNS.contains(operand.getLast().lower())) {
            fn = "tandem_int2vector_out";
        } else if (sqlType.equals("VARCHAR")) {
            fn = "tandem_text";
        }
        List<Tok> out = new ArrayList<>();
        if (fn != null) {
            out.add(new Tok(Kind.WORD, fn));
            out.add(new Tok(Kind.PUNCT, "("));
            out.addAll(operand);
            out.add(new Tok(Kind.PUNCT, ")"));
            return out;
        }
        out.add(new Tok(Kind.WORD, "CAST"));
        out.add(new Tok(Kind.PUNCT, "("));
        out.addAll(operand);
        out.add(new Tok(Kind.WORD, "AS"));
        out.add(new Tok(Kind.WORD, sqlType));
        out.add(new Tok(Kind.PUNCT, ")"));
        return out;
    }

    /** The first token of the operand that ends just before {@code i}: a name, literal, call or bracketed expression, with subscripts. */
    private int operandStart(int i) {
        int j = i - 1;
        if (j < 0) {
            throw new SqlException(SqlException.SYNTAX, "syntax error: an operand expected");
        }
        while (toks.get(j).is("]")) {
            j = opening(j) - 1;
        }
        Tok t = toks.get(j);
        if (t.is(")")) {
            j = opening(j);
            if (j > 0 && (toks.get(j - 1).kind() == Kind.WORD || toks.get(j - 1).kind() == Kind.QUOTED) && !isKeywordBeforeParen(toks.get(j - 1))) {
                j--;
            } else {
                return j;
            }
        } else if (!(t.kind() == Kind.WORD || t.kind() == Kind.QUOTED || t.kind() == Kind.STRING || t.kind() == Kind.NUMBER
                || t.kind() == Kind.PARAM)) {
            throw SqlException.notSupported("this operand of " + toks.get(i).text() + " in a catalog query");
        }
        while (j >= 2 && toks.get(j - 1).is(".") && (toks.get(j - 2).kind() == Kind.WORD || toks.get(j - 2).kind() == Kind.QUOTED)) {
            j -= 2;
        }
        return j;
    }

    private static boolean isKeywordBeforeParen(Tok t) {
        return t.kind() == Kind.WORD && Set.of("and", "or", "not", "in", "select", "where", "on", "when", "then", "else", "from", "exists",
                "any", "some", "all", "array", "as", "by", "join", "using", "values").contains(t.lower());
    }

    private int opening(int close) {
        int depth = 0;
        for (int i = close; i >= 0; i--) {
            Tok t = toks.get(i);
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

    /** The index after the operand that starts at {@code i}: a name, literal, call, bracketed expression or CAST, with subscripts. */
    private int operandEnd(int i) {
        if (i >= toks.size()) {
            throw new SqlException(SqlException.SYNTAX, "syntax error at end of input");
        }
        Tok t = toks.get(i);
        int j;
        if (t.is("(")) {
            j = closing(i) + 1;
        } else if (t.kind() == Kind.STRING || t.kind() == Kind.NUMBER || t.kind() == Kind.PARAM) {
            j = i + 1;
        } else if (t.kind() == Kind.WORD || t.kind() == Kind.QUOTED) {
            j = nameEnd(i);
            if (j < toks.size() && toks.get(j).is("(")) {
                j = closing(j) + 1;
            }
        } else {
            throw SqlException.notSupported("this operand in a catalog query");
        }
        while (j < toks.size() && toks.get(j).is("[")) {
            j = closing(j) + 1;
        }
        return j;
    }

    /** Binary operators Calcite lacks, as function calls: {@code a ~ b} → {@code tandem_regex(a, b, '')}. */
    private void infix(Set<String> ops) {
        for (int i = 0; i < toks.size(); i++) {
            Tok t = toks.get(i);
            if (t.kind() != Kind.OP || !ops.contains(t.text())) {
                continue;
            }
            int start = operandStart(i);
            int end = operandEnd(i + 1);
            List<Tok> left = new ArrayList<>(toks.subList(start, i));
            List<Tok> right = new ArrayList<>(toks.subList(i + 1, end));
            List<Tok> call = new ArrayList<>();
            String op = t.text();
            boolean negated = op.startsWith("!");
            if (negated) {
                call.add(new Tok(Kind.WORD, "NOT"));
            }
            String base = negated ? op.substring(1) : op;
            String fn = switch (base) {
                case "~", "~*" -> "tandem_regex";
                case "~~", "~~*" -> "tandem_like";
                case "&" -> "tandem_bitand";
                case "|" -> "tandem_bitor";
                default -> throw SqlException.notSupported("the operator " + op);
            };
            call.add(new Tok(Kind.WORD, fn));
            call.add(new Tok(Kind.PUNCT, "("));
            call.addAll(left);
            call.add(new Tok(Kind.PUNCT, ","));
            call.addAll(right);
            if (fn.equals("tandem_regex") || fn.equals("tandem_like")) {
                call.add(new Tok(Kind.PUNCT, ","));
                call.add(new Tok(Kind.WORD, base.endsWith("*") ? "TRUE" : "FALSE"));
            }
            call.add(new Tok(Kind.PUNCT, ")"));
            if (negated) {
                call.addFirst(new Tok(Kind.PUNCT, "("));
                call.add(new Tok(Kind.PUNCT, ")"));
            }
            toks.subList(start, end).clear();
            toks.addAll(start, call);
            i = start;
        }
    }

    private static final org.apache.calcite.sql.parser.SqlAbstractParserImpl.Metadata CALCITE_WORDS =
            org.apache.calcite.sql.parser.SqlParser.create("").getMetadata();

    /** Words Calcite reserves that PostgreSQL lets name columns and aliases ({@code result}, {@code cardinality}, {@code default}…). */
    private static boolean calciteReserved(Tok t) {
        return t.kind() == Kind.WORD && CALCITE_WORDS.isReservedWord(t.text().toUpperCase(Locale.ROOT));
    }

    private static final Set<String> FOLLOWS_ALIAS = Set.of("where", "order", "group", "join", "left", "right", "inner", "cross", "full",
            "on", "union", "limit", "having", ",", ")");

    /** A Calcite-reserved word used as a name (after AS, beside a dot, or as a subquery's alias) in double quotes, lower-cased. */
    private void reservedWords() {
        for (int i = 0; i < toks.size(); i++) {
            Tok t = toks.get(i);
            if (!calciteReserved(t)) {
                continue;
            }
            Tok prev = i > 0 ? toks.get(i - 1) : null;
            Tok next = i + 1 < toks.size() ? toks.get(i + 1) : null;
            boolean name = prev != null && (prev.is("as") || prev.is("."))
                    || next != null && next.is(".")
                    || prev != null && prev.is(")") && (next == null || FOLLOWS_ALIAS.contains(next.lower()))
                            && !Set.of("is", "isnull", "notnull", "like", "ilike", "similar", "between", "in", "and", "or", "then", "else",
                                    "end", "when", "from", "where", "order", "group", "having", "limit", "offset", "union", "except",
                                    "intersect", "join", "left", "right", "inner", "cross", "full", "natural", "on", "as", "not", "asc",
                                    "desc", "nulls", "for", "fetch", "window", "over", "filter", "using").contains(t.lower());
            if (name && !(prev != null && prev.is("as") && (t.is("varchar") || t.is("integer") || t.is("bigint") || t.is("boolean")
                    || t.is("smallint") || t.is("double") || t.is("real")))) {
                toks.set(i, new Tok(Kind.QUOTED, "\"" + t.lower() + "\""));
            }
        }
    }

    /** {@code FROM generate_series(a, b) AS s(r)}: the set-returning function as a Calcite table function. */
    private void tableFunctions() {
        for (int i = 1; i + 1 < toks.size(); i++) {
            Tok t = toks.get(i);
            Tok prev = toks.get(i - 1);
            if (t.is("generate_series") && toks.get(i + 1).is("(") && (prev.is("from") || prev.is(",") || prev.is("join"))) {
                int close = closing(i + 1);
                toks.add(close + 1, new Tok(Kind.PUNCT, ")"));
                toks.add(i, new Tok(Kind.PUNCT, "("));
                toks.add(i, new Tok(Kind.WORD, "TABLE"));
                i = close + 3;
            }
        }
    }

    /** {@code pg_catalog.f(…)} → {@code f(…)}, so built-in functions resolve too; relations keep their schema. */
    private void stripCatalogPrefix() {
        for (int i = 0; i + 3 < toks.size(); i++) {
            if (toks.get(i).is("pg_catalog") && toks.get(i + 1).is(".") && toks.get(i + 2).kind() == Kind.WORD && toks.get(i + 3).is("(")
                    && !(i > 0 && toks.get(i - 1).is("."))) {
                toks.subList(i, i + 2).clear();
            }
        }
    }

    // ------------------------------------------------------------------ reads of relations Tandem never fills

    /** Scalar subqueries that read an always-empty relation (and aggregate nothing) are NULL. */
    private void emptySubqueries() {
        for (int i = 0; i + 1 < toks.size(); i++) {
            if (toks.get(i).is("(") && toks.get(i + 1).is("select")) {
                int close = closing(i);
                if (i > 0 && (toks.get(i - 1).is("exists") || toks.get(i - 1).is("in") || toks.get(i - 1).is("array")
                        || toks.get(i - 1).is("any") || toks.get(i - 1).is("some") || toks.get(i - 1).is("all"))) {
                    continue;
                }
                if (selectIsEmpty(i + 1, close)) {
                    toks.subList(i, close + 1).clear();
                    toks.add(i, new Tok(Kind.WORD, "NULL"));
                }
            }
        }
    }

    /** The select list's column names when the whole statement reads an always-empty relation in each of its branches, or null. */
    private List<String> emptyQuery() {
        if (toks.isEmpty() || !toks.getFirst().is("select")) {
            return null;
        }
        // branches split at depth-0 UNION / INTERSECT / EXCEPT; the statement's ORDER BY / LIMIT follows the last
        List<int[]> branches = new ArrayList<>();
        int depth = 0;
        int start = 0;
        boolean intersect = false;
        for (int i = 0; i < toks.size(); i++) {
            Tok t = toks.get(i);
            if (t.is("(") || t.is("[")) {
                depth++;
            } else if (t.is(")") || t.is("]")) {
                depth--;
            } else if (depth == 0 && (t.is("union") || t.is("intersect") || t.is("except"))) {
                intersect |= !t.is("union");
                branches.add(new int[] {start, i});
                start = i + 1;
                while (start < toks.size() && (toks.get(start).is("all") || toks.get(start).is("distinct"))) {
                    start++;
                }
            }
        }
        branches.add(new int[] {start, toks.size()});
        if (intersect) {
            return null;
        }
        for (int[] b : branches) {
            if (!toks.get(b[0]).is("select") || !selectIsEmpty(b[0], b[1])) {
                return null;
            }
        }
        return selectListNames(branches.getFirst()[0]);
    }

    /** The kinds of constraint Tandem never has: foreign keys, checks, exclusions, constraint triggers. */
    private static final Set<String> ABSENT_CONSTRAINT_KINDS = Set.of("'f'", "'c'", "'x'", "'t'");

    /**
     * Whether the WHERE of the SELECT whose FROM is at {@code fromAt} has, as one of its top-level AND
     * terms, {@code [alias.]contype = 'f'} (or 'c', 'x', 't'): no {@code pg_constraint} row has such a
     * kind, and a NULL (an outer join's) fails the test too, so no row qualifies.
     */
    private boolean whereNeverHolds(int fromAt, int to) {
        int depth = 0;
        int where = -1;
        for (int i = fromAt + 1; i < to; i++) {
            Tok t = toks.get(i);
            if (t.is("(") || t.is("[")) {
                depth++;
            } else if (t.is(")") || t.is("]")) {
                depth--;
            } else if (depth == 0 && where < 0 && t.is("where")) {
                where = i;
            } else if (depth == 0 && where >= 0 && (t.is("or") || t.is("order") || t.is("limit") || t.is("offset") || t.is("fetch"))) {
                if (t.is("or")) {
                    return false;
                }
                to = i;
                break;
            }
        }
        if (where < 0) {
            return false;
        }
        depth = 0;
        for (int i = where + 1; i + 2 < to; i++) {
            Tok t = toks.get(i);
            if (t.is("(") || t.is("[")) {
                depth++;
            } else if (t.is(")") || t.is("]")) {
                depth--;
            } else if (depth == 0 && t.is("contype") && toks.get(i + 1).kind() == Kind.OP && toks.get(i + 1).text().equals("=")
                    && toks.get(i + 2).kind() == Kind.STRING && ABSENT_CONSTRAINT_KINDS.contains(toks.get(i + 2).text())) {
                Tok before = toks.get(i - 1).is(".") ? toks.get(i - 3) : toks.get(i - 1);
                Tok after = i + 3 < to ? toks.get(i + 3) : null;
                if ((before.is("where") || before.is("and")) && (after == null || after.is("and") || after.is(";"))) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Whether the SELECT at {@code [from, to)} inner-joins an always-empty relation, and neither groups
     * nor aggregates (an aggregate over no rows still answers one row).
     */
    private boolean selectIsEmpty(int from, int to) {
        int depth = 0;
        int fromAt = -1;
        for (int i = from + 1; i < to; i++) {
            Tok t = toks.get(i);
            if (t.is("(") || t.is("[")) {
                depth++;
            } else if (t.is(")") || t.is("]")) {
                depth--;
            } else if (depth == 0) {
                if (t.is("from") && fromAt < 0) {
                    fromAt = i;
                } else if (t.is("group") || t.is("having")) {
                    return false;
                } else if (fromAt < 0 && t.kind() == Kind.WORD && AGGREGATES.contains(t.lower()) && i + 1 < to && toks.get(i + 1).is("(")) {
                    return false;
                }
            }
        }
        if (fromAt < 0) {
            return false;
        }
        if (whereNeverHolds(fromAt, to)) {
            return true;
        }
        // FROM items at depth 0 up to WHERE / ORDER / LIMIT / the end
        depth = 0;
        boolean outerOnLeft = false;
        boolean expectItem = true;
        boolean itemInner = true;
        for (int i = fromAt + 1; i < to; i++) {
            Tok t = toks.get(i);
            if (t.is("(") || t.is("[")) {
                depth++;
                expectItem = false;
                continue;
            } else if (t.is(")") || t.is("]")) {
                depth--;
                continue;
            }
            if (depth != 0) {
                continue;
            }
            if (t.is("where") || t.is("order") || t.is("limit") || t.is("offset") || t.is("fetch")) {
                break;
            }
            if (t.is(",")) {
                expectItem = true;
                itemInner = true;
            } else if (t.is("join")) {
                String before = toks.get(i - 1).lower();
                String before2 = i >= 2 ? toks.get(i - 2).lower() : "";
                boolean left = before.equals("left") || before2.equals("left");
                boolean right = before.equals("right") || before2.equals("right") || before.equals("full") || before2.equals("full");
                outerOnLeft |= right;
                itemInner = !left && !right;
                expectItem = true;
            } else if (expectItem && (t.kind() == Kind.WORD || t.kind() == Kind.QUOTED)) {
                int end = nameEnd(i);
                String last = toks.get(end - 1).kind() == Kind.QUOTED ? unquote(toks.get(end - 1)) : toks.get(end - 1).lower();
                boolean qualifiedElsewhere = end - i > 1 && !toks.get(i).is("pg_catalog");
                boolean first = toks.get(i - 1).is("from");
                if (!qualifiedElsewhere && EMPTY_RELATIONS.contains(last) && (itemInner && !first || first)) {
                    if (!first || !rightOrFullJoinAfter(i, to)) {
                        return true;
                    }
                }
                expectItem = false;
                i = end - 1;
            }
        }
        return false;
    }

    private boolean rightOrFullJoinAfter(int i, int to) {
        int depth = 0;
        for (int k = i; k < to; k++) {
            Tok t = toks.get(k);
            if (t.is("(")) {
                depth++;
            } else if (t.is(")")) {
                depth--;
            } else if (depth == 0 && (t.is("right") || t.is("full"))) {
                return true;
            } else if (depth == 0 && t.is("where")) {
                return false;
            }
        }
        return false;
    }

    /** The column names PostgreSQL would give the select list starting at {@code select} (an alias, a column's or function's name, or ?column?). */
    private List<String> selectListNames(int select) {
        List<String> names = new ArrayList<>();
        int depth = 0;
        int itemStart = select + 1;
        for (int i = select + 1; i <= toks.size(); i++) {
            Tok t = i < toks.size() ? toks.get(i) : null;
            if (t != null && (t.is("(") || t.is("["))) {
                depth++;
            } else if (t != null && (t.is(")") || t.is("]"))) {
                depth--;
            } else if (t == null || depth == 0 && (t.is(",") || t.is("from"))) {
                names.add(itemName(itemStart, i));
                itemStart = i + 1;
                if (t == null || t.is("from")) {
                    break;
                }
            }
        }
        return names;
    }

    private String itemName(int from, int to) {
        if (to - from >= 2 && toks.get(to - 2).is("as") || to - from >= 2 && (toks.get(to - 1).kind() == Kind.QUOTED
                || toks.get(to - 1).kind() == Kind.WORD) && (toks.get(to - 2).kind() == Kind.WORD || toks.get(to - 2).kind() == Kind.QUOTED
                || toks.get(to - 2).is(")")) && !toks.get(to - 2).is(".")) {
            Tok a = toks.get(to - 1);
            if (!a.is("end")) {
                return a.kind() == Kind.QUOTED ? unquote(a) : a.lower();
            }
        }
        Tok last = toks.get(to - 1);
        if (to - from >= 1 && (last.kind() == Kind.WORD || last.kind() == Kind.QUOTED) && (to - from == 1 || toks.get(to - 2).is("."))) {
            return last.kind() == Kind.QUOTED ? unquote(last) : last.lower();
        }
        if (to - from >= 3 && toks.get(from).kind() == Kind.WORD && last.is(")")) {
            int fn = from;
            while (fn + 2 < to && toks.get(fn + 1).is(".")) {
                fn += 2;
            }
            if (toks.get(fn + 1).is("(")) {
                return toks.get(fn).lower();
            }
        }
        return "?column?";
    }
}
