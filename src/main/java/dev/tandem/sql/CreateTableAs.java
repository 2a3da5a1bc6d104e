package dev.tandem.sql;

import dev.tandem.controller.CatalogEntry;
import dev.tandem.controller.Controller;
import dev.tandem.row.Column;
import dev.tandem.row.Row;
import dev.tandem.storage.RowDiff;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.Function;
import reactor.core.publisher.Mono;

/**
 * {@code CREATE TABLE [IF NOT EXISTS] t AS <query>}: a table with the query's columns (named and typed
 * as its result, nullable, without keys or defaults) holding the query's rows. The query is run first
 * (strictly, as of the last acknowledged write); then the table is created and its rows written in one
 * write. A failed write drops the table again, so a refused statement leaves nothing; a crash between
 * the two leaves the table empty. Answered {@code SELECT n}, as PostgreSQL answers it.
 */
final class CreateTableAs {

    private CreateTableAs() {
    }

    /** Plans the statement; {@code lex} stands at {@code AS}. */
    static Prepared plan(SqlEngine engine, Function<Callable<Object>, Mono<Object>> blocking, String sql, String fingerprint,
            SqlLexer lex, String name, boolean ifNotExists) {
        lex.expect("as");
        int from = lex.offset();
        String text = SqlLexer.blank(sql, 0, from).replaceFirst(";\\s*$", "");
        SqlParams params = SqlParams.of(text);
        if (params.count() > 0) {
            throw SqlException.notSupported("parameters in CREATE TABLE ... AS");
        }
        SqlEngine.Query q = engine.planQuery(CalcitePlanner.parse(params.text()), params, null, null);
        List<Column> columns = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        // a character(n) or character varying[] column of the query is one of the table, as in PostgreSQL
        Map<String, dev.tandem.controller.DeclaredType> declared = new java.util.HashMap<>();
        for (SqlColumn c : q.columns()) {
            if (!seen.add(c.name())) {
                throw new SqlException(SqlState.DUPLICATE_COLUMN, "column \"" + c.name() + "\" specified more than once");
            }
            columns.add(new Column(c.name(), c.type(), true));
            if (c.declared() != null && (c.declared().kind() == dev.tandem.controller.DeclaredType.Kind.BPCHAR
                    || c.declared().kind() == dev.tandem.controller.DeclaredType.Kind.VARCHAR_ARRAY
                    || c.declared().kind() == dev.tandem.controller.DeclaredType.Kind.NUMERIC_ARRAY
                    || c.declared().kind() == dev.tandem.controller.DeclaredType.Kind.BPCHAR_ARRAY)) {
                declared.put(c.name(), c.declared());
            }
        }
        Controller controller = engine.controller();
        return new Prepared(sql, fingerprint, null, List.of(), (values, session) -> {
            if (ifNotExists && controller.catalog().stream().anyMatch(e -> e.name().equals(name))) {
                return Mono.just(new SqlResult("CREATE TABLE AS", null, null, 0, null, null));
            }
            return engine.runQuery(q, List.of(), session.strictReader()).flatMap(found -> blocking.apply(() -> {
                CatalogEntry.Table table = controller.createTable(name, columns, List.of(), Map.of(), declared);
                return table;
            }).flatMap(created -> {
                CatalogEntry.Table table = (CatalogEntry.Table) created;
                if (found.rows().isEmpty()) {
                    session.wrote(true);
                    return Mono.just(new SqlResult("SELECT", null, null, 0, null, null));
                }
                List<RowDiff> rows = new ArrayList<>(found.rows().size());
                for (Object[] r : found.rows()) {
                    rows.add(new RowDiff(Row.pack(table.schema().types(), Arrays.asList(r)), 1));
                }
                return controller.write(table, rows)
                        .map(ts -> {
                            session.wrote(true);
                            return new SqlResult("SELECT", null, null, rows.size(), null, ts);
                        })
                        .onErrorResume(e -> blocking.apply(() -> {
                            controller.dropWithIndexes(name, CatalogEntry.Table.class);
                            return table;
                        }).onErrorResume(undo -> {
                            e.addSuppressed(undo);
                            return Mono.empty();
                        }).then(Mono.error(e)));
            }));
        }, false);
    }
}
