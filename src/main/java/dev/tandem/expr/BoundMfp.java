package dev.tandem.expr;

import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.row.RowPacker;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** An MFP bound to its input types; predicates are scheduled before the first map they do not need. */
final class BoundMfp implements MfpEvaluator {

    private final Mfp mfp;
    private final List<DatumType> input;
    private final List<DatumType> output;
    private final DatumType[] widthTypes;
    private final int[] project;
    /** predicatesBefore[i] = the predicates to evaluate before map expression i (i = map size: after all). */
    private final Expr[][] predicatesBefore;

    BoundMfp(Mfp mfp, List<DatumType> input, List<DatumType> output) {
        this.mfp = mfp;
        this.input = input;
        this.output = output;
        int arity = input.size();
        int width = arity + mfp.map().size();
        widthTypes = new DatumType[width];
        if (mfp.map().isEmpty()) {
            input.toArray(widthTypes);
        } else {
            List<DatumType> all = new Mfp(mfp.map(), List.of(), null).outputTypes(input, "");
            for (int i = 0; i < width; i++) {
                widthTypes[i] = all.get(i);
            }
        }
        List<Integer> columns = mfp.project();
        if (columns == null) {
            project = null;
        } else {
            project = new int[columns.size()];
            for (int i = 0; i < project.length; i++) {
                project[i] = columns.get(i);
            }
        }
        int stages = mfp.map().size() + 1;
        @SuppressWarnings("unchecked")
        List<Expr>[] byStage = new List[stages];
        for (int i = 0; i < stages; i++) {
            byStage[i] = new ArrayList<>();
        }
        for (Expr p : mfp.filter()) {
            byStage[Math.max(0, p.maxColumn() + 1 - arity)].add(p);
        }
        predicatesBefore = new Expr[stages][];
        for (int i = 0; i < stages; i++) {
            predicatesBefore[i] = byStage[i].toArray(Expr[]::new);
        }
    }

    /**
     * Without map expressions the output's datums are the input's: after the predicates (which decode the
     * row), they are copied as encoded, not decoded and packed again.
     */
    @Override
    public Row apply(Row row) {
        if (!mfp.map().isEmpty()) {
            return apply(row.unpack());
        }
        Expr[] predicates = predicatesBefore[0];
        if (predicates.length > 0) {
            Object[] values = row.unpack();
            for (Expr p : predicates) {
                if (!Boolean.TRUE.equals(p.eval(values))) {
                    return null;
                }
            }
        }
        return project == null ? row : row.project(project);
    }

    @Override
    public Row apply(Object[] decoded) {
        int arity = input.size();
        Object[] values = mfp.map().isEmpty() ? decoded : Arrays.copyOf(decoded, arity + mfp.map().size());
        List<Expr> map = mfp.map();
        for (int i = 0; i <= map.size(); i++) {
            for (Expr p : predicatesBefore[i]) {
                if (!Boolean.TRUE.equals(p.eval(values))) {
                    return null;
                }
            }
            if (i < map.size()) {
                values[arity + i] = map.get(i).eval(values);
            }
        }
        RowPacker packer = new RowPacker();
        if (project == null) {
            for (int i = 0; i < values.length; i++) {
                packer.push(widthTypes[i], values[i]);
            }
        } else {
            for (int c : project) {
                packer.push(widthTypes[c], values[c]);
            }
        }
        return packer.finish();
    }

    @Override
    public List<DatumType> inputTypes() {
        return input;
    }

    @Override
    public List<DatumType> outputTypes() {
        return output;
    }
}
