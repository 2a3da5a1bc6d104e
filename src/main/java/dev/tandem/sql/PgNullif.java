package dev.tandem.sql;

import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOperatorBinding;
import org.apache.calcite.sql.fun.SqlNullifFunction;
import org.apache.calcite.sql.type.SqlTypeUtil;
import org.apache.calcite.sql.util.SqlBasicVisitor;

/**
 * {@code NULLIF(a, b)} typed as PostgreSQL types it: as {@code a} once compared with {@code b}, so an integer beside a
 * numeric is a numeric ({@code NULLIF(29, 1.5)}), an exact number beside a double a double; otherwise {@code a}'s type.
 * Calcite types it as {@code a} always, and then drops a cast of it to {@code a}'s type as one that changes nothing:
 * {@code CAST(NULLIF(29, 1.5) AS integer) / 23} became a numeric division.
 */
final class PgNullif {

    /** Calcite's NULLIF but for the type of its value. */
    static final SqlNullifFunction NULLIF = new SqlNullifFunction() {
        @Override
        public RelDataType inferReturnType(SqlOperatorBinding binding) {
            RelDataType a = binding.getOperandType(0);
            RelDataType b = binding.getOperandType(1);
            org.apache.calcite.rel.type.RelDataTypeFactory types = binding.getTypeFactory();
            RelDataType type = a;
            if (SqlTypeUtil.isExactNumeric(a) && SqlTypeUtil.isApproximateNumeric(b)) {
                type = types.createSqlType(org.apache.calcite.sql.type.SqlTypeName.DOUBLE);
            } else if (SqlTypeUtil.isIntType(a) && SqlTypeUtil.isDecimal(b)) {
                // the value is a's, an integer: a numeric of no places (b's scale would make 43 beside it print 43.00)
                type = types.createSqlType(org.apache.calcite.sql.type.SqlTypeName.DECIMAL, 19, 0);
            }
            return types.createTypeWithNullability(type, true);
        }
    };

    private PgNullif() {
    }

    /** Rewrites, in place, every NULLIF call in {@code root} as a call of {@link #NULLIF}. */
    static void rewrite(SqlNode root) {
        root.accept(new SqlBasicVisitor<Void>() {
            @Override
            public Void visit(SqlCall call) {
                if (call.getKind() == SqlKind.NULLIF && call instanceof SqlBasicCall basic) {
                    basic.setOperator(NULLIF);
                }
                return super.visit(call);
            }
        });
    }
}
