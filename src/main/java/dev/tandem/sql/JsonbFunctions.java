package dev.tandem.sql;

import static dev.tandem.sql.PgCoercion.untyped;

import dev.tandem.expr.EvalError;
import dev.tandem.expr.Expr;
import dev.tandem.expr.Func;
import dev.tandem.expr.Jsonbs;
import dev.tandem.row.DatumType;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.calcite.rex.RexNode;

/**
 * The translation of PostgreSQL's jsonb operators, casts and functions (as {@link PgJsonbOperators} and
 * {@link PgFunctions} name them) to {@link Expr} calls, with PostgreSQL's operand types: a quoted literal beside a jsonb
 * is a jsonb, a key is text, an index an integer; 42883 for an operand of another type.
 */
final class JsonbFunctions {

    private JsonbFunctions() {
    }

    static Expr translate(RexTranslator t, String name, List<RexNode> ops, List<DatumType> in) {
        List<Expr> args = new ArrayList<>();
        // a parameter's value is not known when planning (a placeholder stands for it): it is read as jsonb when evaluated
        java.util.Set<Expr> params = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (RexNode o : ops) {
            Expr a = t.rex(o, in);
            if (a instanceof Expr.Lit l && l.value() != null && o.getType().getSqlTypeName() == org.apache.calcite.sql.type.SqlTypeName.VARCHAR) {
                // a constant cast to text ('x'::text) is text, not a literal of unknown type that a jsonb operand reads as jsonb
                a = Expr.cast(a, DatumType.STRING);
            }
            args.add(a);
            if (o instanceof org.apache.calcite.rex.RexDynamicParam) {
                params.add(a);
            }
        }
        return switch (name) {
            case "PG_JSONB" -> cast(args.get(0), in, params);
            case PgJsonbOperators.FIELD, PgJsonbOperators.FIELD_TEXT -> {
                Expr j = jsonb(args.get(0), in, operator(name), args.get(1), params);
                Expr k = args.get(1);
                DatumType kt = PgCoercion.typeOf(k, in);
                if (kt != DatumType.STRING && kt != DatumType.INT64) {
                    throw undefined(operator(name), j, k, in);
                }
                yield Expr.call(name.equals(PgJsonbOperators.FIELD) ? Func.JSONB_FIELD : Func.JSONB_FIELD_TEXT, j, k);
            }
            case PgJsonbOperators.PATH, PgJsonbOperators.PATH_TEXT, PgJsonbOperators.EXISTS -> {
                Expr j = jsonb(args.get(0), in, operator(name), args.get(1), params);
                Expr k = args.get(1);
                if (PgCoercion.typeOf(k, in) != DatumType.STRING) {
                    throw undefined(operator(name), j, k, in);
                }
                Func f = switch (name) {
                    case PgJsonbOperators.PATH -> Func.JSONB_PATH;
                    case PgJsonbOperators.PATH_TEXT -> Func.JSONB_PATH_TEXT;
                    default -> Func.JSONB_EXISTS;
                };
                yield Expr.call(f, j, k);
            }
            case PgJsonbOperators.CONTAINS, PgJsonbOperators.CONTAINED, PgJsonbOperators.CONCAT -> {
                if (untyped(args.get(0)) && untyped(args.get(1))) {
                    throw new SqlException(SqlState.AMBIGUOUS_FUNCTION, "operator is not unique: unknown " + operator(name) + " unknown");
                }
                Expr a = jsonb(args.get(0), in, operator(name), args.get(1), params);
                Expr b = jsonb(args.get(1), in, operator(name), args.get(0), params);
                yield switch (name) {
                    case PgJsonbOperators.CONTAINS -> Expr.call(Func.JSONB_CONTAINS, a, b);
                    case PgJsonbOperators.CONTAINED -> Expr.call(Func.JSONB_CONTAINS, b, a);
                    default -> Expr.call(Func.JSONB_CONCAT, a, b);
                };
            }
            case "JSONB_TYPEOF", "JSONB_ARRAY_LENGTH" -> {
                Expr j = args.get(0);
                if (!untyped(j) && PgCoercion.typeOf(j, in) != DatumType.JSONB) {
                    throw new SqlException(SqlException.UNDEFINED_FUNCTION, "function " + name.toLowerCase(Locale.ROOT) + "("
                            + SqlTypes.pgName(PgCoercion.typeOf(j, in)) + ") does not exist");
                }
                j = literal(j, params);
                yield Expr.call(name.equals("JSONB_TYPEOF") ? Func.JSONB_TYPEOF : Func.JSONB_ARRAY_LENGTH, j);
            }
            case "TO_JSONB" -> {
                Expr x = args.get(0);
                convertible(x, in, "to_jsonb", false);
                yield Expr.call(Func.TO_JSONB, x);
            }
            case "JSONB_BUILD_ARRAY", "JSONB_BUILD_OBJECT" -> {
                boolean object = name.equals("JSONB_BUILD_OBJECT");
                if (object && args.size() % 2 != 0) {
                    throw new SqlException(SqlException.INVALID_PARAMETER, "argument list must have even number of elements");
                }
                for (int i = 0; i < args.size(); i++) {
                    convertible(args.get(i), in, name.toLowerCase(Locale.ROOT), object && i % 2 == 0);
                }
                yield new Expr.Call(object ? Func.JSONB_BUILD_OBJECT : Func.JSONB_BUILD_ARRAY, args);
            }
            default -> throw new IllegalStateException(name);
        };
    }

    /**
     * A jsonb cast to a number or a boolean (Calcite's {@code type}), as PostgreSQL casts one: a number through
     * {@code numeric} (rounded half away from zero to an integer), 22023 for another value; 0A000 for {@code real}.
     */
    static Expr castFrom(Expr j, org.apache.calcite.sql.type.SqlTypeName type, DatumType to) {
        String name = switch (type) {
            case BOOLEAN -> "boolean";
            case BIGINT -> "bigint";
            case INTEGER -> "integer";
            case SMALLINT, TINYINT -> "smallint";
            case DECIMAL -> "numeric";
            case DOUBLE, FLOAT -> "double precision";
            default -> null;
        };
        if (name == null || !(to == DatumType.BOOL || to == DatumType.INT64 || to == DatumType.NUMERIC || to == DatumType.FLOAT64)) {
            throw SqlException.notSupported("casting jsonb to " + type.getName().toLowerCase(Locale.ROOT));
        }
        if (to == DatumType.BOOL) {
            return Expr.call(Func.JSONB_TO_BOOL, j, Expr.lit(name, DatumType.STRING));
        }
        Expr n = Expr.call(Func.JSONB_TO_NUMERIC, j, Expr.lit(name, DatumType.STRING));
        return to == DatumType.NUMERIC ? n : Expr.cast(n, to);
    }

    /** Refuses a value {@code to_jsonb} and the builders would write otherwise than PostgreSQL does. */
    private static void convertible(Expr x, List<DatumType> in, String function, boolean key) {
        DatumType xt = PgCoercion.typeOf(x, in);
        boolean ok = switch (xt) {
            case BOOL, INT64, NUMERIC, STRING, UUID, DATE, JSONB -> true;
            case FLOAT64 -> !key;
            default -> false;
        };
        if (!ok) {
            throw SqlException.notSupported(function + " of " + SqlTypes.pgName(xt) + (key ? " as a key" : ""));
        }
    }

    private static String operator(String name) {
        return switch (name) {
            case PgJsonbOperators.FIELD -> "->";
            case PgJsonbOperators.FIELD_TEXT -> "->>";
            case PgJsonbOperators.PATH -> "#>";
            case PgJsonbOperators.PATH_TEXT -> "#>>";
            case PgJsonbOperators.CONTAINS -> "@>";
            case PgJsonbOperators.CONTAINED -> "<@";
            case PgJsonbOperators.EXISTS -> "?";
            default -> "||";
        };
    }

    /** The jsonb operand of an operator: a jsonb, or a quoted literal read as one. */
    private static Expr jsonb(Expr e, List<DatumType> in, String op, Expr other, java.util.Set<Expr> params) {
        if (untyped(e)) {
            return literal(e, params);
        }
        if (op.equals("||") && PgCoercion.typeOf(e, in) == DatumType.STRING) {
            // PostgreSQL's jsonb || text is text's concatenation of jsonb's output
            throw SqlException.notSupported("jsonb || text (cast the jsonb to text, or the text to jsonb)");
        }
        if (PgCoercion.typeOf(e, in) != DatumType.JSONB) {
            throw undefined(op, e, other, in);
        }
        return e;
    }

    private static Expr literal(Expr e, java.util.Set<Expr> params) {
        if (params.contains(e)) {
            return Expr.cast(e, DatumType.JSONB);
        }
        if (e instanceof Expr.Lit l && l.value() == null) {
            return Expr.lit(null, DatumType.JSONB);
        }
        if (e instanceof Expr.Lit l && l.value() instanceof String s) {
            try {
                return Expr.lit(Jsonbs.parse(s), DatumType.JSONB);
            } catch (EvalError x) {
                throw SqlErrors.evaluation(x);
            }
        }
        return e;
    }

    private static SqlException undefined(String op, Expr a, Expr b, List<DatumType> in) {
        return new SqlException(SqlException.UNDEFINED_FUNCTION, "operator does not exist: " + SqlTypes.pgName(PgCoercion.typeOf(a, in))
                + " " + op + " " + (untyped(b) ? "unknown" : SqlTypes.pgName(PgCoercion.typeOf(b, in))));
    }

    /** A cast to jsonb: of a quoted literal, its value; of text, parsed when evaluated; 42846 from other types. */
    private static Expr cast(Expr x, List<DatumType> in, java.util.Set<Expr> params) {
        if (untyped(x)) {
            return literal(x, params);
        }
        DatumType xt = PgCoercion.typeOf(x, in);
        if (xt == DatumType.JSONB) {
            return x;
        }
        if (xt != DatumType.STRING) {
            throw new SqlException(SqlState.CANNOT_COERCE, "cannot cast type " + SqlTypes.pgName(xt) + " to jsonb");
        }
        return Expr.cast(x, DatumType.JSONB);
    }
}
