package dev.tandem.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.sql.parser.SqlParseException;
import org.junit.jupiter.api.Test;

/**
 * The work done on a statement's text before planning is linear in it: the trailing {@code AS OF} scan
 * reads each character at most once however long a run of white space ends the text, an IN list's
 * de-duplication looks each value up once, literals are counted in one pass; and the JVM's resource
 * errors met while parsing or planning are answered as such ({@code 53200}, {@code 54001}), never as a
 * syntax error. Work is asserted by counting, never by time.
 */
class StatementCostTest {

    /** A text of {@code head} and then {@code run} copies of {@code fill} that counts how often its characters are read. */
    static final class CountingText implements CharSequence {
        private final String head;
        private final char fill;
        private final int length;
        long reads;

        CountingText(String head, char fill, int run) {
            this.head = head;
            this.fill = fill;
            this.length = head.length() + run;
        }

        @Override
        public int length() {
            return length;
        }

        @Override
        public char charAt(int index) {
            reads++;
            return index < head.length() ? head.charAt(index) : fill;
        }

        @Override
        public CharSequence subSequence(int start, int end) {
            StringBuilder b = new StringBuilder();
            for (int i = start; i < end; i++) {
                b.append(index(i));
            }
            return b;
        }

        private char index(int i) {
            return i < head.length() ? head.charAt(i) : fill;
        }

        @Override
        public String toString() {
            return subSequence(0, length).toString();
        }
    }

    @Test
    void theAsOfScanReadsEachCharacterOnceAtMostOnARunOfWhiteSpace() {
        CountingText text = new CountingText("SELECT id FROM t", ' ', 16 << 20);
        assertThat(SqlAsOf.find(text)).isNull();
        assertThat(text.reads).as("characters read for a 16 MiB run of spaces").isLessThanOrEqualTo(text.length() + 2);

        CountingText asOf = new CountingText("SELECT id FROM t" + " ".repeat(1 << 20) + "AS OF 12", '\t', 16 << 20);
        SqlAsOf found = SqlAsOf.find(asOf);
        assertThat(found).isNotNull();
        assertThat(found.value()).isEqualTo("12");
        assertThat(found.start()).isEqualTo("SELECT id FROM t".length());
        assertThat(asOf.reads).as("characters read").isLessThanOrEqualTo(asOf.length() + 8);

        // the pattern it replaces reads a run of white space once for each of its characters
        CountingText small = new CountingText("SELECT id FROM t", ' ', 2_000);
        assertThat(SqlAsOfProperties.MODEL.matcher(small).find()).isFalse();
        assertThat(small.reads).as("the pattern's reads of 2,000 spaces").isGreaterThan(1_000_000);
    }

    /** A value that counts its comparisons. */
    record Counted(int value, long[] equalsCalls) {
        @Override
        public boolean equals(Object o) {
            equalsCalls[0]++;
            return o instanceof Counted c && c.value == value;
        }

        @Override
        public int hashCode() {
            return Integer.hashCode(value) * 0x9E3779B1;
        }
    }

    @Test
    void anInListOf60000LiteralsIsDeDuplicatedWithOneLookUpAValue() {
        long[] calls = {0};
        List<Object> values = new ArrayList<>();
        for (int i = 0; i < 60_000; i++) {
            values.add(new Counted(i % 30_000, calls));
        }
        List<Object> distinct = SqlEngine.distinct(values);
        assertThat(distinct).hasSize(30_000);
        assertThat(distinct.get(0)).isSameAs(values.get(0));
        assertThat(distinct.get(29_999)).isSameAs(values.get(29_999));
        // comparing each value with every earlier one would be 1.8 billion comparisons
        assertThat(calls[0]).as("comparisons").isLessThanOrEqualTo(2L * values.size());
    }

    @Test
    void valuesEqualAsDatumsAreOneKey() {
        dev.tandem.row.Timestamp ts = new dev.tandem.row.Timestamp(5);
        assertThat(SqlEngine.distinct(List.of(0.0, -0.0, 1.5, 1L, 1L, "a", "a", "b", ts, new dev.tandem.row.Timestamp(5), true, true)))
                .containsExactly(0.0, 1.5, 1L, "a", "b", ts, true);
    }

    @Test
    void literalsAreCountedOutsideCommentsAndIdentifiers() {
        String sql = "SELECT 1, 'a''b', \"col 2\", $1, x1, 2.5e3 -- 7\n/* 8, '9' */ FROM t WHERE id IN (3, -4) AND s = E'x'";
        assertThat(StatementCost.literals(sql, 100)).isEqualTo(6);
        assertThat(StatementCost.literals(sql, 2)).as("counting stops past the limit").isEqualTo(3);
        StatementCost cost = StatementCost.of("SELECT 'é'", SqlLimits.DEFAULTS);
        assertThat(cost.bytes()).as("UTF-8 bytes").isEqualTo(11);
        SqlLimits small = new SqlLimits(10, 2, java.time.Duration.ofSeconds(1), 0);
        assertThat(StatementCost.of("SELECT 1, 2", small).refusal(small).getMessage())
                .isEqualTo("statement too complex: more than 10 bytes of text (the limit is tandem.sql.max-statement-bytes)");
        assertThat(StatementCost.of("1,2,3", small).refusal(small)).satisfies(e -> {
            assertThat(e.sqlState()).isEqualTo("54000");
            assertThat(e.getMessage()).isEqualTo("statement too complex: more than 2 literals (the limit is tandem.sql.max-literals)");
        });
        assertThat(StatementCost.of("1,2", small).refusal(small)).isNull();
    }

    @Test
    void heapExhaustionWhileParsingIsOutOfMemoryNotASyntaxError() {
        // Calcite's parser reports any failure, heap exhaustion too, as a parse error with the failure as its cause
        SqlParseException parse = new SqlParseException("Java heap space", null, null, null, new OutOfMemoryError("Java heap space"));
        SqlException e = CalciteErrors.parseError(parse);
        assertThat(e.state()).isEqualTo(SqlException.OUT_OF_MEMORY);
        assertThat(e.getMessage()).startsWith("out of memory");
        assertThat(CalciteErrors.parseError(new SqlParseException("Encountered \"x\"", null, null, null, null)).state())
                .isEqualTo(SqlException.SYNTAX);
    }

    @Test
    void resourceErrorsWhilePlanningAreAnsweredAsSuchAndNeverEscape() {
        assertThatThrownBy(() -> SqlErrors.guarded(() -> {
            throw new OutOfMemoryError("Java heap space");
        })).isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo("53200"));
        assertThatThrownBy(() -> SqlErrors.guarded(() -> {
            throw new StackOverflowError();
        })).isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo("54001"));
        assertThatThrownBy(() -> SqlErrors.guarded(() -> {
            throw new IllegalStateException("wrapped", new OutOfMemoryError("Java heap space"));
        })).isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo("53200"));
        assertThatThrownBy(() -> SqlErrors.guarded(() -> {
            throw new IllegalStateException("a bug");
        })).isInstanceOf(IllegalStateException.class);
        assertThat(SqlErrors.map(new OutOfMemoryError())).isInstanceOfSatisfying(SqlException.class,
                e -> assertThat(e.sqlState()).isEqualTo("53200"));
    }
}
