package dev.tandem.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import reactor.core.publisher.Mono;

/**
 * {@code COPY t TO STDOUT} and {@code COPY (<query>) TO STDOUT [WITH (FORMAT text | csv [, HEADER])]}
 * (also the older {@code CSV [HEADER]}): the query's rows (a table's: all of them) as lines of
 * PostgreSQL's text format (tab-separated, {@code \N} for NULL, backslash escapes) or CSV (commas, double
 * quotes where needed, NULL as an empty unquoted field). Its result's rows are those lines, one string
 * each, which the wire protocol sends as COPY out data; over HTTP it is refused.
 */
final class CopyOut implements Prepared.Run {

    private final SqlEngine engine;
    private final SqlEngine.Query query;
    private final boolean csv;
    private final boolean header;

    private CopyOut(SqlEngine engine, SqlEngine.Query query, boolean csv, boolean header) {
        this.engine = engine;
        this.query = query;
        this.csv = csv;
        this.header = header;
    }

    /** Whether {@code sql} is a {@code COPY ... TO} of a table or of a query other than a SUBSCRIBE. */
    static boolean is(String sql) {
        SqlLexer lex = new SqlLexer(sql);
        if (!lex.accept("copy") || lex.peek().isPunct("(") && lex.peek(1).is("subscribe")) {
            return false;
        }
        return !CopyIn.is(sql);
    }

    static Prepared prepare(SqlEngine engine, String sql, String fingerprint) {
        SqlLexer lex = new SqlLexer(sql);
        lex.expect("copy");
        String text;
        SqlLexer.Token at = lex.peek();
        if (lex.acceptPunct("(")) {
            int depth = 1;
            SqlLexer.Token close;
            while (true) {
                SqlLexer.Token t = lex.take();
                if (t.kind() == SqlLexer.Kind.END) {
                    throw lex.error("unbalanced parentheses", at);
                }
                if (t.isPunct("(")) {
                    depth++;
                } else if (t.isPunct(")") && --depth == 0) {
                    close = t;
                    break;
                }
            }
            text = SqlLexer.blank(SqlLexer.blank(sql, 0, at.offset() + 1), close.offset(), sql.length());
        } else {
            String name = lex.name("a table name or a query in parentheses");
            if (lex.peek().isPunct("(")) {
                throw SqlException.notSupported("COPY of a column list TO STDOUT (copy a query: COPY (SELECT a, b FROM t) TO STDOUT)");
            }
            text = "SELECT * FROM \"" + name.replace("\"", "\"\"") + "\"";
        }
        lex.expect("to");
        if (!lex.accept("stdout")) {
            throw SqlException.notSupported("COPY TO a file or program (the server writes no files: use COPY ... TO STDOUT, psql's \\copy)");
        }
        CopyIn.Format format = CopyIn.Format.read(lex);
        boolean csv = format.csv();
        boolean header = format.header();
        SqlParams params = SqlParams.of(text);
        if (params.count() > 0) {
            throw SqlException.notSupported("parameters in COPY");
        }
        SqlEngine.Query q = engine.planQuery(CalcitePlanner.parse(params.text()), params, null, null);
        return new Prepared(sql, fingerprint, null, List.of(), new CopyOut(engine, q, csv, header), false);
    }

    /** How many columns each line has. */
    int columns() {
        return query.columns().size();
    }

    @Override
    public Mono<SqlResult> run(List<Object> params, SqlSession session) {
        if (!session.blocksAllowed()) {
            return Mono.error(SqlException.notSupported("COPY ... TO STDOUT here: it is for the PostgreSQL protocol (run the query instead)"));
        }
        return engine.runQuery(query, List.of(), session).map(r -> {
            List<Object[]> lines = new ArrayList<>(r.rows().size() + 1);
            if (header) {
                lines.add(new Object[] {csvLine(query.columns().stream().map(SqlColumn::name).toArray())});
            }
            for (Object[] stored : r.rows()) {
                Object[] row = SqlColumn.output(stored, query.columns());
                lines.add(new Object[] {csv ? csvLine(texts(row, session.zone().id())) : SqlValues.copyTextLine(row, session.zone().id())});
            }
            return new SqlResult("COPY", null, lines, r.rows().size(), r.read(), null);
        });
    }

    private static Object[] texts(Object[] row, java.time.ZoneId zone) {
        Object[] out = new Object[row.length];
        for (int i = 0; i < row.length; i++) {
            out[i] = SqlTypes.text(row[i], zone);
        }
        return out;
    }

    private static String csvLine(Object[] texts) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < texts.length; i++) {
            if (i > 0) {
                b.append(',');
            }
            String s = (String) texts[i];
            if (s == null) {
                continue;
            }
            boolean quote = s.isEmpty() || s.equals("\\.") || s.chars().anyMatch(c -> c == ',' || c == '"' || c == '\n' || c == '\r');
            b.append(quote ? '"' + s.replace("\"", "\"\"") + '"' : s);
        }
        return b.append('\n').toString();
    }
}
