package dev.tandem.sql;

import dev.tandem.controller.CatalogEntry;
import dev.tandem.expr.Expr;
import dev.tandem.row.Column;
import dev.tandem.row.DatumType;
import dev.tandem.row.Schema;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.core.TableScan;

/**
 * {@code CHECK} constraints in {@code CREATE TABLE}: a column's ({@code price numeric CHECK (price > 0)}) or the
 * table's ({@code CONSTRAINT ordered CHECK (lo <= hi)}), read as written, named as PostgreSQL names them
 * ({@code <table>_<column>_check} when the condition reads one column, else {@code <table>_check}, a number
 * appended to a name already taken) and translated into an expression over the table's columns, which the
 * controller evaluates on every row written. A condition must be a boolean expression of the row alone:
 * subqueries, aggregates, parameters and the statement's time ({@code now()}) are refused.
 */
final class CheckConstraints {

    /** A condition as written, with its name if the statement gave one, and the column it was declared on (null: the table's). */
    record Pending(String name, String column, String text, int offset) {
    }

    private CheckConstraints() {
    }

    /** Reads {@code CHECK (condition)} at the lexer (left after it) as a pending check of {@code column} (null: of the table). */
    static Pending read(String sql, SqlLexer lex, String name, String column) {
        SqlLexer.Token check = lex.take();
        SqlLexer.Token open = lex.peek();
        lex.expectPunct("(");
        int depth = 1;
        SqlLexer.Token t;
        do {
            t = lex.take();
            if (t.kind() == SqlLexer.Kind.END) {
                throw lex.error("expected \")\" to end the CHECK condition", t);
            }
            if (t.isPunct("(")) {
                depth++;
            } else if (t.isPunct(")")) {
                depth--;
            }
        } while (depth > 0);
        String text = sql.substring(open.end(), t.offset()).strip();
        if (text.isEmpty()) {
            throw lex.error("a CHECK needs a condition", t);
        }
        return new Pending(name, column, text, check.offset());
    }

    /**
     * The checks of table {@code table} with {@code columns}, named and translated against the catalog
     * {@code catalog} (the table itself not in it yet).
     */
    static List<CatalogEntry.Check> plan(String sql, String table, List<Column> columns, List<Pending> pending, List<CatalogEntry> catalog) {
        if (pending.isEmpty()) {
            return List.of();
        }
        Schema schema = new Schema(columns);
        CatalogEntry.Table self = new CatalogEntry.Table("u0", table, schema);
        List<CatalogEntry> entries = new ArrayList<>(catalog.stream().filter(e -> !e.name().equals(table)).toList());
        entries.add(self);
        Set<String> taken = new HashSet<>();
        for (Pending p : pending) {
            if (p.name() != null && !taken.add(p.name())) {
                throw at(sql, p, new SqlException(SqlState.DUPLICATE_OBJECT, "constraint \"" + p.name() + "\" for relation \"" + table
                        + "\" already exists"));
            }
        }
        List<CatalogEntry.Check> out = new ArrayList<>();
        for (Pending p : pending) {
            Expr expr = translate(sql, table, schema, p, entries);
            String name = p.name();
            if (name == null) {
                Set<String> read = columnsRead(p.text(), schema);
                String base = p.column() != null ? table + "_" + p.column() + "_check"
                        : read.size() == 1 ? table + "_" + read.iterator().next() + "_check" : table + "_check";
                name = base;
                for (int n = 1; taken.contains(name); n++) {
                    name = base + n;
                }
                taken.add(name);
            }
            out.add(new CatalogEntry.Check(name, p.text(), expr));
        }
        // evaluated in the order of their names, as PostgreSQL's are: a row failing several is refused by the first
        out.sort(java.util.Comparator.comparing(CatalogEntry.Check::name));
        return out;
    }

    private static Expr translate(String sql, String table, Schema schema, Pending p, List<CatalogEntry> entries) {
        String query = "SELECT (" + p.text() + ") FROM \"" + table.replace("\"", "\"\"") + "\"";
        if (SqlParams.of(query).count() > 0) {
            throw at(sql, p, new SqlException(SqlException.NOT_SUPPORTED, "not supported: a parameter in a CHECK condition"));
        }
        RelNode rel;
        try {
            rel = CalcitePlanner.plan(CalcitePlanner.parse(query), entries).root().rel;
        } catch (SqlException e) {
            throw at(sql, p, e);
        }
        if (!(rel instanceof Project project) || !(project.getInput() instanceof TableScan scan) || project.getProjects().size() != 1) {
            throw at(sql, p, new SqlException(SqlException.NOT_SUPPORTED,
                    "not supported: a CHECK condition with a subquery, an aggregate or a window function (it must read the row alone)"));
        }
        RexTranslator tr = new RexTranslator(i -> null, i -> null).cluster(scan);
        Expr expr;
        try {
            expr = tr.rex(project.getProjects().get(0), schema.types());
        } catch (SqlException e) {
            throw at(sql, p, e);
        }
        DatumType type = PgCoercion.typeOf(expr, schema.types());
        if (type != DatumType.BOOL) {
            throw at(sql, p, new SqlException(SqlState.DATATYPE_MISMATCH, "argument of CHECK must be type boolean, not type " + SqlTypes.pgName(type)));
        }
        return expr;
    }

    /** The columns of {@code schema} a condition's text names, in order (a name followed by "(" is a function). */
    private static Set<String> columnsRead(String text, Schema schema) {
        Set<String> read = new LinkedHashSet<>();
        List<SqlLexer.Token> tokens = new SqlLexer(text).tokens();
        for (int i = 0; i < tokens.size(); i++) {
            SqlLexer.Token t = tokens.get(i);
            boolean call = i + 1 < tokens.size() && tokens.get(i + 1).isPunct("(");
            if (t.isName() && !call && schema.indexOf(t.text()) >= 0) {
                read.add(t.text());
            }
        }
        return read;
    }

    private static SqlException at(String sql, Pending p, SqlException e) {
        int[] lc = SqlLexer.lineColumn(sql, p.offset());
        return e.line() > 0 ? e : new SqlException(e.state(), e.getMessage(), lc[0], lc[1]);
    }
}
