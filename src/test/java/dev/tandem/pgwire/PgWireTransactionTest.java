package dev.tandem.pgwire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Write transactions through the wire protocol: pgjdbc with {@code autocommit=false} (the extended
 * protocol, prepared statements, its implicit {@code BEGIN}), and {@code psql} sending a block as simple
 * queries, with PostgreSQL's command tags and transaction status.
 */
class PgWireTransactionTest extends TrustedPgWireServer {

    @TempDir
    Path scratch;

    @Test
    void jdbcCommitsAndRollsBackBlocks() throws SQLException {
        try (Connection c = connect(); Connection other = connect(); Statement s = c.createStatement(); Statement o = other.createStatement()) {
            // the other connection reads strict serializable: it must see each write acknowledged to this one
            o.execute("SET transaction_isolation = 'strict serializable'");
            s.execute("CREATE TABLE jt (id bigint PRIMARY KEY, v text)");
            s.execute("INSERT INTO jt VALUES (1, 'a'), (2, 'b')");
            c.setAutoCommit(false);
            try (PreparedStatement ins = c.prepareStatement("INSERT INTO jt VALUES (?, ?)")) {
                for (int i = 3; i <= 6; i++) {
                    ins.setLong(1, i);
                    ins.setString(2, "n" + i);
                    assertThat(ins.executeUpdate()).isEqualTo(1);
                }
            }
            try (PreparedStatement upd = c.prepareStatement("UPDATE jt SET v = ? WHERE id <= ?")) {
                upd.setString(1, "u");
                upd.setLong(2, 3);
                assertThat(upd.executeUpdate()).isEqualTo(3);
            }
            assertThat(s.executeUpdate("DELETE FROM jt WHERE id = 6")).isEqualTo(1);
            assertThat(rows(s, "SELECT id, v FROM jt WHERE id = 3")).containsExactly("3 u");
            assertThat(rows(s, "SELECT count(*) FROM jt")).containsExactly("5");
            assertThat(rows(o, "SELECT count(*) FROM jt")).containsExactly("2");
            c.commit();
            assertThat(rows(o, "SELECT id, v FROM jt ORDER BY id")).containsExactly("1 u", "2 u", "3 u", "4 n4", "5 n5");

            s.executeUpdate("DELETE FROM jt");
            assertThat(rows(s, "SELECT count(*) FROM jt")).containsExactly("0");
            c.rollback();
            assertThat(rows(s, "SELECT count(*) FROM jt")).containsExactly("5");
            c.commit();

            // a conflict at COMMIT: another connection deleted a row this block updated
            s.executeUpdate("UPDATE jt SET v = 'mine' WHERE id = 4");
            assertThat(o.executeUpdate("DELETE FROM jt WHERE id = 4")).isEqualTo(1);
            assertThatThrownBy(c::commit).isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("40001"));
            c.setAutoCommit(true);
            assertThat(rows(s, "SELECT id, v FROM jt ORDER BY id")).containsExactly("1 u", "2 u", "3 u", "5 n5");
        }
    }

    /**
     * One sequence of blocks run through pgjdbc ({@code autocommit=false}, prepared statements) against
     * Tandem and against PostgreSQL ({@code POSTGRES_ORACLE_ADDRESS}): every statement's update count or
     * rows, and the tables after each block, must be alike.
     */
    @Test
    void blocksAnswerAsPostgresDoes() throws SQLException {
        String address = System.getenv("POSTGRES_ORACLE_ADDRESS");
        Assumptions.assumeTrue(address != null && !address.isBlank(), "POSTGRES_ORACLE_ADDRESS is not set");
        List<String> script = List.of(
                "CREATE TABLE dx (id bigint PRIMARY KEY, owner text DEFAULT 'none', n bigint NOT NULL DEFAULT 0)",
                "INSERT INTO dx (id) VALUES (1), (2), (3)",
                "BEGIN",
                "UPDATE dx SET n = n + 10 WHERE id >= 2",
                "INSERT INTO dx VALUES (4, 'dee', 4) RETURNING id, owner, n",
                "DELETE FROM dx WHERE id = 1 RETURNING *",
                "UPDATE dx SET owner = DEFAULT, n = n * 2 WHERE id = 4 RETURNING n",
                "SELECT id, owner, n FROM dx ORDER BY id",
                "SELECT count(*), sum(n) FROM dx",
                "COMMIT",
                "SELECT id, owner, n FROM dx ORDER BY id",
                "BEGIN",
                "DELETE FROM dx",
                "INSERT INTO dx (id, owner) VALUES (9, 'x')",
                "SELECT id, owner, n FROM dx ORDER BY id",
                "ROLLBACK",
                "SELECT id, owner, n FROM dx ORDER BY id",
                "BEGIN",
                "INSERT INTO dx (id) VALUES (5)",
                "SELECT nope FROM dx",
                "COMMIT",
                "SELECT id, owner, n FROM dx ORDER BY id");
        String schema = "txn_" + Long.toHexString(System.nanoTime());
        try (Connection pg = java.sql.DriverManager.getConnection("jdbc:postgresql://" + address + "/postgres?user=postgres&sslmode=disable");
                Connection c = connect()) {
            try (Statement p = pg.createStatement()) {
                p.execute("CREATE SCHEMA " + schema);
                p.execute("SET search_path TO " + schema);
            }
            List<String> tandem = run(c, script);
            List<String> postgres = run(pg, script);
            try (Statement p = pg.createStatement()) {
                p.execute("DROP SCHEMA " + schema + " CASCADE");
            }
            assertThat(tandem).isEqualTo(postgres);
        }
    }

    /** Each statement's outcome: rows, an update count, or an error's SQLSTATE; BEGIN/COMMIT/ROLLBACK through the driver. */
    private static List<String> run(Connection c, List<String> script) throws SQLException {
        List<String> out = new ArrayList<>();
        for (String sql : script) {
            try {
                switch (sql) {
                    case "BEGIN" -> c.setAutoCommit(false);
                    case "COMMIT" -> {
                        c.commit();
                        c.setAutoCommit(true);
                    }
                    case "ROLLBACK" -> {
                        c.rollback();
                        c.setAutoCommit(true);
                    }
                    default -> {
                        try (PreparedStatement p = c.prepareStatement(sql)) {
                            if (p.execute()) {
                                try (ResultSet r = p.getResultSet()) {
                                    int n = r.getMetaData().getColumnCount();
                                    while (r.next()) {
                                        StringBuilder b = new StringBuilder();
                                        for (int i = 1; i <= n; i++) {
                                            b.append(i > 1 ? "|" : "").append(r.getString(i));
                                        }
                                        out.add(sql + " -> " + b);
                                    }
                                }
                            } else {
                                out.add(sql + " -> " + p.getUpdateCount());
                            }
                        }
                    }
                }
            } catch (SQLException e) {
                out.add(sql + " -> " + e.getSQLState());
            }
        }
        return out;
    }

    @Test
    void returningAnswersRowsThroughJdbc() throws SQLException {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE rt (id bigint PRIMARY KEY, v text DEFAULT 'd')");
            try (PreparedStatement ins = c.prepareStatement("INSERT INTO rt (id) VALUES (?) RETURNING id, v")) {
                ins.setLong(1, 7);
                try (ResultSet r = ins.executeQuery()) {
                    assertThat(r.getMetaData().getColumnName(2)).isEqualTo("v");
                    assertThat(r.next()).isTrue();
                    assertThat(r.getLong(1)).isEqualTo(7);
                    assertThat(r.getString(2)).isEqualTo("d");
                    assertThat(r.next()).isFalse();
                }
            }
            assertThat(rows(s, "UPDATE rt SET v = 'e' RETURNING v || '!'")).containsExactly("e!");
            assertThat(s.execute("DELETE FROM rt RETURNING *")).isTrue();
            assertThat(s.getUpdateCount()).isEqualTo(-1);
            assertThat(rows(s, "SELECT count(*) FROM rt")).containsExactly("0");
        }
    }

    @Test
    void psqlRunsABlockWithPostgresTags() throws Exception {
        String psql = PgWireTesting.requirePsql("PgWireTransactionTest");
        Path script = scratch.resolve("block.sql");
        Files.writeString(script, """
                CREATE TABLE pt (id bigint NOT NULL, n bigint);
                BEGIN;
                INSERT INTO pt VALUES (1, 10), (2, 20);
                UPDATE pt SET n = n + 1 WHERE id = 1;
                DELETE FROM pt WHERE id = 2;
                SELECT id, n FROM pt;
                COMMIT;
                BEGIN;
                INSERT INTO pt VALUES (3, 30);
                ROLLBACK;
                BEGIN;
                INSERT INTO pt VALUES (4, 40);
                SELECT nope FROM pt;
                COMMIT;
                SELECT count(*) FROM pt;
                INSERT INTO pt VALUES (5, 50), (6, 60) RETURNING id * 2;
                CREATE TABLE pt2 AS SELECT id FROM pt WHERE id > 1;
                """);
        Process p = new ProcessBuilder(psql, "-h", "127.0.0.1", "-p", Integer.toString(server.port()), "-U", "someone", "-d", "tandem",
                "-X", "-A", "-t", "-f", script.toString())
                .redirectErrorStream(true)
                .start();
        p.getOutputStream().close();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("psql finished").isTrue();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(out).as(out).contains("""
                CREATE TABLE
                BEGIN
                INSERT 0 2
                UPDATE 1
                DELETE 1
                1|11
                COMMIT
                BEGIN
                INSERT 0 1
                ROLLBACK
                BEGIN
                INSERT 0 1
                """)
                .contains("ERROR:  column \"nope\" does not exist")
                .containsSubsequence("ERROR:", "ROLLBACK\n1\n")
                .contains("10\n12\nINSERT 0 2\nSELECT 2\n");
    }
}
