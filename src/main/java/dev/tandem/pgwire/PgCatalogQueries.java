package dev.tandem.pgwire;

import dev.tandem.row.DatumType;
import dev.tandem.sql.SqlColumn;
import dev.tandem.sql.SqlEngine;
import dev.tandem.sql.SqlException;
import dev.tandem.sql.SqlResult;
import dev.tandem.sql.SqlSession;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import reactor.core.publisher.Mono;

/**
 * Answers for the PostgreSQL catalog queries clients send by themselves, which Tandem has no
 * {@code pg_catalog} for: psql's relation lists ({@code \d}, {@code \dt}, {@code \dv}, {@code \di})
 * from Tandem's catalog, and the type lookups of drivers (R2DBC's extension codecs) with no rows.
 * Every other query of {@code pg_catalog} or {@code information_schema} gets a clear "not supported".
 */
final class PgCatalogQueries {

    /** A canned answer: its columns (for Describe) and the result, computed when executed. */
    record Answer(List<SqlColumn> columns, Mono<SqlResult> result) {
    }

    // bounded repetitions (psql's lists and aliases are short), so a statement of many unclosed ones costs linear time
    private static final Pattern RELKIND_LIST = Pattern.compile("(?is)c\\.relkind\\s++IN\\s*+\\(([^)]{0,1024})\\)");
    private static final Pattern ALIAS = Pattern.compile("(?i)\\bas\\s++\"([^\"]{1,1024})\"");

    private PgCatalogQueries() {
    }

    /** The canned answer to a catalog query, or null when the statement is not one. */
    static Answer answer(String sql, SqlEngine engine) {
        String lower = sql.toLowerCase(Locale.ROOT);
        if (!lower.contains("pg_catalog") && !lower.contains("information_schema") && !lower.matches("(?s).*\\bpg_[a-z_]+\\s*\\(.*")) {
            return null;
        }
        Matcher kinds = RELKIND_LIST.matcher(sql);
        if (lower.contains("from pg_catalog.pg_class c") && lower.contains("\"schema\"") && kinds.find()) {
            return relations(sql, kinds.group(1), engine);
        }
        if (lower.contains("pg_catalog.pg_type") && lower.contains("typname")) {
            List<SqlColumn> cols = List.of(new SqlColumn("oid", DatumType.INT64), new SqlColumn("typname", DatumType.STRING));
            return new Answer(cols, Mono.just(new SqlResult("SELECT", cols, List.of(), 0, null, null)));
        }
        if (lower.contains("c.relname operator(pg_catalog.~)")) {
            return fail("psql's \\d NAME (Tandem has no pg_catalog; use SHOW COLUMNS FROM name, or \\d and \\dt for lists)");
        }
        return fail("this PostgreSQL catalog query (Tandem has no pg_catalog or information_schema; use SHOW TABLES, SHOW VIEWS, "
                + "SHOW INDEXES and SHOW COLUMNS FROM name)");
    }

    private static Answer fail(String what) {
        return new Answer(null, Mono.error(SqlException.notSupported(what)));
    }

    /** psql's relation list: the columns its select list names, one row per table, view or index of the asked kinds. */
    private static Answer relations(String sql, String kindList, SqlEngine engine) {
        List<String> names = new ArrayList<>();
        Matcher m = ALIAS.matcher(sql);
        while (m.find()) {
            names.add(m.group(1));
        }
        List<SqlColumn> cols = names.stream().map(n -> new SqlColumn(n, DatumType.STRING)).toList();
        boolean tables = kindList.contains("'r'");
        boolean views = kindList.contains("'v'") || kindList.contains("'m'");
        boolean indexes = kindList.contains("'i'");
        Mono<SqlResult> result = Mono.defer(() -> {
            List<String[]> rels = new ArrayList<>();
            SqlSession session = new SqlSession();
            Mono<List<String[]>> acc = Mono.just(rels);
            if (tables) {
                acc = acc.flatMap(l -> engine.execute("SHOW TABLES", List.of(), session).map(r -> add(l, r, "table")));
            }
            if (views) {
                acc = acc.flatMap(l -> engine.execute("SHOW VIEWS", List.of(), session).map(r -> add(l, r, "view")));
            }
            if (indexes) {
                acc = acc.flatMap(l -> engine.execute("SHOW INDEXES", List.of(), session).map(r -> add(l, r, "index")));
            }
            return acc.map(l -> {
                l.sort((a, b) -> a[0].compareTo(b[0]));
                List<Object[]> rows = new ArrayList<>();
                for (String[] rel : l) {
                    Object[] row = new Object[cols.size()];
                    for (int i = 0; i < cols.size(); i++) {
                        row[i] = switch (cols.get(i).name()) {
                            case "Schema" -> "public";
                            case "Name" -> rel[0];
                            case "Type" -> rel[1];
                            case "Owner" -> "tandem";
                            case "Table" -> rel[2];
                            case "Persistence" -> "permanent";
                            default -> null;
                        };
                    }
                    rows.add(row);
                }
                return new SqlResult("SELECT", cols, rows, rows.size(), null, null);
            });
        });
        return new Answer(cols, result);
    }

    private static List<String[]> add(List<String[]> out, SqlResult r, String type) {
        for (Object[] row : r.rows()) {
            out.add(new String[] {(String) row[0], type, row.length > 1 ? (String) row[1] : null});
        }
        return out;
    }
}
