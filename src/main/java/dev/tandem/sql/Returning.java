package dev.tandem.sql;

import dev.tandem.controller.CatalogEntry;
import dev.tandem.expr.EvalError;
import dev.tandem.expr.Mfp;
import dev.tandem.expr.MfpEvaluator;
import dev.tandem.plan.Plan;
import dev.tandem.row.Row;
import dev.tandem.storage.RowDiff;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code RETURNING} list of an {@code INSERT}, {@code UPDATE} or {@code DELETE} ({@code *}, columns,
 * expressions of the row's columns): planned as {@code SELECT <list> FROM <table>} and evaluated on each
 * row the write inserts (an {@code UPDATE}'s new versions) or deletes, before the write is made, so an
 * error in it writes nothing. The statement answers these rows with its own command tag.
 */
final class Returning {

    /** A write's text without its {@code RETURNING} clause (positions kept), and the clause's text from {@code RETURNING} on (null: none). */
    record Split(String statement, String clause, int offset) {
    }

    private final List<SqlColumn> columns;
    private final MfpEvaluator mfp;
    private final List<Integer> fields;
    /** Whether the list computes otherwise in another time zone than UTC, the one it is planned in. */
    private final boolean zoneDependent;

    private Returning(List<SqlColumn> columns, MfpEvaluator mfp, List<Integer> fields, boolean zoneDependent) {
        this.columns = columns;
        this.mfp = mfp;
        this.fields = fields;
        this.zoneDependent = zoneDependent;
    }

    /** Splits a write at its {@code RETURNING} keyword (outside parentheses). */
    static Split split(String sql) {
        int depth = 0;
        for (SqlLexer.Token t : new SqlLexer(sql).tokens()) {
            if (t.isPunct("(")) {
                depth++;
            } else if (t.isPunct(")")) {
                depth--;
            } else if (depth == 0 && t.is("returning")) {
                return new Split(SqlLexer.blank(sql, t.offset(), sql.length()), sql, t.offset());
            }
        }
        return new Split(sql, null, -1);
    }

    /**
     * Plans the {@code RETURNING} list of {@code split} over the rows of {@code table} (read as {@code alias}
     * when the write names it so); null when the write has none. Parameters and anything but expressions of
     * the row (aggregates, subqueries) are refused with {@code 0A000}.
     */
    static Returning plan(SqlEngine engine, CatalogEntry.Table table, String alias, Split split) {
        if (split.clause() == null) {
            return null;
        }
        String sql = split.clause();
        for (SqlLexer.Token t : new SqlLexer(sql.substring(split.offset())).tokens()) {
            if (t.kind() == SqlLexer.Kind.PARAM) {
                int[] lc = SqlLexer.lineColumn(sql, split.offset() + t.offset());
                throw new SqlException(SqlException.NOT_SUPPORTED, "not supported: parameters in RETURNING", lc[0], lc[1]);
            }
        }
        // SELECT written over the keyword RETURNING, so that an error's position is the statement's
        String list = SqlLexer.blank(sql, 0, split.offset());
        String body = list.substring(0, split.offset()) + "SELECT   " + list.substring(split.offset() + "returning".length()).replaceFirst(";\\s*$", "");
        String text = body + " FROM " + quoted(table.name()) + (alias == null ? "" : " AS " + quoted(alias));
        SqlEngine.Query q = engine.planQuery(CalcitePlanner.parse(text), SqlParams.of(text), null, null);
        RexTranslator tr = new RexTranslator(i -> null, i -> null).zone(null);
        Plan plan = new RelTranslator(tr).translate(q.body()).plan();
        Mfp mfp = switch (plan) {
            case Plan.Get g -> Mfp.identity();
            case Plan.MapFilterProject m when m.input() instanceof Plan.Get && m.mfp().filter().isEmpty() -> m.mfp();
            default -> throw SqlException.notSupported("this RETURNING list (only expressions of the written row)");
        };
        return new Returning(q.columns(), mfp.bind(table.schema().types()), q.fields(), tr.zoneDependent());
    }

    List<SqlColumn> columns() {
        return columns;
    }

    /** The list evaluated on the rows {@code diffs} insert ({@code deleted} false) or delete, in their order. */
    List<Object[]> rows(List<RowDiff> diffs, boolean deleted, SqlSession session) {
        if (zoneDependent && !session.zone().utc()) {
            throw SqlException.notSupported("a RETURNING list that depends on the time zone in a session whose TimeZone is not UTC"
                    + " (select the written rows after the write)");
        }
        List<Object[]> out = new ArrayList<>();
        for (RowDiff d : diffs) {
            if (d.diff() < 0 != deleted) {
                continue;
            }
            Row r;
            try {
                r = mfp.apply(d.row());
            } catch (EvalError e) {
                throw SqlErrors.evaluation(e);
            }
            Object[] all = r.unpack();
            Object[] row = new Object[fields.size()];
            for (int i = 0; i < row.length; i++) {
                row[i] = all[fields.get(i)];
            }
            for (long n = Math.abs(d.diff()); n > 0; n--) {
                out.add(row);
            }
        }
        return out;
    }

    private static String quoted(String name) {
        return "\"" + name.replace("\"", "\"\"") + "\"";
    }
}
