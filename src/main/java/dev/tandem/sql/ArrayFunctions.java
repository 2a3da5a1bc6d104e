package dev.tandem.sql;

import dev.tandem.expr.Expr;
import dev.tandem.expr.Func;
import dev.tandem.row.DatumType;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlFunction;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlOperatorBinding;
import org.apache.calcite.sql.fun.SqlQuantifyOperator;
import org.apache.calcite.sql.type.OperandTypes;
import org.apache.calcite.sql.type.ReturnTypes;
import org.apache.calcite.sql.type.SqlReturnTypeInference;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * PostgreSQL's one-dimensional arrays in SQL: the array functions and operators Calcite does not know, typed for its
 * validator ({@link #FUNCTIONS}), and the translation of array constructors, subscripts, {@code x op ANY/ALL (array)},
 * {@code ||}, {@code @>}, {@code <@}, {@code &&} and the functions to {@link Expr} calls.
 */
final class ArrayFunctions {

    /** {@code a @> b}, {@code a <@ b} and {@code a && b} of arrays, as {@link PgJsonbOperators} writes them for Calcite. */
    static final String CONTAINS = "PG_ARRAY_CONTAINS";
    static final String CONTAINED = "PG_ARRAY_CONTAINED";
    static final String OVERLAP = "PG_ARRAY_OVERLAP";
    static final String EXISTS_ANY = "PG_JSONB_EXISTS_ANY";
    static final String EXISTS_ALL = "PG_JSONB_EXISTS_ALL";
    /** A cast to an array type, {@code pg_array_cast(x, 'bigint')}, as {@link PgCasts} writes {@code x::bigint[]}. */
    static final String CAST = "PG_ARRAY_CAST";
    /** {@code x op ANY($1)}'s parameter, {@code pg_array_param(x, $1)}: an array of {@code x}'s type, as PostgreSQL infers it. */
    static final String PARAM = "PG_ARRAY_PARAM";
    /** {@code x op ANY/ALL (v)} of a name or an expression {@code v}: {@code v} itself, which must be an array ({@code 42809} otherwise). */
    static final String OPERAND = "PG_ARRAY_OPERAND";

    static final List<SqlFunction> FUNCTIONS = List.of(
            function("ARRAY_LENGTH", ReturnTypes.INTEGER_NULLABLE),
            function("CARDINALITY", ReturnTypes.INTEGER_NULLABLE),
            function("ARRAY_TO_STRING", ReturnTypes.VARCHAR_NULLABLE),
            function("ARRAY_CAT", ArrayFunctions::firstArray),
            function("ARRAY_APPEND", ArrayFunctions::firstArray),
            function("ARRAY_PREPEND", ArrayFunctions::firstArray),
            function(CONTAINS, ReturnTypes.BOOLEAN_NULLABLE),
            function(CONTAINED, ReturnTypes.BOOLEAN_NULLABLE),
            function(OVERLAP, ReturnTypes.BOOLEAN_NULLABLE),
            function(EXISTS_ANY, ReturnTypes.BOOLEAN_NULLABLE),
            function(EXISTS_ALL, ReturnTypes.BOOLEAN_NULLABLE),
            function(CAST, ArrayFunctions::castType),
            function(OPERAND, ArrayFunctions::arrayOperand),
            new SqlFunction(PARAM, SqlKind.OTHER_FUNCTION, binding -> binding.getTypeFactory().createTypeWithNullability(
                    binding.getTypeFactory().createArrayType(binding.getOperandType(0), -1), true),
                    (binding, returnType, types) -> {
                        types[0] = binding.getOperandType(0);
                        types[1] = binding.getTypeFactory().createArrayType(binding.getOperandType(0), -1);
                    }, OperandTypes.ANY_ANY, SqlFunctionCategory.USER_DEFINED_FUNCTION));

    /** Makes, in place, each {@code x op ANY/ALL (?)} of a lone parameter {@code x op ANY/ALL (pg_array_param(x, ?))}. */
    static void arrayParameters(org.apache.calcite.sql.SqlNode node) {
        node.accept(new org.apache.calcite.sql.util.SqlBasicVisitor<Void>() {
            @Override
            public Void visit(org.apache.calcite.sql.SqlCall call) {
                if ((call.getKind() == SqlKind.SOME || call.getKind() == SqlKind.ALL) && call.operand(1) instanceof org.apache.calcite.sql.SqlNodeList l
                        && l.size() == 1 && l.get(0) instanceof org.apache.calcite.sql.SqlDynamicParam p) {
                    SqlFunction param = FUNCTIONS.stream().filter(f -> f.getName().equals(PARAM)).findFirst().orElseThrow();
                    l.set(0, param.createCall(p.getParserPosition(), call.operand(0), p));
                } else if ((call.getKind() == SqlKind.SOME || call.getKind() == SqlKind.ALL) && call.operand(1) instanceof org.apache.calcite.sql.SqlNodeList l
                        && l.size() == 1 && (l.get(0) instanceof org.apache.calcite.sql.SqlIdentifier
                                || l.get(0) instanceof org.apache.calcite.sql.SqlCall e && !e.isA(SqlKind.QUERY))) {
                    // (Calcite reads x = ANY (v) of a scalar name or expression v as x = v: v is checked to be an array once typed)
                    org.apache.calcite.sql.SqlNode c = l.get(0);
                    SqlFunction operand = FUNCTIONS.stream().filter(f -> f.getName().equals(OPERAND)).findFirst().orElseThrow();
                    l.set(0, operand.createCall(c.getParserPosition(), c));
                } else if ((call.getKind() == SqlKind.SOME || call.getKind() == SqlKind.ALL) && call.operand(1) instanceof org.apache.calcite.sql.SqlNodeList l
                        && (l.size() != 1 || l.get(0) instanceof org.apache.calcite.sql.SqlLiteral)) {
                    // (Calcite reads x = ANY (v) of a scalar v as x = v; a column's type is checked once validated, by CalcitePlanner's convertlet)
                    if (l.size() == 1 && l.get(0) instanceof org.apache.calcite.sql.SqlCharStringLiteral) {
                        throw SqlException.notSupported("x op ANY/ALL ('...') of an array's text: cast it ('{1,2}'::bigint[])");
                    }
                    throw new SqlException(SqlState.WRONG_OBJECT_TYPE, "op ANY/ALL (array) requires array on right side");
                }
                return super.visit(call);
            }
        });
    }

    private ArrayFunctions() {
    }

    /** {@code pg_array_cast(value, 'element')}: {@code value} (an array's text, a parameter, NULL) read as an array of {@code element}. */
    static org.apache.calcite.sql.SqlNode castCall(org.apache.calcite.sql.SqlNode value, DatumType element) {
        SqlFunction cast = FUNCTIONS.stream().filter(f -> f.getName().equals(CAST)).findFirst().orElseThrow();
        return cast.createCall(value.getParserPosition(), value,
                org.apache.calcite.sql.SqlLiteral.createCharString(SqlTypes.pgName(element), value.getParserPosition()));
    }

    private static SqlFunction function(String name, SqlReturnTypeInference type) {
        return new SqlFunction(name, SqlKind.OTHER_FUNCTION, type, org.apache.calcite.sql.type.InferTypes.FIRST_KNOWN, OperandTypes.VARIADIC,
                SqlFunctionCategory.USER_DEFINED_FUNCTION);
    }

    /** The array type a {@link #CAST} names. */
    private static RelDataType castType(SqlOperatorBinding binding) {
        String named = binding.getStringLiteralOperand(1);
        DatumType element = SqlTypes.ofName(named);
        // an integer[] or smallint[] (its constants' elements are held to the range when translated) is typed as PostgreSQL types it
        return SqlTypes.calcite(binding.getTypeFactory(), DatumType.arrayOf(element), ColumnDeclarations.arrayDeclaredType(named), true);
    }

    /** The type of {@link #OPERAND}'s operand (one that is no array is refused when translated). */
    private static RelDataType arrayOperand(SqlOperatorBinding binding) {
        return binding.getOperandType(0);
    }

    /** The type of the first array operand (the operands' own types are checked when translated). */
    private static RelDataType firstArray(SqlOperatorBinding binding) {
        for (int i = 0; i < binding.getOperandCount(); i++) {
            RelDataType t = binding.getOperandType(i);
            if (t.getSqlTypeName() == SqlTypeName.ARRAY) {
                return binding.getTypeFactory().createTypeWithNullability(t, true);
            }
        }
        return binding.getTypeFactory().createTypeWithNullability(binding.getOperandType(0), true);
    }

    /** The translation of an array call, or null when {@code call} is none. */
    static Expr translate(RexTranslator t, RexCall call, List<DatumType> in) {
        List<RexNode> ops = call.getOperands();
        switch (call.getKind()) {
            case ARRAY_VALUE_CONSTRUCTOR -> {
                DatumType type = SqlTypes.of(call.getType());
                List<Expr> args = new ArrayList<>();
                for (RexNode o : ops) {
                    // a number Calcite cast to the elements' common scale is the number as written (ARRAY[1.5, 2.25] holds 1.5)
                    boolean widened = o instanceof RexCall c && c.getKind() == SqlKind.CAST && type.element() == DatumType.NUMERIC
                            && (c.getOperands().get(0) instanceof org.apache.calcite.rex.RexLiteral || c.getOperands().get(0) instanceof org.apache.calcite.rex.RexDynamicParam);
                    if (type.element() == DatumType.NUMERIC && ops.size() > 1 && (widened || o instanceof org.apache.calcite.rex.RexLiteral
                            || o instanceof org.apache.calcite.rex.RexDynamicParam)) {
                        // Calcite widens each number to the elements' common scale, which PostgreSQL does not
                        throw SqlException.notSupported("ARRAY[...] of numeric constants (write the array's text: '{1.5,2.25}'::numeric[])");
                    }
                    RexNode e = widened ? ((RexCall) o).getOperands().get(0) : o;
                    if (e instanceof org.apache.calcite.rex.RexLiteral l && type.element() == DatumType.NUMERIC) {
                        PgCoercion.refuseCastLiteral(l);
                    }
                    args.add(t.rex(e, in));
                }
                args = args.isEmpty() ? args : PgCoercion.unify(args, in, "ARRAY");
                List<Expr> elements = new ArrayList<>();
                for (Expr a : args) {
                    DatumType at = PgCoercion.typeOf(a, in);
                    elements.add(at == type.element() ? a : Expr.cast(a, type.element()));
                }
                return new Expr.Call(Func.ARRAY, elements, type);
            }
            case ITEM -> {
                Expr a = array(t, ops.get(0), in, "[]");
                Expr i = t.rex(ops.get(1), in);
                if (PgCoercion.typeOf(i, in) != DatumType.INT64) {
                    throw new SqlException(SqlException.DATATYPE_MISMATCH, "array subscript must have type integer");
                }
                return Expr.call(Func.ARRAY_GET, a, i);
            }
            case SOME, ALL -> {
                SqlKind comparison = ((SqlQuantifyOperator) call.getOperator()).comparisonKind;
                String op = switch (comparison) {
                    case EQUALS -> "eq";
                    case NOT_EQUALS -> "neq";
                    case LESS_THAN -> "lt";
                    case LESS_THAN_OR_EQUAL -> "lte";
                    case GREATER_THAN -> "gt";
                    default -> "gte";
                };
                Expr a = array(t, ops.get(1), in, "ANY/ALL");
                DatumType element = PgCoercion.typeOf(a, in).element();
                Expr x = t.rex(ops.get(0), in);
                x = element(x, element, in, comparison.sql);
                return Expr.call(call.getKind() == SqlKind.SOME ? Func.ANY : Func.ALL, Expr.lit(op, DatumType.STRING), x, a);
            }
            default -> {
            }
        }
        String name = call.getOperator().getName().toUpperCase(Locale.ROOT);
        boolean anyArray = ops.stream().anyMatch(o -> o.getType().getSqlTypeName() == SqlTypeName.ARRAY);
        if (anyArray && name.equals(PgJsonbOperators.CONTAINS)) {
            name = CONTAINS;
        } else if (anyArray && name.equals(PgJsonbOperators.CONTAINED)) {
            name = CONTAINED;
        }
        switch (name) {
            case PARAM -> {
                return t.rex(ops.get(1), in);
            }
            case OPERAND -> {
                if (ops.get(0).getType().getSqlTypeName() != SqlTypeName.ARRAY) {
                    throw new SqlException(SqlState.WRONG_OBJECT_TYPE, "op ANY/ALL (array) requires array on right side");
                }
                return t.rex(ops.get(0), in);
            }
            case CAST -> {
                DatumType to = SqlTypes.of(call.getType());
                Expr x = t.rex(ops.get(0), in);
                DatumType from = PgCoercion.typeOf(x, in);
                String named = ops.get(1) instanceof org.apache.calcite.rex.RexLiteral n ? n.getValueAs(String.class) : "";
                boolean int4 = java.util.Set.of("integer", "int", "int4").contains(named);
                boolean int2 = java.util.Set.of("smallint", "int2").contains(named);
                if (x instanceof Expr.Lit l && (l.value() == null || from == DatumType.STRING || from.isArray())) {
                    Object v = SqlTypes.convert(l.value(), to);
                    if ((int4 || int2) && v instanceof dev.tandem.row.DatumArray a) {
                        for (Object e : a.elements()) {
                            if (e instanceof Long i && (int4 ? i != i.intValue() : i != i.shortValue())) {
                                throw new SqlException(SqlException.OUT_OF_RANGE, (int4 ? "integer" : "smallint") + " out of range");
                            }
                        }
                    }
                    return Expr.lit(v, to);
                }
                if (int4 || int2) {
                    // (Tandem holds integers in 64 bits and checks an integer[]'s range of constants only)
                    throw SqlException.notSupported("casting an expression to " + named + "[] (cast it to bigint[])");
                }
                if (from == to) {
                    return x;
                }
                if (from == DatumType.STRING) {
                    return Expr.cast(x, to);
                }
                if (from.isArray() && (to != DatumType.STRING_ARRAY || from.element() != DatumType.FLOAT64 && from.element() != DatumType.TIMESTAMP)
                        && (from.element() == DatumType.STRING || to.element() == DatumType.STRING || numeric(from.element()) && numeric(to.element()))) {
                    return Expr.cast(x, to);
                }
                if (from.isArray()) {
                    throw SqlException.notSupported("casting " + SqlTypes.pgName(from) + " to " + SqlTypes.pgName(to));
                }
                throw new SqlException(SqlState.CANNOT_COERCE, "cannot cast type " + SqlTypes.pgName(from) + " to " + SqlTypes.pgName(to));
            }
            case "||" -> {
                if (!anyArray) {
                    return null;
                }
                Expr a = t.rex(ops.get(0), in);
                Expr b = t.rex(ops.get(1), in);
                DatumType at = PgCoercion.typeOf(a, in);
                DatumType bt = PgCoercion.typeOf(b, in);
                if (at.isArray() && bt.isArray()) {
                    return concat(a, b, in);
                }
                return at.isArray() ? Expr.call(Func.ARRAY_APPEND, a, element(b, at.element(), in, "||"))
                        : Expr.call(Func.ARRAY_PREPEND, element(a, bt.element(), in, "||"), b);
            }
            case "ARRAY_LENGTH" -> {
                arity(name, ops, 2, 2);
                return Expr.call(Func.ARRAY_LENGTH, array(t, ops.get(0), in, "array_length"), integer(t, ops.get(1), in));
            }
            case "CARDINALITY" -> {
                arity(name, ops, 1, 1);
                return Expr.call(Func.CARDINALITY, array(t, ops.get(0), in, "cardinality"));
            }
            case "ARRAY_TO_STRING" -> {
                arity(name, ops, 2, 3);
                List<Expr> args = new ArrayList<>();
                args.add(array(t, ops.get(0), in, "array_to_string"));
                for (RexNode o : ops.subList(1, ops.size())) {
                    Expr s = t.rex(o, in);
                    args.add(s instanceof Expr.Lit l && l.value() == null ? Expr.lit(null, DatumType.STRING) : s);
                    if (PgCoercion.typeOf(args.getLast(), in) != DatumType.STRING) {
                        throw undefined("array_to_string", ops, in, t);
                    }
                }
                return new Expr.Call(Func.ARRAY_TO_STRING, args);
            }
            case "ARRAY_CAT" -> {
                arity(name, ops, 2, 2);
                return concat(array(t, ops.get(0), in, "array_cat"), array(t, ops.get(1), in, "array_cat"), in);
            }
            case "ARRAY_APPEND" -> {
                arity(name, ops, 2, 2);
                Expr a = array(t, ops.get(0), in, "array_append");
                return Expr.call(Func.ARRAY_APPEND, a, element(t.rex(ops.get(1), in), PgCoercion.typeOf(a, in).element(), in, "array_append"));
            }
            case "ARRAY_PREPEND" -> {
                arity(name, ops, 2, 2);
                Expr a = array(t, ops.get(1), in, "array_prepend");
                return Expr.call(Func.ARRAY_PREPEND, element(t.rex(ops.get(0), in), PgCoercion.typeOf(a, in).element(), in, "array_prepend"), a);
            }
            case CONTAINS, CONTAINED, OVERLAP -> {
                String op = name.equals(CONTAINS) ? "@>" : name.equals(CONTAINED) ? "<@" : "&&";
                List<Expr> ab = PgCoercion.unify(List.of(array(t, ops.get(0), in, op), array(t, ops.get(1), in, op)), in, op);
                return name.equals(CONTAINED) ? Expr.call(Func.ARRAY_CONTAINS, ab.get(1), ab.get(0))
                        : Expr.call(name.equals(CONTAINS) ? Func.ARRAY_CONTAINS : Func.ARRAY_OVERLAP, ab.get(0), ab.get(1));
            }
            case EXISTS_ANY, EXISTS_ALL -> {
                String op = name.equals(EXISTS_ANY) ? "?|" : "?&";
                Expr j = t.rex(ops.get(0), in);
                Expr keys = t.rex(ops.get(1), in);
                if (keys instanceof Expr.Lit l && l.type() == DatumType.STRING) {
                    keys = Expr.lit(SqlTypes.convert(l.value(), DatumType.STRING_ARRAY), DatumType.STRING_ARRAY);
                }
                if (PgCoercion.typeOf(j, in) != DatumType.JSONB || PgCoercion.typeOf(keys, in) != DatumType.STRING_ARRAY) {
                    throw new SqlException(SqlException.UNDEFINED_FUNCTION, "operator does not exist: " + SqlTypes.pgName(PgCoercion.typeOf(j, in))
                            + " " + op + " " + SqlTypes.pgName(PgCoercion.typeOf(keys, in)));
                }
                return Expr.call(name.equals(EXISTS_ANY) ? Func.JSONB_EXISTS_ANY : Func.JSONB_EXISTS_ALL, j, keys);
            }
            default -> {
                if (anyArray) {
                    throw SqlException.notSupported(call.getOperator().getName().toLowerCase(Locale.ROOT) + " of arrays");
                }
                return null;
            }
        }
    }

    private static boolean numeric(DatumType t) {
        return t == DatumType.INT64 || t == DatumType.NUMERIC || t == DatumType.FLOAT64;
    }

    private static Expr concat(Expr a, Expr b, List<DatumType> in) {
        List<Expr> ab = PgCoercion.unify(List.of(a, b), in, "||");
        return Expr.call(Func.ARRAY_CAT, ab.get(0), ab.get(1));
    }

    /** An operand that must be an array: a quoted literal is read as one only where its type follows from elsewhere, else 42804... */
    private static Expr array(RexTranslator t, RexNode o, List<DatumType> in, String op) {
        Expr a = t.rex(o, in);
        DatumType at = PgCoercion.typeOf(a, in);
        if (!at.isArray()) {
            if (a instanceof Expr.Lit l && l.value() == null && o.getType().getSqlTypeName() == SqlTypeName.ARRAY) {
                return Expr.lit(null, SqlTypes.of(o.getType()));
            }
            throw new SqlException(op.equals("ANY/ALL") ? SqlState.WRONG_OBJECT_TYPE : SqlException.UNDEFINED_FUNCTION,
                    op.equals("ANY/ALL") ? "op ANY/ALL (array) requires array on right side" : op + " needs an array, got " + SqlTypes.pgName(at));
        }
        return a;
    }

    /** {@code x} as an element of an array of {@code element}: a quoted literal or NULL takes that type, a number widens; else 42883. */
    private static Expr element(Expr x, DatumType element, List<DatumType> in, String op) {
        DatumType xt = PgCoercion.typeOf(x, in);
        if (xt == element) {
            return x;
        }
        if (x instanceof Expr.Lit l && (l.value() == null || l.type() == DatumType.STRING)) {
            return Expr.lit(SqlTypes.convert(l.value(), element), element);
        }
        boolean widens = element == DatumType.NUMERIC && xt == DatumType.INT64 || element == DatumType.FLOAT64
                && (xt == DatumType.INT64 || xt == DatumType.NUMERIC);
        if (widens) {
            return Expr.cast(x, element);
        }
        throw new SqlException(SqlException.UNDEFINED_FUNCTION, "operator does not exist: " + SqlTypes.pgName(xt) + " " + op + " "
                + SqlTypes.pgName(DatumType.arrayOf(element)));
    }

    private static Expr integer(RexTranslator t, RexNode o, List<DatumType> in) {
        Expr i = t.rex(o, in);
        if (PgCoercion.typeOf(i, in) != DatumType.INT64) {
            throw new SqlException(SqlException.UNDEFINED_FUNCTION, "function needs an integer, got " + SqlTypes.pgName(PgCoercion.typeOf(i, in)));
        }
        return i;
    }

    private static void arity(String name, List<RexNode> ops, int min, int max) {
        if (ops.size() < min || ops.size() > max) {
            throw new SqlException(SqlException.UNDEFINED_FUNCTION, "function " + name.toLowerCase(Locale.ROOT) + " with " + ops.size()
                    + " arguments does not exist");
        }
    }

    private static SqlException undefined(String name, List<RexNode> ops, List<DatumType> in, RexTranslator t) {
        return new SqlException(SqlException.UNDEFINED_FUNCTION, "function " + name + " does not exist for these argument types");
    }
}
