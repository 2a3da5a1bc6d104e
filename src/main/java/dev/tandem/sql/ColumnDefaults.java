package dev.tandem.sql;

import dev.tandem.controller.CatalogEntry;
import dev.tandem.row.DatumType;
import java.math.BigDecimal;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.parser.SqlParserPos;

/**
 * Column defaults ({@code CREATE TABLE t (n bigint DEFAULT 0)}): a value per column, kept with the
 * table in the catalog, that an {@code INSERT} (and {@code COPY}) gives the columns it leaves out and that
 * {@code DEFAULT} stands for in {@code INSERT} and {@code UPDATE}. A column without one defaults to NULL. A
 * default is a constant — a literal (a number, possibly signed, a string, {@code TRUE}, {@code FALSE},
 * {@code NULL}), possibly cast ({@code 'x'::text}) — or, for a {@code timestamptz}, {@code timestamp} or
 * {@code date} column, the writing statement's time ({@code now()}, {@code current_timestamp},
 * {@code current_date}, {@code localtimestamp}: {@link CatalogEntry.WriteTimeDefault}); any other
 * expression is refused.
 */
final class ColumnDefaults {

    private ColumnDefaults() {
    }

    /**
     * The constant after {@code DEFAULT} for a column of type {@code type}, as a value of that type (null
     * for NULL); the lexer is left after it. Anything but a constant is refused with {@code 0A000}.
     */
    static Object parse(String sql, SqlLexer lex, String column, DatumType type) {
        SqlLexer.Token start = lex.peek();
        if (TIME_FUNCTIONS.contains(start.text()) && start.kind() == SqlLexer.Kind.WORD) {
            return timeDefault(sql, lex, column, type);
        }
        boolean negative = false;
        if (lex.acceptPunct("-")) {
            negative = true;
        } else {
            lex.acceptPunct("+");
        }
        SqlLexer.Token t = lex.take();
        Object value;
        if (t.kind() == SqlLexer.Kind.NUMBER) {
            BigDecimal n = new BigDecimal(t.text());
            value = negative ? n.negate() : n;
        } else if (negative) {
            throw notConstant(sql, column, start);
        } else if (t.kind() == SqlLexer.Kind.STRING) {
            value = t.text();
        } else if (t.is("true") || t.is("false")) {
            value = t.is("true");
        } else if (t.is("null")) {
            value = null;
        } else {
            throw notConstant(sql, column, start);
        }
        if (lex.peek().isPunct(":")) {
            lex.take();
            lex.expectPunct(":");
            SqlLexer.Token typeAt = lex.peek();
            StringBuilder name = new StringBuilder(lex.name("a type"));
            if (name.toString().equals("double") && lex.accept("precision")) {
                name.append(" precision");
            } else if (name.toString().equals("character") && lex.accept("varying")) {
                name.append(" varying");
            }
            DatumType cast = SqlTypes.ofName(name.toString());
            if (cast == null) {
                int[] lc = SqlLexer.lineColumn(sql, typeAt.offset());
                throw new SqlException(SqlException.NOT_SUPPORTED, "not supported: type " + name, lc[0], lc[1]);
            }
            value = SqlTypes.convert(value instanceof BigDecimal d && cast == DatumType.STRING ? d.toPlainString() : value, cast);
        }
        SqlLexer.Token after = lex.peek();
        boolean ends = after.isPunct(",") || after.isPunct(")") || after.is("not") || after.is("null") || after.is("primary")
                || after.is("unique") || after.is("constraint") || after.is("references") || after.is("check") || after.is("default");
        if (!ends) {
            throw notConstant(sql, column, start);
        }
        try {
            return SqlTypes.convert(value instanceof BigDecimal d && type == DatumType.STRING ? d.toPlainString() : value, type);
        } catch (SqlException e) {
            int[] lc = SqlLexer.lineColumn(sql, start.offset());
            throw new SqlException(e.state(), e.getMessage(), lc[0], lc[1]);
        }
    }

    /**
     * An {@code UPDATE}'s text with each {@code SET c = DEFAULT} written {@code SET c = NULL} (Calcite's
     * parser takes no {@code DEFAULT} there), positions kept; the line and column of each are added to
     * {@code at}, so the planner can tell them from a NULL the statement wrote.
     */
    static String setDefaults(String sql, java.util.List<int[]> at) {
        StringBuilder b = null;
        java.util.List<SqlLexer.Token> tokens = new SqlLexer(sql).tokens();
        int depth = 0;
        boolean inSet = false;
        for (int i = 0; i + 1 < tokens.size(); i++) {
            SqlLexer.Token t = tokens.get(i);
            if (t.isPunct("(")) {
                depth++;
            } else if (t.isPunct(")")) {
                depth--;
            } else if (depth == 0 && t.is("set")) {
                inSet = true;
            } else if (depth == 0 && (t.is("where") || t.is("from") || t.is("returning"))) {
                inSet = false;
            }
            SqlLexer.Token next = tokens.get(i + 1);
            SqlLexer.Token after = i + 2 < tokens.size() ? tokens.get(i + 2) : null;
            if (inSet && depth == 0 && t.isPunct("=") && next.is("default") && next.text().length() == 7
                    && (after == null || after.kind() == SqlLexer.Kind.END || after.isPunct(",") || after.isPunct(";")
                    || after.is("where") || after.is("returning"))) {
                if (b == null) {
                    b = new StringBuilder(sql);
                }
                b.replace(next.offset(), next.offset() + 7, "NULL   ");
                at.add(SqlLexer.lineColumn(sql, next.offset()));
            }
        }
        return b == null ? sql : b.toString();
    }

    /** The words of the functions whose value is the statement's time, as a default may name them. */
    private static final java.util.Set<String> TIME_FUNCTIONS = java.util.Set.of("now", "current_timestamp", "current_date",
            "localtimestamp", "transaction_timestamp", "statement_timestamp");

    /** The default {@code now()} (or one of its kin) of a time-typed column; the lexer is left after it. */
    private static CatalogEntry.WriteTimeDefault timeDefault(String sql, SqlLexer lex, String column, DatumType type) {
        SqlLexer.Token start = lex.take();
        boolean keyword = start.is("current_timestamp") || start.is("current_date") || start.is("localtimestamp");
        if (!keyword || lex.peek().isPunct("(")) {
            lex.expectPunct("(");
            lex.expectPunct(")");
        }
        SqlLexer.Token after = lex.peek();
        if (!(after.isPunct(",") || after.isPunct(")") || after.is("not") || after.is("null") || after.is("primary")
                || after.is("unique") || after.is("constraint") || after.is("check"))) {
            throw notConstant(sql, column, start);
        }
        if (type != DatumType.TIMESTAMPTZ && type != DatumType.TIMESTAMP && type != DatumType.DATE) {
            int[] lc = SqlLexer.lineColumn(sql, start.offset());
            throw new SqlException(SqlException.NOT_SUPPORTED, "not supported: the default " + start.text() + " for column \"" + column
                    + "\" of type " + SqlTypes.pgName(type) + " (the statement's time is a default of timestamptz, timestamp and date columns)",
                    lc[0], lc[1]);
        }
        return CatalogEntry.WriteTimeDefault.NOW;
    }

    /**
     * What a writing statement fills defaults with: its time ({@code now()}) and the sequences of serial
     * columns (each ready for the table written: {@link Sequences#ready}).
     */
    record Writing(java.time.Instant now, Sequences sequences) {
    }

    /** Column {@code column} of {@code table}'s default {@code value} as {@code w} writes it. */
    private static Object resolved(CatalogEntry.Table table, String column, Object value, DatumType type, Writing w) {
        if (!(value instanceof CatalogEntry.WriteTimeDefault)) {
            return value;
        }
        if (value == CatalogEntry.WriteTimeDefault.SEQUENCE) {
            return w.sequences().next(table, column);
        }
        java.time.Instant now = w.now();
        long micros = Math.addExact(Math.multiplyExact(now.getEpochSecond(), 1_000_000L), now.getNano() / 1000);
        return switch (type) {
            case TIMESTAMPTZ -> new dev.tandem.row.TimestampTz(micros);
            case TIMESTAMP -> new dev.tandem.row.Timestamp(dev.tandem.expr.TimeZones.local(micros, SqlTypes.zone()));
            case DATE -> java.time.LocalDate.ofInstant(now, SqlTypes.zone());
            default -> throw new IllegalStateException("the statement's time as a default of a " + type + " column");
        };
    }

    private static SqlException notConstant(String sql, String column, SqlLexer.Token at) {
        int[] lc = SqlLexer.lineColumn(sql, at.offset());
        return new SqlException(SqlException.NOT_SUPPORTED, "not supported: the default of column \"" + column
                + "\" is not a constant (defaults are literals such as 0, 'x', TRUE or NULL, possibly cast)", lc[0], lc[1]);
    }

    /** A new row of {@code table} with every column at its default, as {@code w} writes it, but the columns {@code given}. */
    static Object[] initial(CatalogEntry.Table table, Writing w, int[] given) {
        Object[] row = new Object[table.schema().arity()];
        for (int c = 0; c < row.length; c++) {
            if (!contains(given, c)) {
                row[c] = of(table, c, w);
            }
        }
        return row;
    }

    private static boolean contains(int[] columns, int c) {
        for (int x : columns) {
            if (x == c) {
                return true;
            }
        }
        return false;
    }

    /** The default of column {@code column} of {@code table} (null: NULL), as {@code w} writes it. */
    static Object of(CatalogEntry.Table table, int column, Writing w) {
        String name = table.schema().column(column).name();
        return resolved(table, name, table.defaults().get(name), table.schema().column(column).type(), w);
    }

    /**
     * {@code DEFAULT} for a column in an expression: its default as a quoted literal (which a write casts
     * to the column's type, as it casts {@code '5'}), or NULL.
     */
    static SqlNode expression(CatalogEntry.Table table, int column, SqlParserPos pos) {
        Object v = table.defaults().get(table.schema().column(column).name());
        if (v == CatalogEntry.WriteTimeDefault.SEQUENCE) {
            throw new SqlException(SqlException.NOT_SUPPORTED, "not supported: DEFAULT for the serial column \"" + table.schema().column(column).name()
                    + "\" in an UPDATE or beside expressions (leave the column out of an INSERT to give it its sequence's next value)",
                    pos.getLineNum(), pos.getColumnNum());
        }
        if (v instanceof CatalogEntry.WriteTimeDefault) {
            // the statement's time, which the write's query reads as its now()
            String call = switch (table.schema().column(column).type()) {
                case DATE -> PgFunctions.PG_CURRENT_DATE;
                case TIMESTAMP -> PgFunctions.PG_LOCALTIMESTAMP;
                default -> "now";
            };
            return ((org.apache.calcite.sql.SqlSelect) CalcitePlanner.parse("SELECT " + call + "()")).getSelectList().get(0);
        }
        if (v == null) {
            return SqlLiteral.createNull(pos);
        }
        return SqlLiteral.createCharString(v instanceof Boolean b ? b.toString() : SqlTypes.text(v), pos);
    }
}
