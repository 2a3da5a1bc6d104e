package dev.tandem.sql;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.controller.AccessPath;
import dev.tandem.controller.ReadRequest;
import dev.tandem.controller.ReadResult;
import dev.tandem.row.Row;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * EXPLAIN names the access path a read then takes: for a point key, an IN list, a composite key, a key
 * with a further filter, a filter no index serves, a collection without an index, and a read whose index
 * is dropped between its planning and its run (which chooses again, as EXPLAIN then says). The path is
 * read off the read's result, EXPLAIN's text parsed on its own terms, and each answer checked against a
 * naive evaluation over the rows written.
 */
class ExplainAgreementTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    Path dir;

    private record T(long id, long g, String name, double x) {
    }

    private static final List<T> ROWS = List.of(new T(1, 1, "a", 0.5), new T(2, 1, "b", 1.5), new T(3, 2, "b", 1.5), new T(4, 2, "c", 2.5),
            new T(5, 3, "a", 3.5));

    @Test
    void explainNamesThePathTheReadTakes() {
        try (SqlStack stack = new SqlStack(dir)) {
            SqlSession session = withRows(stack);
            stack.run("CREATE TABLE u (id bigint, name text)", session);
            stack.run("INSERT INTO u VALUES (1, 'a')", session);

            agree(stack, session, "SELECT name FROM t WHERE id = 3", "lookup", "t_pkey", "[[3]]", r -> r.id() == 3, r -> new Object[] {r.name()});
            agree(stack, session, "SELECT name FROM t WHERE id IN (1, 3, 9)", "lookup", "t_pkey", "[[1],[3],[9]]", r -> List.of(1L, 3L, 9L).contains(r.id()),
                    r -> new Object[] {r.name()});
            agree(stack, session, "SELECT id FROM t WHERE name = 'b' AND g = 1", "lookup", "t_by_g_name", "[[1,\"b\"]]",
                    r -> r.g() == 1 && r.name().equals("b"), r -> new Object[] {r.id()});
            agree(stack, session, "SELECT id FROM t WHERE g IN (1, 2) AND name IN ('b', 'c')", "lookup", "t_by_g_name",
                    "[[1,\"b\"],[1,\"c\"],[2,\"b\"],[2,\"c\"]]", r -> (r.g() == 1 || r.g() == 2) && (r.name().equals("b") || r.name().equals("c")),
                    r -> new Object[] {r.id()});
            agree(stack, session, "SELECT id, name FROM t WHERE id = 4 AND name <> 'z'", "lookup", "t_pkey", "[[4]]",
                    r -> r.id() == 4 && !r.name().equals("z"), r -> new Object[] {r.id(), r.name()});
            agree(stack, session, "SELECT id FROM t WHERE x = 1.5", "scan", "t_pkey", null, r -> r.x() == 1.5, r -> new Object[] {r.id()});
            agree(stack, session, "SELECT id FROM t WHERE g = 2", "scan", "t_pkey", null, r -> r.g() == 2, r -> new Object[] {r.id()});
            SqlResult unindexed = stack.run("SELECT name FROM u WHERE id = 1", session);
            assertThat(unindexed.read().access()).isInstanceOf(AccessPath.Transient.class);
            assertThat(explain(stack, session, "SELECT name FROM u WHERE id = 1").get(0)).isEqualTo("slow path: a transient dataflow reading u");
            session.close();
        }
    }

    @Test
    void aReadWhoseIndexWentAwayChoosesAgain() {
        try (SqlStack stack = new SqlStack(dir)) {
            SqlSession session = withRows(stack);
            SqlParams params = SqlParams.of("SELECT id FROM t WHERE g = $1 AND name = $2");
            SqlEngine.Query q = stack.sql.planQuery(CalcitePlanner.parse(params.text()), params, null, null);
            ReadRequest planned = PointLookup.of(q, stack.controller).request(List.of(1L, "b"), ReadRequest.Isolation.STRICT, null);
            assertThat(planned.path()).isInstanceOfSatisfying(AccessPath.Lookup.class, l -> assertThat(l.index().name()).isEqualTo("t_by_g_name"));
            assertThat(read(stack, planned).access()).as("while its index runs, the read takes the path planned").isEqualTo(planned.path());

            stack.run("DROP INDEX t_by_g_name", session);
            ReadResult after = read(stack, planned);
            assertThat(after.access()).isInstanceOfSatisfying(AccessPath.IndexScan.class,
                    s -> assertThat(s.index().name()).as("chosen again: the primary key's index, scanned").isEqualTo("t_pkey"));
            assertThat(after.rows()).containsExactly(Row.of(2L));
            assertThat(explain(stack, session, "SELECT id FROM t WHERE g = 1 AND name = 'b'").get(0)).isEqualTo("fast path: a scan of index t_pkey on t");
            agree(stack, session, "SELECT id FROM t WHERE g = 1 AND name = 'b'", "scan", "t_pkey", null, r -> r.g() == 1 && r.name().equals("b"),
                    r -> new Object[] {r.id()});

            stack.run("DROP TABLE t", session);
            stack.run("CREATE TABLE t (id bigint, g bigint NOT NULL, name text, x double precision)", session);
            stack.run("INSERT INTO t VALUES (2, 1, 'b', 1.5)", session);
            assertThat(read(stack, planned).access()).as("no index left: a transient dataflow").isInstanceOf(AccessPath.Transient.class);
            session.close();
        }
    }

    @Test
    void aTransientReadShowsThePlanItComputesWithAViewsTemporalFilter() {
        try (SqlStack stack = new SqlStack(dir)) {
            SqlSession session = strict(stack);
            stack.run("CREATE TABLE e (id bigint, ts timestamptz)", session);
            stack.run("CREATE VIEW recent AS SELECT id FROM e WHERE ts > now() - INTERVAL '1 hour'", session);
            List<String> whole = explain(stack, session, "SELECT * FROM recent");
            assertThat(whole.get(0)).isEqualTo("slow path: a transient dataflow reading recent");
            JsonNode read = JSON.readTree(whole.get(1));
            assertThat(read.get("from").asString()).isEqualTo("recent");
            assertThat(read.get("plan").toString()).contains("\"op\":\"temporal_filter\"").contains("\"name\":\"e\"");
            List<String> counted = explain(stack, session, "SELECT count(*) FROM recent");
            assertThat(counted.get(0)).isEqualTo("slow path: a transient dataflow");
            assertThat(counted.get(1)).contains("\"op\":\"temporal_filter\"").doesNotContain("\"name\":\"recent\"");
            assertThat(stack.run("SELECT * FROM recent", session).read().access()).isInstanceOf(AccessPath.Transient.class);

            stack.run("CREATE INDEX recent_by_id ON recent (id)", session);
            List<String> indexed = explain(stack, session, "SELECT count(*) FROM recent");
            assertThat(indexed.get(1)).as("the view is read through its index, which holds the filter").contains("\"name\":\"recent_by_id\"")
                    .doesNotContain("temporal_filter");
            session.close();
        }
    }

    /** A strict session on {@code stack} once it holds table {@code t} of {@link #ROWS}, keyed by {@code id} and indexed on {@code (g, name)}. */
    private static SqlSession withRows(SqlStack stack) {
        SqlSession session = strict(stack);
        stack.run("CREATE TABLE t (id bigint PRIMARY KEY, g bigint NOT NULL, name text, x double precision)", session);
        stack.run("CREATE INDEX t_by_g_name ON t (g, name)", session);
        stack.run("INSERT INTO t VALUES (1, 1, 'a', 0.5), (2, 1, 'b', 1.5), (3, 2, 'b', 1.5), (4, 2, 'c', 2.5), (5, 3, 'a', 3.5)", session);
        return session;
    }

    private static SqlSession strict(SqlStack stack) {
        SqlSession session = new SqlSession(true);
        stack.run("SET transaction_isolation = 'strict serializable'", session);
        return session;
    }

    private static ReadResult read(SqlStack stack, ReadRequest request) {
        return stack.controller.read(request).block(Duration.ofSeconds(30));
    }

    private static List<String> explain(SqlStack stack, SqlSession session, String sql) {
        List<String> lines = new ArrayList<>();
        for (Object[] row : stack.run("EXPLAIN " + sql, session).rows()) {
            lines.add((String) row[0]);
        }
        return lines;
    }

    /**
     * Checks that EXPLAIN of {@code sql} names a {@code kind} ("lookup" or "scan") of {@code index} with the
     * keys {@code keys} (JSON), that running it took that very path, and that its rows are the naive answer.
     */
    private static void agree(SqlStack stack, SqlSession session, String sql, String kind, String index, String keys, Predicate<T> where,
            Function<T, Object[]> select) {
        List<String> lines = explain(stack, session, sql);
        assertThat(lines.get(0)).as(sql).startsWith("fast path: a " + kind + " of ").contains(" index " + index);
        JsonNode read = JSON.readTree(lines.get(1));
        assertThat(read.get("from").asString()).as(sql).isEqualTo(index);
        assertThat(read.has("key") ? read.get("key").toString() : null).as(sql).isEqualTo(keys);

        SqlResult result = stack.run(sql, session);
        AccessPath taken = result.read().access();
        switch (taken) {
            case AccessPath.Lookup l -> {
                assertThat(kind).as(sql + " ran a lookup").isEqualTo("lookup");
                assertThat(l.index().name()).as(sql).isEqualTo(index);
                assertThat(JSON.readTree(keys)).as(sql).hasSize(l.keys().size());
                List<String> ran = l.keys().stream().map(k -> Arrays.toString(k.unpack())).toList();
                List<String> named = new ArrayList<>();
                JSON.readTree(keys).forEach(k -> {
                    List<Object> values = new ArrayList<>();
                    k.forEach(v -> values.add(v.isNumber() ? (Object) v.asLong() : v.asString()));
                    named.add(values.toString());
                });
                assertThat(ran).as(sql).containsExactlyInAnyOrderElementsOf(named);
            }
            case AccessPath.IndexScan s -> {
                assertThat(kind).as(sql + " ran a scan").isEqualTo("scan");
                assertThat(s.index().name()).as(sql).isEqualTo(index);
            }
            case AccessPath.Transient t -> throw new AssertionError(sql + " ran a transient dataflow: " + t);
        }
        Comparator<List<Object>> order = Comparator.comparing(Object::toString);
        List<List<Object>> expected = ROWS.stream().filter(where).map(select).map(Arrays::asList).sorted(order).toList();
        List<List<Object>> actual = result.rows().stream().map(Arrays::asList).sorted(order).toList();
        assertThat(actual).as(sql).isEqualTo(expected);
        assertThat(Objects.requireNonNull(result.read()).path()).isEqualTo("fast");
    }
}
