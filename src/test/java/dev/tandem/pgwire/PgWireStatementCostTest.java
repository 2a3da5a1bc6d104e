package dev.tandem.pgwire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tandem.security.AuditLog;
import dev.tandem.security.PrincipalLimits;
import dev.tandem.sql.SqlLimits;
import dev.tandem.sql.SqlTesting;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * No statement starves the others, over pgjdbc: statements an attacker would send (an IN list of 60,000
 * literals, a text ending in megabytes of white space) are answered; a statement over a bound is refused
 * with 54000 and changes nothing; while several connections' heavy statements are being planned, another
 * connection's point lookups — cached or new — keep answering; a principal at its limit of planning is
 * refused (53400) while its cached statements answer. Heavy planning is held at a gate where ordering
 * matters, so the assertions are about what finished first, never about time; every wait is bounded
 * (the tests that plan IN lists of tens of thousands of literals are given ten minutes on a busy machine).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PgWireStatementCostTest {

    private static final int ROWS = 100;
    private static final SqlLimits LIMITS = new SqlLimits(1 << 20, 100_000, Duration.ofSeconds(60), 64L << 20);

    @TempDir
    static Path dir;
    Scheduler light;
    Scheduler heavy;
    Scheduler timer;
    SqlTesting.Gate gate;
    SqlTesting.Stack stack;
    PgWireServer server;
    PrincipalLimits limits;
    PgWireServer limited;
    ExecutorService clients;

    @BeforeAll
    void start() throws SQLException {
        light = Schedulers.newBoundedElastic(2, 1000, "cost-test-plan");
        heavy = Schedulers.newBoundedElastic(1, 1000, "cost-test-plan-heavy");
        timer = Schedulers.newSingle("cost-test-timer");
        gate = new SqlTesting.Gate(r -> heavy.schedule(r));
        gate.open();
        stack = SqlTesting.stack(dir, new SqlTesting.Lanes(LIMITS, light, gate.scheduler(), timer));
        server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0);
        limits = new PrincipalLimits(0, 0, 0, 1, (p, k) -> { });
        limited = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, new AuditLog(Clock.systemUTC(), 10), limits, null, "127.0.0.1", 0);
        clients = Executors.newFixedThreadPool(8);
        try (Connection c = connect(server); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (id bigint NOT NULL, v text)");
            StringBuilder insert = new StringBuilder("INSERT INTO t VALUES ");
            for (int i = 0; i < ROWS; i++) {
                insert.append(i == 0 ? "" : ", ").append("(").append(i).append(", 'v").append(i).append("')");
            }
            s.execute(insert.toString());
            s.execute("CREATE INDEX t_by_id ON t (id)");
        }
        Awaitility.await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> lookup(connect(server), 1).equals("v1"));
    }

    @AfterAll
    void stop() {
        clients.shutdownNow();
        limited.close();
        server.close();
        stack.close();
        light.dispose();
        heavy.dispose();
        timer.dispose();
    }

    static Connection connect(PgWireServer s) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + s.port() + "/tandem?user=ada&sslmode=disable");
    }

    /** {@code SELECT id FROM t WHERE id IN (0, 1, ..., n - 1)} (and {@code extra} after the list, to make the text distinct). */
    static String inList(int n, String extra) {
        StringBuilder b = new StringBuilder("SELECT id FROM t WHERE id IN (");
        for (int i = 0; i < n; i++) {
            b.append(i == 0 ? "" : ", ").append(i % (n / 2));
        }
        return b.append(")").append(extra).toString();
    }

    static int rows(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            int n = 0;
            while (rs.next()) {
                n++;
            }
            return n;
        }
    }

    static String lookup(Connection c, int id) throws SQLException {
        try (c; Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT v FROM t WHERE id = " + id)) {
            return rs.next() ? rs.getString(1) : null;
        }
    }

    private <T> Future<T> client(java.util.concurrent.Callable<T> call) {
        return clients.submit(call);
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void hostileStatementsAreAnswered() throws Exception {
        try (Connection c = connect(server)) {
            String in = inList(60_000, "");
            assertThat(in.length()).isGreaterThan(300_000);
            assertThat(client(() -> rows(c, in)).get(120, TimeUnit.SECONDS)).as("an IN list of 60,000 literals, half of them repeated").isEqualTo(ROWS);
            // a text that ends in a long run of white space (the AS OF scan reads it once)
            String spaces = "SELECT count(*) FROM t" + " \t\n".repeat(300_000);
            assertThat(client(() -> {
                try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(spaces)) {
                    rs.next();
                    return rs.getLong(1);
                }
            }).get(120, TimeUnit.SECONDS)).isEqualTo(ROWS);
            // an AS OF after a run of white space and before another: read as the read's time (long compacted: 72000)
            String asOf = "SELECT count(*) FROM t" + " ".repeat(500_000) + "AS OF 1" + "\n".repeat(300_000);
            assertThatThrownBy(() -> client(() -> rows(c, asOf)).get(120, TimeUnit.SECONDS)).cause()
                    .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("72000"));
        }
    }

    @Test
    void aStatementOverABoundIsRefusedAndChangesNothing() throws Exception {
        try (Connection c = connect(server); Statement s = c.createStatement()) {
            String tooLong = "SELECT count(*) FROM t" + " ".repeat(1 << 20);
            assertThatThrownBy(() -> s.executeQuery(tooLong)).isInstanceOfSatisfying(SQLException.class, e -> {
                assertThat(e.getSQLState()).isEqualTo("54000");
                assertThat(e.getMessage()).contains("statement too complex", "tandem.sql.max-statement-bytes");
            });
            StringBuilder insert = new StringBuilder("INSERT INTO t VALUES ");
            for (int i = 0; i < 50_001; i++) {
                insert.append(i == 0 ? "" : ", ").append("(").append(1000 + i).append(", 'x')");
            }
            assertThatThrownBy(() -> s.execute(insert.toString())).isInstanceOfSatisfying(SQLException.class, e -> {
                assertThat(e.getSQLState()).isEqualTo("54000");
                assertThat(e.getMessage()).contains("more than 100000 literals", "tandem.sql.max-literals");
            });
            try (PreparedStatement p = c.prepareStatement(inList(100_002, ""))) {
                assertThatThrownBy(p::executeQuery).isInstanceOfSatisfying(SQLException.class, e -> {
                    assertThat(e.getSQLState()).as("a Parse over a bound").isEqualTo("54000");
                    assertThat(e.getMessage()).contains("tandem.sql.max-literals");
                });
            }
            try (ResultSet rs = s.executeQuery("SELECT count(*) FROM t")) {
                rs.next();
                assertThat(rs.getLong(1)).as("no row written").isEqualTo(ROWS);
            }
        }
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void pointLookupsOfOtherSessionsAnswerWhileHeavyStatementsArePlanned() throws Exception {
        gate.close();
        List<Connection> attackers = new ArrayList<>();
        List<Future<Integer>> heavyAnswers = new ArrayList<>();
        try (Connection probe = connect(server); PreparedStatement cached = probe.prepareStatement("SELECT v FROM t WHERE id = ?")) {
            int given = gate.given();
            for (int i = 0; i < 4; i++) {
                Connection c = connect(server);
                attackers.add(c);
                String sql = inList(60_000, " AND id >= " + i);
                heavyAnswers.add(client(() -> rows(c, sql)));
            }
            // the four are being planned (held at the gate: as long as planning them takes)
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> gate.given() - given == 4);
            int answered = 0;
            for (int i = 0; i < 50; i++) {
                cached.setLong(1, i);
                try (ResultSet rs = cached.executeQuery()) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getString(1)).isEqualTo("v" + i);
                }
                // a new text each time: planned, in the light lane
                try (Statement s = probe.createStatement(); ResultSet rs = s.executeQuery("SELECT v FROM t WHERE id = " + (50 + i))) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getString(1)).isEqualTo("v" + (50 + i));
                }
                answered += 2;
            }
            assertThat(answered).isEqualTo(100);
            assertThat(heavyAnswers).as("no heavy statement answered before the lookups").noneMatch(Future::isDone);
        } finally {
            gate.open();
        }
        for (int i = 0; i < 4; i++) {
            assertThat(heavyAnswers.get(i).get(300, TimeUnit.SECONDS)).isEqualTo(ROWS - i);
            attackers.get(i).close();
        }
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void pointLookupsOfOtherSessionsFinishBeforeHeavyStatementsDo() throws Exception {
        List<Connection> attackers = new ArrayList<>();
        List<Future<Integer>> heavyAnswers = new ArrayList<>();
        try (Connection probe = connect(server); PreparedStatement cached = probe.prepareStatement("SELECT v FROM t WHERE id = ?")) {
            int given = gate.given();
            for (int i = 0; i < 4; i++) {
                Connection c = connect(server);
                attackers.add(c);
                String sql = inList(30_000, " AND id >= " + (10 + i));
                heavyAnswers.add(client(() -> rows(c, sql)));
            }
            // all four sent and planning (real work this time, one at a time in the heavy lane)
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> gate.given() - given == 4);
            for (int i = 0; i < 20; i++) {
                cached.setLong(1, i);
                try (ResultSet rs = cached.executeQuery()) {
                    assertThat(rs.next()).isTrue();
                }
                try (Statement s = probe.createStatement(); ResultSet rs = s.executeQuery("SELECT v FROM t WHERE id = " + i + " AND v <> 'x'")) {
                    assertThat(rs.next()).isTrue();
                }
            }
            assertThat(heavyAnswers.stream().filter(Future::isDone).count()).as("heavy statements answered before 40 lookups").isLessThan(4);
        }
        for (int i = 0; i < 4; i++) {
            assertThat(heavyAnswers.get(i).get(300, TimeUnit.SECONDS)).isEqualTo(ROWS - 10 - i);
            attackers.get(i).close();
        }
    }

    @Test
    void aPrincipalAtItsLimitOfPlanningIsRefusedWhileItsCachedStatementsAnswer() throws Exception {
        try (Connection first = connect(limited); Connection second = connect(limited); Statement s = second.createStatement()) {
            String cached = "SELECT v FROM t WHERE id = 7";
            assertThat(rows(second, cached)).isEqualTo(1);
            gate.close();
            Future<Integer> heavyAnswer;
            try {
                heavyAnswer = client(() -> rows(first, inList(20_000, " AND id < 50")));
                Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> limits.held("anonymous@127.0.0.1", PrincipalLimits.Kind.PLANS) == 1);
                assertThatThrownBy(() -> s.executeQuery("SELECT id, v FROM t WHERE id = 8")).isInstanceOfSatisfying(SQLException.class, e -> {
                    assertThat(e.getSQLState()).isEqualTo("53400");
                    assertThat(e.getMessage()).contains("tandem.security.limits.max-concurrent-plans");
                });
                assertThat(rows(second, cached)).as("a cached statement needs no planning").isEqualTo(1);
                assertThat(rows(second, "SELECT v FROM t WHERE id = 8")).as("nor does one of a cached shape").isEqualTo(1);
            } finally {
                gate.open();
            }
            assertThat(heavyAnswer.get(300, TimeUnit.SECONDS)).isEqualTo(50);
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> limits.held("anonymous@127.0.0.1", PrincipalLimits.Kind.PLANS) == 0);
            assertThat(rows(second, "SELECT id, v FROM t WHERE id = 8")).isEqualTo(1);
        }
    }
}
