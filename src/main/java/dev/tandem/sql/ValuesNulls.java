package dev.tandem.sql;

import java.util.List;
import org.apache.calcite.sql.SqlBasicTypeNameSpec;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlDataTypeSpec;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.util.SqlBasicVisitor;

/**
 * Types the bare {@code NULL}s of a {@code VALUES} list inside a query as PostgreSQL does: by the column's other
 * rows, or as {@code text} when every row's is NULL ({@code (VALUES (1, 'x'), (2, NULL)) AS v(a, b)}), where
 * Calcite's validator finds no type for them. A NULL is given a constant row's value's type by {@code CASE WHEN
 * false THEN value END}; a column whose other values are not constants keeps its NULLs (and Calcite's refusal).
 * Also the bare NULLs of {@code AND}, {@code OR} and {@code NOT}, booleans there ({@link #typeLogical}).
 */
final class ValuesNulls {

    private ValuesNulls() {
    }

    /** Rewrites, in place, the {@code VALUES} lists nested in {@code root} (not {@code root} itself: an INSERT's rows are typed by their table). */
    static void type(SqlNode root) {
        root.accept(new SqlBasicVisitor<Void>() {
            @Override
            public Void visit(SqlCall call) {
                if (call.getKind() == SqlKind.VALUES && call != root) {
                    values(call);
                }
                return super.visit(call);
            }
        });
    }

    /**
     * Rewrites, in place, each bare {@code NULL} operand of {@code AND}, {@code OR} and {@code NOT} as {@code CAST(NULL AS
     * boolean)}: PostgreSQL reads it as a boolean there ({@code WHERE x > 1 AND NULL}), Calcite's validator finds no type.
     */
    static void typeLogical(SqlNode root) {
        root.accept(new SqlBasicVisitor<Void>() {
            @Override
            public Void visit(SqlCall call) {
                if (call.getKind() == SqlKind.AND || call.getKind() == SqlKind.OR || call.getKind() == SqlKind.NOT) {
                    for (int i = 0; i < call.operandCount(); i++) {
                        SqlNode v = call.operand(i);
                        if (isNull(v)) {
                            SqlParserPos pos = v.getParserPosition();
                            call.setOperand(i, SqlStdOperatorTable.CAST.createCall(pos, v,
                                    new SqlDataTypeSpec(new SqlBasicTypeNameSpec(SqlTypeName.BOOLEAN, pos), pos)));
                        }
                    }
                }
                return super.visit(call);
            }
        });
    }

    private static void values(SqlCall values) {
        List<SqlNode> rows = values.getOperandList();
        if (rows.isEmpty() || !(rows.get(0) instanceof SqlCall first) || first.getKind() != SqlKind.ROW) {
            return;
        }
        for (int c = 0; c < first.operandCount(); c++) {
            SqlNode template = null;
            boolean anyNull = false;
            boolean allNull = true;
            for (SqlNode r : rows) {
                if (!(r instanceof SqlCall row) || row.getKind() != SqlKind.ROW || row.operandCount() <= c) {
                    return;
                }
                SqlNode v = row.operand(c);
                if (isNull(v)) {
                    anyNull = true;
                } else {
                    allNull = false;
                    template = template == null && constant(v) ? v : template;
                }
            }
            if (!anyNull || !allNull && template == null) {
                continue;
            }
            for (SqlNode r : rows) {
                SqlCall row = (SqlCall) r;
                SqlNode v = row.operand(c);
                if (isNull(v)) {
                    SqlParserPos pos = v.getParserPosition();
                    row.setOperand(c, allNull
                            ? SqlStdOperatorTable.CAST.createCall(pos, v, new SqlDataTypeSpec(new SqlBasicTypeNameSpec(SqlTypeName.VARCHAR, pos), pos))
                            : SqlStdOperatorTable.CASE.createCall(pos, null, new SqlNodeList(List.of(SqlLiteral.createBoolean(false, pos)), pos),
                                    new SqlNodeList(List.of(template), pos), SqlLiteral.createNull(pos)));
                }
            }
        }
    }

    private static boolean isNull(SqlNode v) {
        return v instanceof SqlLiteral l && l.getTypeName() == SqlTypeName.NULL;
    }

    /** Whether {@code v} is a literal, or a cast of one: a value whose type a copy of it shows without reading a column. */
    private static boolean constant(SqlNode v) {
        if (v instanceof SqlLiteral) {
            return true;
        }
        return v instanceof SqlCall c && c.getKind() == SqlKind.CAST && c.operand(0) instanceof SqlLiteral;
    }
}
