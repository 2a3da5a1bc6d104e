package dev.tandem.pgwire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.sql.SqlTesting;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/**
 * {@code CREATE UNIQUE INDEX} on tables that hold rows, and the writes after it, by Tandem and by a real
 * PostgreSQL 15 alike: each statement's outcome (its row count, or its SQLSTATE with message, detail and
 * constraint) and the tables' rows and catalog after it. Skipped without {@code POSTGRES_ORACLE_ADDRESS},
 * as {@link PostgresDifferentialTest} is.
 */
class PostgresUniqueIndexTest {

    private static final List<String> TABLES = List.of("ui_a", "ui_m", "ui_k", "ui_s");

    /** Statements run on both in order: writes and definitions compared by outcome, queries (SELECT) by answer. */
    static final List<String> SCRIPT = List.of(
            "CREATE TABLE ui_a (a bigint, b text, c bigint)",
            "INSERT INTO ui_a VALUES (1, 'x', 10), (2, 'y', NULL), (3, 'x', NULL), (4, NULL, NULL), (5, NULL, 30)",
            // rows holding a key twice: refused, nothing made
            "CREATE UNIQUE INDEX ui_a_b ON ui_a (b)",
            "CREATE UNIQUE INDEX ui_a_b ON ui_a USING btree (b DESC NULLS LAST)",
            "SELECT count(*) FROM pg_indexes WHERE tablename = 'ui_a'",
            "INSERT INTO ui_a VALUES (6, 'x', 60)",
            // NULLs are distinct
            "CREATE UNIQUE INDEX ui_a_c ON ui_a (c)",
            "INSERT INTO ui_a VALUES (7, 'z', 10)",
            "INSERT INTO ui_a VALUES (7, 'z', NULL), (8, 'z', NULL)",
            "INSERT INTO ui_a VALUES (9, 'w', 90), (10, 'v', 90)",
            "UPDATE ui_a SET c = 10 WHERE a = 2",
            "UPDATE ui_a SET c = c + 1 WHERE a = 1",
            "UPDATE ui_a SET c = 10 WHERE a = 1",
            "DELETE FROM ui_a WHERE a = 5",
            "INSERT INTO ui_a VALUES (11, 'u', 30)",
            "SELECT a, b, c FROM ui_a ORDER BY a",
            "CREATE UNIQUE INDEX IF NOT EXISTS ui_a_c ON ui_a (a)",
            "CREATE UNIQUE INDEX ui_a_c ON ui_a (a)",
            "CREATE UNIQUE INDEX ui_a_nope ON ui_a (nope)",
            "CREATE UNIQUE INDEX ui_nope_a ON ui_nope (a)",
            "CREATE UNIQUE INDEX ON ui_a (a, c)",
            "SELECT indexname::text, indexdef FROM pg_indexes WHERE tablename = 'ui_a' ORDER BY indexname",
            "SELECT c.relname::text, i.indisunique, i.indisprimary, i.indnatts::bigint FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid"
                    + " WHERE c.relname LIKE 'ui_a%' ORDER BY 1",
            "SELECT pg_get_indexdef(c.oid) FROM pg_class c WHERE c.relname = 'ui_a_c'",
            // an order of the key's columns is accepted (and not shown: Tandem keeps every index ascending)
            "CREATE UNIQUE INDEX ui_a_desc ON ui_a (a DESC, b ASC NULLS FIRST)",
            "INSERT INTO ui_a VALUES (1, 'again', NULL)",
            "SELECT b FROM ui_a WHERE a = 3",
            // dropping the index drops its key
            "DROP INDEX ui_a_c",
            "INSERT INTO ui_a VALUES (12, 't', 10)",
            "SELECT count(*) FROM ui_a WHERE c = 10",
            "CREATE UNIQUE INDEX ui_a_c ON ui_a (c)",
            "DROP INDEX ui_a_a_c_idx, ui_a_desc",
            "INSERT INTO ui_a VALUES (1, 'dup', 1)",
            "DROP INDEX ui_a_c",
            "DROP INDEX ui_a_c",
            "DROP INDEX IF EXISTS ui_a_c",
            // several columns
            "CREATE TABLE ui_m (x bigint, y text, z bigint)",
            "INSERT INTO ui_m VALUES (1, 'p', 1), (1, 'q', 2), (2, 'p', 3), (1, NULL, 4), (1, NULL, 5), (NULL, NULL, 6)",
            "CREATE UNIQUE INDEX ui_m_xy ON ui_m (x, y)",
            "INSERT INTO ui_m VALUES (1, 'q', 7)",
            "INSERT INTO ui_m VALUES (3, 'q', 8), (1, NULL, 9), (NULL, 'p', 10)",
            "UPDATE ui_m SET y = 'p' WHERE z = 2",
            "UPDATE ui_m SET y = 'r' WHERE z = 2",
            "DELETE FROM ui_m WHERE x = 1 AND y = 'p'",
            "INSERT INTO ui_m VALUES (1, 'p', 11)",
            "SELECT x, y, z FROM ui_m ORDER BY z",
            "CREATE UNIQUE INDEX ui_m_x ON ui_m (x)",
            "CREATE UNIQUE INDEX ui_m_yx ON ui_m (y, x)",
            "INSERT INTO ui_m VALUES (1, 'p', 12)",
            // a table with a key of its own, and a unique index beside it
            "CREATE TABLE ui_k (id bigint PRIMARY KEY, code text UNIQUE, n bigint)",
            "INSERT INTO ui_k VALUES (1, 'a', 5), (2, 'b', 5), (3, NULL, 6)",
            "CREATE UNIQUE INDEX ui_k_n ON ui_k (n)",
            "UPDATE ui_k SET n = 7 WHERE id = 2",
            "CREATE UNIQUE INDEX ui_k_n ON ui_k (n)",
            "CREATE UNIQUE INDEX ui_k_code_key ON ui_k (n)",
            "CREATE UNIQUE INDEX ui_k_n2 ON ui_k (code)",
            "INSERT INTO ui_k VALUES (4, 'd', 6)",
            "INSERT INTO ui_k VALUES (4, 'b', 8)",
            "INSERT INTO ui_k VALUES (4, 'd', 8)",
            "SELECT id, code, n FROM ui_k ORDER BY id",
            "SELECT c.relname::text, i.indisunique, i.indisprimary FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid"
                    + " WHERE c.relname IN ('ui_k_pkey', 'ui_k_n', 'ui_k_n2') ORDER BY 1",
            // an empty table, and a view
            "CREATE TABLE ui_s (s bigint)",
            "CREATE UNIQUE INDEX ui_s_s ON ui_s (s)",
            "INSERT INTO ui_s VALUES (1), (2)",
            "INSERT INTO ui_s VALUES (3), (3)",
            "INSERT INTO ui_s SELECT s + 1 FROM ui_s",
            "SELECT s FROM ui_s ORDER BY s",
            "CREATE VIEW ui_v AS SELECT a, c FROM ui_a",
            "CREATE UNIQUE INDEX ui_v_a ON ui_v (a)",
            "DROP VIEW ui_v",
            "DROP TABLE ui_s",
            "INSERT INTO ui_s VALUES (1)");

    /** A transaction block writing a key twice, then the table after it: PostgreSQL refuses the second write, Tandem the COMMIT; neither keeps any of it. */
    static final List<String> BLOCK = List.of(
            "BEGIN",
            "INSERT INTO ui_m VALUES (5, 'e', 20)",
            "INSERT INTO ui_m VALUES (5, 'e', 21)",
            "COMMIT");

    @TempDir
    Path dir;

    /** A statement's outcome: its row count, or its SQLSTATE with PostgreSQL's message, detail and constraint. */
    static String outcome(Connection c, String sql) {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
            return "OK " + Math.max(0, s.getUpdateCount());
        } catch (PSQLException e) {
            ServerErrorMessage m = e.getServerErrorMessage();
            return "ERROR " + e.getSQLState() + (m == null ? "" : ": " + m.getMessage() + " | " + m.getDetail() + " | " + m.getConstraint());
        } catch (SQLException e) {
            return "ERROR " + e.getSQLState();
        }
    }

    @Test
    void uniqueIndexesAnswerAsPostgresDoes() throws SQLException {
        String address = System.getenv("POSTGRES_ORACLE_ADDRESS");
        Assumptions.assumeTrue(address != null && !address.isBlank(), "POSTGRES_ORACLE_ADDRESS is not set");
        List<String> mismatches = new ArrayList<>();
        int compared = 0;
        try (SqlTesting.Stack stack = SqlTesting.stack(dir);
                PgWireServer server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0);
                PgAnswers.Systems systems = PgAnswers.Systems.open(address, server.port(), "")) {
            Connection pg = systems.pg();
            Connection td = systems.td();
            try (Statement p = pg.createStatement()) {
                p.execute("DROP VIEW IF EXISTS ui_v");
                for (String t : TABLES) {
                    p.execute("DROP TABLE IF EXISTS " + t);
                }
            }
            for (String sql : SCRIPT) {
                if (sql.startsWith("SELECT")) {
                    PgAnswers.compare(sql, PgAnswers.answer(pg, sql, false), PgAnswers.answer(td, sql, false), "text", mismatches);
                } else {
                    PgAnswers.compare(sql, outcome(pg, sql), outcome(td, sql), "outcome", mismatches);
                }
                compared++;
            }
            List<String> pgBlock = new ArrayList<>();
            List<String> tdBlock = new ArrayList<>();
            for (String sql : BLOCK) {
                pgBlock.add(outcome(pg, sql));
                tdBlock.add(outcome(td, sql));
            }
            assertThat(pgBlock.get(2)).startsWith("ERROR 23505: duplicate key value violates unique constraint \"ui_m_xy\"");
            assertThat(tdBlock.get(3)).isEqualTo(pgBlock.get(2));
            String after = "SELECT x, y, z FROM ui_m ORDER BY z";
            PgAnswers.compare(after, PgAnswers.answer(pg, after, false), PgAnswers.answer(td, after, false), "text", mismatches);
            try (Statement p = pg.createStatement()) {
                for (String t : TABLES) {
                    p.execute("DROP TABLE IF EXISTS " + t);
                }
            }
        }
        assertThat(compared).isEqualTo(SCRIPT.size());
        assertThat(mismatches).as(String.join("\n", mismatches)).isEmpty();
    }
}
