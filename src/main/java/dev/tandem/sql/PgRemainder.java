package dev.tandem.sql;

import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.sql.SqlBinaryOperator;
import org.apache.calcite.sql.SqlFunction;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlOperatorBinding;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.type.OperandTypes;
import org.apache.calcite.sql.type.ReturnTypes;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * PostgreSQL's remainder, {@code a % b} and {@code mod(a, b)}, typed as PostgreSQL types it: of two integers, the
 * wider of their types ({@code bigint % integer} is a {@code bigint}, {@code mod(integer, smallint)} an
 * {@code integer}), where Calcite's takes the divisor's. Found by the validator ahead of Calcite's own operators of
 * the same names ({@link PgFunctions#TABLE}); other operands type as Calcite's.
 */
final class PgRemainder {

    /**
     * {@code a % b}; a class of its own, since an operator equals another of its class, name and kind, and Calcite's
     * conversion of its own {@code %} takes only its own.
     */
    static final SqlBinaryOperator PERCENT = new SqlBinaryOperator("%", SqlKind.MOD, SqlStdOperatorTable.PERCENT_REMAINDER.getLeftPrec(), true,
            PgRemainder::returnType, null, OperandTypes.EXACT_NUMERIC_EXACT_NUMERIC) {
    };

    /**
     * {@code mod(a, b)}: not of kind {@code MOD}, as Calcite's is, since the validator keeps only the candidates of the
     * call's kind once two functions of one name match (translated by name, as Calcite's was).
     */
    static final SqlFunction MOD = new SqlFunction("MOD", SqlKind.OTHER_FUNCTION, PgRemainder::returnType, null, OperandTypes.EXACT_NUMERIC_EXACT_NUMERIC,
            SqlFunctionCategory.NUMERIC) {
    };

    private PgRemainder() {
    }

    private static RelDataType returnType(SqlOperatorBinding binding) {
        RelDataType a = binding.getOperandType(0);
        RelDataType b = binding.getOperandType(1);
        int wa = width(a.getSqlTypeName());
        int wb = width(b.getSqlTypeName());
        if (wa == 0 || wb == 0) {
            return ReturnTypes.NULLABLE_MOD.inferReturnType(binding);
        }
        RelDataTypeFactory f = binding.getTypeFactory();
        return f.createTypeWithNullability(f.createSqlType((wa >= wb ? a : b).getSqlTypeName()), a.isNullable() || b.isNullable());
    }

    /** The width in bytes of an integer type, 0 for any other. */
    private static int width(SqlTypeName t) {
        return switch (t) {
            case TINYINT -> 1;
            case SMALLINT -> 2;
            case INTEGER -> 4;
            case BIGINT -> 8;
            default -> 0;
        };
    }
}
