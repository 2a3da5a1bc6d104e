package dev.tandem.sql;

import dev.tandem.expr.Expr;
import dev.tandem.expr.Mfp;
import dev.tandem.plan.Plan;
import dev.tandem.row.DatumType;
import dev.tandem.row.Interval;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlKind;

/**
 * The temporal filters of a maintained view or subscription: the {@code WHERE} conjuncts of the form
 * {@code <expression of the row> <op> now() [± constant interval ...]} (either side first; op one of {@code <},
 * {@code <=}, {@code >}, {@code >=}, {@code =}; {@code BETWEEN} is two of them), where {@code now()} is the logical
 * time of the update computed, translated to the bounds of a {@link Plan.TemporalFilter}. {@code current_timestamp}
 * and {@code transaction_timestamp()} are {@code now()}; {@code localtimestamp} is {@code now()} in the zone, compared
 * with a {@code timestamp}. Any other use of the time in a maintained result is refused.
 */
final class TemporalFilters {

    /** The functions that read the time, in Calcite's (upper-case) names. */
    private static final Set<String> TIME_FUNCTIONS = Set.of("NOW", "STATEMENT_TIMESTAMP", "TRANSACTION_TIMESTAMP",
            PgFunctions.PG_CURRENT_TIMESTAMP, PgFunctions.PG_LOCALTIMESTAMP, PgFunctions.PG_LOCALTIME, PgFunctions.PG_CURRENT_DATE,
            PgFunctions.PG_CURRENT_TIME, "CLOCK_TIMESTAMP", "AGE");
    /** The functions a temporal filter takes as the time of the update, as a timestamptz. */
    private static final Set<String> NOW = Set.of("NOW", "TRANSACTION_TIMESTAMP", PgFunctions.PG_CURRENT_TIMESTAMP);
    private static final long MICROS_PER_DAY = 86_400_000_000L;
    /** The largest offset from the time taken: 6,000 years, so the time moved by it stays within the range of timestamps. */
    private static final long MAX_SHIFT = 6000L * 36525 / 100 * MICROS_PER_DAY;

    private TemporalFilters() {
    }

    /** Whether {@code node} reads the time (a call of {@code now()} or one of its kin anywhere in it). */
    static boolean readsTime(RexNode node) {
        if (node instanceof RexCall call) {
            String name = call.getOperator().getName().toUpperCase(Locale.ROOT);
            if (name.equals("AGE") ? call.getOperands().size() == 1 : TIME_FUNCTIONS.contains(name)) {
                return true;
            }
            for (RexNode op : call.getOperands()) {
                if (readsTime(op)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** {@code in} filtered by {@code condition}, whose conjuncts that read the time become a temporal filter over the others. */
    static RelTranslator.Translated filter(RexNode condition, RelTranslator.Translated in, RexTranslator rex) {
        List<Expr> plain = new ArrayList<>();
        List<Plan.TemporalBound> bounds = new ArrayList<>();
        for (RexNode conjunct : RelOptUtil.conjunctions(condition)) {
            if (readsTime(conjunct)) {
                bounds.add(bound(conjunct, in.types(), rex));
            } else {
                plain.add(rex.rex(conjunct, in.types()));
            }
        }
        Plan plan = plain.isEmpty() ? in.plan() : new Plan.MapFilterProject(in.plan(), Mfp.filter(plain));
        return new RelTranslator.Translated(new Plan.TemporalFilter(plan, bounds), in.types());
    }

    private static SqlException unsupported(String what) {
        return SqlException.notSupported(what + " in a temporal filter (a view's or subscription's WHERE conjunct comparing an expression"
                + " of the row with now() plus or minus constant intervals, by <, <=, >, >=, = or BETWEEN, as in WHERE created_at > now()"
                + " - INTERVAL '1 hour')");
    }

    private static Plan.TemporalBound bound(RexNode conjunct, List<DatumType> in, RexTranslator rex) {
        Plan.TemporalCmp cmp = conjunct instanceof RexCall c && c.getOperands().size() == 2 ? switch (c.getKind()) {
            case LESS_THAN -> Plan.TemporalCmp.LT;
            case LESS_THAN_OR_EQUAL -> Plan.TemporalCmp.LE;
            case GREATER_THAN -> Plan.TemporalCmp.GT;
            case GREATER_THAN_OR_EQUAL -> Plan.TemporalCmp.GE;
            case EQUALS -> Plan.TemporalCmp.EQ;
            default -> null;
        } : null;
        if (cmp == null) {
            throw unsupported("the time read other than by a comparison (" + describe(conjunct) + ")");
        }
        RexCall call = (RexCall) conjunct;
        RexNode left = call.getOperands().get(0);
        RexNode right = call.getOperands().get(1);
        if (readsTime(left) == readsTime(right)) {
            throw unsupported("a comparison of the time with the time");
        }
        boolean nowFirst = readsTime(left);
        Now now = now(nowFirst ? left : right, in, rex);
        if (now == null) {
            throw unsupported("the time as " + describe(nowFirst ? left : right) + " (only now() plus or minus constant intervals compare)");
        }
        Expr row = rex.rex(nowFirst ? right : left, in);
        DatumType rowType = PgCoercion.typeOf(row, in);
        DatumType wanted = now.local ? DatumType.TIMESTAMP : DatumType.TIMESTAMPTZ;
        if (rowType != wanted) {
            throw unsupported("a comparison of " + (now.local ? "localtimestamp" : "now()") + " with a value of type " + SqlTypes.pgName(rowType)
                    + " (it compares with a " + SqlTypes.pgName(wanted) + ")");
        }
        long shift = now.shift;
        if (now.local) {
            java.time.ZoneId zone = rex.sessionZone();
            if (zone == null) {
                rex.dependsOnZone();
            } else if (!zone.getRules().isFixedOffset()) {
                throw unsupported("localtimestamp in a session whose TimeZone (" + zone.getId() + ") changes its offset");
            } else {
                shift += zone.getRules().getOffset(java.time.Instant.EPOCH).getTotalSeconds() * 1_000_000L;
            }
        }
        // t + shift cmp row, read the other way round when the row came first
        return new Plan.TemporalBound(nowFirst ? cmp : flip(cmp), row, shift);
    }

    private static Plan.TemporalCmp flip(Plan.TemporalCmp cmp) {
        return switch (cmp) {
            case LT -> Plan.TemporalCmp.GT;
            case LE -> Plan.TemporalCmp.GE;
            case GT -> Plan.TemporalCmp.LT;
            case GE -> Plan.TemporalCmp.LE;
            case EQ -> Plan.TemporalCmp.EQ;
        };
    }

    /** The time read as {@code now()} (or {@code localtimestamp}, when {@code local}) moved by {@code shift} microseconds. */
    private record Now(boolean local, long shift) {
    }

    /** {@code node} as the time moved by constant intervals, or null when it is not that. */
    private static Now now(RexNode node, List<DatumType> in, RexTranslator rex) {
        if (!(node instanceof RexCall call)) {
            return null;
        }
        String name = call.getOperator().getName().toUpperCase(Locale.ROOT);
        if (call.getOperands().isEmpty() && NOW.contains(name)) {
            return new Now(false, 0);
        }
        if (call.getOperands().isEmpty() && name.equals(PgFunctions.PG_LOCALTIMESTAMP)) {
            return new Now(true, 0);
        }
        if (call.getOperands().size() != 2 || call.getKind() != SqlKind.PLUS && call.getKind() != SqlKind.MINUS) {
            return null;
        }
        RexNode a = call.getOperands().get(0);
        RexNode b = call.getOperands().get(1);
        boolean plus = call.getKind() == SqlKind.PLUS;
        if (plus && !readsTime(a)) {
            RexNode t = a;
            a = b;
            b = t;
        }
        if (!readsTime(a) || readsTime(b)) {
            return null;
        }
        Now base = now(a, in, rex);
        if (base == null) {
            return null;
        }
        long d = interval(b, in, rex);
        long shift = plus ? base.shift + d : base.shift - d;
        if (Math.abs(shift) > MAX_SHIFT) {
            throw unsupported("an offset of the time over 6,000 years");
        }
        return new Now(base.local, shift);
    }

    /** A constant interval's length in microseconds: days are 24 hours (in UTC or a zone of fixed offset); months are refused. */
    private static long interval(RexNode node, List<DatumType> in, RexTranslator rex) {
        Expr e = rex.rex(node, in);
        if (!(e instanceof Expr.Lit l) || !(l.value() instanceof Interval i)) {
            throw unsupported("the time moved by " + describe(node) + " (it moves by constant intervals only)");
        }
        if (i.months() != 0) {
            throw unsupported("an interval of months or years (" + describe(node) + ", whose length in time varies)");
        }
        if (i.days() != 0) {
            java.time.ZoneId zone = rex.sessionZone();
            if (zone == null) {
                rex.dependsOnZone();
            } else if (!zone.getRules().isFixedOffset()) {
                throw unsupported("an interval of days in a session whose TimeZone (" + zone.getId() + ") changes its offset (a day there is not"
                        + " always 24 hours)");
            }
        }
        if (Math.abs((long) i.days()) > MAX_SHIFT / MICROS_PER_DAY || Math.abs(i.micros()) > MAX_SHIFT) {
            throw unsupported("an offset of the time over 6,000 years");
        }
        return i.days() * MICROS_PER_DAY + i.micros();
    }

    private static String describe(RexNode node) {
        return node.toString().toLowerCase(Locale.ROOT).replace("pg_", "");
    }
}
