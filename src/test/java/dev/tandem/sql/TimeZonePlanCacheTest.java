package dev.tandem.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One plan for every time zone: a statement planned once answers in the zone of the session that runs it (a timestamptz's
 * text and date, a literal without an offset, a point lookup's projection), with no planning again when the zone changes.
 */
class TimeZonePlanCacheTest {

    @TempDir
    Path dir;

    @Test
    void theSameTextAnswersInEachSessionsZone() {
        try (SqlStack stack = new SqlStack(dir)) {
            SqlSession utc = new SqlSession(true);
            SqlSession berlin = new SqlSession(true);
            berlin.zone(dev.tandem.expr.TimeZones.setting("Europe/Berlin"));
            SqlSession kolkata = new SqlSession(true);
            stack.run("SET TIME ZONE 'Asia/Kolkata'", kolkata);
            stack.run("CREATE TABLE e (id bigint NOT NULL, ts timestamptz)", utc);
            stack.run("CREATE INDEX e_by_id ON e (id)", utc);
            stack.run("INSERT INTO e VALUES (1, '2024-03-30 23:30:00+00'), (2, '2024-07-01 12:00:00+00')", utc);
            String q = "SELECT ts::text, ts::date::text FROM e WHERE id = $1";
            String literal = "SELECT count(*) FROM e WHERE ts >= '2024-07-01 12:00'";
            stack.run(q, utc, 1L);
            stack.run(literal, utc);
            long planned = CalcitePlanner.PLANS.get();
            for (int i = 0; i < 3; i++) {
                assertThat(stack.run(q, utc, 1L).rows().get(0)).containsExactly("2024-03-30 23:30:00+00", "2024-03-30");
                assertThat(stack.run(q, berlin, 1L).rows().get(0)).containsExactly("2024-03-31 00:30:00+01", "2024-03-31");
                assertThat(stack.run(q, kolkata, 1L).rows().get(0)).containsExactly("2024-03-31 05:00:00+05:30", "2024-03-31");
                assertThat(stack.run(literal, utc).rows().get(0)[0]).isEqualTo(1L);
                assertThat(stack.run(literal, berlin).rows().get(0)[0]).isEqualTo(1L);
                assertThat(stack.run(literal, kolkata).rows().get(0)[0]).isEqualTo(1L);
                assertThat(stack.run("SELECT count(*) FROM e WHERE ts >= '2024-07-01 14:00'", berlin).rows().get(0)[0]).isEqualTo(1L);
                assertThat(stack.run("SELECT count(*) FROM e WHERE ts >= '2024-07-01 14:00'", utc).rows().get(0)[0]).isEqualTo(0L);
            }
            assertThat(CalcitePlanner.PLANS.get() - planned).as("no planning for another zone").isLessThanOrEqualTo(1);
            for (SqlSession s : List.of(utc, berlin, kolkata)) {
                s.close();
            }
        }
    }
}
