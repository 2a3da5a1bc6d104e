package dev.tandem.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * Joins of several inputs planned as one: the plans EXPLAIN prints have keys on every join the equalities connect,
 * filters of one input right above that input, a cross product only between inputs no equality connects, and no join
 * work at all under a FALSE or NULL conjunct (a constant one filters each input first); a comma binds looser than JOIN,
 * as in PostgreSQL; the answers, columns in the FROM order, equal nested loops over the rows written (PostgresDifferentialTest and PostgresMaintainedViewTest compare such joins with PostgreSQL).
 */
class InnerJoinsTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private final List<long[]> a = new ArrayList<>();
    private final List<long[]> b = new ArrayList<>();
    private final List<long[]> c = new ArrayList<>();

    @BeforeEach
    void rows() {
        Random random = new Random(7);
        for (List<long[]> t : List.of(a, b, c)) {
            for (int i = 0; i < 40; i++) {
                t.add(new long[] {random.nextInt(10), random.nextInt(5)});
            }
        }
    }

    private void load(SqlStack stack, SqlSession session) {
        for (String name : List.of("a", "b", "c")) {
            stack.run("CREATE TABLE " + name + " (k bigint, v bigint)", session);
            List<long[]> rows = name.equals("a") ? a : name.equals("b") ? b : c;
            List<String> values = rows.stream().map(r -> "(" + r[0] + ", " + r[1] + ")").toList();
            stack.run("INSERT INTO " + name + " VALUES " + String.join(", ", values), session);
        }
    }

    private static JsonNode plan(SqlStack stack, SqlSession session, String sql) {
        List<Object[]> lines = stack.run("EXPLAIN " + sql, session).rows();
        assertThat((String) lines.get(0)[0]).startsWith("slow path: a transient dataflow");
        return JSON.readTree((String) lines.get(1)[0]);
    }

    /** Every node of {@code op} in the plan, outermost first. */
    private static List<JsonNode> nodes(JsonNode plan, String op) {
        List<JsonNode> out = new ArrayList<>();
        collect(plan, op, out);
        return out;
    }

    private static void collect(JsonNode node, String op, List<JsonNode> out) {
        if (node.isObject() && node.has("op") && node.get("op").asString().equals(op)) {
            out.add(node);
        }
        for (JsonNode child : node) {
            if (child.isContainer()) {
                collect(child, op, out);
            }
        }
    }

    private static List<String> answer(SqlStack stack, SqlSession session, String sql) {
        List<String> out = new ArrayList<>();
        for (Object[] row : stack.run(sql, session).rows()) {
            out.add(Arrays.toString(row));
        }
        out.sort(null);
        return out;
    }

    private interface Rows<T> {
        T of(long[] x, long[] y, long[] z);
    }

    /** The rows of a × b × c that {@code keep} keeps, as {@code out} prints them, sorted; never none (the test would be empty). */
    private List<String> nestedLoops(Rows<Boolean> keep, Rows<String> out) {
        List<String> rows = new ArrayList<>();
        for (long[] x : a) {
            for (long[] y : b) {
                for (long[] z : c) {
                    if (keep.of(x, y, z)) {
                        rows.add(out.of(x, y, z));
                    }
                }
            }
        }
        rows.sort(null);
        assertThat(rows).as("rows the query must answer").isNotEmpty();
        return rows;
    }

    private static String row(long... values) {
        return Arrays.toString(Arrays.stream(values).boxed().toArray());
    }

    @Test
    void equalitiesBecomeKeysInAnyFromOrderAndColumnsKeepIt() {
        try (SqlStack stack = new SqlStack(dir)) {
            SqlSession session = new SqlSession(true);
            load(stack, session);
            // a and b are connected only through c, listed last: c is joined second, yet the columns come in FROM order
            String sql = "SELECT * FROM a, b, c WHERE c.k = a.k AND b.v = c.v AND a.v > 1";
            JsonNode plan = plan(stack, session, sql);
            List<JsonNode> joins = nodes(plan, "join");
            assertThat(joins).hasSize(2);
            for (JsonNode j : joins) {
                assertThat(j.get("on").size()).as("keys of %s", j).isEqualTo(1);
            }
            List<JsonNode> filters = nodes(plan, "mfp").stream().filter(m -> m.has("filter")).toList();
            assertThat(filters).as("one filter, of a alone, right above a").hasSize(1);
            assertThat(filters.get(0).get("input").get("op").asString()).isEqualTo("get");

            List<String> expected = nestedLoops((x, y, z) -> z[0] == x[0] && y[1] == z[1] && x[1] > 1,
                    (x, y, z) -> row(x[0], x[1], y[0], y[1], z[0], z[1]));
            assertThat(answer(stack, session, sql)).isEqualTo(expected);
        }
    }

    @Test
    void aCrossProductOnlyBetweenInputsNoEqualityConnects() {
        try (SqlStack stack = new SqlStack(dir)) {
            SqlSession session = new SqlSession(true);
            load(stack, session);
            String sql = "SELECT a.k, b.k, c.v FROM a, b, c WHERE a.k = c.k AND b.v = 3 AND a.v <= b.k";
            List<JsonNode> joins = nodes(plan(stack, session, sql), "join");
            assertThat(joins).hasSize(2);
            assertThat(joins.get(0).get("on").size()).as("the outer join, with b: a cross product and a condition after it").isZero();
            assertThat(joins.get(1).get("on").size()).as("a with c first, on their key").isEqualTo(1);

            List<String> expected = nestedLoops((x, y, z) -> x[0] == z[0] && y[1] == 3 && x[1] <= y[0], (x, y, z) -> row(x[0], y[0], z[1]));
            assertThat(answer(stack, session, sql)).isEqualTo(expected);
        }
    }

    @Test
    void aFalseOrNullOrConstantConjunctFiltersEveryInputFirst() {
        try (SqlStack stack = new SqlStack(dir)) {
            SqlSession session = new SqlSession(true);
            load(stack, session);
            for (String never : List.of("false", "NULL", "1 = 0")) {
                // PostgreSQL folds the constant and never divides by zero
                String sql = "SELECT * FROM a JOIN b ON a.k = b.k, c WHERE a.v / 0 = 1 AND c.k = b.k AND " + never;
                JsonNode plan = plan(stack, session, sql);
                List<JsonNode> filters = nodes(plan, "mfp").stream().filter(m -> m.has("filter")).toList();
                assertThat(filters).as("each input filtered by FALSE, before any join").hasSize(3);
                for (JsonNode f : filters) {
                    assertThat(f.get("input").get("op").asString()).isEqualTo("get");
                    if (never.equals("1 = 0")) {
                        // not folded, but a constant: first in each input's filter, which stops at it
                        assertThat(f.get("filter").get(0).toString()).doesNotContain("col");
                    } else {
                        assertThat(f.get("filter").toString()).doesNotContain("div");
                    }
                }
                assertThat(answer(stack, session, sql)).as(never).isEmpty();
            }
        }
    }

    @Test
    void innerJoinsBesideAnOuterJoinAreOrderedAroundIt() {
        try (SqlStack stack = new SqlStack(dir)) {
            SqlSession session = new SqlSession(true);
            load(stack, session);
            String sql = "SELECT a.k, b.v, c.k, d.v FROM a, c LEFT JOIN b AS d ON c.v = d.k, b WHERE a.k = b.k AND c.v = b.v AND a.v > 2";
            List<String> expected = new ArrayList<>();
            for (long[] x : a) {
                for (long[] z : c) {
                    List<long[]> matches = b.stream().filter(r -> r[0] == z[1]).toList();
                    List<Long> ds = matches.isEmpty() ? Arrays.asList((Long) null) : matches.stream().map(r -> r[1]).toList();
                    for (Long d : ds) {
                        for (long[] y : b) {
                            if (x[0] == y[0] && z[1] == y[1] && x[1] > 2) {
                                expected.add(Arrays.toString(new Object[] {x[0], y[1], z[0], d}));
                            }
                        }
                    }
                }
            }
            expected.sort(null);
            assertThat(expected).isNotEmpty();
            assertThat(expected.stream().anyMatch(r -> r.endsWith("null]"))).as("some rows padded").isEqualTo(
                    c.stream().anyMatch(z -> b.stream().noneMatch(r -> r[0] == z[1])));
            assertThat(answer(stack, session, sql)).isEqualTo(expected);
            assertThat(nodes(plan(stack, session, sql), "join").stream().filter(j -> j.get("on").isEmpty()).map(Objects::toString).toList())
                    .as("no cross product").isEmpty();
        }
    }

    @Test
    void aCommaBindsLooserThanJoin() {
        try (SqlStack stack = new SqlStack(dir)) {
            SqlSession session = new SqlSession(true);
            load(stack, session);
            stack.run("CREATE TABLE e (k bigint, v bigint)", session);
            // a, (e RIGHT JOIN c ON ...): e is empty, so is the answer (not c's rows padded with NULLs for e and a);
            // (a, e) RIGHT JOIN c would answer c's rows padded with NULLs
            assertThat(answer(stack, session, "SELECT * FROM e, b RIGHT JOIN c ON b.k = c.k")).isEmpty();
            List<String> expected = new ArrayList<>();
            for (long[] x : a) {
                for (long[] z : c) {
                    List<long[]> matches = b.stream().filter(y -> y[0] == z[0] && y[1] > 3).toList();
                    for (long[] y : matches) {
                        expected.add(Arrays.toString(new Object[] {x[0], y[0], z[0]}));
                    }
                    if (matches.isEmpty()) {
                        expected.add(Arrays.toString(new Object[] {x[0], null, z[0]}));
                    }
                }
            }
            expected.sort(null);
            assertThat(answer(stack, session, "SELECT a.k, b.k, c.k FROM a, b RIGHT JOIN c ON b.k = c.k AND b.v > 3")).isEqualTo(expected);
            // the ON of a join after a comma sees only that join's inputs
            SqlException refused = org.assertj.core.api.Assertions.catchThrowableOfType(SqlException.class,
                    () -> stack.run("SELECT * FROM c, b JOIN a ON a.k = c.k", session));
            assertThat(refused.state().code()).isEqualTo("42P01");
            assertThat(refused.getMessage()).isEqualTo("invalid reference to FROM-clause entry for table \"c\"");
        }
    }
}
