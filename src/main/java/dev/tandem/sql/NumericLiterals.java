package dev.tandem.sql;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlNumericLiteral;
import org.apache.calcite.sql.fun.SqlCase;

/**
 * Refuses number literals of different scales that become one column ({@code CASE ... THEN 1 ELSE 2.5},
 * {@code COALESCE(x, 1, 2.5)}, {@code VALUES (1.5), (2.25)}): Calcite casts them to their common type, padding
 * {@code 1.5} to {@code 1.50}, where PostgreSQL's numeric keeps each literal's own scale.
 */
final class NumericLiterals {

    private NumericLiterals() {
    }

    static void checkScales(SqlNode node) {
        switch (node) {
            case null -> {
            }
            case SqlNodeList list -> list.forEach(NumericLiterals::checkScales);
            case SqlCase c -> {
                List<SqlNode> values = new ArrayList<>(c.getThenOperands().getList());
                values.add(c.getElseOperand());
                same(values);
                c.getOperandList().forEach(NumericLiterals::checkScales);
            }
            case SqlCall call -> {
                if (call.getKind() == SqlKind.COALESCE || call.getKind() == SqlKind.NULLIF) {
                    same(call.getOperandList());
                }
                if (call.getKind() == SqlKind.VALUES && !call.getOperandList().isEmpty()
                        && call.operand(0) instanceof SqlCall first && first.getKind() == SqlKind.ROW) {
                    for (int col = 0; col < first.operandCount(); col++) {
                        List<SqlNode> column = new ArrayList<>();
                        for (SqlNode row : call.getOperandList()) {
                            if (row instanceof SqlCall r && r.getKind() == SqlKind.ROW && col < r.operandCount()) {
                                column.add(r.operand(col));
                            }
                        }
                        same(column);
                    }
                }
                call.getOperandList().forEach(NumericLiterals::checkScales);
            }
            default -> {
            }
        }
    }

    private static void same(List<SqlNode> values) {
        Set<Integer> scales = new TreeSet<>();
        for (SqlNode v : values) {
            Integer scale = scale(v);
            if (scale != null) {
                scales.add(scale);
            }
        }
        if (scales.size() > 1) {
            throw SqlException.notSupported("number literals of different scales in one column (" + scales.size()
                    + " scales among CASE, COALESCE or VALUES values; PostgreSQL keeps each literal's scale, Tandem would pad them):"
                    + " write each with the same number of decimal places");
        }
    }

    /** The scale of an exact number literal (or its negation) as written, else null. */
    private static Integer scale(SqlNode n) {
        if (n instanceof SqlNumericLiteral l && l.isExact()) {
            BigDecimal v = l.getValueAs(BigDecimal.class);
            return Math.max(v.scale(), 0);
        }
        if (n instanceof SqlCall c && c.getKind() == SqlKind.MINUS_PREFIX) {
            return scale(c.operand(0));
        }
        return null;
    }
}
