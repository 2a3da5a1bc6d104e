package dev.tandem.controller;

import dev.tandem.api.JsonRequests;
import dev.tandem.api.ReadJson;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tandem.multiplex.Multiplexer;
import dev.tandem.row.Column;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.runtime.ReadPath;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A slow-path read with a limit and no order stops its dataflow as soon as it has its rows, when the
 * plan is monotone: a cross join of two 20,000-row tables (400 million rows) is answered under a memory
 * budget that the complete join exceeds, and its dataflow is gone afterwards. Plans that may retract
 * rows (a reduce, an EXCEPT) and expressions that may fail still wait for the complete result.
 */
class EarlyLimitTest {

    static final JsonMapper JSON = JsonMapper.builder().build();
    static final int ROWS = 20_000;
    static final String CROSS = "{\"op\":\"join\",\"inputs\":[{\"op\":\"get\",\"name\":\"a\"},{\"op\":\"get\",\"name\":\"b\"}],\"on\":[]}";

    @TempDir
    Path dir;

    static JsonNode json(String s) {
        return JSON.readTree(s);
    }

    static ReadJson plan(String plan, String orderBy, Long limit, Long offset) {
        return new ReadJson(null, json(plan), null, null, null, orderBy == null ? null : json(orderBy), limit, offset, null, null, 20_000L);
    }

    /** Tables {@code a} and {@code b}: {@code (x, "a<x>")} for x in [0, 20000). */
    static void bigTables(Controller c) {
        for (String t : List.of("a", "b")) {
            c.createTable(t, List.of(new Column("x", DatumType.INT64, false), new Column("pad", DatumType.STRING, false)));
            StringBuilder rows = new StringBuilder("[");
            for (int i = 0; i < ROWS; i++) {
                rows.append(i == 0 ? "" : ",").append('[').append(i).append(",\"").append(t).append(i).append("\"]");
            }
            JsonRequests.write(c, t, json(rows.append(']').toString()), null).block();
        }
    }

    /** The naive model of one row of the cross join of a and b. */
    static boolean inCrossJoin(Row r) {
        long ax = (Long) r.get(0);
        long bx = (Long) r.get(2);
        return ax >= 0 && ax < ROWS && bx >= 0 && bx < ROWS && r.get(1).equals("a" + ax) && r.get(3).equals("b" + bx) && r.arity() == 4;
    }

    /** No transient dataflow (ids {@code t<n>}) is left on the reading runtime, and none in the registry. */
    static void noTransientDataflows(ControllerStack s) {
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(s.mux.reader().dataflows().keySet())
                .noneMatch(id -> id.startsWith("t")));
    }

    @ParameterizedTest(name = "two runtimes: {0}")
    @ValueSource(booleans = {false, true})
    void aCrossJoinWithALimitAnswersEarlyUnderABudgetTheWholeJoinExceeds(boolean twoRuntimes) {
        try (ControllerStack s = new ControllerStack(dir, twoRuntimes, 2, ControllerSettings.DEFAULTS,
                Multiplexer.Tuning.DEFAULTS.withDataflowMemoryBudget(24L << 20))) {
            Controller c = s.controller;
            bigTables(c);

            // Run to completion (an order makes it wait for every row), the join exceeds the budget.
            assertThatThrownBy(() -> JsonRequests.read(c, plan(CROSS, "[{\"col\":0}]", 10L, null)).block())
                    .isInstanceOf(ControllerException.class).hasMessageContaining("memory budget");
            noTransientDataflows(s);

            ReadResult first = JsonRequests.read(c, plan(CROSS, null, 10L, null)).block();
            assertThat(first.readPath()).isEqualTo(ReadPath.SLOW_EARLY);
            assertThat(first.rows()).hasSize(10).allMatch(EarlyLimitTest::inCrossJoin).doesNotHaveDuplicates();
            assertThat(first.upper().time()).isEqualTo(first.asOf());

            ReadResult offset = JsonRequests.read(c, plan(CROSS, null, 10L, 25L)).block();
            assertThat(offset.rows()).hasSize(10).allMatch(EarlyLimitTest::inCrossJoin).doesNotHaveDuplicates();
            assertThat(offset.readPath()).isEqualTo(ReadPath.SLOW_EARLY);

            // A filter and a projection on top still stop early; each row satisfies the filter.
            String filtered = "{\"op\":\"mfp\",\"input\":" + CROSS + ",\"filter\":[{\"call\":\"lt\",\"args\":[{\"col\":0},{\"col\":2}]}],"
                    + "\"project\":[2,0,3]}";
            ReadResult f = JsonRequests.read(c, plan(filtered, null, 7L, 3L)).block();
            assertThat(f.readPath()).isEqualTo(ReadPath.SLOW_EARLY);
            assertThat(f.rows()).hasSize(7).doesNotHaveDuplicates().allSatisfy(r -> {
                assertThat((Long) r.get(1)).isLessThan((Long) r.get(0)).isGreaterThanOrEqualTo(0L);
                assertThat((Long) r.get(0)).isLessThan(ROWS);
                assertThat(r.get(2)).isEqualTo("b" + r.get(0));
            });

            // The dataflows stopped and went away; reads go on being answered.
            noTransientDataflows(s);
            ReadResult small = JsonRequests.read(c, plan("{\"op\":\"mfp\",\"input\":{\"op\":\"get\",\"name\":\"a\"},\"filter\":[{\"call\":\"lt\","
                    + "\"args\":[{\"col\":0},{\"lit\":3}]}]}", "[{\"col\":0}]", null, null)).block();
            assertThat(small.readPath()).isEqualTo(ReadPath.SLOW);
            assertThat(small.rows()).containsExactly(Row.of(0L, "a0"), Row.of(1L, "a1"), Row.of(2L, "a2"));
            // An expression that may fail on some row (here: overflow) keeps the whole read: over the budget.
            String mayFail = "{\"op\":\"mfp\",\"input\":" + CROSS + ",\"map\":[{\"call\":\"mul\",\"args\":[{\"col\":0},{\"col\":2}]}],\"project\":[4]}";
            assertThatThrownBy(() -> JsonRequests.read(c, plan(mayFail, null, 10L, null)).block())
                    .isInstanceOf(ControllerException.class).hasMessageContaining("memory budget");
            noTransientDataflows(s);
        }
    }

    @Test
    void plansThatMayRetractAnswerTheCompleteResult() {
        try (ControllerStack s = new ControllerStack(dir, true, 2, ControllerSettings.DEFAULTS)) {
            Controller c = s.controller;
            c.createTable("c", List.of(new Column("x", DatumType.INT64, false)));
            c.createTable("d", List.of(new Column("x", DatumType.INT64, false)));
            List<Long> cs = new ArrayList<>();
            List<Long> ds = new ArrayList<>();
            StringBuilder cj = new StringBuilder("[");
            StringBuilder dj = new StringBuilder("[");
            for (int i = 0; i < 300; i++) {
                long cx = (i * 7L) % 41;
                long dx = (i * 11L) % 53 + 20;
                cs.add(cx);
                ds.add(dx);
                cj.append(i == 0 ? "" : ",").append('[').append(cx).append(']');
                dj.append(i == 0 ? "" : ",").append('[').append(dx).append(']');
            }
            JsonRequests.write(c, "c", json(cj.append(']').toString()), null).block();
            JsonRequests.write(c, "d", json(dj.append(']').toString()), null).block();

            // count(*) group by x: the naive model counts.
            Map<Long, Long> counts = new HashMap<>();
            cs.forEach(x -> counts.merge(x, 1L, Long::sum));
            List<Row> model = counts.entrySet().stream().sorted(Map.Entry.comparingByKey()).map(e -> Row.of(e.getKey(), e.getValue())).toList();
            ReadResult grouped = JsonRequests.read(c, plan("{\"op\":\"reduce\",\"input\":{\"op\":\"get\",\"name\":\"c\"},\"group_key\":[0],"
                    + "\"aggregates\":[{\"func\":\"count\"}]}", null, 5L, 2L)).block();
            assertThat(grouped.readPath()).isEqualTo(ReadPath.SLOW);
            assertThat(grouped.rows()).containsExactlyElementsOf(model.subList(2, 7));

            // c EXCEPT d (distinct values of c not in d), as SQL spells it: threshold(c - d) over distinct values.
            Set<Long> inD = new HashSet<>(ds);
            List<Row> except = cs.stream().distinct().filter(x -> !inD.contains(x)).sorted().map(x -> Row.of(x)).toList();
            String distinctC = "{\"op\":\"reduce\",\"input\":{\"op\":\"get\",\"name\":\"c\"},\"group_key\":[0],\"aggregates\":[]}";
            String distinctD = "{\"op\":\"reduce\",\"input\":{\"op\":\"get\",\"name\":\"d\"},\"group_key\":[0],\"aggregates\":[]}";
            String exceptPlan = "{\"op\":\"threshold\",\"input\":{\"op\":\"union\",\"inputs\":[" + distinctC + ",{\"op\":\"negate\",\"input\":"
                    + distinctD + "}]}}";
            ReadResult r = JsonRequests.read(c, plan(exceptPlan, null, 3L, null)).block();
            assertThat(r.readPath()).isEqualTo(ReadPath.SLOW);
            assertThat(r.rows()).containsExactlyElementsOf(except.subList(0, 3));
            // A negation alone (no threshold) is not monotone either: the union of c and -c is empty.
            ReadResult cancelled = JsonRequests.read(c, plan("{\"op\":\"union\",\"inputs\":[{\"op\":\"get\",\"name\":\"c\"},{\"op\":\"negate\","
                    + "\"input\":{\"op\":\"get\",\"name\":\"c\"}}]}", null, 3L, null)).block();
            assertThat(cancelled.rows()).isEmpty();
            assertThat(cancelled.readPath()).isEqualTo(ReadPath.SLOW);
            // A result smaller than the limit is the whole result, complete.
            ReadResult few = JsonRequests.read(c, plan("{\"op\":\"mfp\",\"input\":{\"op\":\"get\",\"name\":\"c\"},\"filter\":[{\"call\":\"eq\","
                    + "\"args\":[{\"col\":0},{\"lit\":0}]}]}", null, 1000L, null)).block();
            assertThat(few.readPath()).isEqualTo(ReadPath.SLOW);
            assertThat(few.rows()).hasSize((int) cs.stream().filter(x -> x == 0).count()).allMatch(row -> row.equals(Row.of(0L)));
            noTransientDataflows(s);
        }
    }
}
