package dev.tandem.sql;

import dev.tandem.controller.CatalogEntry;
import dev.tandem.row.DatumType;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelShuttleImpl;
import org.apache.calcite.rel.core.TableScan;
import org.apache.calcite.sql.SqlDelete;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlInsert;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;

/**
 * What a statement does ({@link SqlStatement.Kind}) and which catalog objects it names, read from its
 * text without running it: the facts an authorization decision needs.
 */
final class SqlClassifier {

    private SqlClassifier() {
    }

    static SqlStatement.Kind kind(String sql) {
        SqlLexer.Token first = new SqlLexer(sql).peek();
        if (first.kind() == SqlLexer.Kind.END) {
            return SqlStatement.Kind.SESSION;
        }
        if (first.isPunct("(")) {
            return SqlStatement.Kind.READ;
        }
        String copied = copyInner(sql);
        if (copied != null) {
            return kind(copied);
        }
        if (first.is("copy")) {
            return CopyIn.is(sql) ? SqlStatement.Kind.WRITE : SqlStatement.Kind.READ;
        }
        String declared = declaredInner(sql);
        if (declared != null) {
            return kind(declared);
        }
        return switch (first.kind() == SqlLexer.Kind.WORD ? first.text() : "") {
            case "select", "with", "values", "table", "show", "explain", "subscribe" -> SqlStatement.Kind.READ;
            case "insert", "delete", "update" -> SqlStatement.Kind.WRITE;
            case "set", "reset", "begin", "start", "commit", "rollback", "end", "savepoint", "release", "abort", "fetch", "close" ->
                    SqlStatement.Kind.SESSION;
            default -> SqlStatement.Kind.DDL;
        };
    }

    static Set<String> objects(String sql, List<CatalogEntry> catalog) {
        String copied = copyInner(sql);
        if (copied != null) {
            return objects(copied, catalog);
        }
        String declared = declaredInner(sql);
        if (declared != null) {
            return objects(declared, catalog);
        }
        Set<String> out = new LinkedHashSet<>();
        SqlLexer lex = new SqlLexer(sql);
        SqlLexer.Token first = lex.peek();
        switch (first.kind() == SqlLexer.Kind.WORD ? first.text() : first.isPunct("(") ? "select" : "") {
            case "select", "with", "values", "table" -> query(sql, catalog, out);
            case "explain" -> {
                lex.take();
                query(SqlLexer.blank(sql, first.offset(), lex.offset()), catalog, out);
            }
            case "copy" -> {
                lex.take();
                if (lex.peek().isName()) {
                    out.add(lex.name("a table name"));
                }
            }
            case "subscribe" -> {
                lex.take();
                lex.accept("to");
                if (lex.peek().isPunct("(")) {
                    query(SqlLexer.blank(sql, 0, lex.offset()), catalog, out);
                } else {
                    out.add(lex.name("a table, view or index name"));
                }
            }
            case "show" -> {
                lex.take();
                if (lex.accept("columns") || lex.accept("indexes") || lex.accept("indices")) {
                    if (lex.accept("from") || lex.accept("in") || lex.accept("on")) {
                        out.add(lex.name("a table or view name"));
                    }
                }
            }
            case "insert", "delete", "update" -> {
                SqlNode parsed = CalcitePlanner.parse(SqlParams.of(sql).text());
                SqlNode target = parsed instanceof SqlInsert i ? i.getTargetTable() : parsed instanceof SqlDelete d ? d.getTargetTable()
                        : parsed instanceof org.apache.calcite.sql.SqlUpdate u ? u.getTargetTable() : null;
                if (target instanceof SqlIdentifier id) {
                    out.add(id.names.get(id.names.size() - 1));
                }
                if (parsed instanceof SqlInsert i && i.getSource().getKind() != SqlKind.VALUES && target instanceof SqlIdentifier id) {
                    // INSERT ... SELECT reads what its query reads
                    String name = id.names.get(id.names.size() - 1);
                    catalog.stream().filter(e -> e instanceof CatalogEntry.Table && e.name().equals(name)).findFirst()
                            .ifPresent(t -> WritePlanner.typeUntyped((CatalogEntry.Table) t, i.getTargetColumnList(), i.getSource()));
                    if (RecursiveWith.isRecursive(i.getSource())) {
                        throw SqlException.notSupported("WITH RECURSIVE in INSERT ... SELECT (a recursive query is answered only as a one-shot SELECT)");
                    }
                    scans(CalcitePlanner.plan(i.getSource(), catalog).root().rel, out);
                }
            }
            case "create" -> create(sql, lex, catalog, out);
            case "drop" -> {
                lex.take();
                if (lex.accept("materialized")) {
                    lex.expect("view");
                } else {
                    lex.take();
                }
                if (lex.accept("if")) {
                    lex.expect("exists");
                }
                do {
                    out.add(lex.name("a name"));
                } while (lex.acceptPunct(","));
            }
            default -> {
                // SET, transactions and the statements Tandem refuses name no object
            }
        }
        return out;
    }

    /**
     * {@code COPY (statement) TO ...}: the statement in the parentheses, with everything around it blanked
     * (offsets kept for error positions); null for anything else. The copy is what is authorized: a
     * {@code COPY (SUBSCRIBE v) TO STDOUT} reads {@code v}.
     */
    private static String copyInner(String sql) {
        SqlLexer lex = new SqlLexer(sql);
        if (!lex.peek().is("copy")) {
            return null;
        }
        lex.take();
        if (!lex.acceptPunct("(")) {
            return null;
        }
        int from = lex.offset();
        int depth = 0;
        while (true) {
            SqlLexer.Token t = lex.take();
            if (t.kind() == SqlLexer.Kind.END) {
                return null;
            }
            if (t.isPunct("(")) {
                depth++;
            } else if (t.isPunct(")") && depth-- == 0) {
                return SqlLexer.blank(SqlLexer.blank(sql, 0, from), t.offset(), sql.length());
            }
        }
    }

    /**
     * {@code DECLARE c ... CURSOR ... FOR statement}: the statement, with what precedes it blanked; null
     * for anything else. A cursor is authorized as its statement (a FETCH then reads what was authorized).
     */
    private static String declaredInner(String sql) {
        SqlLexer lex = new SqlLexer(sql);
        if (!lex.peek().is("declare")) {
            return null;
        }
        while (true) {
            SqlLexer.Token t = lex.take();
            if (t.kind() == SqlLexer.Kind.END) {
                return null;
            }
            if (t.is("for")) {
                return SqlLexer.blank(sql, 0, lex.offset());
            }
        }
    }

    private static void create(String sql, SqlLexer lex, List<CatalogEntry> catalog, Set<String> out) {
        lex.take();
        boolean view = lex.accept("materialized") | lex.peek().is("view");
        if (lex.accept("table") || lex.accept("view")) {
            if (lex.accept("if")) {
                lex.expect("not");
                lex.expect("exists");
            }
            out.add(lex.name("a name"));
            if (view) {
                if (lex.acceptPunct("(")) {
                    while (!lex.acceptPunct(")")) {
                        if (lex.take().kind() == SqlLexer.Kind.END) {
                            throw lex.error("expected )", lex.peek());
                        }
                    }
                }
                lex.expect("as");
                query(SqlLexer.blank(sql, 0, lex.offset()), catalog, out);
            }
        } else if (lex.accept("index")) {
            if (lex.accept("if")) {
                lex.expect("not");
                lex.expect("exists");
            }
            if (!lex.peek().is("on")) {
                out.add(lex.name("an index name"));
            }
            lex.expect("on");
            out.add(lex.name("a table or view name"));
        } else if (lex.accept("source")) {
            // the source's tables are named by the upstream; the statement needs admin, whose allow-list is checked on the source's name
            out.add(lex.name("a source name"));
        }
    }

    /** Adds the tables and views a query reads: the scans of its plan (a view is scanned by name, not expanded). */
    private static void query(String sql, List<CatalogEntry> catalog, Set<String> out) {
        String text = sql;
        SqlAsOf asOf = SqlAsOf.find(text);
        if (asOf != null) {
            text = SqlLexer.blank(text, asOf.start(), text.length());
        }
        SqlNode parsed = CalcitePlanner.parse(SqlParams.of(text).text());
        if (!parsed.isA(SqlKind.QUERY) && parsed.getKind() != SqlKind.ORDER_BY) {
            throw SqlException.notSupported(parsed.getKind().sql + " here");
        }
        if (RecursiveWith.isRecursive(parsed)) {
            String parsedText = SqlParams.of(text).text();
            out.addAll(RecursiveWith.plan(() -> CalcitePlanner.parse(parsedText), (node, tables) -> columnsOnly(node, catalog, tables)).reads());
            return;
        }
        RecursiveWith.plainItems(parsed);
        scans(CalcitePlanner.plan(parsed, catalog).root().rel, out);
    }

    /** A query planned for what it reads and its columns' types only (it is never run). */
    private static SqlEngine.Query columnsOnly(SqlNode node, List<CatalogEntry> catalog, List<CalcitePlanner.WorkTable> tables) {
        org.apache.calcite.rel.RelRoot root = CalcitePlanner.plan(node, catalog, tables).root();
        List<DatumType> types = RelTranslator.typesOf(root.rel);
        List<Integer> fields = new java.util.ArrayList<>();
        List<SqlColumn> columns = new java.util.ArrayList<>();
        for (java.util.Map.Entry<Integer, String> f : root.fields) {
            fields.add(f.getKey());
            DatumType t = types.get(f.getKey());
            columns.add(new SqlColumn(f.getValue(), t, t == DatumType.INT64
                    ? SqlTypes.declared(root.rel.getRowType().getFieldList().get(f.getKey()).getType()) : null));
        }
        return new SqlEngine.Query(root.rel, null, fields, columns, SqlParams.of(""), List.of(), List.of(), List.of(), null, null);
    }

    private static void scans(RelNode plan, Set<String> out) {
        plan.accept(new RelShuttleImpl() {
            @Override
            public RelNode visit(TableScan scan) {
                List<String> name = scan.getTable().getQualifiedName();
                out.add(name.get(name.size() - 1));
                return scan;
            }
        });
    }
}
