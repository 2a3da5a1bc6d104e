package dev.tandem.sql;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.controller.AccessPath;
import dev.tandem.controller.ReadRequest;
import dev.tandem.row.Row;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.function.Function;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Point lookups bound without translating the plan again: which statements are such lookups (and of
 * which index), and that their answers equal a naive evaluation of the same query over the rows written
 * — with a residual filter, computed columns, a two-column key, NULL and absent keys, literal queries.
 */
class PointLookupTest {

    @TempDir
    Path dir;

    private static PointLookup lookupOf(SqlStack stack, String text) {
        SqlParams params = SqlParams.of(text);
        SqlEngine.Query q = stack.sql.planQuery(CalcitePlanner.parse(params.text()), params, null, null);
        return PointLookup.of(q, stack.controller);
    }

    /** The lookup a read takes. */
    private static AccessPath.Lookup path(ReadRequest r) {
        return (AccessPath.Lookup) r.path();
    }

    @Test
    void findsTheIndexAKeyOfParametersPins() {
        try (SqlStack stack = new SqlStack(dir)) {
            SqlSession session = new SqlSession(true);
            stack.run("CREATE TABLE p (id bigint NOT NULL, name text, g bigint, x double precision)", session);
            stack.run("CREATE INDEX p_by_id ON p (id)", session);
            stack.run("CREATE INDEX p_by_g_name ON p (g, name)", session);
            stack.run("CREATE INDEX p_by_x ON p (x)", session);

            PointLookup byId = lookupOf(stack, "SELECT name FROM p WHERE id = $1");
            ReadRequest r = byId.request(List.of(7L), null, null);
            assertThat(path(r).index().name()).isEqualTo("p_by_id");
            assertThat(path(r).keys()).containsExactly(Row.of(7L));
            assertThat(path(r).mfp().filter()).as("the pinning conjunct is the lookup itself").isEmpty();
            assertThat(r.from()).as("the collection, to choose again from should the index go").isEqualTo("p");
            assertThat(r.mfp().filter()).as("the key's equality, to choose again from").hasSize(1);
            assertThat(path(r).mfp().project()).containsExactly(1);
            assertThat(byId.request(Arrays.asList((Object) null), null, null)).as("a NULL key is left to the general read").isNull();

            ReadRequest both = lookupOf(stack, "SELECT id FROM p WHERE name = $2 AND g = $1 AND id > 3").request(List.of(5L, "b"), null, null);
            assertThat(path(both).index().name()).as("the key of both columns").isEqualTo("p_by_g_name");
            assertThat(path(both).keys()).containsExactly(Row.of(5L, "b"));
            assertThat(path(both).mfp().filter()).as("the residual conjunct").hasSize(1);

            assertThat(lookupOf(stack, "SELECT name FROM p WHERE id = $1 AND g > $2")).as("a parameter outside the key").isNull();
            assertThat(lookupOf(stack, "SELECT name FROM p WHERE g = $1")).as("no index whose whole key is pinned").isNull();
            assertThat(lookupOf(stack, "SELECT name FROM p WHERE x = $1")).as("a float key").isNull();
            assertThat(lookupOf(stack, "SELECT name FROM p WHERE id = $1 ORDER BY name")).as("a sort").isNull();
            assertThat(lookupOf(stack, "SELECT g, count(*) FROM p WHERE id = $1 GROUP BY g")).as("an aggregate").isNull();

            stack.run("CREATE TABLE pb (b bytea, k bigint)", session);
            stack.run("CREATE INDEX pb_by_b ON pb (b)", session);
            ReadRequest bytea = lookupOf(stack, "SELECT k FROM pb WHERE b = $1").request(List.of(new dev.tandem.row.Bytea(new byte[] {10, -1})), null, null);
            assertThat(path(bytea).index().name()).as("a bytea key").isEqualTo("pb_by_b");
            assertThat(path(bytea).keys()).containsExactly(Row.of(new dev.tandem.row.Bytea(new byte[] {10, -1})));
            session.close();
        }
    }

    @Test
    void integerAndSmallintKeysArePinnedByParametersAndLiterals() {
        try (SqlStack stack = new SqlStack(dir)) {
            SqlSession session = new SqlSession(true);
            stack.run("CREATE TABLE pi (id integer PRIMARY KEY, s smallint, name text)", session);
            stack.run("CREATE INDEX pi_by_s ON pi (s)", session);
            stack.run("INSERT INTO pi VALUES (42, 7, 'a'), (2147483647, 32767, 'b'), (-5, -32768, 'c')", session);

            ReadRequest byId = lookupOf(stack, "SELECT name FROM pi WHERE id = $1").request(List.of(42L), null, null);
            assertThat(path(byId).index().name()).as("an integer key").isEqualTo("pi_pkey");
            assertThat(path(byId).keys()).containsExactly(Row.of(42L));
            assertThat(path(lookupOf(stack, "SELECT name FROM pi WHERE s = $1").request(List.of(7L), null, null)).index().name()).as("a smallint key")
                    .isEqualTo("pi_by_s");

            SqlSession reader = new SqlSession(true);
            // strict: a fresh session's serializable read may precede the insert just acknowledged
            stack.run("SET transaction_isolation = 'strict serializable'", reader);
            for (String sql : List.of("SELECT name FROM pi WHERE id = 42", "SELECT name FROM pi WHERE id = 2147483647",
                    "SELECT name FROM pi WHERE s = 7", "SELECT name FROM pi WHERE s = -32768")) {
                SqlResult r = stack.sql.execute(sql, List.of(), reader).block(java.time.Duration.ofSeconds(30));
                assertThat(r.rows()).as(sql).hasSize(1);
                assertThat(r.read().path()).as("a literal key of an integer column is a point lookup: " + sql).isEqualTo("fast");
            }
            for (String sql : List.of("SELECT name FROM pi WHERE id = 3000000000", "SELECT name FROM pi WHERE s = 40000")) {
                SqlResult r = stack.sql.execute(sql, List.of(), reader).block(java.time.Duration.ofSeconds(30));
                assertThat(r.rows()).as("a key beyond the column's range matches no row, as in PostgreSQL: " + sql).isEmpty();
            }
            SqlResult again = stack.sql.execute("SELECT name FROM pi WHERE id = 42", List.of(), reader).block(java.time.Duration.ofSeconds(30));
            assertThat(again.read().path()).as("a key beyond the range leaves the shape to other keys").isEqualTo("fast");
            session.close();
            reader.close();
        }
    }

    private record P(long id, String name, Long g) {
    }

    @Test
    void answersAsANaiveEvaluation() {
        try (SqlStack stack = new SqlStack(dir)) {
            SqlSession session = new SqlSession(true);
            stack.run("CREATE TABLE p (id bigint NOT NULL, name text, g bigint)", session);
            Random random = new Random(42);
            List<P> rows = new ArrayList<>();
            StringBuilder insert = new StringBuilder("INSERT INTO p VALUES ");
            for (int i = 0; i < 200; i++) {
                P row = new P(i % 150, "n" + random.nextInt(5), random.nextInt(4) == 0 ? null : (long) random.nextInt(6));
                rows.add(row);
                insert.append(i == 0 ? "" : ", ").append("(").append(row.id()).append(", '").append(row.name()).append("', ").append(row.g()).append(")");
            }
            stack.run(insert.toString(), session);
            stack.run("CREATE INDEX p_by_id ON p (id)", session);
            stack.run("CREATE INDEX p_by_g_name ON p (g, name)", session);
            SqlSession reader = new SqlSession(true);
            stack.run("SET transaction_isolation = 'strict serializable'", reader);
            for (int i = 0; i < 60; i++) {
                long id = random.nextInt(170);
                long g = random.nextInt(7);
                String name = "n" + random.nextInt(6);
                check(stack, reader, rows, "SELECT id, name FROM p WHERE id = $1", List.of(id), r -> r.id() == id,
                        r -> new Object[] {r.id(), r.name()});
                check(stack, reader, rows, "SELECT name, id * 2 FROM p WHERE id = $1 AND name <> 'n0'", List.of(id),
                        r -> r.id() == id && !r.name().equals("n0"), r -> new Object[] {r.name(), r.id() * 2});
                check(stack, reader, rows, "SELECT id FROM p WHERE g = $1 AND name = $2", List.of(g, name),
                        r -> Objects.equals(r.g(), g) && r.name().equals(name), r -> new Object[] {r.id()});
                check(stack, reader, rows, "SELECT id, g FROM p WHERE id = " + id, List.of(), r -> r.id() == id,
                        r -> new Object[] {r.id(), r.g()});
            }
            check(stack, reader, rows, "SELECT id FROM p WHERE id = $1", Arrays.asList((Object) null), r -> false, r -> new Object[] {r.id()});
            session.close();
            reader.close();
        }
    }

    private static void check(SqlStack stack, SqlSession session, List<P> rows, String sql, List<Object> params, Predicate<P> where,
            Function<P, Object[]> select) {
        SqlResult result = stack.sql.execute(sql, params, session).block(java.time.Duration.ofSeconds(30));
        Comparator<List<Object>> order = Comparator.comparing(Object::toString);
        List<List<Object>> expected = rows.stream().filter(where).map(select).map(Arrays::asList).sorted(order).toList();
        List<List<Object>> actual = result.rows().stream().map(Arrays::asList).sorted(order).toList();
        assertThat(actual).as(sql + " " + params).isEqualTo(expected);
        if (params.stream().noneMatch(Objects::isNull)) {
            assertThat(result.read().path()).as(sql).isEqualTo("fast");
        }
    }
}
