package dev.tandem.sql;

import dev.tandem.expr.Expr;
import java.util.List;
import java.util.Locale;
import org.apache.calcite.sql.SqlFunction;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlOperatorTable;
import org.apache.calcite.sql.fun.SqlLibraryOperators;
import org.apache.calcite.sql.type.OperandTypes;
import org.apache.calcite.sql.type.ReturnTypes;
import org.apache.calcite.sql.type.SqlOperandCountRanges;
import org.apache.calcite.sql.type.SqlOperandTypeChecker;
import org.apache.calcite.sql.type.SqlReturnTypeInference;
import org.apache.calcite.sql.type.SqlTypeFamily;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.util.SqlOperatorTables;

/**
 * PostgreSQL's scalar functions beyond Calcite's standard ones: their signatures as the validator sees
 * them ({@link #TABLE}, typed as PostgreSQL types them: the numeric functions of a bigint answer a double
 * precision); {@link PgFunctionCalls} translates their calls to {@link Expr} calls.
 */
final class PgFunctions {

    private static final SqlTypeFamily S = SqlTypeFamily.STRING;
    private static final SqlTypeFamily I = SqlTypeFamily.INTEGER;
    private static final SqlTypeFamily N = SqlTypeFamily.NUMERIC;

    /** The functions, ahead of Calcite's standard operators of the same names; names match in any case, as PostgreSQL's do. */
    /** PostgreSQL's cast to {@code interval} ({@code 'x'::interval}, {@code interval 'x'}), as {@link PgCasts} writes it. */
    static final SqlFunction INTERVAL = new SqlFunction("PG_INTERVAL", SqlKind.OTHER_FUNCTION, org.apache.calcite.sql.type.ReturnTypes.cascade(
            binding -> SqlTypes.interval(binding.getTypeFactory()), org.apache.calcite.sql.type.SqlTypeTransforms.TO_NULLABLE),
            (binding, returnType, types) -> java.util.Arrays.fill(types, binding.getTypeFactory().createSqlType(SqlTypeName.VARCHAR)),
            OperandTypes.ANY, SqlFunctionCategory.USER_DEFINED_FUNCTION);

    /** PostgreSQL's cast to {@code time} ({@code 'x'::time}, {@code time 'x'}, {@code CAST(x AS time)}), as {@link PgCasts} writes it. */
    static final SqlFunction TIME = new SqlFunction("PG_TIME", SqlKind.OTHER_FUNCTION, org.apache.calcite.sql.type.ReturnTypes.cascade(
            binding -> binding.getTypeFactory().createSqlType(SqlTypeName.TIME), org.apache.calcite.sql.type.SqlTypeTransforms.TO_NULLABLE),
            (binding, returnType, types) -> java.util.Arrays.fill(types, binding.getTypeFactory().createSqlType(SqlTypeName.VARCHAR)),
            OperandTypes.ANY, SqlFunctionCategory.USER_DEFINED_FUNCTION);

    /**
     * PostgreSQL's cast of an expression to {@code numeric(p, s)}, as {@link CalcitePlanner} writes it: its operand
     * cast to {@code numeric}, then the precision and scale; rounded to the scale, {@code 22003} when the integer
     * digits do not fit.
     */
    static final SqlFunction NUMERIC_FIT = new SqlFunction("PG_NUMERIC_FIT", SqlKind.OTHER_FUNCTION, ReturnTypes.ARG0_NULLABLE, null,
            OperandTypes.family(SqlTypeFamily.NUMERIC, SqlTypeFamily.INTEGER, SqlTypeFamily.INTEGER), SqlFunctionCategory.USER_DEFINED_FUNCTION);

    /**
     * A {@code timestamptz} constant written without an offset ({@code '2024-01-02 03:04'::timestamptz}, {@code DATE '2024-01-02'::timestamptz}),
     * as {@link PgLiteralCasts} writes it: its local time (a timestamp or date literal), read in the session's time zone when the statement runs.
     */
    static final SqlFunction LOCAL_TIMESTAMPTZ = new SqlFunction("PG_LOCAL_TIMESTAMPTZ", SqlKind.OTHER_FUNCTION,
            binding -> binding.getTypeFactory().createSqlType(SqlTypes.TIMESTAMPTZ, 6), null,
            OperandTypes.family(SqlTypeFamily.DATETIME), SqlFunctionCategory.USER_DEFINED_FUNCTION);

    /**
     * PostgreSQL's cast of an expression to {@code character(n)}, as {@link PgLiteralCasts} writes it: its operand cast to
     * text, then the length; typed Calcite's {@code CHAR(n)}, which {@link BpcharSemantics} follows.
     */
    static final SqlFunction BPCHAR = new SqlFunction("PG_BPCHAR", SqlKind.OTHER_FUNCTION, binding -> binding.getTypeFactory().createTypeWithNullability(
            binding.getTypeFactory().createSqlType(SqlTypeName.CHAR, binding.getOperandLiteralValue(1, Integer.class)), binding.getOperandType(0).isNullable()),
            null, OperandTypes.family(SqlTypeFamily.CHARACTER, SqlTypeFamily.INTEGER), SqlFunctionCategory.USER_DEFINED_FUNCTION);

    /** PostgreSQL's cast to {@code jsonb} ({@code 'x'::jsonb}, {@code CAST(x AS jsonb)}), as {@link PgJsonbOperators} writes it. */
    static final SqlFunction JSONB = jsonb("PG_JSONB", binding -> jsonbType(binding, true), OperandTypes.ANY);

    static final SqlOperatorTable TABLE = caseInsensitive(SqlOperatorTables.chain(SqlOperatorTables.of(ArrayFunctions.FUNCTIONS), SqlOperatorTables.of(
            JSONB,
            PgRemainder.PERCENT,
            PgRemainder.MOD,
            jsonb(PgJsonbOperators.FIELD, binding -> jsonbType(binding, true), OperandTypes.ANY_ANY),
            jsonb(PgJsonbOperators.FIELD_TEXT, ReturnTypes.VARCHAR_NULLABLE, OperandTypes.ANY_ANY),
            jsonb(PgJsonbOperators.PATH, binding -> jsonbType(binding, true), OperandTypes.ANY_ANY),
            jsonb(PgJsonbOperators.PATH_TEXT, ReturnTypes.VARCHAR_NULLABLE, OperandTypes.ANY_ANY),
            jsonb(PgJsonbOperators.CONTAINS, ReturnTypes.BOOLEAN_NULLABLE, OperandTypes.ANY_ANY),
            jsonb(PgJsonbOperators.CONTAINED, ReturnTypes.BOOLEAN_NULLABLE, OperandTypes.ANY_ANY),
            jsonb(PgJsonbOperators.EXISTS, ReturnTypes.BOOLEAN_NULLABLE, OperandTypes.ANY_ANY),
            jsonb("JSONB_TYPEOF", ReturnTypes.VARCHAR_NULLABLE, OperandTypes.ANY),
            jsonb("JSONB_ARRAY_LENGTH", ReturnTypes.INTEGER_NULLABLE, OperandTypes.ANY),
            jsonb("TO_JSONB", binding -> jsonbType(binding, binding.getOperandType(0).isNullable()), OperandTypes.ANY),
            jsonb("JSONB_BUILD_ARRAY", binding -> jsonbType(binding, false), OperandTypes.VARIADIC),
            jsonb("JSONB_BUILD_OBJECT", binding -> jsonbType(binding, false), OperandTypes.VARIADIC),
            text("CONCAT", OperandTypes.VARIADIC),
            text("CONCAT_WS", OperandTypes.variadic(SqlOperandCountRanges.from(1))),
            function("STRPOS", ReturnTypes.INTEGER_NULLABLE, OperandTypes.family(S, S)),
            text("REPLACE", OperandTypes.family(S, S, S)),
            text("SPLIT_PART", OperandTypes.family(S, S, I)),
            text("BTRIM", OperandTypes.family(List.of(S, S), i -> i == 1)),
            text("LTRIM", OperandTypes.family(List.of(S, S), i -> i == 1)),
            text("RTRIM", OperandTypes.family(List.of(S, S), i -> i == 1)),
            text("LPAD", OperandTypes.family(List.of(S, I, S), i -> i == 2)),
            text("RPAD", OperandTypes.family(List.of(S, I, S), i -> i == 2)),
            text("LEFT", OperandTypes.family(S, I)),
            text("RIGHT", OperandTypes.family(S, I)),
            text("REPEAT", OperandTypes.family(S, I)),
            text("REVERSE", OperandTypes.family(S)),
            text("INITCAP", OperandTypes.family(S)),
            text("MD5", OperandTypes.family(S)),
            function("LENGTH", ReturnTypes.INTEGER_NULLABLE, OperandTypes.family(S)),
            function("OCTET_LENGTH", ReturnTypes.INTEGER_NULLABLE, OperandTypes.family(S)),
            function("STARTS_WITH", ReturnTypes.BOOLEAN_NULLABLE, OperandTypes.family(S, S)),
            text("REGEXP_REPLACE", OperandTypes.family(List.of(S, S, S, S), i -> i == 3)),
            SqlLibraryOperators.TRANSLATE3,
            number("ROUND", OperandTypes.family(List.of(N, I), i -> i == 1)),
            number("TRUNC", OperandTypes.family(List.of(N, I), i -> i == 1)),
            number("FLOOR", OperandTypes.family(N)),
            number("CEIL", OperandTypes.family(N)),
            number("CEILING", OperandTypes.family(N)),
            number("SIGN", OperandTypes.family(N)),
            number("SQRT", OperandTypes.family(N)),
            number("EXP", OperandTypes.family(N)),
            number("LN", OperandTypes.family(N)),
            number("LOG", OperandTypes.family(List.of(N, N), i -> i == 1)),
            number("LOG10", OperandTypes.family(N)),
            number("POWER", OperandTypes.family(N, N)),
            number("PI", OperandTypes.NILADIC),
            function("GREATEST", ReturnTypes.LEAST_RESTRICTIVE, OperandTypes.ONE_OR_MORE),
            function("LEAST", ReturnTypes.LEAST_RESTRICTIVE, OperandTypes.ONE_OR_MORE),
            new SqlFunction("PG_EXTRACT", SqlKind.OTHER_FUNCTION, org.apache.calcite.sql.type.ReturnTypes.cascade(
                    binding -> binding.getTypeFactory().createSqlType(SqlTypeName.DECIMAL, SqlTypes.NUMERIC_PRECISION, SqlTypes.NUMERIC_SCALE),
                    org.apache.calcite.sql.type.SqlTypeTransforms.TO_NULLABLE), null,
                    OperandTypes.family(SqlTypeFamily.CHARACTER, SqlTypeFamily.ANY), SqlFunctionCategory.USER_DEFINED_FUNCTION),
            new SqlFunction("DATE_PART", SqlKind.OTHER_FUNCTION, ReturnTypes.DOUBLE_NULLABLE, null,
                    OperandTypes.family(SqlTypeFamily.CHARACTER, SqlTypeFamily.ANY), SqlFunctionCategory.USER_DEFINED_FUNCTION),
            new SqlFunction("PG_DATE_TRUNC", SqlKind.OTHER_FUNCTION, binding -> {
                org.apache.calcite.rel.type.RelDataType x = binding.getOperandType(1);
                org.apache.calcite.rel.type.RelDataType t = x.getSqlTypeName() == SqlTypeName.DATE
                        ? binding.getTypeFactory().createSqlType(SqlTypes.TIMESTAMPTZ, 6) : x;
                return binding.getTypeFactory().createTypeWithNullability(t, x.isNullable() || binding.getOperandType(0).isNullable());
            }, null, OperandTypes.family(SqlTypeFamily.CHARACTER, SqlTypeFamily.DATETIME), SqlFunctionCategory.USER_DEFINED_FUNCTION),
            new SqlFunction("TIMEZONE", SqlKind.OTHER_FUNCTION, binding -> {
                // AT TIME ZONE: of a timestamp, a timestamptz; of a timestamptz (a date or a quoted literal read as one), a timestamp
                org.apache.calcite.rel.type.RelDataType x = binding.getOperandType(1);
                SqlTypeName t = x.getSqlTypeName() == SqlTypeName.TIMESTAMP ? SqlTypes.TIMESTAMPTZ : SqlTypeName.TIMESTAMP;
                return binding.getTypeFactory().createTypeWithNullability(binding.getTypeFactory().createSqlType(t, 6),
                        x.isNullable() || binding.getOperandType(0).isNullable());
            }, null, OperandTypes.family(SqlTypeFamily.CHARACTER, SqlTypeFamily.ANY), SqlFunctionCategory.USER_DEFINED_FUNCTION),
            function("MAKE_DATE", ReturnTypes.cascade(binding -> binding.getTypeFactory().createSqlType(SqlTypeName.DATE),
                    org.apache.calcite.sql.type.SqlTypeTransforms.TO_NULLABLE), OperandTypes.family(I, I, I)),
            function("TO_TIMESTAMP", ReturnTypes.cascade(binding -> binding.getTypeFactory().createSqlType(SqlTypes.TIMESTAMPTZ, 6),
                    org.apache.calcite.sql.type.SqlTypeTransforms.TO_NULLABLE), OperandTypes.family(List.of(SqlTypeFamily.ANY, S), i -> i == 1)),
            function("TO_DATE", ReturnTypes.cascade(binding -> binding.getTypeFactory().createSqlType(SqlTypeName.DATE),
                    org.apache.calcite.sql.type.SqlTypeTransforms.TO_NULLABLE), OperandTypes.family(S, S)),
            function("TO_CHAR", ReturnTypes.cascade(ReturnTypes.VARCHAR, org.apache.calcite.sql.type.SqlTypeTransforms.FORCE_NULLABLE),
                    OperandTypes.family(SqlTypeFamily.ANY, S)),
            function("AGE", ReturnTypes.cascade(binding -> SqlTypes.interval(binding.getTypeFactory()),
                    org.apache.calcite.sql.type.SqlTypeTransforms.TO_NULLABLE),
                    OperandTypes.family(List.of(SqlTypeFamily.DATETIME, SqlTypeFamily.DATETIME), i -> i == 1)),
            function("FORMAT", ReturnTypes.cascade(ReturnTypes.VARCHAR, org.apache.calcite.sql.type.SqlTypeTransforms.FORCE_NULLABLE),
                    OperandTypes.variadic(SqlOperandCountRanges.from(1))),
            function("NOW", binding -> binding.getTypeFactory().createSqlType(SqlTypes.TIMESTAMPTZ, 6), OperandTypes.NILADIC),
            function("PG_CURRENT_TIMESTAMP", binding -> binding.getTypeFactory().createSqlType(SqlTypes.TIMESTAMPTZ, 6), OperandTypes.NILADIC),
            function("PG_LOCALTIMESTAMP", binding -> binding.getTypeFactory().createSqlType(SqlTypeName.TIMESTAMP, 6), OperandTypes.NILADIC),
            function("PG_CURRENT_DATE", binding -> binding.getTypeFactory().createSqlType(SqlTypeName.DATE), OperandTypes.NILADIC),
            function(PgFunctions.PG_LOCALTIME, binding -> binding.getTypeFactory().createSqlType(SqlTypeName.TIME, 6), OperandTypes.family(List.of(I), i -> i == 0)),
            function(PgFunctions.PG_CURRENT_TIME, binding -> binding.getTypeFactory().createSqlType(SqlTypeName.TIME, 6), OperandTypes.family(List.of(I), i -> i == 0)),
            function("CLOCK_TIMESTAMP", binding -> binding.getTypeFactory().createSqlType(SqlTypes.TIMESTAMPTZ, 6), OperandTypes.NILADIC),
            function("STATEMENT_TIMESTAMP", binding -> binding.getTypeFactory().createSqlType(SqlTypes.TIMESTAMPTZ, 6), OperandTypes.NILADIC),
            function("TRANSACTION_TIMESTAMP", binding -> binding.getTypeFactory().createSqlType(SqlTypes.TIMESTAMPTZ, 6), OperandTypes.NILADIC),
            INTERVAL,
            TIME,
            NUMERIC_FIT,
            LOCAL_TIMESTAMPTZ,
            BPCHAR,
            SqlLibraryOperators.BOOL_AND,
            SqlLibraryOperators.BOOL_OR,
            SqlLibraryOperators.STRING_AGG,
            SqlLibraryOperators.ARRAY_AGG)));

    /** The function {@code extract(field FROM x)} is written as ({@link PgCasts#rewrite}): {@code pg_extract('field', x)}. */
    static final String PG_EXTRACT = "PG_EXTRACT";
    /** {@code localtimestamp} and {@code current_date}, as {@link PgCasts} writes them for Calcite (whose own are typed otherwise). */
    static final String PG_LOCALTIMESTAMP = "PG_LOCALTIMESTAMP";
    static final String PG_CURRENT_TIMESTAMP = "PG_CURRENT_TIMESTAMP";
    static final String PG_CURRENT_DATE = "PG_CURRENT_DATE";
    /** {@code localtime[(p)]} and {@code current_time[(p)]}, as {@link PgCasts} writes them. */
    static final String PG_LOCALTIME = "PG_LOCALTIME";
    static final String PG_CURRENT_TIME = "PG_CURRENT_TIME";

    /** The name a function's result column takes, as the user wrote the function: {@code pg_current_date()} is {@code current_date}. */
    static String writtenName(String function) {
        return switch (function) {
            case PG_CURRENT_DATE, PG_CURRENT_TIMESTAMP, PG_LOCALTIMESTAMP, PG_EXTRACT, "PG_DATE_TRUNC", PG_LOCALTIME, PG_CURRENT_TIME ->
                    function.substring(3).toLowerCase(Locale.ROOT);
            default -> function.toLowerCase(Locale.ROOT);
        };
    }

    private PgFunctions() {
    }


    private static SqlOperatorTable caseInsensitive(SqlOperatorTable table) {
        return new SqlOperatorTable() {
            @Override
            public void lookupOperatorOverloads(org.apache.calcite.sql.SqlIdentifier opName, SqlFunctionCategory category,
                    org.apache.calcite.sql.SqlSyntax syntax, List<org.apache.calcite.sql.SqlOperator> operatorList,
                    org.apache.calcite.sql.validate.SqlNameMatcher nameMatcher) {
                table.lookupOperatorOverloads(opName, category, syntax, operatorList, org.apache.calcite.sql.validate.SqlNameMatchers.withCaseSensitive(false));
            }

            @Override
            public List<org.apache.calcite.sql.SqlOperator> getOperatorList() {
                return table.getOperatorList();
            }
        };
    }

    private static SqlFunction function(String name, SqlReturnTypeInference type, SqlOperandTypeChecker operands) {
        if (operands instanceof org.apache.calcite.sql.type.FamilyOperandTypeChecker families) {
            // a NULL argument is of the type the function takes there, as PostgreSQL resolves an unknown
            return new SqlFunction(name, SqlKind.OTHER_FUNCTION, type, (binding, returnType, types) -> {
                for (int i = 0; i < types.length; i++) {
                    SqlTypeFamily f = families.getOperandSqlTypeFamily(i);
                    types[i] = binding.getTypeFactory().createSqlType(f == I ? SqlTypeName.INTEGER : f == N ? SqlTypeName.DOUBLE : SqlTypeName.VARCHAR);
                }
            }, nullsAllowed(families), SqlFunctionCategory.USER_DEFINED_FUNCTION);
        }
        // a NULL argument takes the type of the first typed one
        return new SqlFunction(name, SqlKind.OTHER_FUNCTION, type, org.apache.calcite.sql.type.InferTypes.FIRST_KNOWN, operands,
                SqlFunctionCategory.USER_DEFINED_FUNCTION);
    }

    /** {@code families}, passing a NULL argument (Calcite refuses one when it does not coerce types). */
    private static SqlOperandTypeChecker nullsAllowed(org.apache.calcite.sql.type.FamilyOperandTypeChecker families) {
        return new SqlOperandTypeChecker() {
            @Override
            public boolean checkOperandTypes(org.apache.calcite.sql.SqlCallBinding binding, boolean throwOnFailure) {
                for (int i = 0; i < binding.getOperandCount(); i++) {
                    org.apache.calcite.sql.SqlNode operand = binding.operand(i);
                    if (org.apache.calcite.sql.SqlUtil.isNullLiteral(operand, false)) {
                        continue;
                    }
                    SqlTypeFamily family = families.getOperandSqlTypeFamily(i);
                    if (family != SqlTypeFamily.ANY && !family.getTypeNames().contains(binding.getOperandType(i).getSqlTypeName())) {
                        if (throwOnFailure) {
                            throw binding.newValidationSignatureError();
                        }
                        return false;
                    }
                }
                return true;
            }

            @Override
            public org.apache.calcite.sql.SqlOperandCountRange getOperandCountRange() {
                return families.getOperandCountRange();
            }

            @Override
            public String getAllowedSignatures(org.apache.calcite.sql.SqlOperator op, String opName) {
                return families.getAllowedSignatures(op, opName);
            }

            @Override
            public boolean isOptional(int i) {
                return families.isOptional(i);
            }
        };
    }

    private static org.apache.calcite.rel.type.RelDataType jsonbType(org.apache.calcite.sql.SqlOperatorBinding binding, boolean nullable) {
        return binding.getTypeFactory().createTypeWithNullability(binding.getTypeFactory().createSqlType(SqlTypes.JSONB), nullable);
    }

    /** A jsonb function or operator: its operands' types are checked when translated ({@link JsonbFunctions}); a NULL argument is text. */
    private static SqlFunction jsonb(String name, SqlReturnTypeInference type, SqlOperandTypeChecker operands) {
        return new SqlFunction(name, SqlKind.OTHER_FUNCTION, type,
                (binding, returnType, types) -> java.util.Arrays.fill(types, binding.getTypeFactory().createSqlType(SqlTypeName.VARCHAR)),
                operands, SqlFunctionCategory.USER_DEFINED_FUNCTION);
    }

    private static SqlFunction text(String name, SqlOperandTypeChecker operands) {
        return function(name, name.startsWith("CONCAT") ? ReturnTypes.VARCHAR : ReturnTypes.VARCHAR_NULLABLE, operands);
    }

    private static SqlFunction number(String name, SqlOperandTypeChecker operands) {
        return function(name, ReturnTypes.DOUBLE_NULLABLE, operands);
    }
}
