package dev.tandem.sql;

import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql2rel.SqlRexConvertlet;
import org.apache.calcite.sql2rel.SqlRexConvertletTable;

/**
 * Calcite's conversions of calls into row expressions, with PostgreSQL's rules: datetime arithmetic
 * ({@link PgDatetimeArithmetic}) and uuid comparisons ({@link PgUuidComparisons}) first; {@code x op ANY/ALL (v)}
 * wants an array ({@code 42809}); {@link #MULTIPLY} for Calcite's {@code *}; and a cast to boolean from a number other than an {@code integer} is refused
 * as PostgreSQL refuses it ({@code 42846} "cannot cast type bigint to boolean"; PostgreSQL casts only
 * int4 to boolean): Calcite would make it {@code x <> 0}. A bigint column is refused; an integer column
 * and an integer literal that fits int4 are cast.
 */
final class PgConvertlets implements SqlRexConvertletTable {

    static final PgConvertlets INSTANCE = new PgConvertlets();

    /**
     * Calcite's {@code *}, but never reading a constant operand that is not a literal as one: Calcite's
     * own asks a constant expression such as {@code 2 / CASE WHEN false THEN 1 END} (NULL once
     * simplified) for its literal value when it works out the monotonicity of a projection over sorted
     * rows, and fails. Such a product is not monotonic as far as planning is concerned.
     */
    static final org.apache.calcite.sql.SqlBinaryOperator MULTIPLY = new org.apache.calcite.sql.fun.SqlMonotonicBinaryOperator("*",
            org.apache.calcite.sql.SqlKind.TIMES, 60, true, org.apache.calcite.sql.type.ReturnTypes.PRODUCT_NULLABLE,
            org.apache.calcite.sql.type.InferTypes.FIRST_KNOWN, org.apache.calcite.sql.type.OperandTypes.MULTIPLY_OPERATOR) {
        @Override
        public org.apache.calcite.sql.validate.SqlMonotonicity getMonotonicity(org.apache.calcite.sql.SqlOperatorBinding call) {
            org.apache.calcite.sql.validate.SqlMonotonicity constant = org.apache.calcite.sql.validate.SqlMonotonicity.CONSTANT;
            boolean c0 = call.getOperandMonotonicity(0) == constant;
            boolean c1 = call.getOperandMonotonicity(1) == constant;
            if (c0 && c1) {
                return constant;
            }
            if (c0 && !call.isOperandLiteral(0, true) || c1 && !call.isOperandLiteral(1, true)) {
                return org.apache.calcite.sql.validate.SqlMonotonicity.NOT_MONOTONIC;
            }
            return super.getMonotonicity(call);
        }
    };

    private PgConvertlets() {
    }

    @Override
    public SqlRexConvertlet get(SqlCall call) {
        SqlRexConvertlet datetime = PgDatetimeArithmetic.convertlet(call);
        if (datetime != null) {
            return datetime;
        }
        SqlRexConvertlet uuid = PgUuidComparisons.convertlet(call);
        if (uuid != null) {
            return uuid;
        }
        SqlRexConvertlet standard = org.apache.calcite.sql2rel.StandardConvertletTable.INSTANCE.get(call);
        if ((call.getKind() == org.apache.calcite.sql.SqlKind.SOME || call.getKind() == org.apache.calcite.sql.SqlKind.ALL) && standard != null
                && !call.operand(1).isA(org.apache.calcite.sql.SqlKind.QUERY)) {
            // x op ANY/ALL (v) of a v that is no array (Calcite reads it as x op v): PostgreSQL wants an array there
            return (cx, quantified) -> {
                SqlNode right = quantified.operand(1) instanceof org.apache.calcite.sql.SqlNodeList l && l.size() == 1 ? l.get(0) : quantified.operand(1);
                if (right instanceof org.apache.calcite.sql.SqlNodeList || cx.getValidator().getValidatedNodeType(right).getSqlTypeName() != SqlTypeName.ARRAY) {
                    SqlException e = new SqlException(SqlState.WRONG_OBJECT_TYPE, "op ANY/ALL (array) requires array on right side");
                    org.apache.calcite.sql.parser.SqlParserPos pos = quantified.getParserPosition();
                    throw pos == null || pos.getLineNum() == 0 ? e : e.at(pos.getLineNum(), pos.getColumnNum());
                }
                return standard.convertCall(cx, quantified);
            };
        }
        if (call.getKind() == org.apache.calcite.sql.SqlKind.TIMES && standard != null) {
            return (cx, times) -> {
                org.apache.calcite.rex.RexNode product = standard.convertCall(cx, times);
                return product instanceof org.apache.calcite.rex.RexCall r && r.getOperator() == org.apache.calcite.sql.fun.SqlStdOperatorTable.MULTIPLY
                        ? cx.getRexBuilder().makeCall(r.getParserPosition(), r.getType(), MULTIPLY, r.getOperands()) : product;
            };
        }
        if (call.getKind() != org.apache.calcite.sql.SqlKind.CAST || standard == null) {
            return standard;
        }
        return (cx, cast) -> {
            // (a cast the validator's coercion added, ARRAY[3::bigint, 4]'s of 4, has no validated type: it is no cast to boolean)
            org.apache.calcite.rel.type.RelDataType to = cx.getValidator().getValidatedNodeTypeIfKnown(cast);
            org.apache.calcite.rel.type.RelDataType from = cx.getValidator().getValidatedNodeTypeIfKnown(cast.operand(0));
            String name = to != null && from != null && to.getSqlTypeName() == SqlTypeName.BOOLEAN ? switch (from.getSqlTypeName()) {
                case BIGINT -> "bigint";
                case SMALLINT, TINYINT -> "smallint";
                case DECIMAL -> "numeric";
                case DOUBLE, FLOAT -> "double precision";
                case REAL -> "real";
                default -> null;
            } : null;
            if (name != null) {
                SqlException e = new SqlException(SqlState.CANNOT_COERCE, "cannot cast type " + name + " to boolean");
                throw cast.getParserPosition() == null || cast.getParserPosition().getLineNum() == 0 ? e
                        : e.at(cast.getParserPosition().getLineNum(), cast.getParserPosition().getColumnNum());
            }
            return standard.convertCall(cx, cast);
        };
    }
}
