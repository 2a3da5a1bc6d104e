package dev.tandem.sql;

import dev.tandem.controller.DeclaredType;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.IntUnaryOperator;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelRoot;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.rel.core.Correlate;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.core.SetOp;
import org.apache.calcite.rel.core.Sort;
import org.apache.calcite.rel.core.TableScan;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexDynamicParam;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexOver;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.sql.SqlFunction;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.type.OperandTypes;
import org.apache.calcite.sql.type.ReturnTypes;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.type.SqlTypeTransforms;
import org.apache.calcite.sql.type.SqlTypeUtil;

/**
 * PostgreSQL's {@code character(n)} ({@code bpchar}) through a planned query. A {@code character(n)} value is kept
 * without its trailing spaces, so comparing, grouping, {@code DISTINCT}, ordering and index keys ignore them as
 * PostgreSQL's {@code bpchar} does, and a cast to text, {@code ||} and the text functions see the value PostgreSQL
 * gives them; what sees the blank-padded value is rewritten here: a literal or parameter compared with one loses its
 * trailing spaces (PostgreSQL reads it as {@code bpchar}), the operand of {@code LIKE}, {@code SIMILAR TO}, the
 * regular-expression operators and {@code octet_length} is padded to {@code n}; and {@link #length} says which result columns are
 * {@code character(n)}, written blank-padded. A choice ({@code CASE}, {@code COALESCE}...) or set operation over one takes
 * PostgreSQL's resolved type, that of its first value that is no literal: a {@code text} there makes the result text (the
 * {@code character(n)} values without their padding), a {@code character(n)} makes it that {@code character(n)} when all
 * values are. Where PostgreSQL's answer keeps each value's own padding (a choice or set operation mixing it with other
 * types or lengths, {@code array_agg}, an array of them), or compares it as another type ({@code varchar}), the query is
 * refused.
 */
final class BpcharSemantics {

    /** The length of a field that is no {@code character(n)}. */
    static final int NONE = -1;
    /** The length of a {@code character(n)} under a cast Calcite added to unify it with another type or length. */
    static final int CAST = -2;

    /** A literal's or parameter's trailing spaces removed: its value read as a {@code character}. */
    static final SqlFunction TRIM = new SqlFunction("PG_BPCHAR_TRIM", SqlKind.OTHER_FUNCTION, ReturnTypes.ARG0, null, OperandTypes.ANY,
            SqlFunctionCategory.USER_DEFINED_FUNCTION);

    /** A {@code character(n)} value blank-padded to its length (the operand, then {@code n}), as pattern matching sees it. */
    static final SqlFunction PAD = new SqlFunction("PG_BPCHAR_PAD", SqlKind.OTHER_FUNCTION,
            ReturnTypes.cascade(ReturnTypes.VARCHAR, SqlTypeTransforms.TO_NULLABLE), null, OperandTypes.ANY_ANY,
            SqlFunctionCategory.USER_DEFINED_FUNCTION);

    private static final Set<SqlKind> COMPARISONS = Set.of(SqlKind.EQUALS, SqlKind.NOT_EQUALS, SqlKind.LESS_THAN, SqlKind.LESS_THAN_OR_EQUAL,
            SqlKind.GREATER_THAN, SqlKind.GREATER_THAN_OR_EQUAL, SqlKind.IS_DISTINCT_FROM, SqlKind.IS_NOT_DISTINCT_FROM);

    private static final Set<SqlKind> CHOICES = Set.of(SqlKind.CASE, SqlKind.COALESCE, SqlKind.NULLIF, SqlKind.GREATEST, SqlKind.LEAST,
            SqlKind.ARRAY_VALUE_CONSTRUCTOR);

    private BpcharSemantics() {
    }

    /** An explicit cast of {@code s} to {@code character(n)}: cut to {@code n} characters, kept without trailing spaces. */
    static String cast(String s, int n) {
        String cut = s.codePointCount(0, s.length()) > n ? s.substring(0, s.offsetByCodePoints(0, n)) : s;
        return DeclaredType.stripTrailingSpaces(cut);
    }

    /** {@code root} with its {@code character(n)} comparisons and pattern matches rewritten as above; refuses what is refused above. */
    static RelRoot apply(RelRoot root) {
        RelNode rel = rewrite(root.rel);
        return rel == root.rel ? root : root.withRel(rel);
    }

    private static RelNode rewrite(RelNode rel) {
        List<RelNode> inputs = new ArrayList<>();
        boolean changed = false;
        for (RelNode in : rel.getInputs()) {
            RelNode r = rewrite(in);
            inputs.add(r);
            changed |= r != in;
        }
        RelNode node = changed ? rel.copy(rel.getTraitSet(), inputs) : rel;
        if (node instanceof Aggregate a) {
            for (AggregateCall call : a.getAggCallList()) {
                if (call.getAggregation().getKind() == SqlKind.ARRAY_AGG && call.getArgList().size() == 1
                        && length(a.getInput(), call.getArgList().get(0)) != NONE) {
                    throw SqlException.notSupported("array_agg of a character(n) value (PostgreSQL's answer is a character[]: cast it to text)");
                }
            }
        }
        BpcharArrays.check(node);
        if (node instanceof Project || node instanceof Filter || node instanceof Join) {
            return node.accept(new Rewriter(node));
        }
        return node;
    }

    /**
     * The length {@code n} of field {@code i} of {@code rel} when it is a {@code character(n)}, else {@link #NONE} (or
     * {@link #CAST}); refuses a set operation mixing a {@code character(n)} with another type or length.
     */
    static int length(RelNode rel, int i) {
        return switch (rel) {
            case TableScan s -> {
                DeclaredType d = CalcitePlanner.declared(s.getTable(), i);
                yield d != null && d.kind() == DeclaredType.Kind.BPCHAR ? d.length() : NONE;
            }
            case Project p -> length(p.getProjects().get(i), k -> length(p.getInput(), k));
            case Filter f -> length(f.getInput(), i);
            case Sort s -> length(s.getInput(), i);
            case Join j -> inputs(j.getLeft(), j.getRight()).applyAsInt(i);
            case Correlate c -> inputs(c.getLeft(), c.getRight()).applyAsInt(i);
            case Aggregate a -> {
                int groups = a.getGroupCount();
                if (i < groups) {
                    yield length(a.getInput(), a.getGroupSet().nth(i));
                }
                AggregateCall call = a.getAggCallList().get(i - groups);
                SqlKind kind = call.getAggregation().getKind();
                yield (kind == SqlKind.MIN || kind == SqlKind.MAX) && call.getArgList().size() == 1
                        ? length(a.getInput(), call.getArgList().get(0)) : NONE;
            }
            case SetOp u -> {
                int first = length(u.getInputs().get(0), i);
                if (first == NONE && textual(u.getInputs().get(0), i)) {
                    // as PostgreSQL resolves it: the first input's text (or varchar) type, each char(n) value cast to it without its padding
                    yield NONE;
                }
                for (RelNode in : u.getInputs()) {
                    int n = length(in, i);
                    if (n != first || n == CAST) {
                        throw SqlException.notSupported("a set operation of a character(n) value with a value of another type or length"
                                + " (PostgreSQL's answer keeps each value's own padding: cast them to text)");
                    }
                }
                yield first;
            }
            default -> NONE;
        };
    }

    /** The fields of a join's inputs, the left's then the right's. */
    private static IntUnaryOperator inputs(RelNode left, RelNode right) {
        int n = left.getRowType().getFieldCount();
        return k -> k < n ? length(left, k) : length(right, k - n);
    }

    /** The length of {@code e} when it is a {@code character(n)}, its input fields' lengths given by {@code fields}. */
    static int length(RexNode e, IntUnaryOperator fields) {
        return switch (e) {
            case RexInputRef r -> fields.applyAsInt(r.getIndex());
            case RexOver o when (o.getKind() == SqlKind.LAG || o.getKind() == SqlKind.LEAD || o.getKind() == SqlKind.MIN
                    || o.getKind() == SqlKind.MAX || o.getKind() == SqlKind.FIRST_VALUE || o.getKind() == SqlKind.LAST_VALUE)
                    && !o.getOperands().isEmpty() -> length(o.getOperands().get(0), fields);
            case RexCall c when c.getOperator().getName().equals(PgFunctions.BPCHAR.getName()) ->
                    ((RexLiteral) c.getOperands().get(1)).getValueAs(Integer.class);
            case RexCall c when c.getKind() == SqlKind.CAST && unifying(c.getType()) && length(c.getOperands().get(0), fields) != NONE -> CAST;
            case RexCall c when choice(c) -> chosen(c, fields);
            default -> NONE;
        };
    }

    /** Whether {@code c} chooses one of its operands' values: {@code CASE}, {@code COALESCE}, {@code NULLIF}, {@code greatest}, {@code least}. */
    private static boolean choice(RexCall c) {
        return (CHOICES.contains(c.getKind()) && c.getKind() != SqlKind.ARRAY_VALUE_CONSTRUCTOR || c.getOperator().getName().equalsIgnoreCase("GREATEST")
                || c.getOperator().getName().equalsIgnoreCase("LEAST")) && SqlTypeUtil.inCharFamily(c.getType());
    }

    /**
     * The length of a choice among values of which one is a {@code character(n)}, as PostgreSQL resolves its type: the first
     * value's that is no quoted literal or NULL ({@code CASE}'s {@code ELSE} first); a {@code text} or {@code varchar} there makes
     * the choice that type ({@link #NONE}: the {@code character(n)} values lose their padding), a {@code character(n)} makes it
     * {@code character(n)} when every value is one of that length or NULL; otherwise the values keep each their own padding,
     * which is refused.
     */
    private static int chosen(RexCall c, IntUnaryOperator fields) {
        List<RexNode> values = new ArrayList<>();
        List<RexNode> ops = c.getOperands();
        if (c.getKind() == SqlKind.CASE) {
            values.add(ops.get(ops.size() - 1));
            for (int k = 1; k < ops.size() - 1; k += 2) {
                values.add(ops.get(k));
            }
        } else if (c.getKind() == SqlKind.NULLIF) {
            // PostgreSQL's NULLIF(a, b) is of the type a is compared with b as: a character(n) beside another character or a quoted literal
            RexNode other = ops.get(1);
            if ((length(ops.get(0), fields) != NONE || length(other, fields) != NONE) && length(other, fields) <= 0 && !(uncast(other) instanceof RexLiteral)) {
                throw SqlException.notSupported("nullif of a character(n) value and a value of another type (PostgreSQL compares them as"
                        + " text or character and answers that type: cast them to text)");
            }
            values.add(ops.get(0));
        } else {
            values.addAll(ops);
        }
        // a character(n) cast to text beside a text value may be Calcite's cast unifying them (PostgreSQL's type is then the first's)
        boolean unified = values.stream().anyMatch(v -> !(v instanceof RexLiteral) && uncast(v) == v && length(v, fields) == NONE
                && v.getType().getSqlTypeName() == SqlTypeName.VARCHAR);
        List<Integer> lengths = new ArrayList<>();
        for (RexNode v : values) {
            int n = length(v, fields);
            lengths.add(n == NONE && unified && uncast(v) != v && length(uncast(v), fields) != NONE ? CAST : n);
        }
        if (lengths.stream().allMatch(n -> n == NONE)) {
            return NONE;
        }
        int first = first(values, lengths);
        if (first == NONE) {
            return NONE;
        }
        for (int k = 0; k < values.size(); k++) {
            if (!(uncast(values.get(k)) instanceof RexLiteral l && l.isNull()) && lengths.get(k) != first) {
                throw SqlException.notSupported(c.getKind().lowerName + " of a character(n) value and a value of another type or length"
                        + " (PostgreSQL's answer keeps each value's own padding: cast them to text)");
            }
        }
        return first;
    }

    /** The length of the first of {@code values} that is no quoted literal or NULL: {@link #NONE} for a text or varchar, refused for others. */
    private static int first(List<RexNode> values, List<Integer> lengths) {
        for (int k = 0; k < values.size(); k++) {
            RexNode x = uncast(values.get(k));
            if (x instanceof RexLiteral) {
                continue;
            }
            int n = lengths.get(k);
            if (n > 0) {
                return n;
            }
            if (n == NONE && values.get(k).getType().getSqlTypeName() == SqlTypeName.VARCHAR && !(x instanceof RexDynamicParam)) {
                return NONE;
            }
            break;
        }
        throw SqlException.notSupported("a choice among a character(n) value and values of another type or length"
                + " (PostgreSQL's answer keeps each value's own padding: cast them to text)");
    }

    /** Whether field {@code i} of {@code rel} is a {@code text} or {@code varchar} value that is no quoted literal or NULL. */
    private static boolean textual(RelNode rel, int i) {
        return switch (rel) {
            case TableScan s -> s.getRowType().getFieldList().get(i).getType().getSqlTypeName() == SqlTypeName.VARCHAR;
            case Project p -> switch (p.getProjects().get(i)) {
                case RexInputRef r -> textual(p.getInput(), r.getIndex());
                case RexCall c -> c.getType().getSqlTypeName() == SqlTypeName.VARCHAR && length(c, k -> length(p.getInput(), k)) == NONE
                        && !(uncast(c) instanceof RexLiteral) && !(uncast(c) instanceof RexDynamicParam)
                        && (!(uncast(c) instanceof RexInputRef r) || textual(p.getInput(), r.getIndex()));
                default -> false;
            };
            case Filter f -> textual(f.getInput(), i);
            case Sort s -> textual(s.getInput(), i);
            case Aggregate a -> i < a.getGroupCount() && textual(a.getInput(), a.getGroupSet().nth(i));
            default -> false;
        };
    }

    /** Whether a cast to {@code type} is one Calcite adds to unify strings: to a {@code CHAR(m)} or a {@code VARCHAR(m)}. */
    private static boolean unifying(org.apache.calcite.rel.type.RelDataType type) {
        return type.getSqlTypeName() == SqlTypeName.CHAR
                || type.getSqlTypeName() == SqlTypeName.VARCHAR && type.getPrecision() > 0 && type.getPrecision() < Integer.MAX_VALUE;
    }

    /** {@code e} under its casts. */
    private static RexNode uncast(RexNode e) {
        RexNode x = e;
        while (x instanceof RexCall c && c.getKind() == SqlKind.CAST) {
            x = c.getOperands().get(0);
        }
        return x;
    }

    /** Whether {@code e} is a {@code varchar(n)} column (through its casts), its input fields given by {@code node}. */
    private static boolean varcharColumn(RexNode e, RelNode node) {
        RexNode x = uncast(e);
        if (!(x instanceof RexInputRef r)) {
            return false;
        }
        int k = r.getIndex();
        for (RelNode in : node.getInputs()) {
            int n = in.getRowType().getFieldCount();
            if (k < n) {
                DeclaredType d = declared(in, k);
                return d != null && d.kind() == DeclaredType.Kind.VARCHAR;
            }
            k -= n;
        }
        return false;
    }

    /**
     * The {@code character varying[]}, {@code character varying(n)[]}, {@code numeric(p, s)[]} or {@code character(n)[]} of field
     * {@code i} of {@code rel} when it is such a column passed through unchanged, else null.
     */
    static DeclaredType declaredArray(RelNode rel, int i) {
        DeclaredType d = declared(rel, i);
        return d != null && (d.kind() == DeclaredType.Kind.VARCHAR_ARRAY || d.kind() == DeclaredType.Kind.NUMERIC_ARRAY
                || d.kind() == DeclaredType.Kind.BPCHAR_ARRAY) ? d : null;
    }

    /** The declared type of field {@code i} of {@code rel} when it is a table's or view's column passed through unchanged, else null. */
    static DeclaredType declared(RelNode rel, int i) {
        return switch (rel) {
            case TableScan s -> CalcitePlanner.declared(s.getTable(), i);
            case Project p -> p.getProjects().get(i) instanceof RexInputRef r ? declared(p.getInput(), r.getIndex()) : null;
            case Filter f -> declared(f.getInput(), i);
            case Sort s -> declared(s.getInput(), i);
            case Join j -> i < j.getLeft().getRowType().getFieldCount() ? declared(j.getLeft(), i)
                    : declared(j.getRight(), i - j.getLeft().getRowType().getFieldCount());
            case Aggregate a -> i < a.getGroupCount() ? declared(a.getInput(), a.getGroupSet().nth(i)) : null;
            default -> null;
        };
    }

    /** The rewriting of one node's expressions, whose input fields are its inputs' fields in order. */
    private static final class Rewriter extends RexShuttle {
        private final RelNode node;
        private final RexBuilder b;
        private final IntUnaryOperator fields;

        Rewriter(RelNode node) {
            this.node = node;
            this.b = node.getCluster().getRexBuilder();
            this.fields = node instanceof Join j ? inputs(j.getLeft(), j.getRight()) : k -> BpcharSemantics.length(node.getInput(0), k);
        }

        private int length(RexNode e) {
            return BpcharSemantics.length(e, fields);
        }

        @Override
        public RexNode visitCall(RexCall call) {
            RexNode visited = super.visitCall(call);
            if (!(visited instanceof RexCall c)) {
                return visited;
            }
            List<RexNode> ops = c.getOperands();
            SqlKind kind = c.getKind();
            if (kind == SqlKind.SEARCH && length(ops.get(0)) != NONE) {
                // c IN ('a', 'b'), c BETWEEN ...: as comparisons, each rewritten
                return RexUtil.expandSearch(b, null, c).accept(this);
            }
            if (COMPARISONS.contains(kind) && ops.size() == 2) {
                return compared(c);
            }
            if ((kind == SqlKind.SOME || kind == SqlKind.ALL) && ops.stream().anyMatch(o -> length(o) != NONE)) {
                throw SqlException.notSupported("ANY/ALL with a character(n) value (PostgreSQL compares the elements as character:"
                        + " compare with IN or with each element)");
            }
            if ((kind == SqlKind.LIKE || kind == SqlKind.SIMILAR || c.getOperator().getName().equalsIgnoreCase("OCTET_LENGTH")) && !ops.isEmpty()) {
                int n = length(ops.get(0));
                if (n == CAST) {
                    throw SqlException.notSupported("pattern matching or octet_length of a character(n) value cast to another length (cast it to text)");
                }
                if (n > 0) {
                    List<RexNode> padded = new ArrayList<>(ops);
                    padded.set(0, b.makeCall(PAD, ops.get(0), b.makeExactLiteral(BigDecimal.valueOf(n))));
                    return c.clone(c.getType(), padded);
                }
                return c;
            }
            if (kind == SqlKind.ARRAY_VALUE_CONSTRUCTOR) {
                for (RexNode o : ops) {
                    if (length(o) != NONE) {
                        throw SqlException.notSupported("ARRAY[...] of a character(n) value (PostgreSQL's answer is a character[]: cast it to text)");
                    }
                }
            }
            if (choice(c)) {
                length(c);
            }
            return c;
        }

        /** A comparison: a literal or parameter compared with a {@code character(n)} read as one, without trailing spaces. */
        private RexNode compared(RexCall c) {
            List<RexNode> ops = c.getOperands();
            if (length(uncast(ops.get(0))) != NONE && varcharColumn(ops.get(1), node)
                    || length(uncast(ops.get(1))) != NONE && varcharColumn(ops.get(0), node)) {
                throw SqlException.notSupported("comparing a character(n) value with a character varying(n) column"
                        + " (PostgreSQL compares them as character: cast the varchar to char(n))");
            }
            boolean x = length(ops.get(0)) != NONE;
            boolean y = length(ops.get(1)) != NONE;
            if (!x && !y) {
                return c;
            }
            List<RexNode> out = new ArrayList<>(ops);
            for (int i = 0; i < 2; i++) {
                boolean other = i == 0 ? y : x;
                if (other && !(i == 0 ? x : y)) {
                    out.set(i, trimmed(ops.get(i)));
                }
            }
            return out.equals(ops) ? c : c.clone(c.getType(), out);
        }

        /** A literal or parameter (possibly cast) without its trailing spaces; anything else as it is. */
        private RexNode trimmed(RexNode e) {
            RexNode x = uncast(e);
            if (x instanceof RexLiteral l && l.getValue() instanceof org.apache.calcite.util.NlsString s) {
                return b.makeLiteral(DeclaredType.stripTrailingSpaces(s.getValue()));
            }
            if (x instanceof RexDynamicParam) {
                return b.makeCall(TRIM, e);
            }
            return e;
        }
    }
}
