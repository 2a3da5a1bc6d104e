package dev.tandem.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.function.ObjIntConsumer;

/**
 * What the restart tests of declared column types share: a stack written, then restarted and checked twice, and its reads as they check
 * them (rows as text, column types, refusals by SQLSTATE).
 */
final class RestartChecks {

    private RestartChecks() {
    }

    /**
     * Runs each statement of {@code setup} on a stack over {@code dir}, then opens the stack again twice, running {@code checks} on it
     * each time with the round (0, then 1).
     */
    static void afterRestarts(Path dir, List<String> setup, ObjIntConsumer<SqlStack> checks) {
        try (SqlStack s = new SqlStack(dir)) {
            for (String sql : setup) {
                s.run(sql, new SqlSession());
            }
        }
        for (int round = 0; round < 2; round++) {
            try (SqlStack s = new SqlStack(dir)) {
                checks.accept(s, round);
            }
        }
    }

    /**
     * A strict read's rows, each value as PostgreSQL writes it to a client ({@code character(n)} blank-padded): it sees every write
     * acknowledged before it (a fresh session's serializable read may not).
     */
    static List<String> rows(SqlStack s, String sql) {
        SqlSession strict = new SqlSession();
        strict.strict(true);
        SqlResult r = s.run(sql, strict);
        return r.rows().stream().map(row -> Arrays.stream(SqlColumn.output(row, r.columns())).map(SqlValues::text).toList().toString()).toList();
    }

    /** The type of each column of a read: its declared type's SQL name, else its datum type's JSON name. */
    static List<String> types(SqlStack s, String sql) {
        return s.run(sql, new SqlSession()).columns().stream().map(c -> c.declared() == null ? c.type().jsonName() : c.declared().sqlName()).toList();
    }

    /** Checks that {@code sql}, run in a fresh session, is refused with SQLSTATE {@code state}. */
    static void refused(SqlStack s, String sql, String state) {
        assertThatThrownBy(() -> s.run(sql, new SqlSession())).as(sql)
                .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo(state));
    }
}
