package dev.tandem.sql;

import dev.tandem.expr.Expr;
import dev.tandem.expr.ExprException;
import dev.tandem.expr.Func;
import dev.tandem.row.DatumType;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The folding of NULL and boolean constants that PostgreSQL's planner does before any row is read, so that a statement
 * answers where PostgreSQL's does instead of failing on an operand PostgreSQL never evaluates:
 * <ul>
 *   <li>a strict operator or function with a NULL constant argument is that NULL: {@code (16 / -count(*)) * NULL::int}
 *       is NULL even when {@code count(*)} is 0 (PostgreSQL: {@code evaluate_function} on a strict function);</li>
 *   <li>{@code AND} drops {@code TRUE} constants and is {@code FALSE} with a {@code FALSE} one; {@code OR} the other way
 *       round; either is NULL when only NULL constants are left;</li>
 *   <li>{@code NOT} of a constant is folded, and {@code NOT} of an {@code AND}/{@code OR} holding a constant is pushed
 *       inside by De Morgan's laws, exact in SQL's three-valued logic ({@code negate_clause}), so
 *       {@code NOT (x NOT BETWEEN a AND NULL)} becomes {@code x >= a AND NULL};</li>
 *   <li>a {@code WHERE} or {@code HAVING} condition whose conjuncts hold a NULL or {@code FALSE} constant keeps no row
 *       and evaluates nothing ({@link #condition}; PostgreSQL's one-time filter).</li>
 * </ul>
 * The result of every fold is the value evaluation would have given whenever evaluation gives one; only errors of
 * operands PostgreSQL does not evaluate go away. Functions PostgreSQL does not declare strict ({@code concat},
 * {@code coalesce}, {@code greatest}, CASE, IS NULL, array functions) are never folded.
 */
final class PgConstantFolding {

    /** Functions whose value is NULL when any argument is, in Tandem's evaluation and in PostgreSQL's catalog alike. */
    private static final Set<Func> STRICT = EnumSet.of(Func.EQ, Func.NEQ, Func.LT, Func.LTE, Func.GT, Func.GTE, Func.NOT,
            Func.ADD, Func.SUB, Func.MUL, Func.DIV, Func.MOD, Func.NEG, Func.ABS, Func.FIT_INT4, Func.FIT_INT2, Func.FIT_NUMERIC,
            Func.CONCAT, Func.LOWER, Func.UPPER, Func.LENGTH, Func.ROUND, Func.ROUND_NUMERIC, Func.TRUNC, Func.FLOOR, Func.CEIL,
            Func.SIGN, Func.SQRT, Func.EXP, Func.LN, Func.LOG10, Func.POWER);

    private PgConstantFolding() {
    }

    /** {@code e}, over input columns of types {@code in}, with its NULL and boolean constants folded. */
    static Expr fold(Expr e, List<DatumType> in) {
        if (!(e instanceof Expr.Call c)) {
            return e;
        }
        List<Expr> args = new ArrayList<>(c.args().size());
        boolean changed = false;
        for (Expr a : c.args()) {
            Expr f = fold(a, in);
            changed |= f != a;
            args.add(f);
        }
        Expr.Call call = changed ? new Expr.Call(c.func(), args, c.type()) : c;
        return switch (call.func()) {
            case AND, OR -> junction(call.func(), args);
            case NOT -> negation(args.get(0));
            case CAST -> isNull(args.get(0)) ? nullOf(call, in) : call;
            default -> STRICT.contains(call.func()) && args.stream().anyMatch(PgConstantFolding::isNull) ? nullOf(call, in) : call;
        };
    }

    /**
     * A folded {@code WHERE} or {@code HAVING} condition, or {@code FALSE} when it keeps no row: when it is,
     * or one of its conjuncts is, a NULL or {@code FALSE} constant, its other conjuncts are never evaluated.
     */
    static Expr condition(Expr folded) {
        boolean never = RelTranslator.conjuncts(folded).stream().anyMatch(c -> c instanceof Expr.Lit l && !Boolean.TRUE.equals(l.value()));
        return never ? Expr.lit(false, DatumType.BOOL) : folded;
    }

    private static Expr junction(Func func, List<Expr> args) {
        boolean decider = func == Func.OR;
        boolean sawNull = false;
        List<Expr> kept = new ArrayList<>(args.size());
        for (Expr a : args) {
            if (a instanceof Expr.Lit l) {
                if (l.value() == null) {
                    sawNull = true;
                } else if ((Boolean) l.value() == decider) {
                    return Expr.lit(decider, DatumType.BOOL);
                }
            } else {
                kept.add(a);
            }
        }
        if (kept.isEmpty()) {
            return Expr.lit(sawNull ? null : !decider, DatumType.BOOL);
        }
        if (sawNull) {
            kept.add(Expr.lit(null, DatumType.BOOL));
        }
        return kept.size() == 1 ? kept.get(0) : new Expr.Call(func, kept);
    }

    private static Expr negation(Expr arg) {
        if (arg instanceof Expr.Lit l) {
            return Expr.lit(l.value() == null ? null : !(Boolean) l.value(), DatumType.BOOL);
        }
        if (arg instanceof Expr.Call c && c.func() == Func.NOT) {
            return c.args().get(0);
        }
        if (arg instanceof Expr.Call c && (c.func() == Func.AND || c.func() == Func.OR) && c.args().stream().anyMatch(a -> a instanceof Expr.Lit)) {
            List<Expr> negated = new ArrayList<>(c.args().size());
            for (Expr a : c.args()) {
                negated.add(negation(a));
            }
            return junction(c.func() == Func.AND ? Func.OR : Func.AND, negated);
        }
        return Expr.call(Func.NOT, arg);
    }

    private static boolean isNull(Expr e) {
        return e instanceof Expr.Lit l && l.value() == null;
    }

    /** The NULL of {@code call}'s type, or {@code call} itself when it does not type (it is refused later as it was). */
    private static Expr nullOf(Expr.Call call, List<DatumType> in) {
        try {
            return Expr.lit(null, call.typeOf(in));
        } catch (ExprException e) {
            return call;
        }
    }
}
