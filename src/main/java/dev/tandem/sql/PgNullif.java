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
            boolean widens = SqlTypeUtil.isExactNumeric(a) && SqlTypeUtil.isApproximateNumeric(b)
                    || SqlTypeUtil.isIntType(a) && SqlTypeUtil.isDecimal(b);
            RelDataType type = widens ? binding.getTypeFactory().leastRestrictive(java.util.List.of(a, b)) : a;
            return binding.getTypeFactory().createTypeWithNullability(type == null ? a : type, true);
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
