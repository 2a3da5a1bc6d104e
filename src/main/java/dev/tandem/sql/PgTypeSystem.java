package dev.tandem.sql;

import org.apache.calcite.rel.type.RelDataTypeSystemImpl;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * PostgreSQL's types where Calcite's defaults differ: unions of strings of different lengths are
 * VARCHAR (no blank padding); timestamps keep microseconds ({@code timestamp} is
 * {@code timestamp(6)}); a constant double cast to an integer rounds half to even, as PostgreSQL's
 * {@code rint} (Calcite truncates; a decimal literal's cast, which rounds half away from zero, is made an
 * integer literal before validation).
 */
final class PgTypeSystem extends RelDataTypeSystemImpl {

    static final PgTypeSystem INSTANCE = new PgTypeSystem();

    private PgTypeSystem() {
    }

    @Override
    public boolean shouldConvertRaggedUnionTypesToVarying() {
        return true;
    }

    @Override
    public int getDefaultPrecision(SqlTypeName typeName) {
        return typeName == SqlTypeName.TIMESTAMP || typeName == SqlTypes.TIMESTAMPTZ ? 6 : super.getDefaultPrecision(typeName);
    }

    @Override
    public int getMaxPrecision(SqlTypeName typeName) {
        return typeName == SqlTypeName.TIMESTAMP || typeName == SqlTypes.TIMESTAMPTZ ? 6 : typeName == SqlTypeName.DECIMAL ? SqlTypes.NUMERIC_PRECISION : super.getMaxPrecision(typeName);
    }

    @Override
    public int getMaxScale(SqlTypeName typeName) {
        return typeName == SqlTypeName.DECIMAL ? SqlTypes.NUMERIC_PRECISION : super.getMaxScale(typeName);
    }

    @Override
    public java.math.RoundingMode roundingMode() {
        return java.math.RoundingMode.HALF_EVEN;
    }

    /**
     * {@code avg} of integers is a fraction, a numeric ({@link RelAggregates}); Calcite's own
     * type (the argument's) would have it drop a cast back to an integer as a no-op.
     */
    @Override
    public org.apache.calcite.rel.type.RelDataType deriveAvgAggType(org.apache.calcite.rel.type.RelDataTypeFactory factory,
            org.apache.calcite.rel.type.RelDataType argumentType) {
        if (SqlTypeName.INT_TYPES.contains(argumentType.getSqlTypeName())) {
            return factory.createTypeWithNullability(factory.createSqlType(SqlTypeName.DECIMAL, SqlTypes.NUMERIC_PRECISION,
                    SqlTypes.NUMERIC_SCALE), argumentType.isNullable());
        }
        return super.deriveAvgAggType(factory, argumentType);
    }

    /** {@code sum} of an {@code integer} or {@code smallint} is a {@code bigint}, as in PostgreSQL (Calcite's: the argument's type). */
    @Override
    public org.apache.calcite.rel.type.RelDataType deriveSumType(org.apache.calcite.rel.type.RelDataTypeFactory factory,
            org.apache.calcite.rel.type.RelDataType argumentType) {
        SqlTypeName n = argumentType.getSqlTypeName();
        if (n == SqlTypeName.INTEGER || n == SqlTypeName.SMALLINT || n == SqlTypeName.TINYINT) {
            return factory.createTypeWithNullability(factory.createSqlType(SqlTypeName.BIGINT), argumentType.isNullable());
        }
        return super.deriveSumType(factory, argumentType);
    }
}
