package dev.tandem.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Temporal filters in maintained views and subscriptions, end to end over a storage whose clock the test moves: rows
 * leave (and enter) an indexed view's window as time passes with no write, at the first millisecond at which their
 * bound fails, as reads {@code AS OF} and a subscription's change stream show; forms other than a temporal filter are
 * refused with {@code 0A000}.
 */
class TemporalFilterTest {

    /** The storage's clock at the start (2023-11-14): in the past, so reads {@code AS OF} its times are never ahead of the present. */
    static final long C0 = 1_700_000_000_000L;
    private static final long HOUR_MS = 3_600_000L;

    @TempDir
    Path dir;

    /**
     * The storage's clock: {@link #C0} plus the jumps the test makes plus the time elapsed, so that, as a server's
     * clock does, it keeps moving (the idle tick reports the uppers it moves). Every assertion is at an exact
     * timestamp ({@code AS OF}, a change's time), never at wherever the clock happens to be.
     */
    static final class Clock {
        private final long start = System.nanoTime();
        private final AtomicLong jumped = new AtomicLong();

        long get() {
            return C0 + jumped.get() + (System.nanoTime() - start) / 1_000_000;
        }

        /** Moves the clock to at least {@code t}. */
        void atLeast(long t) {
            jumped.updateAndGet(j -> Math.max(j, t - (get() - j)));
        }
    }

    private static String ts(long micros) {
        return "'" + java.time.Instant.EPOCH.plus(micros, java.time.temporal.ChronoUnit.MICROS) + "'::timestamptz";
    }

    private static List<Long> ids(SqlStack s, String view, long asOf) {
        List<Long> ids = new ArrayList<>();
        for (Object[] row : s.run("SELECT id FROM " + view + " AS OF " + asOf, new SqlSession()).rows()) {
            ids.add((Long) row[0]);
        }
        ids.sort(null);
        return ids;
    }

    private static List<String> changes(java.util.concurrent.CompletableFuture<List<Object[]>> stream) throws Exception {
        return stream.get(30, java.util.concurrent.TimeUnit.SECONDS).stream()
                .sorted(java.util.Comparator.comparingLong((Object[] c) -> (Long) c[0]).thenComparingLong(c -> (Long) c[2]))
                .map(c -> c[0] + " " + c[1] + " " + c[2]).toList();
    }

    @Test
    void rowsLeaveAndEnterTheWindowAtTheirTimes() throws Exception {
        Clock clock = new Clock();
        try (SqlStack s = new SqlStack(dir, null, clock::get)) {
            SqlSession session = new SqlSession();
            s.run("CREATE TABLE events (id bigint, created_at timestamptz)", session);
            s.run("CREATE VIEW recent AS SELECT id, created_at FROM events WHERE created_at > now() - INTERVAL '1 hour'", session);
            s.run("CREATE INDEX recent_id ON recent (id)", session);
            s.run("CREATE VIEW arriving AS SELECT id FROM events WHERE created_at BETWEEN now() - INTERVAL '1 hour' AND now()", session);
            s.run("CREATE INDEX arriving_id ON arriving (id)", session);
            s.run("CREATE VIEW unindexed AS SELECT id FROM events WHERE created_at > now() - INTERVAL '1 hour'", session);
            // a window over a join: the join keyed on its equality, the window applied to its rows
            s.run("CREATE TABLE kinds (id bigint, name text)", session);
            s.run("INSERT INTO kinds VALUES (1, 'one'), (2, 'two'), (4, 'four'), (5, 'five')", session);
            s.run("CREATE VIEW recent_named AS SELECT e.id, k.name FROM events AS e, kinds AS k WHERE k.id = e.id"
                    + " AND e.created_at > now() - INTERVAL '1 hour' AND k.name <> 'five'", session);
            s.run("CREATE INDEX recent_named_id ON recent_named (id)", session);
            long c0 = C0 * 1000;
            // 1: 30 minutes old; 2: two hours old, never in; 3: 10 minutes and 0.5 ms ahead; 4: 20 minutes ahead
            long written = s.run("INSERT INTO events VALUES (1, " + ts(c0 - HOUR_MS * 500) + "), (2, " + ts(c0 - 2 * HOUR_MS * 1000)
                    + "), (3, " + ts(c0 + 600_000_500L) + "), (4, " + ts(c0 + 1_200_000_000L) + ")", session).timestamp();
            long end = C0 + 2 * HOUR_MS;
            SqlStatement subscribe = s.sql.prepare("SUBSCRIBE recent AS OF " + written + " UP TO " + end);
            java.util.concurrent.CompletableFuture<List<Object[]>> stream = s.sql.subscribe(subscribe, List.of(), session)
                    .flatMapIterable(rows -> rows).collectList().toFuture();
            assertThat(ids(s, "recent", written)).containsExactly(1L, 3L, 4L);
            assertThat(ids(s, "arriving", written)).containsExactly(1L);
            // each row leaves `recent` at the first millisecond t with t - 1 h >= created_at (the ceiling for a
            // microsecond value); `arriving` holds a row from created_at (rounded up) to created_at + 1 h (inclusive)
            record Step(long t, List<Long> recent, List<Long> arriving) {
            }
            List<Step> steps = List.of(
                    new Step(C0 + 600_001, List.of(1L, 3L, 4L), List.of(1L, 3L)),
                    new Step(C0 + 1_200_000, List.of(1L, 3L, 4L), List.of(1L, 3L, 4L)),
                    new Step(C0 + 1_800_000, List.of(3L, 4L), List.of(1L, 3L, 4L)),
                    new Step(C0 + 1_800_001, List.of(3L, 4L), List.of(3L, 4L)),
                    new Step(C0 + 4_200_001, List.of(4L), List.of(4L)),
                    new Step(C0 + 4_800_000, List.of(), List.of(4L)),
                    new Step(C0 + 4_800_001, List.of(), List.of()));
            Step before = new Step(written, List.of(1L, 3L, 4L), List.of(1L));
            for (Step step : steps) {
                long t = step.t();
                clock.atLeast(t + 5);
                assertThat(ids(s, "recent", t - 1)).as("recent just before C0 + %d ms", t - C0).isEqualTo(before.recent());
                assertThat(ids(s, "recent", t)).as("recent at C0 + %d ms", t - C0).isEqualTo(step.recent());
                assertThat(ids(s, "arriving", t - 1)).as("arriving just before C0 + %d ms", t - C0).isEqualTo(before.arriving());
                assertThat(ids(s, "arriving", t)).as("arriving at C0 + %d ms", t - C0).isEqualTo(step.arriving());
                assertThat(ids(s, "unindexed", t)).as("a one-shot read of an unindexed view at C0 + %d ms", t - C0).isEqualTo(step.recent());
                assertThat(ids(s, "recent_named", t)).as("recent_named at C0 + %d ms", t - C0)
                        .isEqualTo(step.recent().stream().filter(id -> id != 3L).toList());
                before = step;
            }
            clock.atLeast(end + 5);
            assertThat(changes(stream)).containsExactly(written + " 1 1", written + " 1 3", written + " 1 4", (C0 + 1_800_000) + " -1 1",
                    (C0 + 4_200_001) + " -1 3", (C0 + 4_800_000) + " -1 4");
        }
    }

    @Test
    void aViewKeepsItsWindowAcrossARestart() {
        Clock clock = new Clock();
        long c0 = C0 * 1000;
        try (SqlStack s = new SqlStack(dir, null, clock::get)) {
            SqlSession session = new SqlSession();
            s.run("CREATE TABLE events (id bigint, created_at timestamptz)", session);
            s.run("CREATE VIEW recent AS SELECT id FROM events WHERE created_at > now() - INTERVAL '1 hour'", session);
            s.run("CREATE INDEX recent_id ON recent (id)", session);
            s.run("INSERT INTO events VALUES (1, " + ts(c0 + 60_000_000) + "), (2, " + ts(c0 + 120_000_000) + ")", session);
        }
        try (SqlStack s = new SqlStack(dir, null, clock::get)) {
            long leave1 = C0 + 60_000 + HOUR_MS;
            clock.atLeast(leave1 + 5);
            assertThat(ids(s, "recent", leave1 - 1)).containsExactly(1L, 2L);
            assertThat(ids(s, "recent", leave1)).containsExactly(2L);
        }
    }

    @Test
    void aSubscriptionToAQueryKeepsItsWindow() throws Exception {
        Clock clock = new Clock();
        try (SqlStack s = new SqlStack(dir, null, clock::get)) {
            SqlSession session = new SqlSession();
            s.run("CREATE TABLE events (id bigint, created_at timestamptz)", session);
            long written = s.run("INSERT INTO events VALUES (1, " + ts(C0 * 1000 + 60_000_000) + "), (2, " + ts(C0 * 1000 + 61_000_000) + ")",
                    session).timestamp();
            SqlStatement subscribe = s.sql.prepare("SUBSCRIBE (SELECT id FROM events WHERE now() < created_at + INTERVAL '10 seconds')"
                    + " UP TO " + (C0 + 80_000));
            java.util.concurrent.CompletableFuture<List<Object[]>> stream = s.sql.subscribe(subscribe, List.of(), session)
                    .flatMapIterable(rows -> rows).collectList().toFuture();
            clock.atLeast(C0 + 81_000);
            List<String> changes = changes(stream);
            assertThat(changes).hasSize(4);
            assertThat(changes.subList(0, 2)).allMatch(c -> c.endsWith(" 1 1") || c.endsWith(" 1 2"))
                    .allMatch(c -> Long.parseLong(c.split(" ")[0]) >= written);
            assertThat(changes.subList(2, 4)).containsExactly((C0 + 70_000) + " -1 1", (C0 + 71_000) + " -1 2");
        }
    }

    private static void refused(SqlStack s, String sql, String message) {
        assertThatThrownBy(() -> s.run(sql, new SqlSession())).as(sql).isInstanceOfSatisfying(SqlException.class, e -> {
            assertThat(e.state()).isEqualTo(SqlException.NOT_SUPPORTED);
            assertThat(e.getMessage()).contains(message);
        });
    }

    @Test
    void otherUsesOfTheTimeInAViewAreRefused() {
        try (SqlStack s = new SqlStack(dir)) {
            s.run("CREATE TABLE e (id bigint, ts timestamptz, t timestamp, d date)", new SqlSession());
            String forms = "temporal filter";
            refused(s, "CREATE VIEW v AS SELECT id, now() AS n FROM e", forms);
            refused(s, "CREATE VIEW v AS SELECT id FROM e WHERE ts > now() OR id = 1", "the time read other than by a comparison");
            refused(s, "CREATE VIEW v AS SELECT id FROM e WHERE now() - ts < INTERVAL '1 hour'", "it moves by constant intervals only");
            refused(s, "CREATE VIEW v AS SELECT id FROM e WHERE ts > now() - INTERVAL '1 month'", "an interval of months or years");
            refused(s, "CREATE VIEW v AS SELECT id FROM e WHERE ts > now() - id * INTERVAL '1 second'", "constant intervals");
            refused(s, "CREATE VIEW v AS SELECT id FROM e WHERE ts > statement_timestamp()", "only now() plus or minus constant intervals");
            refused(s, "CREATE VIEW v AS SELECT id FROM e WHERE ts > clock_timestamp()", "clock_timestamp()");
            refused(s, "CREATE VIEW v AS SELECT id FROM e WHERE d > current_date", "only now() plus or minus constant intervals");
            refused(s, "CREATE VIEW v AS SELECT id FROM e WHERE now() > now() - INTERVAL '1 hour'", "a comparison of the time with the time");
            refused(s, "CREATE VIEW v AS SELECT id FROM e WHERE ts > now() + INTERVAL '3000000 days'", "over 6,000 years");
            refused(s, "CREATE VIEW v AS SELECT id, age(ts) AS a FROM e", forms);
            assertThat(s.controller.catalog()).noneMatch(x -> x.name().equals("v"));
            s.run("CREATE VIEW v1 AS SELECT id FROM e WHERE ts >= now() - INTERVAL '1 day 2 hours' AND id > 0", new SqlSession());
            s.run("CREATE VIEW v2 AS SELECT id FROM e WHERE t > localtimestamp - INTERVAL '1 hour'", new SqlSession());
            s.run("CREATE VIEW v3 AS SELECT id FROM e WHERE now() = ts", new SqlSession());
            s.run("CREATE VIEW v6 AS SELECT e.id FROM e JOIN e AS f ON e.id = f.id WHERE e.ts > now() - INTERVAL '1 hour'", new SqlSession());
            s.run("CREATE VIEW v7 AS SELECT id, max(ts) AS m FROM e GROUP BY id HAVING max(ts) > now() - INTERVAL '1 hour'", new SqlSession());
            s.run("CREATE MATERIALIZED VIEW v8 AS SELECT id FROM e WHERE ts > now() - INTERVAL '1 hour'", new SqlSession());
            SqlSession berlin = new SqlSession();
            s.run("SET TimeZone = 'Europe/Berlin'", berlin);
            assertThatThrownBy(() -> s.run("CREATE VIEW v4 AS SELECT id FROM e WHERE ts > now() - INTERVAL '1 day'", berlin))
                    .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.getMessage()).contains("depends on the time zone"));
            s.run("CREATE VIEW v5 AS SELECT id FROM e WHERE ts > now() - INTERVAL '24 hours'", berlin);
        }
    }

    @Test
    void oneShotQueriesStillReadTheStatementsTime() {
        try (SqlStack s = new SqlStack(dir)) {
            SqlSession session = new SqlSession();
            s.run("CREATE TABLE e (id bigint, ts timestamptz)", session);
            long nowMicros = System.currentTimeMillis() * 1000;
            s.run("INSERT INTO e VALUES (1, " + ts(nowMicros - 7_200_000_000L) + "), (2, " + ts(nowMicros) + ")", session);
            SqlResult r = s.run("SELECT id FROM e WHERE ts > now() - INTERVAL '1 hour'", session);
            assertThat(r.rows()).extracting(row -> row[0]).containsExactly(2L);
            SqlResult explain = s.run("EXPLAIN SELECT id FROM e WHERE ts > now() - INTERVAL '1 hour'", session);
            assertThat(explain.rows().get(1)[0].toString()).doesNotContain("temporal_filter");
        }
    }
}
