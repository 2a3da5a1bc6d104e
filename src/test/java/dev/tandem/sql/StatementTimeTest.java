package dev.tandem.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tandem.row.TimestampTz;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code now()}, {@code current_timestamp}, {@code current_date} and {@code localtimestamp} read the statement's
 * time in one-shot queries and writes — one value for the whole statement, the block's start inside
 * {@code BEGIN ... COMMIT}, as in PostgreSQL — and are refused where a result is maintained (a view, a
 * subscription) other than in a temporal filter ({@code TemporalFilterTest}). {@code PostgresDatetimeTest} compares
 * their types and relations with PostgreSQL's.
 */
class StatementTimeTest {

    @TempDir
    Path dir;

    private static Instant instant(Object timestamptz) {
        return Instant.EPOCH.plus(((TimestampTz) timestamptz).micros(), ChronoUnit.MICROS);
    }

    private static void refused(SqlStack s, String sql, String message) {
        assertThatThrownBy(() -> s.run(sql, new SqlSession())).as(sql).isInstanceOfSatisfying(SqlException.class, e -> {
            assertThat(e.state()).isEqualTo(SqlException.NOT_SUPPORTED);
            assertThat(e.getMessage()).contains(message);
        });
    }

    @Test
    void oneShotQueriesReadTheStatementsTime() {
        try (SqlStack s = new SqlStack(dir)) {
            Instant before = Instant.now().truncatedTo(ChronoUnit.MICROS);
            SqlResult r = s.run("SELECT now(), current_timestamp, current_date, localtimestamp, statement_timestamp()", new SqlSession());
            Instant after = Instant.now();
            assertThat(r.columns().stream().map(SqlColumn::name)).containsExactly("now", "current_timestamp", "current_date", "localtimestamp",
                    "statement_timestamp");
            Object[] row = r.rows().get(0);
            Instant now = instant(row[0]);
            assertThat(now).isBetween(before, after);
            assertThat(row[1]).as("one time for the whole statement").isEqualTo(row[0]);
            assertThat(row[4]).isEqualTo(row[0]);
            assertThat(row[2]).isEqualTo(LocalDate.ofInstant(now, ZoneOffset.UTC));
            assertThat(((dev.tandem.row.Timestamp) row[3]).micros()).isEqualTo(((TimestampTz) row[0]).micros());
        }
    }

    @Test
    void aTransactionBlockReadsTheTimeItBegan() {
        try (SqlStack s = new SqlStack(dir)) {
            SqlSession session = new SqlSession(true);
            s.run("BEGIN", session);
            Object first = s.run("SELECT now()", session).rows().get(0)[0];
            // a later statement of the block, however much later, reads the same time
            Instant later = Instant.now().plus(Duration.ofMillis(1));
            while (Instant.now().isBefore(later)) {
                Thread.onSpinWait();
            }
            Object[] second = s.run("SELECT current_timestamp, statement_timestamp()", session).rows().get(0);
            assertThat(second[0]).isEqualTo(first);
            assertThat(instant(second[1])).as("statement_timestamp() is the statement's own").isAfter(instant(first));
            s.run("COMMIT", session);
            Object after = s.run("SELECT now()", session).rows().get(0)[0];
            assertThat(instant(after)).isAfter(instant(first));
        }
    }

    @Test
    void writesReadTheStatementsTime() {
        try (SqlStack s = new SqlStack(dir)) {
            SqlSession session = new SqlSession();
            s.run("CREATE TABLE e (id bigint, ts timestamptz, d date)", session);
            // the first write of a fresh server, with values computed by a read of constants
            s.run("INSERT INTO e VALUES (1, now(), current_date), (2, now() + interval '1 day', current_date + 1)", session);
            assertThat(s.run("SELECT id FROM e WHERE ts <= now() AND d <= current_date", session).rows()).extracting(a -> a[0])
                    .containsExactly(1L);
            s.run("UPDATE e SET ts = now() - interval '1 hour' WHERE id = 2", session);
            assertThat(s.run("SELECT count(*) FROM e WHERE ts < now()", session).rows().get(0)[0]).isEqualTo(2L);
            // a point lookup with now() beside its key
            s.run("CREATE INDEX e_by_id ON e (id)", session);
            assertThat(s.run("SELECT id FROM e WHERE id = 2 AND ts < now()", session).rows()).hasSize(1);
        }
    }

    @Test
    void theStatementsTimeIsADefaultOfTimeColumnsAndSurvivesARestart() {
        try (SqlStack s = new SqlStack(dir)) {
            s.run("CREATE TABLE ev (id bigint, created timestamptz NOT NULL DEFAULT now(), dd date DEFAULT current_date,"
                    + " lt timestamp DEFAULT localtimestamp, t2 timestamptz DEFAULT CURRENT_TIMESTAMP)", new SqlSession());
            for (String sql : List.of("CREATE TABLE bad (id bigint DEFAULT now())", "CREATE TABLE bad (s text DEFAULT current_date)",
                    "CREATE TABLE bad (t timestamptz DEFAULT now() + interval '1 day')")) {
                refused(s, sql, "default");
            }
        }
        for (int round = 0; round < 2; round++) {
            try (SqlStack s = new SqlStack(dir)) {
                SqlSession session = new SqlSession();
                Instant before = Instant.now().truncatedTo(ChronoUnit.MICROS);
                long id = 10 * round;
                // every path that fills a default: VALUES, DEFAULT, INSERT ... SELECT, UPDATE ... SET c = DEFAULT, COPY
                s.run("INSERT INTO ev (id) VALUES (" + (id + 1) + ")", session);
                s.run("INSERT INTO ev VALUES (" + (id + 2) + ", DEFAULT, DEFAULT, DEFAULT, DEFAULT)", session);
                s.run("INSERT INTO ev (id) SELECT " + (id + 3), session);
                s.run("UPDATE ev SET created = '2000-01-01 00:00:00+00' WHERE id = " + (id + 3), session);
                s.run("UPDATE ev SET created = DEFAULT WHERE id = " + (id + 3), session);
                SqlCopyIn copy = s.sql.copyIn("COPY ev (id) FROM STDIN", session);
                copy.data((id + 4 + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
                copy.done().block(Duration.ofSeconds(30));
                Instant after = Instant.now();
                List<Object[]> rows = s.run("SELECT created, dd, lt, t2 FROM ev WHERE id > " + id + " AND id <= " + (id + 4) + " ORDER BY id",
                        session).rows();
                assertThat(rows).hasSize(4);
                for (Object[] r : rows) {
                    assertThat(instant(r[0])).isBetween(before, after);
                    assertThat(instant(r[3])).isBetween(before, after);
                    assertThat(r[1]).isEqualTo(LocalDate.ofInstant(instant(r[3]), ZoneOffset.UTC));
                    assertThat(((dev.tandem.row.Timestamp) r[2]).micros()).as("one time for a row's defaults").isEqualTo(((TimestampTz) r[3]).micros());
                }
                // the third row's created is the UPDATE's time, later than its insert's
                assertThat(instant(rows.get(2)[0])).isAfter(instant(rows.get(2)[3]));
                assertThat(rows.get(0)[3]).isEqualTo(rows.get(0)[0]);
            }
        }
    }

    @Test
    void aStrictReadOfConstantsOnAFreshServerIsAnswered() {
        try (SqlStack s = new SqlStack(dir)) {
            SqlSession strict = new SqlSession();
            strict.strict(true);
            assertThat(s.run("SELECT 1 + 1", strict).rows().get(0)[0]).isEqualTo(2L);
        }
    }

    @Test
    void maintainedResultsHaveNoStatementTime() {
        try (SqlStack s = new SqlStack(dir)) {
            s.run("CREATE TABLE e (id bigint, ts timestamptz)", new SqlSession());
            for (String sql : List.of("CREATE VIEW v AS SELECT id, now() AS n FROM e", "CREATE VIEW v AS SELECT current_date AS d",
                    "CREATE VIEW v AS SELECT id, age(ts) AS a FROM e")) {
                refused(s, sql, "in a view");
            }
            SqlStatement subscribe = s.sql.prepare("SUBSCRIBE (SELECT id, now() - ts AS age FROM e)");
            assertThatThrownBy(() -> s.sql.subscribe(subscribe, List.of(), new SqlSession()).blockFirst(Duration.ofSeconds(30)))
                    .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.state()).isEqualTo(SqlException.NOT_SUPPORTED));
            SqlStatement age = s.sql.prepare("SUBSCRIBE (SELECT id FROM e WHERE age(ts) < interval '1 day')");
            assertThatThrownBy(() -> s.sql.subscribe(age, List.of(), new SqlSession()).blockFirst(Duration.ofSeconds(30)))
                    .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.state()).isEqualTo(SqlException.NOT_SUPPORTED));
            refused(s, "SELECT clock_timestamp()", "clock_timestamp()");
            assertThat(s.run("SELECT count(*) FROM e", new SqlSession()).rows().get(0)[0]).as("no view was created").isEqualTo(0L);
            assertThat(s.controller.catalog()).noneMatch(e -> e.name().equals("v"));
        }
    }
}
