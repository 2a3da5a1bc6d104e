package dev.tandem.sql;

import java.util.ArrayList;
import java.util.List;

/** A statement text with {@code $n} rewritten to Calcite's {@code ?} (positions kept), and which {@code $n} each {@code ?} is. */
record SqlParams(String text, List<Integer> order, int count) {

    /** The PostgreSQL parameter number (1-based) of Calcite's dynamic parameter {@code i}. */
    int number(int i) {
        return order.get(i);
    }

    /** {@code sql} with its {@code $n} parameters rewritten for Calcite; {@code 42P02} for a number outside 1 to 65535. */
    static SqlParams of(String sql) {
        StringBuilder b = new StringBuilder(sql);
        List<Integer> order = new ArrayList<>();
        int max = 0;
        for (SqlLexer.Token t : new SqlLexer(sql).tokens()) {
            if (t.kind() == SqlLexer.Kind.PARAM) {
                int n = Integer.parseInt(t.text());
                if (n < 1 || n > 65535) {
                    int[] lc = SqlLexer.lineColumn(sql, t.offset());
                    throw new SqlException(SqlException.UNDEFINED_PARAMETER, "there is no parameter $" + n, lc[0], lc[1]);
                }
                order.add(n);
                max = Math.max(max, n);
                b.setCharAt(t.offset(), '?');
                for (int i = 1; i <= t.text().length(); i++) {
                    b.setCharAt(t.offset() + i, ' ');
                }
            }
        }
        return new SqlParams(b.toString(), order, max);
    }
}
