package dev.tandem.controller;

import dev.tandem.row.Row;
import dev.tandem.row.Schema;
import dev.tandem.storage.RowDiff;
import java.util.ArrayList;
import java.util.List;

/**
 * The rows a write brings to a table, made what the table holds: each value fitted to its column's declared
 * type ({@link DeclaredType#fit}) and each added row checked against the table's CHECK constraints, on every
 * write path (SQL, COPY, a transaction block, the REST API). A value that does not fit or a row that fails a
 * check refuses the whole write.
 */
final class WrittenRows {

    private WrittenRows() {
    }

    /**
     * {@code diffs} with their values fitted to {@code table}'s declared column types (a numeric rounded to
     * its column's scale) and their added rows checked against its CHECK constraints; a value that does not
     * fit or a row that fails a check refuses the write. Rows not of the table's schema are left as they are,
     * for the storage to refuse.
     */
    static List<RowDiff> fitted(CatalogEntry.Table table, List<RowDiff> diffs) {
        if (table.declared().isEmpty() && table.checks().isEmpty()) {
            return diffs;
        }
        List<dev.tandem.expr.MfpEvaluator> checks = new ArrayList<>();
        for (CatalogEntry.Check c : table.checks()) {
            checks.add(checkMfp(c, table.schema().arity()).bind(table.schema().types()));
        }
        Schema schema = table.schema();
        DeclaredType[] declared = new DeclaredType[schema.arity()];
        for (int c = 0; c < declared.length; c++) {
            declared[c] = table.declaredType(c);
        }
        List<RowDiff> out = new ArrayList<>(diffs.size());
        for (RowDiff d : diffs) {
            if (d.row().arity() != declared.length) {
                out.add(d);
                continue;
            }
            Object[] values = d.row().unpack();
            boolean changed = false;
            for (int c = 0; c < declared.length; c++) {
                DeclaredType type = declared[c];
                if (type != null && values[c] != null && type.datumType().accepts(values[c])) {
                    Object fit;
                    try {
                        fit = type.fit(values[c]);
                    } catch (dev.tandem.expr.EvalError e) {
                        throw ControllerException.evaluation(e.code(), e.getMessage() + " (column '" + schema.column(c).name() + "' of table '" + table.name() + "')");
                    }
                    if (!fit.equals(values[c])) {
                        values[c] = fit;
                        changed = true;
                    }
                }
            }
            if (d.diff() > 0) {
                for (int i = 0; i < checks.size(); i++) {
                    check(table, table.checks().get(i), checks.get(i), values);
                }
            }
            out.add(changed ? new RowDiff(Row.pack(schema.types(), java.util.Arrays.asList(values)), d.diff()) : d);
        }
        return out;
    }

    /** The map that computes check {@code c} beside a row of {@code arity} columns, projecting only its value. */
    static dev.tandem.expr.Mfp checkMfp(CatalogEntry.Check c, int arity) {
        return new dev.tandem.expr.Mfp(List.of(c.expr()), List.of(), List.of(arity));
    }

    /** Refuses ({@link CheckViolationException}) a row that makes the check false; true and NULL pass, as in PostgreSQL. */
    private static void check(CatalogEntry.Table table, CatalogEntry.Check c, dev.tandem.expr.MfpEvaluator check, Object[] values) {
        Object result;
        try {
            result = check.apply(values).unpack()[0];
        } catch (dev.tandem.expr.EvalError e) {
            throw ControllerException.evaluation(e.code(), e.getMessage() + " (check constraint '" + c.name() + "' of table '" + table.name() + "')");
        }
        if (Boolean.FALSE.equals(result)) {
            throw new CheckViolationException(table.name(), c.name(), java.util.Arrays.asList(values.clone()));
        }
    }
}
