package dev.tandem.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Write transactions over a real stack: a block's writes commit at one timestamp and durably (they
 * survive a restart), of two blocks changing one row exactly one commits and the other is refused with
 * {@code 40001}, a key violation at COMMIT keeps nothing, a block writing several tables commits them
 * all at one timestamp or none of them, and what a block cannot do (a view over a written table, catalog
 * changes) is refused with its SQLSTATE. The answers PostgreSQL
 * gives alike are in {@code 12_transactions.slt}, which runs against both.
 */
class TransactionBlockTest {

    @TempDir
    Path dir;

    private static List<String> rows(SqlStack s, String sql, SqlSession session) {
        return s.run(sql, session).rows().stream().map(Arrays::toString).toList();
    }

    private static List<String> rows(SqlStack s, String sql) {
        return rows(s, sql, new SqlSession());
    }

    private static void refused(SqlStack s, SqlSession session, String sql, String state) {
        assertThatThrownBy(() -> s.run(sql, session)).isInstanceOfSatisfying(SqlException.class,
                e -> assertThat(e.sqlState()).as(e.getMessage()).isEqualTo(state));
    }

    @Test
    void aBlockCommitsAtOneTimestampAndSurvivesARestart() {
        long committed;
        try (SqlStack s = new SqlStack(dir)) {
            s.run("CREATE TABLE t (id bigint PRIMARY KEY, v bigint)", new SqlSession());
            s.run("INSERT INTO t VALUES (1, 10), (2, 20)", new SqlSession());
            SqlSession session = new SqlSession(true);
            s.run("BEGIN", session);
            assertThat(s.run("INSERT INTO t VALUES (3, 30), (4, 40)", session).tag()).isEqualTo("INSERT 0 2");
            assertThat(s.run("UPDATE t SET v = v + 1 WHERE id <= 3", session).tag()).isEqualTo("UPDATE 3");
            assertThat(s.run("DELETE FROM t WHERE id = 2", session).tag()).isEqualTo("DELETE 1");
            // other sessions see nothing of the block until it commits
            assertThat(rows(s, "SELECT id, v FROM t ORDER BY id")).containsExactly("[1, 10]", "[2, 20]");
            SqlResult commit = s.run("COMMIT", session);
            assertThat(commit.tag()).isEqualTo("COMMIT");
            assertThat(session.block()).isEqualTo(SqlSession.Block.IDLE);
            committed = commit.timestamp();
            assertThat(s.run("CREATE TABLE snap AS SELECT id, v * 2 AS twice FROM t WHERE id > 1", new SqlSession()).tag()).isEqualTo("SELECT 2");
            // one timestamp: just before it none of the block, at it all of it
            assertThat(rows(s, "SELECT id, v FROM t ORDER BY id AS OF " + (committed - 1))).containsExactly("[1, 10]", "[2, 20]");
            assertThat(rows(s, "SELECT id, v FROM t ORDER BY id AS OF " + committed))
                    .containsExactly("[1, 11]", "[3, 31]", "[4, 40]");
        }
        try (SqlStack s = new SqlStack(dir)) {
            assertThat(rows(s, "SELECT id, v FROM t ORDER BY id")).containsExactly("[1, 11]", "[3, 31]", "[4, 40]");
            refused(s, new SqlSession(), "INSERT INTO t VALUES (3, 0)", "23505");
            assertThat(rows(s, "SELECT id, twice FROM snap ORDER BY id")).containsExactly("[3, 62]", "[4, 80]");
        }
    }

    @Test
    void ofTwoBlocksChangingOneRowExactlyOneCommits() throws Exception {
        try (SqlStack s = new SqlStack(dir)) {
            s.run("CREATE TABLE acct (id bigint PRIMARY KEY, balance bigint)", new SqlSession());
            s.run("INSERT INTO acct VALUES (1, 100)", new SqlSession());
            ExecutorService pool = Executors.newFixedThreadPool(2);
            try {
                for (int round = 0; round < 20; round++) {
                    SqlSession a = new SqlSession(true);
                    SqlSession b = new SqlSession(true);
                    for (SqlSession x : List.of(a, b)) {
                        s.run("BEGIN", x);
                        s.run("UPDATE acct SET balance = balance + 1 WHERE id = 1", x);
                    }
                    CountDownLatch go = new CountDownLatch(1);
                    List<Future<String>> outcomes = new ArrayList<>();
                    for (SqlSession x : List.of(a, b)) {
                        outcomes.add(pool.submit(() -> {
                            go.await(10, TimeUnit.SECONDS);
                            try {
                                return s.run("COMMIT", x).tag();
                            } catch (SqlException e) {
                                return e.sqlState();
                            }
                        }));
                    }
                    go.countDown();
                    List<String> got = new ArrayList<>();
                    for (Future<String> f : outcomes) {
                        got.add(f.get(30, TimeUnit.SECONDS));
                    }
                    assertThat(got).containsExactlyInAnyOrder("COMMIT", "40001");
                    assertThat(a.block()).isEqualTo(SqlSession.Block.IDLE);
                    assertThat(b.block()).isEqualTo(SqlSession.Block.IDLE);
                    // one increment per round: the refused block kept nothing
                    assertThat(rows(s, "SELECT balance FROM acct", strict())).containsExactly("[" + (101 + round) + "]");
                }
            } finally {
                pool.shutdownNow();
                assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
            }
        }
    }

    @Test
    void aRowDeletedSinceTheBlockReadItIsASerializationFailure() {
        try (SqlStack s = new SqlStack(dir)) {
            s.run("CREATE TABLE t (id bigint, v bigint)", new SqlSession());
            s.run("INSERT INTO t VALUES (1, 1), (2, 2)", new SqlSession());
            SqlSession block = new SqlSession(true);
            s.run("BEGIN", block);
            s.run("INSERT INTO t VALUES (3, 3)", block);
            s.run("DELETE FROM t WHERE id = 1", block);
            s.run("DELETE FROM t WHERE id = 1", new SqlSession());
            refused(s, block, "COMMIT", "40001");
            assertThat(block.block()).isEqualTo(SqlSession.Block.IDLE);
            assertThat(rows(s, "SELECT id FROM t ORDER BY id", strict())).containsExactly("[2]");
        }
    }

    @Test
    void aKeyHeldTwiceIsRefusedAtCommitAndNothingIsKept() {
        try (SqlStack s = new SqlStack(dir)) {
            s.run("CREATE TABLE t (id bigint PRIMARY KEY, v text)", new SqlSession());
            s.run("INSERT INTO t VALUES (1, 'a')", new SqlSession());
            SqlSession session = new SqlSession(true);
            s.run("BEGIN", session);
            s.run("INSERT INTO t VALUES (2, 'b')", session);
            s.run("INSERT INTO t VALUES (1, 'again')", session);
            assertThatThrownBy(() -> s.run("COMMIT", session)).isInstanceOfSatisfying(SqlException.class, e -> {
                assertThat(e.sqlState()).isEqualTo("23505");
                assertThat(e.constraint()).isEqualTo("t_pkey");
            });
            assertThat(session.block()).isEqualTo(SqlSession.Block.IDLE);
            assertThat(rows(s, "SELECT id, v FROM t ORDER BY id", strict())).containsExactly("[1, a]");
            // a key moved within the block is no duplicate
            s.run("BEGIN", session);
            s.run("UPDATE t SET id = 5 WHERE id = 1", session);
            s.run("INSERT INTO t VALUES (1, 'new')", session);
            s.run("COMMIT", session);
            assertThat(rows(s, "SELECT id, v FROM t ORDER BY id", strict())).containsExactly("[1, new]", "[5, a]");
        }
    }

    @Test
    void aCheckOrADeclaredTypeIsEnforcedAtTheStatementInABlock() {
        try (SqlStack s = new SqlStack(dir)) {
            s.run("CREATE TABLE t (id bigint, n numeric(5, 1), CHECK (id > 0))", new SqlSession());
            SqlSession session = new SqlSession(true);
            s.run("BEGIN", session);
            s.run("INSERT INTO t VALUES (1, 1.25)", session);
            // the block reads the value as it will be kept, rounded to the column's scale
            assertThat(rows(s, "SELECT n FROM t", session)).containsExactly("[1.3]");
            assertThatThrownBy(() -> s.run("INSERT INTO t VALUES (-1, 0)", session)).as("refused at the statement, as PostgreSQL refuses it")
                    .isInstanceOfSatisfying(SqlException.class, e -> {
                        assertThat(e.sqlState()).isEqualTo("23514");
                        assertThat(e.constraint()).isEqualTo("t_id_check");
                    });
            assertThat(session.block()).isEqualTo(SqlSession.Block.FAILED);
            s.run("ROLLBACK", session);
            assertThat(rows(s, "SELECT count(*) FROM t", strict())).containsExactly("[0]");
        }
    }

    @Test
    void whatABlockCannotDoIsRefused() {
        try (SqlStack s = new SqlStack(dir)) {
            s.run("CREATE TABLE t (id bigint, v bigint)", new SqlSession());
            s.run("CREATE TABLE u (id bigint)", new SqlSession());
            s.run("CREATE VIEW tv AS SELECT id FROM t", new SqlSession());
            s.run("INSERT INTO t VALUES (1, 1)", new SqlSession());
            SqlSession session = new SqlSession(true);

            s.run("BEGIN", session);
            refused(s, session, "CREATE TABLE w (id bigint)", "25006");
            s.run("ROLLBACK", session);

            // a view over the written table cannot show the block's writes: refused, not answered without them
            s.run("BEGIN", session);
            assertThat(rows(s, "SELECT id FROM tv", session)).containsExactly("[1]");
            s.run("INSERT INTO t VALUES (3, 3)", session);
            refused(s, session, "SELECT id FROM tv", "0A000");
            s.run("ROLLBACK", session);

            // outside a block of the wire protocol (HTTP), BEGIN stays refused
            refused(s, new SqlSession(), "BEGIN", "0A000");
        }
    }

    @Test
    void aBlockWritingSeveralTablesCommitsThemAllAtOneTimestampOrNone() {
        try (SqlStack s = new SqlStack(dir)) {
            s.run("CREATE TABLE accounts (id bigint PRIMARY KEY, balance bigint)", new SqlSession());
            s.run("CREATE TABLE transfers (id bigint PRIMARY KEY, src bigint, dst bigint, amount bigint)", new SqlSession());
            s.run("INSERT INTO accounts VALUES (1, 100), (2, 0)", new SqlSession());
            SqlSession session = new SqlSession(true);
            s.run("BEGIN", session);
            s.run("INSERT INTO transfers VALUES (10, 1, 2, 30)", session);
            s.run("UPDATE accounts SET balance = balance - 30 WHERE id = 1", session);
            s.run("UPDATE accounts SET balance = balance + 30 WHERE id = 2", session);
            // the block reads its writes to both tables, in one query too
            assertThat(rows(s, "SELECT a.id, a.balance, t.amount FROM accounts a JOIN transfers t ON t.dst = a.id", session))
                    .containsExactly("[2, 30, 30]");
            assertThat(rows(s, "SELECT id FROM transfers", strict())).as("nothing seen outside before COMMIT").isEmpty();
            SqlResult commit = s.run("COMMIT", session);
            assertThat(commit.tag()).isEqualTo("COMMIT");
            // one write at one timestamp (storage makes it one log record: WriteTablesTest), seen whole by a strict read
            assertThat(commit.timestamp()).isPositive();
            assertThat(rows(s, "SELECT id, balance FROM accounts ORDER BY id", strict())).containsExactly("[1, 70]", "[2, 30]");
            assertThat(rows(s, "SELECT count(*) FROM transfers", strict())).containsExactly("[1]");

            // a key held twice in the second table: refused at COMMIT, and the first table's writes are not kept either
            s.run("BEGIN", session);
            s.run("UPDATE accounts SET balance = balance - 5 WHERE id = 1", session);
            s.run("INSERT INTO transfers VALUES (11, 1, 2, 5)", session);
            SqlSession other = new SqlSession();
            s.run("INSERT INTO transfers VALUES (11, 2, 1, 1)", other);
            refused(s, session, "COMMIT", "23505");
            assertThat(rows(s, "SELECT id, balance FROM accounts ORDER BY id", strict())).containsExactly("[1, 70]", "[2, 30]");
            assertThat(rows(s, "SELECT id, amount FROM transfers ORDER BY id", strict())).containsExactly("[10, 30]", "[11, 1]");

            // a row of one table deleted by another write since the block read it: 40001, nothing of either table kept
            s.run("BEGIN", session);
            s.run("INSERT INTO transfers VALUES (12, 1, 2, 7)", session);
            s.run("DELETE FROM accounts WHERE id = 2", session);
            s.run("DELETE FROM accounts WHERE id = 2", other);
            refused(s, session, "COMMIT", "40001");
            assertThat(rows(s, "SELECT id FROM transfers ORDER BY id", strict())).containsExactly("[10]", "[11]");
        }
        try (SqlStack s = new SqlStack(dir)) {
            assertThat(rows(s, "SELECT id, balance FROM accounts ORDER BY id")).as("the other session's delete stands").containsExactly("[1, 70]");
            assertThat(rows(s, "SELECT id FROM transfers ORDER BY id")).containsExactly("[10]", "[11]");
        }
    }

    private static SqlSession strict() {
        SqlSession strict = new SqlSession();
        strict.strict(true);
        return strict;
    }
}
