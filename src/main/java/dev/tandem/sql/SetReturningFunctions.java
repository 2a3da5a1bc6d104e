package dev.tandem.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlCallBinding;
import org.apache.calcite.sql.SqlFunction;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlJoin;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOperandCountRange;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.SqlTableFunction;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.type.ReturnTypes;
import org.apache.calcite.sql.type.SqlOperandCountRanges;
import org.apache.calcite.sql.type.SqlOperandTypeChecker;
import org.apache.calcite.sql.type.SqlReturnTypeInference;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.type.SqlTypeUtil;
import org.apache.calcite.sql.util.SqlBasicVisitor;

/**
 * PostgreSQL's set-returning functions in {@code FROM} as Calcite sees them: the signature of
 * {@code generate_series} ({@link #GENERATE_SERIES}, a table function of one column), and the rewrites that give
 * {@code FROM} items PostgreSQL's meaning before validation: a function call after another {@code FROM} item reads
 * that item's columns (it is {@code LATERAL}, as PostgreSQL's always is), and a function's single column takes
 * the item's alias as its name ({@code unnest(tags) AS x} has column {@code x}; without an alias the column is
 * named after the function).
 */
final class SetReturningFunctions {

    private SetReturningFunctions() {
    }

    /** {@code generate_series(start, stop[, step])} of integers (integer or bigint, as its arguments are) or numerics. */
    static final SqlFunction GENERATE_SERIES = new GenerateSeries();

    /** The table function {@code generate_series}, typed as PostgreSQL types it. */
    private static final class GenerateSeries extends SqlFunction implements SqlTableFunction {
        GenerateSeries() {
            super("generate_series", SqlKind.OTHER_FUNCTION, ReturnTypes.CURSOR, SetReturningFunctions::parameterTypes, new SeriesOperands(),
                    SqlFunctionCategory.USER_DEFINED_TABLE_FUNCTION);
        }

        @Override
        public SqlReturnTypeInference getRowTypeInference() {
            return binding -> {
                RelDataTypeFactory f = binding.getTypeFactory();
                RelDataType element = seriesType(binding.collectOperandTypes(), f);
                return f.builder().add("generate_series", f.createTypeWithNullability(element, true)).build();
            };
        }
    }

    /**
     * The types of {@code generate_series}'s parameters: the first known operand's type, or {@code integer} when none is
     * known, as PostgreSQL resolves {@code generate_series($1, $2)} of integer parameters.
     */
    private static void parameterTypes(SqlCallBinding binding, RelDataType returnType, RelDataType[] operandTypes) {
        RelDataType unknown = binding.getValidator().getUnknownType();
        RelDataType known = null;
        for (SqlNode operand : binding.operands()) {
            RelDataType t = SqlTypeUtil.deriveType(binding, operand);
            if (!t.equals(unknown)) {
                known = t;
                break;
            }
        }
        java.util.Arrays.fill(operandTypes, known != null ? known : binding.getTypeFactory().createSqlType(SqlTypeName.INTEGER));
    }

    /** The operands {@code generate_series} takes: two or three, all integers or numerics, or timestamps stepped by an interval. */
    private static final class SeriesOperands implements SqlOperandTypeChecker {
        @Override
        public boolean checkOperandTypes(SqlCallBinding binding, boolean throwOnFailure) {
            boolean ok = seriesType(binding.collectOperandTypes(), binding.getTypeFactory()) != null;
            if (!ok && throwOnFailure) {
                throw binding.newValidationSignatureError();
            }
            return ok;
        }

        @Override
        public SqlOperandCountRange getOperandCountRange() {
            return SqlOperandCountRanges.between(2, 3);
        }

        @Override
        public String getAllowedSignatures(SqlOperator op, String opName) {
            return "generate_series(<INTEGER>, <INTEGER>[, <INTEGER>]) generate_series(<NUMERIC>, <NUMERIC>[, <NUMERIC>])"
                    + " generate_series(<TIMESTAMP>, <TIMESTAMP>, <INTERVAL>)";
        }
    }

    /**
     * The type of a series of operands {@code types}: integer when all are integers (bigint when one is), numeric when
     * they are numbers and one is a decimal, timestamp for two timestamps and an interval (timestamptz for other date-times,
     * which the translation refuses); null for any other.
     */
    static RelDataType seriesType(List<RelDataType> types, RelDataTypeFactory f) {
        if (types.size() == 3 && (SqlTypeUtil.isInterval(types.get(2)) || types.get(2).getSqlTypeName() == SqlTypeName.NULL)
                && types.subList(0, 2).stream().allMatch(t -> SqlTypeUtil.isDatetime(t) || t.getSqlTypeName() == SqlTypeName.NULL)
                && types.subList(0, 2).stream().anyMatch(SqlTypeUtil::isDatetime)) {
            // PostgreSQL's date arguments take its timestamptz series (its preferred date-time type)
            boolean plain = types.subList(0, 2).stream().allMatch(t -> t.getSqlTypeName() == SqlTypeName.TIMESTAMP
                    || t.getSqlTypeName() == SqlTypeName.NULL);
            return plain ? f.createSqlType(SqlTypeName.TIMESTAMP, 6) : f.createSqlType(SqlTypes.TIMESTAMPTZ, 6);
        }
        boolean bigint = false;
        boolean decimal = false;
        boolean known = false;
        for (RelDataType t : types) {
            SqlTypeName n = t.getSqlTypeName();
            if (n == SqlTypeName.NULL) {
                continue;
            }
            known = true;
            switch (n) {
                case TINYINT, SMALLINT, INTEGER -> { }
                case BIGINT -> bigint = true;
                case DECIMAL -> decimal = true;
                default -> {
                    return null;
                }
            }
        }
        if (!known) {
            return null;
        }
        if (decimal) {
            return f.createSqlType(SqlTypeName.DECIMAL, SqlTypes.NUMERIC_PRECISION, SqlTypes.NUMERIC_SCALE);
        }
        return f.createSqlType(bigint ? SqlTypeName.BIGINT : SqlTypeName.INTEGER);
    }

    /**
     * {@code sql} with {@code LATERAL} dropped before a function call ({@code CROSS JOIN LATERAL generate_series(...)}),
     * which Calcite does not parse: {@link #rewrite} makes every function call after the first {@code FROM} item
     * lateral, as PostgreSQL does. {@code WITH ORDINALITY} of a function other than {@code unnest} is refused.
     */
    static String lateralCalls(String sql) {
        String lower = sql.toLowerCase(Locale.ROOT);
        if (!lower.contains("lateral") && !lower.contains("ordinality")) {
            return sql;
        }
        List<SqlLexer.Token> t = new SqlLexer(sql).tokens();
        String out = sql;
        for (int i = 1; i + 1 < t.size(); i++) {
            if (t.get(i).is("with") && t.get(i + 1).is("ordinality") && t.get(i - 1).isPunct(")")) {
                int depth = 0;
                int open = i - 1;
                for (; open >= 0; open--) {
                    depth += t.get(open).isPunct(")") ? 1 : t.get(open).isPunct("(") ? -1 : 0;
                    if (depth == 0) {
                        break;
                    }
                }
                if (open > 0 && t.get(open - 1).isName() && !t.get(open - 1).is("unnest")) {
                    int[] at = SqlLexer.lineColumn(sql, t.get(i).offset());
                    throw SqlException.notSupported("WITH ORDINALITY of " + t.get(open - 1).text() + " (only of unnest)").at(at[0], at[1]);
                }
            }
        }
        for (int i = 0; i + 2 < t.size(); i++) {
            if (t.get(i).is("lateral") && t.get(i + 1).isName() && !t.get(i + 1).is("table") && !t.get(i + 1).is("unnest")
                    && t.get(i + 2).isPunct("(")) {
                out = SqlLexer.blank(out, t.get(i).offset(), t.get(i).end());
            }
        }
        return out;
    }

    /**
     * Rewrites, in place, the {@code FROM} items of every query in {@code node} that are set-returning function calls:
     * each after the first item of its {@code FROM} made {@code LATERAL}, and its columns named as PostgreSQL names them.
     */
    static void rewrite(SqlNode node) {
        node.accept(new SqlBasicVisitor<Void>() {
            @Override
            public Void visit(SqlCall call) {
                if (call instanceof SqlSelect s && s.getFrom() != null) {
                    s.setFrom(fromItem(s.getFrom(), true));
                }
                return super.visit(call);
            }
        });
    }

    private static SqlNode fromItem(SqlNode n, boolean first) {
        if (n instanceof SqlJoin j) {
            j.setLeft(fromItem(j.getLeft(), first));
            j.setRight(fromItem(j.getRight(), false));
            return j;
        }
        SqlCall as = n.getKind() == SqlKind.AS ? (SqlCall) n : null;
        SqlNode item = as == null ? n : as.operand(0);
        SqlNode inner = item.getKind() == SqlKind.LATERAL ? ((SqlCall) item).operand(0) : item;
        List<String> columns = columns(inner);
        if (columns == null) {
            return n;
        }
        SqlParserPos pos = inner.getParserPosition();
        if (columns.size() == 2 && (as == null || as.operandCount() == 2 || as.operandCount() == 4)
                && !(as != null && ((SqlIdentifier) as.operand(1)).getSimple().equals(ORDINALITY_SOURCE))) {
            return ordinality(inner, as, first, pos);
        }
        if (!first && item.getKind() != SqlKind.LATERAL && inner.getKind() == SqlKind.COLLECTION_TABLE) {
            item = SqlStdOperatorTable.LATERAL.createCall(pos, inner);
        }
        if (as != null && as.operandCount() > 2) {
            as.setOperand(0, item);
            return as;
        }
        String alias = as == null ? columns.get(0) : ((SqlIdentifier) as.operand(1)).getSimple();
        List<SqlNode> operands = new ArrayList<>();
        operands.add(item);
        operands.add(new SqlIdentifier(alias, pos));
        operands.add(new SqlIdentifier(alias, pos));
        for (String c : columns.subList(1, columns.size())) {
            operands.add(new SqlIdentifier(c, pos));
        }
        return SqlStdOperatorTable.AS.createCall(as == null ? pos : as.getParserPosition(), operands);
    }

    /** The alias of the {@code unnest ... WITH ORDINALITY} inside the subquery {@link #ordinality} makes of it. */
    private static final String ORDINALITY_SOURCE = "tandem_unnest";

    /**
     * {@code unnest(a) WITH ORDINALITY [AS alias[(x, n)]]} as a subquery that casts the position to {@code bigint}, as
     * PostgreSQL types it (Calcite's is an {@code integer}): {@code (SELECT q.x, CAST(q.n AS bigint) AS n FROM unnest(a)
     * WITH ORDINALITY AS q(x, n)) AS alias(x, n)}, lateral after the first {@code FROM} item.
     */
    private static SqlNode ordinality(SqlNode unnest, SqlCall as, boolean first, SqlParserPos pos) {
        String alias = as == null ? "unnest" : ((SqlIdentifier) as.operand(1)).getSimple();
        String element = as == null ? "unnest" : as.operandCount() == 4 ? ((SqlIdentifier) as.operand(2)).getSimple() : alias;
        String position = as != null && as.operandCount() == 4 ? ((SqlIdentifier) as.operand(3)).getSimple() : "ordinality";
        String inner = ORDINALITY_SOURCE;
        SqlNode source = SqlStdOperatorTable.AS.createCall(pos, unnest, new SqlIdentifier(inner, pos), new SqlIdentifier(element, pos),
                new SqlIdentifier(position, pos));
        SqlNode cast = SqlStdOperatorTable.CAST.createCall(pos, new SqlIdentifier(List.of(inner, position), pos),
                new org.apache.calcite.sql.SqlDataTypeSpec(new org.apache.calcite.sql.SqlBasicTypeNameSpec(SqlTypeName.BIGINT, pos), pos));
        org.apache.calcite.sql.SqlNodeList select = new org.apache.calcite.sql.SqlNodeList(List.of(
                new SqlIdentifier(List.of(inner, element), pos),
                SqlStdOperatorTable.AS.createCall(pos, cast, new SqlIdentifier(position, pos))), pos);
        SqlNode query = new SqlSelect(pos, null, select, source, null, null, null, null, null, null, null, null, null);
        SqlNode item = first ? query : SqlStdOperatorTable.LATERAL.createCall(pos, query);
        return SqlStdOperatorTable.AS.createCall(as == null ? pos : as.getParserPosition(), item, new SqlIdentifier(alias, pos),
                new SqlIdentifier(element, pos), new SqlIdentifier(position, pos));
    }

    /** The default column names of a set-returning function call in {@code FROM}, or null when {@code item} is none. */
    private static List<String> columns(SqlNode item) {
        if (item.getKind() == SqlKind.UNNEST && item instanceof SqlCall u && u.operandCount() == 1) {
            return u.getOperator() == SqlStdOperatorTable.UNNEST_WITH_ORDINALITY ? List.of("unnest", "ordinality") : List.of("unnest");
        }
        if (item.getKind() == SqlKind.COLLECTION_TABLE && item instanceof SqlCall c && c.operand(0) instanceof SqlCall f
                && f.getOperator().getName().equalsIgnoreCase("generate_series")) {
            return List.of("generate_series");
        }
        return null;
    }
}
