package dev.tandem.expr;

import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import java.util.List;

/** An {@link Mfp} type-checked against an input schema, ready to apply to rows of that schema. */
public interface MfpEvaluator {

    /** The output row, or null when the row is filtered out; throws {@link EvalError} on an evaluation error. */
    Row apply(Row row);

    /** As {@link #apply(Row)} on an already decoded row. */
    Row apply(Object[] row);

    List<DatumType> inputTypes();

    List<DatumType> outputTypes();
}
