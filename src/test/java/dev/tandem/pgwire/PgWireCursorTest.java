package dev.tandem.pgwire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tandem.security.AccessPrincipal;
import dev.tandem.security.AuditLog;
import dev.tandem.security.PrincipalLimits;
import dev.tandem.security.Role;
import dev.tandem.sql.SqlResult;
import dev.tandem.sql.SqlSession;
import dev.tandem.sql.SqlTesting;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
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
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyOut;

/**
 * Cursors over the wire protocol as Materialize clients use them: pgjdbc declares a cursor for a
 * {@code SUBSCRIBE} in a transaction and FETCHes its change rows (prepared, and through the simple
 * protocol), with and without a timeout; the transaction's end or the connection's end releases the
 * subscription, its read hold and its permit. Also: the SQLSTATEs of the cursor errors, the
 * per-principal limit of subscriptions ({@code 53400}), an unexpected failure answered {@code XX000}
 * on a session that goes on, and {@code psql} fetching from a cursor.
 */
class PgWireCursorTest {

    private static final String WHO = "anonymous@127.0.0.1";

    @TempDir
    Path dir;

    private static Connection connect(PgWireServer server, String extra) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/tandem?user=ada&sslmode=disable" + extra);
    }

    private static PgWireServer start(SqlTesting.Stack stack, PrincipalLimits limits) {
        return PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, new AuditLog(Clock.systemUTC(), 10), limits, null, "127.0.0.1", 0);
    }

    /** The rows of a result, each as its text values. */
    private static List<List<String>> rows(ResultSet rs) throws SQLException {
        List<List<String>> out = new ArrayList<>();
        int n = rs.getMetaData().getColumnCount();
        while (rs.next()) {
            List<String> row = new ArrayList<>();
            for (int i = 1; i <= n; i++) {
                row.add(rs.getString(i));
            }
            out.add(row);
        }
        rs.close();
        return out;
    }

    /**
     * The read holds change streams keep, as introspection lists them: a subscription's own hold, and any
     * hold on a transient dataflow (ids {@code t...}), which only a subscription owns in these tests.
     */
    private static List<String> streamHolds(SqlTesting.Stack stack) {
        return stack.readHolds().stream().filter(h -> h.contains("subscription") || h.startsWith("t")).toList();
    }

    private static void state(String expected, ThrowingRunnable r) {
        assertThatThrownBy(r::run).isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState()).as(e.getMessage()).isEqualTo(expected));
    }

    private interface ThrowingRunnable {
        void run() throws Exception;
    }

    @Test
    void pgjdbcFetchesASubscribesChangesFromACursor() throws Exception {
        PrincipalLimits limits = new PrincipalLimits(0, 0, 10);
        try (SqlTesting.Stack stack = SqlTesting.stack(dir);
                PgWireServer server = start(stack, limits);
                Connection writer = connect(server, "");
                Connection reader = connect(server, "");
                Connection simple = connect(server, "&preferQueryMode=simple");
                Statement w = writer.createStatement()) {
            w.execute("CREATE TABLE pets (id bigint NOT NULL, name text)");
            w.execute("INSERT INTO pets VALUES (1, 'cat'), (2, 'dog')");

            reader.setAutoCommit(false);
            try (Statement r = reader.createStatement()) {
                r.execute("DECLARE c CURSOR FOR SUBSCRIBE pets");
            }
            assertThat(limits.held(WHO, PrincipalLimits.Kind.SUBSCRIPTIONS)).as("the cursor holds a permit").isEqualTo(1);
            assertThat(stack.openStreams()).as("the stream and its transient dataflow").isEqualTo(2);
            await("the subscription holds what it reads").atMost(Duration.ofSeconds(30)).until(() -> !streamHolds(stack).isEmpty());

            PreparedStatement fetch = reader.prepareStatement("FETCH 10 c");
            fetch.setQueryTimeout(30);
            List<List<String>> snapshot = new ArrayList<>();
            String[] names = new String[4];
            while (snapshot.size() < 2) {
                try (ResultSet rs = fetch.executeQuery()) {
                    for (int i = 0; i < 4; i++) {
                        names[i] = rs.getMetaData().getColumnName(i + 1);
                    }
                    snapshot.addAll(rows(rs));
                }
            }
            assertThat(names).containsExactly("mz_timestamp", "mz_diff", "id", "name");
            assertThat(snapshot).extracting(r -> r.subList(1, 4)).containsExactlyInAnyOrder(List.of("1", "1", "cat"), List.of("1", "2", "dog"));
            long asOf = Long.parseLong(snapshot.get(0).get(0));

            try (PreparedStatement quick = reader.prepareStatement("FETCH ALL FROM c WITH (timeout = '200ms')")) {
                assertThat(rows(quick.executeQuery())).as("nothing more within the timeout").isEmpty();
            }
            w.execute("INSERT INTO pets VALUES (3, 'eel')");
            // no timeout: FETCH waits for the change
            List<List<String>> change = rows(fetch.executeQuery());
            assertThat(change).hasSize(1);
            assertThat(change.get(0).subList(1, 4)).isEqualTo(List.of("1", "3", "eel"));
            assertThat(Long.parseLong(change.get(0).get(0))).isGreaterThan(asOf);

            reader.commit();
            await().atMost(Duration.ofSeconds(30)).until(() -> stack.openStreams() == 0);
            assertThat(limits.held(WHO, PrincipalLimits.Kind.SUBSCRIPTIONS)).as("COMMIT gave the permit back").isZero();
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(streamHolds(stack)).isEmpty());
            state("34000", () -> fetch.executeQuery());
            reader.rollback();

            // the simple protocol: a SELECT cursor and a SUBSCRIBE cursor of a query, in one transaction
            simple.setAutoCommit(false);
            try (Statement s = simple.createStatement()) {
                s.execute("DECLARE q CURSOR FOR SELECT id, name FROM pets ORDER BY id");
                assertThat(rows(s.executeQuery("FETCH 2 q"))).containsExactly(List.of("1", "cat"), List.of("2", "dog"));
                assertThat(rows(s.executeQuery("FETCH ALL IN q"))).containsExactly(List.of("3", "eel"));
                assertThat(rows(s.executeQuery("FETCH q"))).isEmpty();
                s.execute("CLOSE q");
                s.execute("DECLARE named CURSOR FOR SUBSCRIBE (SELECT name FROM pets WHERE id > 1) WITH (SNAPSHOT = false)");
                w.execute("INSERT INTO pets VALUES (4, 'fox'), (0, 'ant')");
                s.setQueryTimeout(30);
                List<List<String>> fox = rows(s.executeQuery("FETCH ALL named"));
                assertThat(fox).extracting(r -> r.subList(1, 3)).containsExactly(List.of("1", "fox"));
            }
            simple.rollback();
            await().atMost(Duration.ofSeconds(30)).until(() -> stack.openStreams() == 0);
            assertThat(limits.held(WHO, PrincipalLimits.Kind.SUBSCRIPTIONS)).isZero();
        }
    }

    @Test
    void cursorErrorsCarryPostgresStatesAndTheSessionGoesOn() throws Exception {
        try (SqlTesting.Stack stack = SqlTesting.stack(dir);
                PgWireServer server = start(stack, new PrincipalLimits(0, 0, 0));
                Connection c = connect(server, "");
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (k bigint NOT NULL)");
            s.execute("INSERT INTO t VALUES (1), (2)");
            state("25P01", () -> s.execute("DECLARE early CURSOR FOR SELECT k FROM t"));

            c.setAutoCommit(false);
            state("34000", () -> s.executeQuery("FETCH 1 nope"));
            state("25P02", () -> s.executeQuery("SELECT k FROM t"));
            c.rollback();
            s.execute("DECLARE d CURSOR FOR SELECT k FROM t");
            state("42P03", () -> s.execute("DECLARE d CURSOR FOR SELECT k FROM t"));
            c.rollback();
            state("25006", () -> s.execute("CREATE TABLE t2 (k bigint)"));
            c.rollback();
            state("42P01", () -> s.execute("DECLARE e CURSOR FOR SUBSCRIBE nope"));
            c.rollback();
            // a FETCH waiting for a change is cancelled like any query (pgjdbc's query timeout sends a CancelRequest)
            s.execute("DECLARE quiet CURSOR FOR SUBSCRIBE t WITH (SNAPSHOT = false)");
            s.setQueryTimeout(1);
            state("57014", () -> s.executeQuery("FETCH ALL quiet"));
            s.setQueryTimeout(0);
            c.rollback();
            c.setAutoCommit(true);
            assertThat(rows(s.executeQuery("SELECT count(*) FROM t"))).containsExactly(List.of("2"));
            assertThat(stack.openStreams()).isZero();
        }
    }

    @Test
    void theEndOfTheConnectionEndsItsCursorsSubscriptions() throws Exception {
        PrincipalLimits limits = new PrincipalLimits(0, 0, 10);
        try (SqlTesting.Stack stack = SqlTesting.stack(dir);
                PgWireServer server = start(stack, limits);
                Connection writer = connect(server, "");
                Statement w = writer.createStatement()) {
            w.execute("CREATE TABLE t (k bigint NOT NULL, v text)");
            w.execute("INSERT INTO t VALUES (1, 'one')");
            for (boolean abort : new boolean[] {false, true}) {
                Connection c = connect(server, "");
                c.setAutoCommit(false);
                try (Statement s = c.createStatement()) {
                    s.execute("DECLARE a CURSOR FOR SUBSCRIBE t");
                    s.execute("DECLARE b CURSOR FOR SUBSCRIBE (SELECT v FROM t WHERE k = 1)");
                    s.setQueryTimeout(30);
                    assertThat(rows(s.executeQuery("FETCH 1 a"))).hasSize(1);
                }
                assertThat(limits.held(WHO, PrincipalLimits.Kind.SUBSCRIPTIONS)).isEqualTo(2);
                if (abort) {
                    c.abort(Executors.newSingleThreadExecutor()); // the socket closes without a Terminate
                } else {
                    c.close();
                }
                await().atMost(Duration.ofSeconds(30)).until(() -> stack.openStreams() == 0 && limits.held(WHO, PrincipalLimits.Kind.SUBSCRIPTIONS) == 0);
                await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(streamHolds(stack)).isEmpty());
            }
        }
    }

    @Test
    void subscriptionsAreLimitedPerPrincipal() throws Exception {
        PrincipalLimits limits = new PrincipalLimits(0, 0, 2);
        PgAuthenticator tokens = new PgAuthenticator() {
            @Override
            public boolean asksPassword() {
                return true;
            }

            @Override
            public Optional<AccessPrincipal> login(String user, String password) {
                return password.equals("pw") ? Optional.of(new AccessPrincipal(user, Set.of(Role.READER), null, "token")) : Optional.empty();
            }
        };
        try (SqlTesting.Stack stack = SqlTesting.stack(dir);
                PgWireServer server = PgWireServer.start(stack.engine(), tokens, new AuditLog(Clock.systemUTC(), 10), limits, null, "127.0.0.1", 0)) {
            SqlSession setup = new SqlSession();
            stack.engine().execute("CREATE TABLE t (k bigint NOT NULL)", List.of(), setup).block(Duration.ofSeconds(30));
            String url = "jdbc:postgresql://127.0.0.1:" + server.port() + "/tandem?sslmode=disable&password=pw&user=";
            try (Connection ada1 = DriverManager.getConnection(url + "ada");
                    Connection ada2 = DriverManager.getConnection(url + "ada");
                    Connection ada3 = DriverManager.getConnection(url + "ada");
                    Connection bob = DriverManager.getConnection(url + "bob")) {
                CopyOut copy = ada1.unwrap(PGConnection.class).getCopyAPI().copyOut("COPY (SUBSCRIBE t WITH (PROGRESS)) TO STDOUT");
                assertThat(copy.readFromCopy()).as("a progress row").isNotNull();
                ada2.setAutoCommit(false);
                try (Statement s = ada2.createStatement()) {
                    s.execute("DECLARE c CURSOR FOR SUBSCRIBE t");
                }
                assertThat(limits.held("ada", PrincipalLimits.Kind.SUBSCRIPTIONS)).isEqualTo(2);

                ada3.setAutoCommit(false);
                try (Statement s = ada3.createStatement()) {
                    assertThatThrownBy(() -> s.execute("DECLARE c CURSOR FOR SUBSCRIBE t")).isInstanceOfSatisfying(SQLException.class, e -> {
                        assertThat(e.getSQLState()).isEqualTo("53400");
                        assertThat(e.getMessage()).contains("'ada' holds 2 subscriptions").contains("tandem.security.limits.max-subscriptions");
                    });
                    ada3.rollback();
                }
                ada3.setAutoCommit(true);
                assertThatThrownBy(() -> {
                    CopyOut refused = ada3.unwrap(PGConnection.class).getCopyAPI().copyOut("COPY (SUBSCRIBE t) TO STDOUT");
                    refused.readFromCopy();
                }).isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("53400"));
                assertThat(limits.held("ada", PrincipalLimits.Kind.SUBSCRIPTIONS)).as("refusals hold nothing").isEqualTo(2);

                // another principal has its own permits
                bob.setAutoCommit(false);
                try (Statement s = bob.createStatement()) {
                    s.execute("DECLARE c CURSOR FOR SUBSCRIBE t");
                }
                assertThat(limits.held("bob", PrincipalLimits.Kind.SUBSCRIPTIONS)).isEqualTo(1);
                bob.rollback();

                // a cursor closed gives its permit back, and the principal may subscribe again
                try (Statement s = ada2.createStatement()) {
                    s.execute("CLOSE c");
                }
                assertThat(limits.held("ada", PrincipalLimits.Kind.SUBSCRIPTIONS)).isEqualTo(1);
                ada3.setAutoCommit(false);
                try (Statement s = ada3.createStatement()) {
                    s.execute("DECLARE c CURSOR FOR SUBSCRIBE t");
                }
                ada3.commit();
                ada2.commit();
                copy.cancelCopy();
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> limits.held("ada", PrincipalLimits.Kind.SUBSCRIPTIONS) == 0
                    && limits.held("bob", PrincipalLimits.Kind.SUBSCRIPTIONS) == 0 && stack.openStreams() == 0);
        }
    }

    @Test
    void anUnexpectedFailureIsAnsweredXX000AndTheSessionGoesOn() throws Exception {
        // a broken refusal counter stands for any bug below the session: it throws where no SQL error is expected
        PrincipalLimits limits = new PrincipalLimits(0, 0, 1, (principal, kind) -> {
            throw new IllegalStateException("the refusal counter broke");
        });
        try (SqlTesting.Stack stack = SqlTesting.stack(dir);
                PgWireServer server = start(stack, limits);
                Connection holder = connect(server, "");
                Connection extended = connect(server, "");
                Connection simple = connect(server, "&preferQueryMode=simple")) {
            try (Statement s = holder.createStatement()) {
                s.execute("CREATE TABLE t (k bigint NOT NULL)");
                s.execute("INSERT INTO t VALUES (7)");
            }
            holder.setAutoCommit(false);
            try (Statement s = holder.createStatement()) {
                s.execute("DECLARE c CURSOR FOR SUBSCRIBE t");
            }
            for (Connection c : List.of(extended, simple)) {
                c.setAutoCommit(false);
                try (Statement s = c.createStatement()) {
                    assertThatThrownBy(() -> s.execute("DECLARE c CURSOR FOR SUBSCRIBE t")).isInstanceOfSatisfying(SQLException.class, e -> {
                        assertThat(e.getSQLState()).isEqualTo("XX000");
                        assertThat(e.getMessage()).contains("internal error").contains("the refusal counter broke").doesNotContain("\tat ");
                    });
                    c.rollback();
                    assertThat(rows(s.executeQuery("SELECT k FROM t"))).as("the session goes on").containsExactly(List.of("7"));
                }
                c.rollback();
            }
            holder.rollback();
            await().atMost(Duration.ofSeconds(30)).until(() -> stack.openStreams() == 0);
        }
    }

    @Test
    void psqlFetchesFromASubscribeCursor() throws Exception {
        String psql = PgWireTesting.psql();
        if (psql == null) {
            System.err.println("!!! PgWireCursorTest.psqlFetchesFromASubscribeCursor SKIPPED: no psql on the PATH (apt-get install postgresql-client)");
        }
        Assumptions.assumeTrue(psql != null, "psql is not installed");
        try (SqlTesting.Stack stack = SqlTesting.stack(dir);
                PgWireServer server = start(stack, new PrincipalLimits(0, 0, 0))) {
            SqlSession session = new SqlSession();
            stack.engine().execute("CREATE TABLE t (k bigint NOT NULL, v text)", List.of(), session).block(Duration.ofSeconds(30));
            SqlResult a = stack.engine().execute("INSERT INTO t VALUES (1, 'one'), (2, 'two')", List.of(), session).block(Duration.ofSeconds(30));
            SqlResult b = stack.engine().execute("DELETE FROM t WHERE k = 1", List.of(), session).block(Duration.ofSeconds(30));
            long ta = a.timestamp();
            long tb = b.timestamp();
            Path script = dir.resolve("cursor.sql");
            // a FETCH without a timeout waits for a row or the end (UP TO): three FETCHes see every batch
            Files.writeString(script, "BEGIN;\n"
                    + "DECLARE c CURSOR FOR SUBSCRIBE t AS OF " + ta + " UP TO " + (tb + 1) + ";\n"
                    + "FETCH ALL c;\nFETCH ALL c;\nFETCH ALL c;\n"
                    + "FETCH 5 c WITH (timeout = '100ms');\n"
                    + "COMMIT;\n"
                    + "FETCH c;\n");
            Process p = new ProcessBuilder(psql, "-h", "127.0.0.1", "-p", Integer.toString(server.port()), "-U", "someone", "-d", "tandem",
                    "-X", "-A", "-t", "-q", "-f", script.toString())
                    .redirectErrorStream(true)
                    .start();
            p.getOutputStream().close();
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("psql finished").isTrue();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(out.lines().toList()).as(out).containsExactly(
                    ta + "|1|1|one", ta + "|1|2|two", tb + "|-1|1|one",
                    "psql:" + script + ":8: ERROR:  cursor \"c\" does not exist");
            await().atMost(Duration.ofSeconds(30)).until(() -> stack.openStreams() == 0);
        }
    }
}
