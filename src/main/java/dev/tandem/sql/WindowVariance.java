package dev.tandem.sql;

import dev.tandem.plan.Plan;
import java.util.Locale;
import java.util.Map;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.sql.SqlAggFunction;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.type.OperandTypes;
import org.apache.calcite.sql.type.ReturnTypes;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.type.SqlTypeTransforms;
import org.apache.calcite.sql.validate.SqlValidator;
import org.apache.calcite.sql.validate.SqlValidatorScope;
import org.apache.calcite.util.Optionality;

/**
 * A variance or standard deviation over a window ({@code var_pop(x) OVER w} and the others), kept as one window
 * function of double precision rather than Calcite's expansion into sums, which the window operator computes.
 */
final class WindowVariance extends SqlAggFunction {

    /** PostgreSQL's names of the variances and deviations, each with the window function computing it. */
    static final Map<String, Plan.WindowKind> KINDS = Map.of("var_pop", Plan.WindowKind.VAR_POP, "var_samp", Plan.WindowKind.VAR_SAMP,
            "variance", Plan.WindowKind.VAR_SAMP, "stddev_pop", Plan.WindowKind.STDDEV_POP, "stddev_samp", Plan.WindowKind.STDDEV_SAMP,
            "stddev", Plan.WindowKind.STDDEV_SAMP);

    final Plan.WindowKind kind;

    private WindowVariance(String name, Plan.WindowKind kind) {
        super(name, null, SqlKind.OTHER_FUNCTION, ReturnTypes.explicit(SqlTypeName.DOUBLE).andThen(SqlTypeTransforms.FORCE_NULLABLE), null,
                OperandTypes.NUMERIC, SqlFunctionCategory.NUMERIC, false, false, Optionality.FORBIDDEN);
        this.kind = kind;
    }

    /** The window variance for the aggregate {@code name}, or null when it is not one. */
    static WindowVariance of(String name) {
        Plan.WindowKind kind = KINDS.get(name.toLowerCase(Locale.ROOT));
        return kind == null ? null : new WindowVariance(name.toLowerCase(Locale.ROOT), kind);
    }

    /** Types the call by its operands alone (a lookup by name would find Calcite's own aggregate of the name). */
    @Override
    public RelDataType deriveType(SqlValidator validator, SqlValidatorScope scope, SqlCall call) {
        for (SqlNode operand : call.getOperandList()) {
            validator.deriveType(scope, operand);
        }
        return validateOperands(validator, scope, call);
    }
}
