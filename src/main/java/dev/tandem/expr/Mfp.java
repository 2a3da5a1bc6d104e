package dev.tandem.expr;

import static dev.tandem.expr.ExprException.child;
import static dev.tandem.expr.ExprException.index;

import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import java.util.ArrayList;
import java.util.List;

/**
 * A map/filter/project: {@code map} appends computed columns (expression {@code i} sees the input and
 * the columns appended before it), {@code filter} keeps rows on which every predicate is true (NULL
 * counts as false), {@code project} picks the output columns; a null {@code project} keeps all columns.
 *
 * <p>Each predicate is evaluated as soon as the columns it reads exist — before any map expression it
 * does not need — and a row that fails it evaluates nothing further. So {@code filter: [b != 0]} guards
 * {@code map: [a / b]}: a row with {@code b = 0} is dropped, it is not a division error.
 */
public record Mfp(List<Expr> map, List<Expr> filter, List<Integer> project) {

    private static final Mfp IDENTITY = new Mfp(List.of(), List.of(), null);

    public Mfp {
        map = List.copyOf(map);
        filter = List.copyOf(filter);
        project = project == null ? null : List.copyOf(project);
    }

    /** The MFP that passes every row unchanged. */
    public static Mfp identity() {
        return IDENTITY;
    }

    /** A projection onto {@code columns}. */
    public static Mfp project(List<Integer> columns) {
        return new Mfp(List.of(), List.of(), columns);
    }

    /** A filter by {@code predicates}. */
    public static Mfp filter(List<Expr> predicates) {
        return new Mfp(List.of(), predicates, null);
    }

    public boolean isIdentity() {
        return map.isEmpty() && filter.isEmpty() && project == null;
    }

    /**
     * The output column types over input columns of {@code input}; throws {@link ExprException} with the
     * path (under {@code path}) of the first ill-typed expression, bad column or non-bool predicate.
     */
    public List<DatumType> outputTypes(List<DatumType> input, String path) {
        List<DatumType> width = new ArrayList<>(input);
        for (int i = 0; i < map.size(); i++) {
            width.add(map.get(i).typeOf(width, index(child(path, "map"), i)));
        }
        for (int i = 0; i < filter.size(); i++) {
            String at = index(child(path, "filter"), i);
            DatumType t = filter.get(i).typeOf(width, at);
            if (t != DatumType.BOOL) {
                throw new ExprException(at, "a filter predicate must be bool, got " + t.jsonName());
            }
        }
        if (project == null) {
            return List.copyOf(width);
        }
        List<DatumType> out = new ArrayList<>(project.size());
        for (int i = 0; i < project.size(); i++) {
            int c = project.get(i);
            if (c >= width.size()) {
                throw new ExprException(index(child(path, "project"), i), "column " + c + " does not exist; there are " + width.size() + " columns");
            }
            out.add(width.get(c));
        }
        return out;
    }

    /**
     * The MFP that computes only output columns {@code columns} of this one, with no filter and only the
     * map expressions up to the last one they read (by position): what a row's key would have been. It
     * may still fail on a map expression it keeps without needing it.
     */
    public Mfp columnsOnly(int[] columns, int inputArity) {
        List<Integer> picked = new ArrayList<>(columns.length);
        int mapNeeded = 0;
        for (int c : columns) {
            int width = project == null ? c : project.get(c);
            picked.add(width);
            mapNeeded = Math.max(mapNeeded, width - inputArity + 1);
        }
        return new Mfp(map.subList(0, mapNeeded), List.of(), picked);
    }

    /** Type-checks this MFP against {@code input} and prepares it for evaluation on rows of those types. */
    public MfpEvaluator bind(List<DatumType> input) {
        return new BoundMfp(this, List.copyOf(input), outputTypes(input, ""));
    }

    /**
     * Applies this MFP to one row: the output row, or null when a predicate is not true. Throws
     * {@link EvalError} on an evaluation error. Convenient but slow — it type-checks on every call;
     * operators {@link #bind} once.
     */
    public Row apply(Row row) {
        List<DatumType> types = new ArrayList<>(row.arity());
        for (int i = 0; i < row.arity(); i++) {
            types.add(row.typeAt(i));
        }
        return bind(types).apply(row);
    }
}
