package dev.tandem.sql;

import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlBinaryOperator;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOperatorBinding;
import org.apache.calcite.sql.fun.SqlMonotonicBinaryOperator;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.type.InferTypes;
import org.apache.calcite.sql.type.SqlOperandTypeChecker;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.util.SqlBasicVisitor;
import org.apache.calcite.sql2rel.SqlRexConvertlet;
import org.apache.calcite.sql2rel.StandardConvertletTable;

/**
 * PostgreSQL's {@code +} and {@code -} on dates and times, which Calcite's operators refuse or type otherwise:
 * {@code date + integer}, {@code integer + date}, {@code date - integer} (a date), {@code date - date} (an integer of
 * days), {@code date ± interval} (a timestamp), {@code timestamp - timestamp} and {@code time - time} (an interval) and
 * {@code date + time} (a timestamp). Every
 * {@code +} and {@code -} of a query is made one of these operators before validation ({@link #rewrite}), and the
 * validator, which looks operators up again by name, finds them ahead of Calcite's own;
 * they type as Calcite's own except on dates, and each converts back to Calcite's own unless it is on dates
 * ({@link #convertlet}), so arithmetic on numbers is planned exactly as before. {@link PgCoercion} types
 * the date arithmetic.
 */
final class PgDatetimeArithmetic {

    static final SqlBinaryOperator PLUS = operator(SqlStdOperatorTable.PLUS);
    static final SqlBinaryOperator MINUS = operator(SqlStdOperatorTable.MINUS);

    private PgDatetimeArithmetic() {
    }

    /** Makes, in place, each {@code +} and {@code -} of {@code node} PostgreSQL's. */
    static void rewrite(SqlNode node) {
        node.accept(new SqlBasicVisitor<Void>() {
            @Override
            public Void visit(SqlCall call) {
                if (call instanceof SqlBasicCall b && b.getOperator() == SqlStdOperatorTable.PLUS) {
                    b.setOperator(PLUS);
                } else if (call instanceof SqlBasicCall b && b.getOperator() == SqlStdOperatorTable.MINUS) {
                    b.setOperator(MINUS);
                }
                return super.visit(call);
            }
        });
    }

    /** The conversion of a call of {@link #PLUS} or {@link #MINUS}, else null. */
    static SqlRexConvertlet convertlet(SqlCall call) {
        if (call.getOperator() != PLUS && call.getOperator() != MINUS) {
            return null;
        }
        SqlBinaryOperator standard = call.getOperator() == PLUS ? SqlStdOperatorTable.PLUS : SqlStdOperatorTable.MINUS;
        return (cx, c) -> {
            RexNode converted = StandardConvertletTable.INSTANCE.convertCall(cx, c);
            if (converted instanceof RexCall r && dateType(cx.getTypeFactory(), r.getOperands().get(0).getType(), r.getOperands().get(1).getType(),
                    c.getOperator() == PLUS) == null) {
                return cx.getRexBuilder().makeCall(r.getParserPosition(), r.getType(), standard, r.getOperands());
            }
            return converted;
        };
    }

    /**
     * The type of PostgreSQL's arithmetic of operands {@code a} and {@code b} where Calcite's differs or refuses
     * (on dates; a date and an interval make a timestamp; {@code timestamp - timestamp} an interval), else null.
     */
    private static RelDataType dateType(RelDataTypeFactory f, RelDataType a, RelDataType b, boolean plus) {
        SqlTypeName x = a.getSqlTypeName();
        SqlTypeName y = b.getSqlTypeName();
        boolean nullable = a.isNullable() || b.isNullable();
        if (x == SqlTypeName.DATE && SqlTypeName.INT_TYPES.contains(y) || plus && SqlTypeName.INT_TYPES.contains(x) && y == SqlTypeName.DATE) {
            return f.createTypeWithNullability(f.createSqlType(SqlTypeName.DATE), nullable);
        }
        if (!plus && x == SqlTypeName.DATE && (y == SqlTypeName.DATE || y == SqlTypeName.CHAR || y == SqlTypeName.VARCHAR)) {
            return f.createTypeWithNullability(f.createSqlType(SqlTypeName.INTEGER), nullable);
        }
        if (x == SqlTypeName.DATE && SqlTypeName.INTERVAL_TYPES.contains(y) || plus && SqlTypeName.INTERVAL_TYPES.contains(x) && y == SqlTypeName.DATE) {
            return f.createTypeWithNullability(f.createSqlType(SqlTypeName.TIMESTAMP, 6), nullable);
        }
        if (x == SqlTypeName.TIME && SqlTypeName.INTERVAL_TYPES.contains(y) || plus && SqlTypeName.INTERVAL_TYPES.contains(x) && y == SqlTypeName.TIME) {
            return f.createTypeWithNullability(f.createSqlType(SqlTypeName.TIME), nullable);
        }
        if (x == SqlTypeName.TIME && y == SqlTypeName.TIME) {
            // time + time: PostgreSQL's operator is ambiguous (42725), which PgCoercion answers
            return plus ? f.createTypeWithNullability(f.createSqlType(SqlTypeName.TIME), nullable)
                    : f.createTypeWithNullability(SqlTypes.interval(f), nullable);
        }
        if (!plus && x == SqlTypeName.TIME && y == SqlTypeName.TIME) {
            return f.createTypeWithNullability(SqlTypes.interval(f), nullable);
        }
        if (plus && (x == SqlTypeName.DATE && y == SqlTypeName.TIME || x == SqlTypeName.TIME && y == SqlTypeName.DATE)) {
            return f.createTypeWithNullability(f.createSqlType(SqlTypeName.TIMESTAMP, 6), nullable);
        }
        if (!plus && x == y && (x == SqlTypeName.TIMESTAMP || x == SqlTypes.TIMESTAMPTZ)) {
            return f.createTypeWithNullability(SqlTypes.interval(f), nullable);
        }
        return null;
    }

    private static SqlBinaryOperator operator(SqlBinaryOperator standard) {
        boolean plus = standard == SqlStdOperatorTable.PLUS;
        SqlOperandTypeChecker checker = WidenedOperands.of(standard,
                binding -> dateType(binding.getTypeFactory(), binding.getOperandType(0), binding.getOperandType(1), plus) != null);
        return new SqlMonotonicBinaryOperator(standard.getName(), standard.getKind(), standard.getLeftPrec(), true,
                binding -> returnType(standard, binding, plus), InferTypes.FIRST_KNOWN, checker) {
        };
    }

    private static RelDataType returnType(SqlBinaryOperator standard, SqlOperatorBinding binding, boolean plus) {
        RelDataType a = binding.getOperandType(0);
        RelDataType b = binding.getOperandType(1);
        RelDataType t = dateType(binding.getTypeFactory(), a, b, plus);
        return t == null ? standard.inferReturnType(binding) : t;
    }
}
