package dev.tandem.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a statement does and which objects it names, the facts SQL authorization rests on: a view is
 * named as itself (not what it reads), every table of a join counts, a CTE's name is not an object.
 */
class SqlClassifierTest {

    @TempDir
    Path dir;

    @Test
    void kindsByFirstKeyword() {
        Map<String, SqlStatement.Kind> kinds = Map.ofEntries(
                Map.entry("SELECT 1", SqlStatement.Kind.READ),
                Map.entry("  with x AS (SELECT 1) SELECT * FROM x", SqlStatement.Kind.READ),
                Map.entry("(SELECT 1)", SqlStatement.Kind.READ),
                Map.entry("VALUES (1)", SqlStatement.Kind.READ),
                Map.entry("SHOW TABLES", SqlStatement.Kind.READ),
                Map.entry("EXPLAIN SELECT 1", SqlStatement.Kind.READ),
                Map.entry("SUBSCRIBE TO orders", SqlStatement.Kind.READ),
                Map.entry("INSERT INTO t VALUES (1)", SqlStatement.Kind.WRITE),
                Map.entry("-- a comment\nDELETE FROM t", SqlStatement.Kind.WRITE),
                Map.entry("UPDATE t SET a = 1", SqlStatement.Kind.WRITE),
                Map.entry("CREATE TABLE t (a bigint)", SqlStatement.Kind.DDL),
                Map.entry("DROP INDEX i", SqlStatement.Kind.DDL),
                Map.entry("ALTER TABLE t ADD COLUMN b text", SqlStatement.Kind.DDL),
                Map.entry("GRANT SELECT ON t TO eve", SqlStatement.Kind.DDL),
                Map.entry("COPY t FROM STDIN", SqlStatement.Kind.WRITE),
                Map.entry("COPY t TO STDOUT", SqlStatement.Kind.READ),
                Map.entry("COPY (SUBSCRIBE TO orders) TO STDOUT", SqlStatement.Kind.READ),
                Map.entry("copy ( select (1) ) to stdout", SqlStatement.Kind.READ),
                Map.entry("COPY (DELETE FROM t) TO STDOUT", SqlStatement.Kind.WRITE),
                Map.entry("frobnicate", SqlStatement.Kind.DDL),
                Map.entry("SET transaction_isolation = 'serializable'", SqlStatement.Kind.SESSION),
                Map.entry("BEGIN", SqlStatement.Kind.SESSION),
                Map.entry("DECLARE c CURSOR FOR SUBSCRIBE orders", SqlStatement.Kind.READ),
                Map.entry("declare c no scroll cursor without hold for select * from t", SqlStatement.Kind.READ),
                Map.entry("DECLARE c CURSOR FOR DELETE FROM t", SqlStatement.Kind.WRITE),
                Map.entry("FETCH 10 c WITH (timeout = '1s')", SqlStatement.Kind.SESSION),
                Map.entry("CLOSE c", SqlStatement.Kind.SESSION),
                Map.entry("", SqlStatement.Kind.SESSION));
        kinds.forEach((sql, kind) -> assertThat(SqlEngine.kind(sql)).as(sql).isEqualTo(kind));
    }

    @Test
    void objectsAreThoseTheStatementNames() {
        try (SqlTesting.Stack stack = SqlTesting.stack(dir)) {
            SqlEngine e = stack.engine();
            for (String ddl : List.of("CREATE TABLE orders (id bigint NOT NULL, customer bigint)", "CREATE TABLE customers (id bigint, name text)",
                    "CREATE VIEW named AS SELECT o.id, c.name FROM orders o JOIN customers c ON o.customer = c.id",
                    "CREATE INDEX orders_by_id ON orders (id)")) {
                e.execute(ddl, List.of(), new SqlSession()).block(Duration.ofSeconds(30));
            }
            Map<String, List<String>> objects = Map.ofEntries(
                    Map.entry("SELECT id FROM orders WHERE id = $1", List.of("orders")),
                    Map.entry("SELECT name FROM named", List.of("named")),
                    Map.entry("SELECT o.id FROM orders o LEFT JOIN customers c ON o.customer = c.id", List.of("orders", "customers")),
                    Map.entry("WITH big AS (SELECT id FROM orders) SELECT * FROM big UNION SELECT id FROM customers", List.of("orders", "customers")),
                    Map.entry("SELECT id FROM orders AS OF 12", List.of("orders")),
                    Map.entry("EXPLAIN SELECT name FROM named", List.of("named")),
                    Map.entry("SELECT 1 + 1", List.of()),
                    Map.entry("INSERT INTO orders VALUES ($1, 2)", List.of("orders")),
                    Map.entry("DELETE FROM customers WHERE id = 3", List.of("customers")),
                    Map.entry("CREATE TABLE IF NOT EXISTS fresh (a bigint)", List.of("fresh")),
                    Map.entry("CREATE MATERIALIZED VIEW v (a) AS SELECT id FROM customers", List.of("v", "customers")),
                    Map.entry("CREATE INDEX ON named (id)", List.of("named")),
                    Map.entry("CREATE INDEX IF NOT EXISTS i ON orders (id)", List.of("i", "orders")),
                    Map.entry("DROP TABLE IF EXISTS a, b", List.of("a", "b")),
                    Map.entry("DROP MATERIALIZED VIEW v", List.of("v")),
                    Map.entry("SHOW COLUMNS FROM customers", List.of("customers")),
                    Map.entry("SHOW INDEXES FROM orders", List.of("orders")),
                    Map.entry("SHOW TABLES", List.of()),
                    Map.entry("SUBSCRIBE TO orders_by_id", List.of("orders_by_id")),
                    Map.entry("SUBSCRIBE (SELECT name FROM named)", List.of("named")),
                    Map.entry("COPY (SUBSCRIBE TO orders_by_id) TO STDOUT", List.of("orders_by_id")),
                    Map.entry("COPY (SUBSCRIBE (SELECT name FROM named WHERE (1 = 1))) TO STDOUT", List.of("named")),
                    Map.entry("DECLARE c CURSOR FOR SUBSCRIBE TO orders_by_id", List.of("orders_by_id")),
                    Map.entry("DECLARE \"for\" CURSOR FOR SELECT name FROM named", List.of("named")),
                    Map.entry("FETCH ALL c", List.of()),
                    Map.entry("SET transaction_isolation = 'serializable'", List.of()));
            objects.forEach((sql, names) -> assertThat(e.objects(sql)).as(sql).containsExactlyInAnyOrderElementsOf(names));
            assertThatThrownBy(() -> e.objects("SELECT * FROM nowhere")).isInstanceOfSatisfying(SqlException.class,
                    x -> assertThat(x.state()).isEqualTo(SqlException.UNDEFINED_TABLE));
        }
    }
}
