package dev.tandem.sql;

import dev.tandem.expr.Expr;
import dev.tandem.expr.Func;
import dev.tandem.expr.Regex;
import dev.tandem.row.DatumType;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlFunction;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlOperatorTable;
import org.apache.calcite.sql.fun.SqlLibraryOperators;
import org.apache.calcite.sql.fun.SqlTrimFunction;
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
 * precision) and their translation to {@link Expr} calls (see {@link Func} for the semantics).
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
            function("CLOCK_TIMESTAMP", binding -> binding.getTypeFactory().createSqlType(SqlTypes.TIMESTAMPTZ, 6), OperandTypes.NILADIC),
            function("STATEMENT_TIMESTAMP", binding -> binding.getTypeFactory().createSqlType(SqlTypes.TIMESTAMPTZ, 6), OperandTypes.NILADIC),
            function("TRANSACTION_TIMESTAMP", binding -> binding.getTypeFactory().createSqlType(SqlTypes.TIMESTAMPTZ, 6), OperandTypes.NILADIC),
            INTERVAL,
            TIME,
            NUMERIC_FIT,
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

    /** The name a function's result column takes, as the user wrote the function: {@code pg_current_date()} is {@code current_date}. */
    static String writtenName(String function) {
        return switch (function) {
            case PG_CURRENT_DATE, PG_CURRENT_TIMESTAMP, PG_LOCALTIMESTAMP, PG_EXTRACT, "PG_DATE_TRUNC" ->
                    function.substring(3).toLowerCase(Locale.ROOT);
            default -> function.toLowerCase(Locale.ROOT);
        };
    }

    /** {@code t} in microseconds since the epoch, as timestamps hold it. */
    private static long micros(java.time.Instant t) {
        return Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000L), t.getNano() / 1000);
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

    /**
     * The expression of a call of one of PostgreSQL's functions or regular-expression operators, or null
     * when {@code call} is none of them.
     */
    static Expr translate(RexTranslator t, RexCall call, List<DatumType> in) {
        List<RexNode> ops = call.getOperands();
        SqlKind kind = call.getKind();
        switch (kind) {
            case SIMILAR -> {
                String op = ops.size() == 3 && ops.get(2) instanceof RexLiteral l && l.getValueAs(String.class) instanceof String e
                        && e.startsWith(PgRegexOperators.MARKER) ? e.substring(PgRegexOperators.MARKER.length()) : null;
                if (op == null) {
                    return similarTo(t, call, in);
                }
                List<Expr> args = new ArrayList<>(strings(t, ops.subList(0, 2), in, op));
                String flags = op.endsWith("*") ? "i" : "";
                checkPattern(args.get(1), flags, false);
                args.add(Expr.lit(flags, DatumType.STRING));
                Expr match = new Expr.Call(Func.REGEXP_LIKE, args);
                return ((org.apache.calcite.sql.fun.SqlLikeOperator) call.getOperator()).isNegated() ? Expr.call(Func.NOT, match) : match;
            }
            case POSITION -> {
                if (ops.size() > 2) {
                    throw SqlException.notSupported("position(... FROM ...)");
                }
                List<Expr> args = strings(t, ops, in, "position");
                return Expr.call(Func.STRPOS, args.get(1), args.get(0));
            }
            case TRIM -> {
                SqlTrimFunction.Flag flag = ((RexLiteral) ops.get(0)).getValueAs(SqlTrimFunction.Flag.class);
                List<Expr> args = strings(t, ops.subList(1, 3), in, "trim");
                Func f = flag == SqlTrimFunction.Flag.LEADING ? Func.LTRIM : flag == SqlTrimFunction.Flag.TRAILING ? Func.RTRIM : Func.BTRIM;
                return Expr.call(f, args.get(1), args.get(0));
            }
            default -> {
            }
        }
        String name = call.getOperator().getName().toUpperCase(Locale.ROOT);
        if (name.equals("||") && ops.stream().anyMatch(o -> o.getType().getSqlTypeName() == SqlTypes.JSONB)) {
            return JsonbFunctions.translate(t, PgJsonbOperators.CONCAT, ops, in);
        }
        switch (name) {
            case "CONCAT", "CONCAT_WS" -> {
                List<Expr> args = new ArrayList<>();
                for (RexNode o : ops) {
                    Expr a = t.rex(o, in);
                    DatumType at = PgCoercion.typeOf(a, in);
                    if (at == DatumType.INT64) {
                        a = Expr.cast(a, DatumType.STRING);
                    } else if (at != DatumType.STRING) {
                        // PostgreSQL writes these with its output functions (t, 1.5, 2024-01-02 03:04:05), Tandem's casts differently
                        throw SqlException.notSupported(name.toLowerCase(Locale.ROOT) + " of " + SqlTypes.pgName(at));
                    }
                    args.add(a);
                }
                return new Expr.Call(name.equals("CONCAT") ? Func.CONCAT_ARGS : Func.CONCAT_WS, args);
            }
            case "STRPOS", "REPLACE", "SPLIT_PART", "BTRIM", "LTRIM", "RTRIM", "LPAD", "RPAD", "LEFT", "RIGHT", "REPEAT", "REVERSE",
                    "INITCAP", "MD5", "STARTS_WITH", "TRANSLATE3", "REGEXP_REPLACE", "LENGTH" -> {
                Func f = switch (name) {
                    case "TRANSLATE3" -> Func.TRANSLATE;
                    case "LENGTH" -> Func.LENGTH;
                    default -> Func.valueOf(name);
                };
                List<Expr> args = new ArrayList<>();
                for (RexNode o : ops) {
                    args.add(t.rex(o, in));
                }
                int4Counts(name, ops);
                if (f == Func.REGEXP_REPLACE) {
                    checkPattern(args.get(1), args.size() > 3 ? args.get(3) instanceof Expr.Lit l ? (String) l.value() : null : "", true);
                }
                return new Expr.Call(f, args);
            }
            case "MAKE_DATE" -> {
                List<Expr> args = new ArrayList<>();
                for (RexNode op : ops) {
                    Expr x = t.rex(op, in);
                    args.add(PgCoercion.typeOf(x, in) == DatumType.INT64 ? x : Expr.cast(x, DatumType.INT64));
                }
                return Expr.call(Func.MAKE_DATE, args.toArray(Expr[]::new));
            }
            case "TO_DATE" -> throw SqlException.notSupported("to_date(text, text) (write the date in ISO form, '2024-01-02'::date)");
            case "TO_TIMESTAMP" -> {
                if (ops.size() == 2) {
                    throw SqlException.notSupported("to_timestamp(text, text) (write the time in ISO form, '2024-01-02 03:04:05+00'::timestamptz)");
                }
                Expr x = t.rex(ops.get(0), in);
                DatumType xt = PgCoercion.typeOf(x, in);
                if (xt != DatumType.INT64 && xt != DatumType.FLOAT64 && xt != DatumType.NUMERIC) {
                    throw new SqlException(SqlException.UNDEFINED_FUNCTION, "function to_timestamp(" + SqlTypes.pgName(xt) + ") does not exist");
                }
                return Expr.call(Func.TO_TIMESTAMP, PgCoercion.typeOf(x, in) == DatumType.FLOAT64 ? x : Expr.cast(x, DatumType.FLOAT64));
            }
            case "TO_CHAR" -> {
                Expr x = t.rex(ops.get(0), in);
                Expr template = t.rex(ops.get(1), in);
                DatumType xt = PgCoercion.typeOf(x, in);
                boolean number = xt == DatumType.INT64 || xt == DatumType.FLOAT64 || xt == DatumType.NUMERIC;
                if (!number && xt != DatumType.DATE && xt != DatumType.TIMESTAMP && xt != DatumType.TIMESTAMPTZ && xt != DatumType.INTERVAL) {
                    throw new SqlException(SqlException.UNDEFINED_FUNCTION, "function to_char(" + SqlTypes.pgName(xt) + ", text) does not exist");
                }
                if (PgCoercion.typeOf(template, in) != DatumType.STRING) {
                    throw new SqlException(SqlException.UNDEFINED_FUNCTION, "function to_char(" + SqlTypes.pgName(xt) + ", "
                            + SqlTypes.pgName(PgCoercion.typeOf(template, in)) + ") does not exist");
                }
                if (template instanceof Expr.Lit l && l.value() instanceof String s) {
                    String why = number ? dev.tandem.expr.FormatTemplates.unsupportedNumber(s)
                            : dev.tandem.expr.FormatTemplates.unsupportedDatetime(s, xt == DatumType.INTERVAL);
                    if (why != null) {
                        throw SqlException.notSupported(why);
                    }
                }
                return Expr.call(Func.TO_CHAR, x, template);
            }
            case "AGE" -> {
                List<Expr> args = new ArrayList<>();
                if (ops.size() == 1) {
                    java.time.Instant now = t.statementTime("age(timestamp)").transaction();
                    args.add(Expr.lit(new dev.tandem.row.Timestamp(micros(java.time.LocalDate.ofInstant(now, java.time.ZoneOffset.UTC)
                            .atStartOfDay().toInstant(java.time.ZoneOffset.UTC))), DatumType.TIMESTAMP));
                }
                for (RexNode op : ops) {
                    Expr x = t.rex(op, in);
                    DatumType xt = PgCoercion.typeOf(x, in);
                    if (xt != DatumType.DATE && xt != DatumType.TIMESTAMP && xt != DatumType.TIMESTAMPTZ) {
                        throw new SqlException(SqlException.UNDEFINED_FUNCTION, "function age(" + SqlTypes.pgName(xt) + ") does not exist");
                    }
                    // in the session's time zone, UTC, a timestamptz's fields are its timestamp's
                    args.add(xt == DatumType.TIMESTAMP ? x : Expr.cast(x, DatumType.TIMESTAMP));
                }
                return Expr.call(Func.AGE, args.toArray(Expr[]::new));
            }
            case "FORMAT" -> {
                List<Expr> args = new ArrayList<>();
                for (RexNode op : ops) {
                    Expr x = t.rex(op, in);
                    DatumType xt = PgCoercion.typeOf(x, in);
                    switch (xt) {
                        case STRING -> args.add(x);
                        case INT64, NUMERIC, DATE, TIMESTAMPTZ, UUID -> {
                            if (args.isEmpty()) {
                                throw new SqlException(SqlException.UNDEFINED_FUNCTION, "function format(" + SqlTypes.pgName(xt) + ") does not exist");
                            }
                            args.add(Expr.cast(x, DatumType.STRING));
                        }
                        default -> throw SqlException.notSupported("format() of " + SqlTypes.pgName(xt)
                                + " (PostgreSQL writes it with its output function: write it as text, to_char(x, '...'))");
                    }
                }
                return new Expr.Call(Func.FORMAT, args);
            }
            case "PG_NUMERIC_FIT" -> {
                Expr x = t.rex(ops.get(0), in);
                return Expr.call(Func.FIT_NUMERIC, x, t.rex(ops.get(1), in), t.rex(ops.get(2), in));
            }
            case "PG_INTERVAL" -> {
                Expr x = t.rex(ops.get(0), in);
                DatumType xt = PgCoercion.typeOf(x, in);
                if (x instanceof Expr.Lit l && l.value() instanceof String s) {
                    try {
                        return Expr.lit(dev.tandem.expr.Intervals.parse(s), DatumType.INTERVAL);
                    } catch (dev.tandem.expr.EvalError e) {
                        throw SqlErrors.evaluation(e);
                    }
                }
                if (x instanceof Expr.Lit l && l.value() == null) {
                    return Expr.lit(null, DatumType.INTERVAL);
                }
                if (xt == DatumType.INTERVAL) {
                    return x;
                }
                if (xt == DatumType.TIME) {
                    throw SqlException.notSupported("casting time without time zone to interval");
                }
                if (xt != DatumType.STRING) {
                    throw new SqlException(SqlState.CANNOT_COERCE, "cannot cast type " + SqlTypes.pgName(xt) + " to interval");
                }
                return Expr.cast(x, DatumType.INTERVAL);
            }
            case "PG_TIME" -> {
                Expr x = t.rex(ops.get(0), in);
                DatumType xt = PgCoercion.typeOf(x, in);
                if (x instanceof Expr.Lit l && l.value() instanceof String s) {
                    try {
                        return Expr.lit(dev.tandem.expr.Times.parse(s), DatumType.TIME);
                    } catch (dev.tandem.expr.EvalError e) {
                        throw SqlErrors.evaluation(e);
                    }
                }
                if (x instanceof Expr.Lit l && l.value() == null) {
                    return Expr.lit(null, DatumType.TIME);
                }
                return switch (xt) {
                    case TIME -> x;
                    case STRING, TIMESTAMP, TIMESTAMPTZ -> Expr.cast(x, DatumType.TIME);
                    case INTERVAL -> throw SqlException.notSupported("casting interval to time without time zone");
                    default -> throw new SqlException(SqlState.CANNOT_COERCE, "cannot cast type " + SqlTypes.pgName(xt) + " to time without time zone");
                };
            }
            case "NOW", "STATEMENT_TIMESTAMP", "TRANSACTION_TIMESTAMP", PG_CURRENT_TIMESTAMP -> {
                SqlSession.Times times = t.statementTime(writtenName(name) + (name.equals(PG_CURRENT_TIMESTAMP) ? "" : "()"));
                java.time.Instant now = name.equals("STATEMENT_TIMESTAMP") ? times.statement() : times.transaction();
                return Expr.lit(new dev.tandem.row.TimestampTz(micros(now)), DatumType.TIMESTAMPTZ);
            }
            case PG_LOCALTIMESTAMP -> {
                java.time.Instant now = t.statementTime("localtimestamp").transaction();
                return Expr.lit(new dev.tandem.row.Timestamp(micros(now)), DatumType.TIMESTAMP);
            }
            case PG_CURRENT_DATE -> {
                java.time.Instant now = t.statementTime("current_date").transaction();
                return Expr.lit(java.time.LocalDate.ofInstant(now, java.time.ZoneOffset.UTC), DatumType.DATE);
            }
            case "CLOCK_TIMESTAMP" -> throw SqlException.notSupported(
                    "clock_timestamp() (it changes within a statement; now() is the statement's time)");
            case "PG_JSONB", PgJsonbOperators.FIELD, PgJsonbOperators.FIELD_TEXT, PgJsonbOperators.PATH, PgJsonbOperators.PATH_TEXT,
                    PgJsonbOperators.CONTAINS, PgJsonbOperators.CONTAINED, PgJsonbOperators.EXISTS, PgJsonbOperators.CONCAT, "JSONB_TYPEOF",
                    "JSONB_ARRAY_LENGTH", "TO_JSONB", "JSONB_BUILD_ARRAY", "JSONB_BUILD_OBJECT" -> {
                return JsonbFunctions.translate(t, name, ops, in);
            }
            case PG_EXTRACT, "DATE_PART", "PG_DATE_TRUNC" -> {
                Expr field = t.rex(ops.get(0), in);
                Expr x = t.rex(ops.get(1), in);
                DatumType xt = PgCoercion.typeOf(x, in);
                if (name.equals("PG_DATE_TRUNC")) {
                    if (xt == DatumType.TIME) {
                        throw SqlException.notSupported("date_trunc of time without time zone (PostgreSQL casts it to an interval)");
                    }
                    return Expr.call(Func.DATE_TRUNC, field, xt == DatumType.DATE ? Expr.cast(x, DatumType.TIMESTAMPTZ) : x);
                }
                if (xt != DatumType.DATE && xt != DatumType.TIMESTAMP && xt != DatumType.TIMESTAMPTZ && xt != DatumType.TIME) {
                    throw SqlException.notSupported(name.toLowerCase(Locale.ROOT) + " of " + SqlTypes.pgName(xt));
                }
                Expr extract = Expr.call(Func.EXTRACT, field, x);
                return name.equals("DATE_PART") ? Expr.cast(extract, DatumType.FLOAT64) : extract;
            }
            case "ROUND", "TRUNC" -> {
                Expr x = t.rex(ops.get(0), in);
                SqlTypeName xt = ops.get(0).getType().getSqlTypeName();
                if (PgCoercion.typeOf(x, in) == DatumType.NUMERIC) {
                    return ops.size() == 1 ? Expr.call(name.equals("TRUNC") ? Func.TRUNC : Func.ROUND_NUMERIC, x)
                            : Expr.call(name.equals("TRUNC") ? Func.TRUNC : Func.ROUND_NUMERIC, x, t.rex(ops.get(1), in));
                }
                if (ops.size() == 1) {
                    Func f = name.equals("TRUNC") ? Func.TRUNC : xt == SqlTypeName.DECIMAL ? Func.ROUND_NUMERIC : Func.ROUND;
                    return Expr.call(f, toFloat(x, in));
                }
                if (xt == SqlTypeName.DOUBLE || xt == SqlTypeName.FLOAT || xt == SqlTypeName.REAL) {
                    throw new SqlException(SqlException.UNDEFINED_FUNCTION, "function " + name.toLowerCase(Locale.ROOT)
                            + "(double precision, integer) does not exist");
                }
                return Expr.call(name.equals("TRUNC") ? Func.TRUNC : Func.ROUND_NUMERIC, toFloat(x, in), t.rex(ops.get(1), in));
            }
            case "FLOOR", "CEIL", "CEILING", "SIGN", "SQRT", "EXP", "LN", "LOG10", "LOG", "POWER" -> {
                if ((name.equals("FLOOR") || name.startsWith("CEIL")) && ops.size() > 1) {
                    throw SqlException.notSupported(name.toLowerCase(Locale.ROOT) + "(... TO ...)");
                }
                if (name.equals("LOG") && ops.size() > 1) {
                    throw SqlException.notSupported("log(b, x) (a numeric function)");
                }
                Func f = switch (name) {
                    case "CEILING" -> Func.CEIL;
                    case "LOG" -> Func.LOG10;
                    default -> Func.valueOf(name);
                };
                List<Expr> args = new ArrayList<>();
                for (RexNode o : ops) {
                    args.add(t.rex(o, in));
                }
                if (args.stream().anyMatch(a -> PgCoercion.typeOf(a, in) == DatumType.NUMERIC)) {
                    if (f == Func.FLOOR || f == Func.CEIL || f == Func.SIGN) {
                        return new Expr.Call(f, args);
                    }
                    throw SqlException.notSupported(name.toLowerCase(Locale.ROOT) + " of a numeric (PostgreSQL computes it in numeric;"
                            + " write CAST(x AS double precision) to compute in floating point)");
                }
                args.replaceAll(a -> toFloat(a, in));
                return new Expr.Call(f, args);
            }
            case "PI" -> {
                return Expr.lit(Math.PI, DatumType.FLOAT64);
            }
            case "GREATEST", "LEAST" -> {
                List<Expr> args = new ArrayList<>();
                for (RexNode o : ops) {
                    args.add(t.rex(o, in));
                }
                return new Expr.Call(Func.valueOf(name), PgCoercion.unify(args, in, name));
            }
            default -> {
                return null;
            }
        }
    }

    /**
     * Refuses a bigint count ({@code lpad(s, n)} of a bigint {@code n}) as PostgreSQL does: its string
     * functions take an {@code integer}, to which a bigint does not cast implicitly.
     */
    private static void int4Counts(String name, List<RexNode> ops) {
        if (ops.stream().anyMatch(o -> o.getType().getSqlTypeName() == SqlTypeName.BIGINT)) {
            List<String> types = ops.stream().map(o -> switch (o.getType().getSqlTypeName()) {
                case BIGINT -> "bigint";
                case INTEGER, SMALLINT, TINYINT -> "integer";
                default -> "text";
            }).toList();
            throw new SqlException(SqlException.UNDEFINED_FUNCTION, "function " + name.toLowerCase(Locale.ROOT) + "(" + String.join(", ", types)
                    + ") does not exist");
        }
    }

    private static List<Expr> strings(RexTranslator t, List<RexNode> ops, List<DatumType> in, String op) {
        List<Expr> args = new ArrayList<>();
        for (RexNode o : ops) {
            Expr a = t.rex(o, in);
            if (PgCoercion.typeOf(a, in) != DatumType.STRING) {
                throw new SqlException(SqlException.UNDEFINED_FUNCTION, (op.contains("~") ? "operator" : "function") + " does not exist: "
                        + op + " of " + SqlTypes.pgName(PgCoercion.typeOf(a, in)));
            }
            args.add(a);
        }
        return args;
    }

    /**
     * {@code x [NOT] SIMILAR TO pattern [ESCAPE e]}, as PostgreSQL runs it: {@code x ~ similar_to_escape(pattern, e)}, the
     * pattern's regular expression computed once when pattern and escape are constants (and refused when it uses what
     * Tandem does not read as PostgreSQL does), on every row otherwise; NULL when any of the three is NULL.
     */
    private static Expr similarTo(RexTranslator t, RexCall call, List<DatumType> in) {
        List<RexNode> ops = call.getOperands();
        List<Expr> args = new ArrayList<>(strings(t, ops, in, "SIMILAR TO"));
        Expr pattern = args.get(1);
        Expr escape = args.size() > 2 ? args.get(2) : Expr.lit("\\", DatumType.STRING);
        Expr regex;
        if (pattern instanceof Expr.Lit p && escape instanceof Expr.Lit e) {
            if (p.value() == null || e.value() == null) {
                return Expr.lit(null, DatumType.BOOL);
            }
            try {
                regex = Expr.lit(dev.tandem.expr.SimilarTo.toRegex((String) p.value(), (String) e.value()), DatumType.STRING);
            } catch (dev.tandem.expr.EvalError x) {
                throw SqlErrors.evaluation(x);
            }
            checkPattern(regex, "", false);
        } else {
            regex = Expr.call(Func.SIMILAR_ESCAPE, pattern, escape);
        }
        Expr match = Expr.call(Func.REGEXP_LIKE, args.get(0), regex, Expr.lit("", DatumType.STRING));
        return ((org.apache.calcite.sql.fun.SqlLikeOperator) call.getOperator()).isNegated() ? Expr.call(Func.NOT, match) : match;
    }

    /** Refuses a literal pattern (and flags) using what Tandem does not read as PostgreSQL does. */
    private static void checkPattern(Expr pattern, String flags, boolean replace) {
        if (pattern instanceof Expr.Lit l && l.value() instanceof String p && flags != null) {
            String why = Regex.unsupported(p, flags, replace);
            if (why != null) {
                throw SqlException.notSupported(why);
            }
        }
    }

    private static Expr toFloat(Expr e, List<DatumType> in) {
        DatumType t = PgCoercion.typeOf(e, in);
        if (t == DatumType.FLOAT64) {
            return e;
        }
        if (t != DatumType.INT64) {
            throw new SqlException(SqlException.UNDEFINED_FUNCTION, "function of " + SqlTypes.pgName(t) + " does not exist");
        }
        return e instanceof Expr.Lit l ? Expr.lit(l.value() == null ? null : ((Long) l.value()).doubleValue(), DatumType.FLOAT64) : Expr.cast(e, DatumType.FLOAT64);
    }
}
