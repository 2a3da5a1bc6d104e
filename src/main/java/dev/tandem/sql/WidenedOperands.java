package dev.tandem.sql;

import java.util.function.Predicate;
import org.apache.calcite.sql.SqlBinaryOperator;
import org.apache.calcite.sql.SqlCallBinding;
import org.apache.calcite.sql.SqlOperandCountRange;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.type.SqlOperandCountRanges;
import org.apache.calcite.sql.type.SqlOperandTypeChecker;

/**
 * The operand checker of a binary operator that takes what Calcite's {@code standard} one takes and also
 * the operand types {@code also} accepts (a date plus an integer, a uuid compared with a quoted literal).
 */
final class WidenedOperands {

    private WidenedOperands() {
    }

    static SqlOperandTypeChecker of(SqlBinaryOperator standard, Predicate<SqlCallBinding> also) {
        return new SqlOperandTypeChecker() {
            @Override
            public boolean checkOperandTypes(SqlCallBinding binding, boolean throwOnFailure) {
                return also.test(binding) || standard.getOperandTypeChecker().checkOperandTypes(binding, throwOnFailure);
            }

            @Override
            public SqlOperandCountRange getOperandCountRange() {
                return SqlOperandCountRanges.of(2);
            }

            @Override
            public String getAllowedSignatures(SqlOperator op, String opName) {
                return standard.getOperandTypeChecker().getAllowedSignatures(op, opName);
            }
        };
    }
}
