package dev.tandem.pgwire;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/**
 * Keys through the PostgreSQL JDBC driver: a duplicate is refused with 23505 and PostgreSQL's message,
 * detail and constraint name, and changes nothing; a lookup by the primary key takes the fast path with
 * no CREATE INDEX. Where {@code POSTGRES_ORACLE_ADDRESS} names a PostgreSQL, the same script runs there
 * and every outcome (rows, or SQLSTATE and message, and a unique violation's detail and constraint) must
 * be alike.
 */
class PgWireKeysTest extends TrustedPgWireServer {


    private static final List<String> SCRIPT = List.of(
            "CREATE TABLE accounts (id bigint PRIMARY KEY, owner text NOT NULL, email text UNIQUE, balance bigint)",
            "INSERT INTO accounts VALUES (1, 'ada', 'ada@x', 10), (2, 'bob', NULL, 20), (3, 'cy', NULL, 30)",
            "INSERT INTO accounts VALUES (1, 'eve', 'eve@x', 0)",
            "INSERT INTO accounts VALUES (4, 'dan', 'dan@x', 0), (4, 'dee', 'dee@x', 0)",
            "INSERT INTO accounts VALUES (5, 'fay', 'ada@x', 0)",
            "INSERT INTO accounts VALUES (NULL, 'gus', 'gus@x', 0)",
            "SELECT id, owner, email, balance FROM accounts ORDER BY id",
            "DELETE FROM accounts WHERE id = 2",
            "INSERT INTO accounts VALUES (2, 'bea', 'bea@x', 25)",
            "SELECT owner, balance FROM accounts WHERE id = 2",
            "CREATE TABLE pairs (a bigint, b text, n bigint, PRIMARY KEY (a, b))",
            "INSERT INTO pairs VALUES (1, 'x', 1), (1, 'y', 2), (2, 'x', 3)",
            "INSERT INTO pairs VALUES (1, 'y', 9)",
            "SELECT n FROM pairs WHERE a = 1 AND b = 'y'",
            "DROP INDEX accounts_pkey",
            "CREATE TABLE twice (a bigint PRIMARY KEY, b bigint, PRIMARY KEY (b))");


    @Test
    void duplicatesAreRefusedAsPostgresRefusesThem() throws SQLException {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (id bigint PRIMARY KEY, v text)");
            s.execute("INSERT INTO t VALUES (1, 'a'), (2, 'b')");
            PSQLException dup = refused(s, "INSERT INTO t VALUES (1, 'c')");
            assertThat(dup.getSQLState()).isEqualTo("23505");
            ServerErrorMessage m = dup.getServerErrorMessage();
            assertThat(m.getMessage()).isEqualTo("duplicate key value violates unique constraint \"t_pkey\"");
            assertThat(m.getDetail()).isEqualTo("Key (id)=(1) already exists.");
            assertThat(m.getConstraint()).isEqualTo("t_pkey");
            // a write with one key twice is refused whole
            assertThat(refused(s, "INSERT INTO t VALUES (3, 'c'), (3, 'd')").getServerErrorMessage().getDetail())
                    .isEqualTo("Key (id)=(3) already exists.");
            assertThat(rows(s, "SELECT id, v FROM t ORDER BY id")).containsExactly("1 a", "2 b");
            // a primary key is NOT NULL
            assertThat(refused(s, "INSERT INTO t VALUES (NULL, 'n')").getSQLState()).isEqualTo("23502");
            // a text key is shown as text
            s.execute("CREATE TABLE names (name text PRIMARY KEY)");
            s.execute("INSERT INTO names VALUES ('it''s')");
            assertThat(refused(s, "INSERT INTO names VALUES ('it''s')").getServerErrorMessage().getDetail())
                    .isEqualTo("Key (name)=(it's) already exists.");
        }
    }

    @Test
    void thePrimaryKeyIsAnIndex() throws SQLException {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE k (id bigint PRIMARY KEY, v bigint)");
            s.execute("INSERT INTO k VALUES (1, 10), (2, 20)");
            List<String> plan = rows(s, "EXPLAIN SELECT v FROM k WHERE id = 2");
            assertThat(plan.get(0)).isEqualTo("fast path: a lookup of key [2] in index k_pkey");
            assertThat(rows(s, "SELECT v FROM k WHERE id = 2")).containsExactly("20");
        }
    }

    @Test
    void everyOutcomeIsPostgresOwn() throws SQLException {
        String address = System.getenv("POSTGRES_ORACLE_ADDRESS");
        if (address == null || address.isBlank()) {
            org.junit.jupiter.api.Assertions.assertFalse("true".equalsIgnoreCase(System.getenv("CI")),
                    "POSTGRES_ORACLE_ADDRESS is not set on CI: .ci/run starts a PostgreSQL");
            System.err.println("!!! PgWireKeysTest against PostgreSQL SKIPPED: POSTGRES_ORACLE_ADDRESS is not set");
        }
        Assumptions.assumeTrue(address != null && !address.isBlank(), "POSTGRES_ORACLE_ADDRESS is not set");
        String schema = "keys_" + Long.toHexString(System.nanoTime());
        try (Connection pg = DriverManager.getConnection("jdbc:postgresql://" + address + "/postgres?user=postgres&sslmode=disable");
                Connection td = connect(); Statement p = pg.createStatement(); Statement t = td.createStatement()) {
            p.execute("CREATE SCHEMA " + schema);
            p.execute("SET search_path TO " + schema);
            try {
                for (String sql : SCRIPT) {
                    assertThat(outcome(t, sql)).as(sql).isEqualTo(outcome(p, sql));
                }
            } finally {
                p.execute("DROP SCHEMA " + schema + " CASCADE");
            }
        }
    }

    /** A statement's rows, or its error's SQLSTATE and message, and for a unique violation its detail and constraint. */
    private static List<String> outcome(Statement s, String sql) {
        try {
            return rows(s, sql);
        } catch (PSQLException e) {
            ServerErrorMessage m = e.getServerErrorMessage();
            if (!"23505".equals(e.getSQLState())) {
                return List.of("error " + e.getSQLState(), m.getMessage());
            }
            return List.of("error " + e.getSQLState(), m.getMessage(), String.valueOf(m.getDetail()), String.valueOf(m.getConstraint()));
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }

    private static PSQLException refused(Statement s, String sql) {
        try {
            s.execute(sql);
        } catch (PSQLException e) {
            return e;
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
        throw new AssertionError("not refused: " + sql);
    }
}
