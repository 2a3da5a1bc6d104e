package dev.tandem.sql;

import java.util.Map;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlBinaryOperator;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlCharStringLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.type.SqlOperandTypeChecker;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.util.SqlBasicVisitor;
import org.apache.calcite.sql.validate.SqlValidator;
import org.apache.calcite.sql.validate.SqlValidatorScope;
import org.apache.calcite.sql2rel.SqlRexConvertlet;
import org.apache.calcite.sql2rel.StandardConvertletTable;

/**
 * A {@code uuid}, {@code interval} or {@code jsonb} compared with a quoted literal ({@code u = 'a0eebc99-...'},
 * {@code iv < '1 day'}), and {@code ||} of a jsonb, which Calcite's operators refuse: a
 * comparison with a quoted operand is made one of these operators before validation ({@link #rewrite}); each types as
 * Calcite's own and also takes a uuid with a string, and converts back to Calcite's own ({@link #convertlet}), so that
 * {@link PgCoercion} reads the literal as a uuid, as it reads one compared with any other type.
 */
final class PgUuidComparisons {

    private static final Map<SqlBinaryOperator, SqlBinaryOperator> OPERATORS = Map.of(
            SqlStdOperatorTable.EQUALS, operator(SqlStdOperatorTable.EQUALS),
            SqlStdOperatorTable.NOT_EQUALS, operator(SqlStdOperatorTable.NOT_EQUALS),
            SqlStdOperatorTable.LESS_THAN, operator(SqlStdOperatorTable.LESS_THAN),
            SqlStdOperatorTable.LESS_THAN_OR_EQUAL, operator(SqlStdOperatorTable.LESS_THAN_OR_EQUAL),
            SqlStdOperatorTable.GREATER_THAN, operator(SqlStdOperatorTable.GREATER_THAN),
            SqlStdOperatorTable.GREATER_THAN_OR_EQUAL, operator(SqlStdOperatorTable.GREATER_THAN_OR_EQUAL),
            SqlStdOperatorTable.CONCAT, concat());

    private PgUuidComparisons() {
    }

    /** Makes, in place, each comparison of {@code node} with a quoted operand one of these operators. */
    static void rewrite(SqlNode node) {
        node.accept(new SqlBasicVisitor<Void>() {
            @Override
            public Void visit(SqlCall call) {
                if (call instanceof SqlBasicCall b && b.getOperator() instanceof SqlBinaryOperator op && OPERATORS.containsKey(op)
                        && (op == SqlStdOperatorTable.CONCAT || b.operand(0) instanceof SqlCharStringLiteral
                                || b.operand(1) instanceof SqlCharStringLiteral)) {
                    b.setOperator(OPERATORS.get(op));
                }
                return super.visit(call);
            }
        });
    }

    /** The conversion of a call of one of these operators, else null. */
    static SqlRexConvertlet convertlet(SqlCall call) {
        SqlOperator standard = OPERATORS.entrySet().stream().filter(e -> e.getValue() == call.getOperator()).map(Map.Entry::getKey)
                .findFirst().orElse(null);
        if (standard == null) {
            return null;
        }
        return (cx, c) -> {
            RexNode converted = StandardConvertletTable.INSTANCE.convertCall(cx, c);
            return converted instanceof RexCall r ? cx.getRexBuilder().makeCall(r.getParserPosition(), r.getType(), standard, r.getOperands())
                    : converted;
        };
    }

    private static boolean uuidWithString(RelDataType a, RelDataType b) {
        SqlTypeName x = a.getSqlTypeName();
        SqlTypeName y = b.getSqlTypeName();
        boolean xs = x == SqlTypeName.UUID || x == SqlTypes.JSONB || x == SqlTypeName.VARBINARY || SqlTypeName.INTERVAL_TYPES.contains(x);
        boolean ys = y == SqlTypeName.UUID || y == SqlTypes.JSONB || y == SqlTypeName.VARBINARY || SqlTypeName.INTERVAL_TYPES.contains(y);
        return xs && (y == SqlTypeName.CHAR || y == SqlTypeName.VARCHAR) || ys && (x == SqlTypeName.CHAR || x == SqlTypeName.VARCHAR);
    }

    /**
     * {@code ||}, which also takes a jsonb on either side (PostgreSQL's {@code jsonb || jsonb}) and then answers a jsonb,
     * and a string beside a value of another type (PostgreSQL's {@code text || anynonarray}), which is then written
     * as text, as its cast to text writes it, and an array on either side (PostgreSQL's array concatenation).
     */
    private static SqlBinaryOperator concat() {
        SqlBinaryOperator standard = SqlStdOperatorTable.CONCAT;
        SqlOperandTypeChecker checker = WidenedOperands.of(standard, binding -> binding.getOperandType(0).getSqlTypeName() == SqlTypes.JSONB
                || binding.getOperandType(1).getSqlTypeName() == SqlTypes.JSONB || stringBesideOther(binding.getOperandType(0), binding.getOperandType(1))
                || binding.getOperandType(0).getSqlTypeName() == SqlTypeName.ARRAY || binding.getOperandType(1).getSqlTypeName() == SqlTypeName.ARRAY);
        org.apache.calcite.sql.type.SqlReturnTypeInference type = binding -> {
            RelDataType a = binding.getOperandType(0);
            RelDataType b = binding.getOperandType(1);
            if (a.getSqlTypeName() == SqlTypeName.ARRAY || b.getSqlTypeName() == SqlTypeName.ARRAY) {
                // an array's || (array_cat, array_append, array_prepend) answers the array's type; operands are checked when translated
                return binding.getTypeFactory().createTypeWithNullability(a.getSqlTypeName() == SqlTypeName.ARRAY ? a : b, true);
            }
            if (a.getSqlTypeName() != SqlTypes.JSONB && b.getSqlTypeName() != SqlTypes.JSONB && stringBesideOther(a, b)) {
                return binding.getTypeFactory().createTypeWithNullability(binding.getTypeFactory().createSqlType(SqlTypeName.VARCHAR),
                        a.isNullable() || b.isNullable());
            }
            if (a.getSqlTypeName() != SqlTypes.JSONB && b.getSqlTypeName() != SqlTypes.JSONB) {
                return standard.getReturnTypeInference().inferReturnType(binding);
            }
            return binding.getTypeFactory().createTypeWithNullability(binding.getTypeFactory().createSqlType(SqlTypes.JSONB),
                    a.isNullable() || b.isNullable());
        };
        return new SqlBinaryOperator(standard.getName(), standard.getKind(), standard.getLeftPrec(), true, type,
                standard.getOperandTypeInference(), checker) {
            @Override
            public RelDataType deriveType(SqlValidator validator, SqlValidatorScope scope, SqlCall call) {
                for (SqlNode operand : call.getOperandList()) {
                    validator.deriveType(scope, operand);
                }
                return validateOperands(validator, scope, call);
            }
        };
    }

    /** Whether one side is a string and the other of a type that is neither a string, a jsonb nor unknown (a NULL). */
    private static boolean stringBesideOther(RelDataType a, RelDataType b) {
        return isString(a) != isString(b) && !isOpaque(a) && !isOpaque(b);
    }

    private static boolean isString(RelDataType t) {
        return t.getSqlTypeName() == SqlTypeName.CHAR || t.getSqlTypeName() == SqlTypeName.VARCHAR;
    }

    private static boolean isOpaque(RelDataType t) {
        return t.getSqlTypeName() == SqlTypes.JSONB || t.getSqlTypeName() == SqlTypeName.NULL || t.getSqlTypeName() == SqlTypeName.ANY
                || t.getSqlTypeName() == SqlTypeName.ARRAY || t.getSqlTypeName() == SqlTypeName.BINARY || t.getSqlTypeName() == SqlTypeName.VARBINARY;
    }

    private static SqlBinaryOperator operator(SqlBinaryOperator standard) {
        SqlOperandTypeChecker checker = WidenedOperands.of(standard, binding -> uuidWithString(binding.getOperandType(0), binding.getOperandType(1)));
        return new SqlBinaryOperator(standard.getName(), standard.getKind(), standard.getLeftPrec(), true,
                standard.getReturnTypeInference(), standard.getOperandTypeInference(), checker) {
            /** Validated as it is: Calcite's would look the operator up again by name, finding its own. */
            @Override
            public RelDataType deriveType(SqlValidator validator, SqlValidatorScope scope, SqlCall call) {
                for (SqlNode operand : call.getOperandList()) {
                    validator.deriveType(scope, operand);
                }
                return validateOperands(validator, scope, call);
            }
        };
    }
}
