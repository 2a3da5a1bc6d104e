package dev.tandem.sql;

import dev.tandem.controller.CatalogEntry;
import dev.tandem.controller.Controller;
import dev.tandem.controller.DeclaredType;
import dev.tandem.plan.Plan;
import dev.tandem.row.Column;
import dev.tandem.row.DatumType;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;

/**
 * Catalog changes in SQL: {@code CREATE TABLE} (columns, keys, defaults; {@code ... AS} a query through
 * {@link CreateTableAs}), {@code CREATE [MATERIALIZED] VIEW}, {@code CREATE [UNIQUE] INDEX} and {@code DROP}, each
 * read with Tandem's own lexer (a view's query with Calcite, through {@link SqlEngine#planQuery}) into a
 * statement that changes the catalog when executed, on the engine's blocking scheduler (catalog changes
 * wait for durable storage).
 */
final class DdlPlanner {

    private final SqlEngine engine;
    private final Controller controller;

    DdlPlanner(SqlEngine engine, Controller controller) {
        this.engine = engine;
        this.controller = controller;
    }


    Prepared create(String sql, SqlLexer lex, String fingerprint) {
        lex.expect("create");
        if (lex.accept("table")) {
            return createTable(sql, lex, fingerprint);
        }
        boolean materialized = lex.accept("materialized");
        if (lex.accept("view")) {
            return createView(sql, lex, fingerprint, materialized);
        }
        if (materialized) {
            throw lex.error("expected VIEW", lex.peek());
        }
        if (lex.accept("unique")) {
            lex.expect("index");
            return createIndex(sql, lex, fingerprint, true);
        }
        if (lex.accept("index")) {
            return createIndex(sql, lex, fingerprint, false);
        }
        if (lex.accept("source")) {
            return createSource(sql, lex, fingerprint);
        }
        if (lex.peek().is("or")) {
            throw SqlException.notSupported("CREATE OR REPLACE");
        }
        throw SqlException.notSupported("CREATE " + lex.peek().text().toUpperCase(Locale.ROOT));
    }

    private boolean ifNotExists(SqlLexer lex) {
        if (lex.accept("if")) {
            lex.expect("not");
            lex.expect("exists");
            return true;
        }
        return false;
    }

    private boolean exists(String name) {
        return controller.catalog().stream().anyMatch(e -> e.name().equals(name));
    }

    private Prepared createTable(String sql, SqlLexer lex, String fingerprint) {
        boolean ifNotExists = ifNotExists(lex);
        String name = lex.name("a table name");
        if (lex.peek().is("as")) {
            return CreateTableAs.plan(engine, engine::blocking, sql, fingerprint, lex, name, ifNotExists);
        }
        lex.expectPunct("(");
        List<Column> columns = new ArrayList<>();
        List<CatalogEntry.Key> keys = new ArrayList<>();
        java.util.Map<String, Object> defaults = new java.util.HashMap<>();
        java.util.Map<String, DeclaredType> declared = new java.util.HashMap<>();
        List<CheckConstraints.Pending> checks = new ArrayList<>();
        do {
            SqlLexer.Token at = lex.peek();
            if (at.is("primary") || at.is("unique") || at.is("foreign") || at.is("constraint") || at.is("check")) {
                CatalogEntry.Key key = ColumnDeclarations.tableConstraint(sql, lex, checks);
                if (key != null) {
                    keys.add(key);
                }
                continue;
            }
            String col = lex.name("a column name");
            SqlLexer.Token typeAt = lex.peek();
            StringBuilder type = new StringBuilder(lex.name("a type"));
            if (type.toString().equals("double") && lex.accept("precision")) {
                type.append(" precision");
            } else if ((type.toString().equals("character") || type.toString().equals("char")) && lex.accept("varying")) {
                type = new StringBuilder("character varying");
            } else if (type.toString().equals("time") && (lex.peek().is("without") || lex.peek().is("with"))) {
                boolean with = lex.take().is("with");
                lex.expect("time");
                lex.expect("zone");
                type.append(with ? " with time zone" : "");
            } else if (type.toString().equals("timestamp") && lex.peek().is("without")) {
                lex.take();
                lex.expect("time");
                lex.expect("zone");
            } else if (type.toString().equals("timestamp") && lex.peek().is("with")) {
                lex.take();
                lex.expect("time");
                lex.expect("zone");
                type.append(" with time zone");
            }
            // serial and its kin: an integer column, NOT NULL, defaulting to the next value of its own sequence
            String serial = ColumnDeclarations.SERIALS.get(type.toString());
            boolean generated = serial != null;
            if (generated) {
                type = new StringBuilder(serial);
            }
            List<Integer> modifiers = new ArrayList<>();
            if (lex.acceptPunct("(")) {
                do {
                    boolean negative = lex.acceptPunct("-");
                    SqlLexer.Token m = lex.take();
                    if (m.kind() != SqlLexer.Kind.NUMBER || !m.text().matches("\\d{1,9}")) {
                        throw lex.error("expected a type modifier (an integer)", m);
                    }
                    modifiers.add(negative ? -Integer.parseInt(m.text()) : Integer.parseInt(m.text()));
                } while (lex.acceptPunct(","));
                lex.expectPunct(")");
            }
            boolean array = ColumnDeclarations.arrayType(sql, lex);
            DeclaredType declaredType = ColumnDeclarations.declaredType(sql, typeAt, type.toString(), modifiers);
            DatumType t = declaredType != null && declaredType.kind() == DeclaredType.Kind.BPCHAR ? DatumType.STRING : SqlTypes.ofName(type.toString());
            if (array) {
                t = ColumnDeclarations.arrayColumnType(sql, typeAt, type.toString(), modifiers);
                declaredType = ColumnDeclarations.arrayDeclaredType(type.toString(), modifiers);
                if (generated) {
                    int[] lc = SqlLexer.lineColumn(sql, typeAt.offset());
                    throw new SqlException(SqlException.NOT_SUPPORTED, "not supported: serial arrays", lc[0], lc[1]);
                }
            }
            if (declaredType != null) {
                declared.put(col, declaredType);
            }
            if (t == null) {
                int[] lc = SqlLexer.lineColumn(sql, typeAt.offset());
                throw new SqlException(SqlException.NOT_SUPPORTED, "not supported: type " + type
                        + " (types are bigint, integer, double precision, numeric, text, varchar, boolean, timestamp, timestamptz, date, time, interval, uuid)", lc[0], lc[1]);
            }
            boolean nullable = true;
            while (true) {
                String constraint = lex.accept("constraint") ? lex.name("a constraint name") : null;
                if (lex.accept("not")) {
                    lex.expect("null");
                    nullable = false;
                } else if (lex.accept("null")) {
                    nullable = true;
                } else if (lex.accept("primary")) {
                    lex.expect("key");
                    keys.add(new CatalogEntry.Key(constraint, List.of(col), true));
                } else if (lex.accept("unique")) {
                    keys.add(new CatalogEntry.Key(constraint, List.of(col), false));
                } else if (lex.accept("default")) {
                    if (t.isArray()) {
                        throw SqlException.notSupported("a default of an array column");
                    }
                    Object value = ColumnDefaults.parse(sql, lex, col, t);
                    if (value != null) {
                        defaults.put(col, value);
                    }
                } else if (lex.peek().is("generated")) {
                    ColumnDeclarations.identity(sql, lex, col, type.toString());
                    generated = true;
                } else if (lex.peek().is("check")) {
                    checks.add(CheckConstraints.read(sql, lex, constraint, col));
                } else if (lex.peek().is("references")) {
                    throw lex.error("not supported: column constraint " + lex.peek().text().toUpperCase(Locale.ROOT), lex.peek());
                } else if (constraint != null) {
                    throw lex.error("expected NOT NULL, NULL, PRIMARY KEY, UNIQUE or CHECK", lex.peek());
                } else {
                    break;
                }
            }
            if (generated) {
                if (defaults.containsKey(col)) {
                    int[] lc = SqlLexer.lineColumn(sql, at.offset());
                    throw new SqlException(SqlException.SYNTAX, "both default and identity specified for column \"" + col + "\" of table \""
                            + name + "\"", lc[0], lc[1]);
                }
                nullable = false;
                defaults.put(col, CatalogEntry.WriteTimeDefault.SEQUENCE);
            }
            columns.add(new Column(col, t, nullable));
        } while (lex.acceptPunct(","));
        lex.expectPunct(")");
        lex.end();
        ColumnDeclarations.checkKeys(name, columns, keys);
        List<CatalogEntry.Check> planned = CheckConstraints.plan(sql, name, columns, checks, controller.catalog());
        return Prepared.utility(sql, fingerprint, (params, session) -> engine.blocking(() -> {
            if (ifNotExists && exists(name)) {
                return SqlResult.command("CREATE TABLE");
            }
            controller.createTable(name, columns, keys, defaults, declared, planned);
            return SqlResult.command("CREATE TABLE");
        }));
    }

    private Prepared createView(String sql, SqlLexer lex, String fingerprint, boolean materialized) {
        boolean ifNotExists = ifNotExists(lex);
        String name = lex.name("a view name");
        List<String> names = null;
        if (lex.acceptPunct("(")) {
            names = new ArrayList<>();
            do {
                names.add(lex.name("a column name"));
            } while (lex.acceptPunct(","));
            lex.expectPunct(")");
        }
        lex.expect("as");
        String body = SqlLexer.blank(sql, 0, lex.offset());
        SqlParams params = SqlParams.of(body);
        if (params.count() > 0) {
            throw new SqlException(SqlException.UNDEFINED_PARAMETER, "a view cannot have parameters");
        }
        SqlNode parsed = CalcitePlanner.parse(body);
        if (!parsed.isA(SqlKind.QUERY) && parsed.getKind() != SqlKind.ORDER_BY) {
            throw SqlEngine.at(new SqlException(SqlException.SYNTAX, "a view is defined by a query"), parsed);
        }
        SqlEngine.Query q = engine.planQuery(parsed, params, null, null);
        RelNode whole = q.sort() == null ? q.body() : q.sort();
        RexTranslator rex = new RexTranslator(i -> null, i -> DatumType.STRING).zone(null).temporal();
        RelTranslator.Translated t = new RelTranslator(rex).translate(whole);
        boolean zoneDependent = rex.zoneDependent();
        List<Integer> fields = q.fields();
        List<Integer> ids = new ArrayList<>();
        for (int i = 0; i < t.types().size(); i++) {
            ids.add(i);
        }
        Plan plan = fields.equals(ids) ? t.plan() : new Plan.MapFilterProject(t.plan(), dev.tandem.expr.Mfp.project(fields));
        List<String> columnNames = names != null ? names : q.columns().stream().map(SqlColumn::name).toList();
        if (columnNames.size() != fields.size()) {
            throw new SqlException(SqlException.SYNTAX, "CREATE VIEW specifies " + columnNames.size() + " column names, the query has " + fields.size());
        }
        for (int i = 0; i < columnNames.size(); i++) {
            if (columnNames.subList(0, i).contains(columnNames.get(i))) {
                throw new SqlException(SqlState.DUPLICATE_COLUMN, "column \"" + columnNames.get(i) + "\" specified more than once");
            }
        }
        java.util.Map<String, DeclaredType> declared = new java.util.HashMap<>();
        for (int i = 0; i < columnNames.size(); i++) {
            if (q.columns().get(i).declared() != null) {
                declared.put(columnNames.get(i), q.columns().get(i).declared());
            }
        }
        String command = materialized ? "CREATE MATERIALIZED VIEW" : "CREATE VIEW";
        String first = columnNames.get(0);
        return Prepared.utility(sql, fingerprint, (values, session) -> engine.blocking(() -> {
            if (ifNotExists && exists(name)) {
                return SqlResult.command(command);
            }
            if (zoneDependent && !session.zone().utc()) {
                throw SqlException.notSupported("a view whose result depends on the time zone in a session whose TimeZone is "
                        + session.zone().name() + " (a view is maintained in UTC, outside any session: create it with SET TimeZone = 'UTC',"
                        + " or name the zone in it with AT TIME ZONE)");
            }
            controller.createView(name, plan, columnNames, declared);
            if (materialized) {
                try {
                    controller.createIndex(materializedIndex(name), name, List.of(first), null);
                } catch (RuntimeException e) {
                    controller.drop(name, CatalogEntry.View.class);
                    throw e;
                }
            }
            return SqlResult.command(command);
        }));
    }

    /** The index that maintains a materialized view (keyed by its first column). */
    static String materializedIndex(String view) {
        return view + "_primary_idx";
    }

    /**
     * {@code CREATE [UNIQUE] INDEX [IF NOT EXISTS] [name] ON t [USING method] (c [ASC|DESC] [NULLS FIRST|LAST], ...)}:
     * a unique one on a table only, whose rows it checks and whose writes it checks from then on.
     */
    private Prepared createIndex(String sql, SqlLexer lex, String fingerprint, boolean unique) {
        boolean ifNotExists = ifNotExists(lex);
        String name = lex.peek().is("on") ? null : lex.name("an index name");
        lex.expect("on");
        String on = lex.name("a table or view name");
        if (lex.accept("using")) {
            String method = lex.name("an index method");
            if (unique && !method.equals("btree")) {
                throw SqlException.notSupported("access method \"" + method + "\" does not support unique indexes");
            }
        }
        lex.expectPunct("(");
        List<String> key = new ArrayList<>();
        do {
            key.add(lex.name("a column name"));
            // a column's order in the index (ASC, DESC, NULLS FIRST|LAST) changes no answer: accepted, kept ascending
            if (!lex.accept("asc")) {
                lex.accept("desc");
            }
            if (lex.accept("nulls") && !lex.accept("first")) {
                lex.expect("last");
            }
        } while (lex.acceptPunct(","));
        lex.expectPunct(")");
        if (lex.peek().is("include") || lex.peek().is("where")) {
            throw SqlException.notSupported("CREATE INDEX ... " + lex.peek().text().toUpperCase(Locale.ROOT) + " (an index of columns only, over every row)");
        }
        lex.end();
        if (unique && key.stream().distinct().count() != key.size()) {
            throw SqlException.notSupported("a unique index naming a column more than once");
        }
        String indexName = name != null ? name : on + "_" + String.join("_", key) + "_idx";
        return Prepared.utility(sql, fingerprint, (params, session) -> engine.blocking(() -> {
            boolean taken = exists(indexName) || controller.catalog().stream()
                    .anyMatch(e -> e instanceof CatalogEntry.Table t && t.keys().stream().anyMatch(k -> k.name().equals(indexName)));
            if (taken && ifNotExists) {
                return SqlResult.command("CREATE INDEX");
            }
            if (taken) {
                // a table's key is a relation of that name in PostgreSQL (the index that enforces it)
                throw new SqlException(SqlState.DUPLICATE_TABLE, "relation \"" + indexName + "\" already exists");
            }
            CatalogEntry target = controller.catalog().stream().filter(e -> e.name().equals(on)).findFirst()
                    .orElseThrow(() -> new SqlException(SqlException.UNDEFINED_TABLE, "relation \"" + on + "\" does not exist"));
            if (unique && !(target instanceof CatalogEntry.Table)) {
                // PostgreSQL indexes no view; Tandem indexes views, but a view has no rows of its own to keep unique
                throw SqlException.violation(SqlState.WRONG_OBJECT_TYPE, "cannot create index on relation \"" + on + "\"",
                        "This operation is not supported for " + (target instanceof CatalogEntry.View ? "views." : "indexes."), null);
            }
            for (String k : key) {
                if (target.schema().indexOf(k) < 0) {
                    throw new SqlException(SqlException.UNDEFINED_COLUMN, "column \"" + k + "\" does not exist");
                }
            }
            if (unique) {
                controller.createUniqueIndex(indexName, on, key);
            } else {
                controller.createIndex(indexName, on, key, null);
            }
            return SqlResult.command("CREATE INDEX");
        }));
    }

    Prepared drop(String sql, SqlLexer lex, String fingerprint) {
        lex.expect("drop");
        String what;
        Class<? extends CatalogEntry> kind;
        boolean materialized = false;
        if (lex.accept("table")) {
            what = "TABLE";
            kind = CatalogEntry.Table.class;
        } else if (lex.accept("view")) {
            what = "VIEW";
            kind = CatalogEntry.View.class;
        } else if (lex.accept("materialized")) {
            lex.expect("view");
            what = "MATERIALIZED VIEW";
            kind = CatalogEntry.View.class;
            materialized = true;
        } else if (lex.accept("index")) {
            what = "INDEX";
            kind = CatalogEntry.Index.class;
        } else if (lex.accept("source")) {
            return dropSource(sql, lex, fingerprint);
        } else {
            throw SqlException.notSupported("DROP " + lex.peek().text().toUpperCase(Locale.ROOT));
        }
        boolean ifExists = false;
        if (lex.accept("if")) {
            lex.expect("exists");
            ifExists = true;
        }
        List<String> names = new ArrayList<>();
        do {
            names.add(lex.name("a name"));
        } while (lex.acceptPunct(","));
        if (lex.peek().is("cascade")) {
            throw SqlException.notSupported("DROP ... CASCADE (drop the dependent objects first)");
        }
        lex.accept("restrict");
        lex.end();
        boolean ifx = ifExists;
        boolean mat = materialized;
        return Prepared.utility(sql, fingerprint, (params, session) -> engine.blocking(() -> {
            for (String n : names) {
                CatalogEntry e = controller.catalog().stream().filter(x -> x.name().equals(n)).findFirst().orElse(null);
                if (e == null) {
                    if (ifx) {
                        continue;
                    }
                    throw new SqlException(kind == CatalogEntry.Index.class ? SqlState.UNDEFINED_OBJECT : SqlException.UNDEFINED_TABLE,
                            what.toLowerCase(Locale.ROOT) + " \"" + n + "\" does not exist");
                }
                if (!kind.isInstance(e)) {
                    throw new SqlException(SqlState.WRONG_OBJECT_TYPE, "\"" + n + "\" is not a " + what.toLowerCase(Locale.ROOT));
                }
                if (mat && exists(materializedIndex(n))) {
                    controller.drop(materializedIndex(n), CatalogEntry.Index.class);
                }
                if (kind == CatalogEntry.Index.class) {
                    controller.drop(n, kind);
                } else {
                    controller.dropWithIndexes(n, kind); // as in PostgreSQL, a table's or view's indexes go with it
                }
            }
            return SqlResult.command("DROP " + what);
        }));
    }

    /**
     * {@code CREATE SOURCE name FROM POSTGRES CONNECTION '...' [PASSWORD SECRET 'secret'] PUBLICATION 'pub'
     * [FOR ALL TABLES | FOR TABLES (a, s.b AS c, ...)] [TEXT COLUMNS (t.c, ...)]}.
     */
    private Prepared createSource(String sql, SqlLexer lex, String fingerprint) {
        String name = lex.name("a source name");
        lex.expect("from");
        if (!lex.accept("postgres") && !lex.accept("postgresql")) {
            throw lex.error("expected POSTGRES (Kafka sources are created through POST /v1/sources)", lex.peek());
        }
        lex.expect("connection");
        String connection = string(lex, "a connection string");
        String secret = null;
        if (lex.accept("password")) {
            lex.expect("secret");
            secret = string(lex, "a secret's name");
        }
        lex.expect("publication");
        String publication = string(lex, "a publication name");
        List<String[]> tables = null;
        if (lex.accept("for")) {
            if (lex.accept("all")) {
                lex.expect("tables");
            } else {
                lex.expect("tables");
                lex.expectPunct("(");
                tables = new ArrayList<>();
                do {
                    String upstream = lex.name("a table name");
                    if (lex.acceptPunct(".")) {
                        upstream = upstream + "." + lex.name("a table name");
                    }
                    String local = upstream.contains(".") ? upstream.substring(upstream.indexOf('.') + 1) : upstream;
                    if (lex.accept("as")) {
                        local = lex.name("a table name");
                    }
                    tables.add(new String[] {upstream, local});
                } while (lex.acceptPunct(","));
                lex.expectPunct(")");
            }
        }
        List<String> text = new ArrayList<>();
        if (lex.accept("text")) {
            lex.expect("columns");
            lex.expectPunct("(");
            do {
                String t = lex.name("a table name");
                lex.expectPunct(".");
                text.add(t + "." + lex.name("a column name"));
            } while (lex.acceptPunct(","));
            lex.expectPunct(")");
        }
        lex.end();
        SqlSources.CreatePostgres statement = new SqlSources.CreatePostgres(name, connection, secret, publication, tables, text);
        return Prepared.utility(sql, fingerprint, (params, session) -> engine.blocking(() -> {
            requireSources().createPostgres(statement);
            return SqlResult.command("CREATE SOURCE");
        }));
    }

    private Prepared dropSource(String sql, SqlLexer lex, String fingerprint) {
        boolean ifExists = false;
        if (lex.accept("if")) {
            lex.expect("exists");
            ifExists = true;
        }
        String name = lex.name("a source name");
        lex.end();
        boolean ifx = ifExists;
        return Prepared.utility(sql, fingerprint, (params, session) -> engine.blocking(() -> {
            if (!requireSources().drop(name) && !ifx) {
                throw new SqlException(SqlState.UNDEFINED_OBJECT, "source \"" + name + "\" does not exist");
            }
            return SqlResult.command("DROP SOURCE");
        }));
    }

    private SqlSources requireSources() {
        SqlSources s = engine.sources();
        if (s == null) {
            throw SqlException.notSupported("CREATE SOURCE and DROP SOURCE (this server runs no sources)");
        }
        return s;
    }

    private static String string(SqlLexer lex, String what) {
        SqlLexer.Token t = lex.peek();
        if (t.kind() != SqlLexer.Kind.STRING) {
            throw lex.error("expected " + what + " as a string literal", t);
        }
        lex.take();
        return t.text();
    }
}
