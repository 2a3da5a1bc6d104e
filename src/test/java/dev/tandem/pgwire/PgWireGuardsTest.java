package dev.tandem.pgwire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tandem.security.ApiToken;
import dev.tandem.security.AuditLog;
import dev.tandem.security.LoginThrottle;
import dev.tandem.security.PrincipalLimits;
import dev.tandem.security.TokenDirectory;
import dev.tandem.security.TokenHash;
import dev.tandem.sql.SqlTesting;
import java.io.DataInputStream;
import java.io.EOFException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * PostgreSQL's guards on the wire protocol, over real sockets: a cap on connections with the last slots
 * reserved for admins ({@code 53300}), an authentication timeout ({@code 57014}), idle-session timeouts
 * ({@code 57P05}, in a transaction block {@code 25P03}), and failed logins slowed on a timer (virtual time
 * here) while a right password from an address without failures goes through.
 */
class PgWireGuardsTest {

    static final SecureRandom RANDOM = new SecureRandom();

    @TempDir
    Path dir;

    final String adaSecret = TokenHash.newSecret(RANDOM);
    final String bobSecret = TokenHash.newSecret(RANDOM);
    final AuditLog audit = new AuditLog(Clock.systemUTC(), 1000);
    final List<CompletableFuture<?>> pending = new ArrayList<>();
    SqlTesting.Stack stack;
    PgWireServer server;

    @BeforeEach
    void stack() {
        stack = SqlTesting.stack(dir);
    }

    @AfterEach
    void stop() {
        pending.forEach(f -> f.cancel(true));
        if (server != null) {
            server.close();
        }
        stack.close();
    }

    private void start(PgWireServer.Guards guards) {
        TokenDirectory tokens = new TokenDirectory(List.of(
                ApiToken.parse(0, "ada", TokenHash.hash(adaSecret, RANDOM), "admin", null, null),
                ApiToken.parse(1, "bob", TokenHash.hash(bobSecret, RANDOM), "reader", null, null)));
        server = PgWireServer.start(stack.engine(), new TokenAuthenticator(tokens, RANDOM), audit, new PrincipalLimits(0, 0, 0), guards, null,
                "127.0.0.1", 0);
    }

    private Connection connect(String user, String secret, String from) throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", user);
        p.setProperty("password", secret);
        p.setProperty("localSocketAddress", from);
        p.setProperty("connectTimeout", "10");
        p.setProperty("socketTimeout", "30");
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/tandem", p);
    }

    private static int selectOne(Connection c) throws SQLException {
        try (ResultSet r = c.createStatement().executeQuery("SELECT 1")) {
            r.next();
            return r.getInt(1);
        }
    }

    private void awaitConnections(int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (server.connections() != n && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(server.connections()).isEqualTo(n);
    }

    @Test
    void theConnectionCapKeepsItsLastSlotsForAdminsAndRefusesTheRestWith53300() throws Exception {
        start(new PgWireServer.Guards(3, 1, Duration.ofSeconds(60), LoginThrottle.none()));
        try (Connection bob1 = connect("bob", bobSecret, "127.0.0.1"); Connection bob2 = connect("bob", bobSecret, "127.0.0.1")) {
            assertThatThrownBy(() -> connect("bob", bobSecret, "127.0.0.1")).isInstanceOfSatisfying(SQLException.class, e -> {
                assertThat(e.getSQLState()).isEqualTo("53300");
                assertThat(e.getMessage()).contains("reserved for sessions with the admin role");
            });
            awaitConnections(2);
            try (Connection ada = connect("ada", adaSecret, "127.0.0.1")) {
                assertThat(selectOne(ada)).isEqualTo(1);
                for (String[] who : new String[][] {{"ada", adaSecret}, {"bob", bobSecret}}) {
                    assertThatThrownBy(() -> connect(who[0], who[1], "127.0.0.1")).isInstanceOfSatisfying(SQLException.class, e -> {
                        assertThat(e.getSQLState()).isEqualTo("53300");
                        assertThat(e.getMessage()).contains("sorry, too many clients already");
                    });
                    awaitConnections(3);
                }
                assertThat(selectOne(bob1) + selectOne(bob2)).isEqualTo(2);
            }
            awaitConnections(2);
        }
        awaitConnections(0);
        try (Connection bob = connect("bob", bobSecret, "127.0.0.1")) {
            assertThat(selectOne(bob)).isEqualTo(1);
        }
    }

    @Test
    void sessionsIdleTooLongAreEndedWith57P05AndInATransactionBlockWith25P03() throws Exception {
        VirtualTimeScheduler time = VirtualTimeScheduler.create();
        server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, audit, new PrincipalLimits(0, 0, 0),
                new PgWireServer.Guards(100, 3, Duration.ofMinutes(10), LoginThrottle.none(), time)
                        .withIdleTimeouts(Duration.ofSeconds(60), Duration.ofSeconds(10)), null, "127.0.0.1", 0);
        try (PgRawClient idle = new PgRawClient(server.port(), 10_000); PgRawClient busy = new PgRawClient(server.port(), 10_000);
                PgRawClient inBlock = new PgRawClient(server.port(), 10_000)) {
            for (PgRawClient c : List.of(idle, busy, inBlock)) {
                assertThat(c.startup("tandem")).last().extracting(PgRawClient.Message::type).isEqualTo('Z');
            }
            inBlock.send('Q', PgRawClient.cstring("BEGIN"));
            assertThat(inBlock.untilReady()).last().extracting(m -> (char) m.body()[0]).isEqualTo('T');
            time.advanceTimeBy(Duration.ofSeconds(9));
            assertThat(query(inBlock, "SELECT 1")).as("a statement restarts the wait").last().extracting(m -> (char) m.body()[0]).isEqualTo('T');
            time.advanceTimeBy(Duration.ofSeconds(21));
            assertThat(query(busy, "SELECT 1")).last().extracting(PgRawClient.Message::type).isEqualTo('Z');
            time.advanceTimeBy(Duration.ofSeconds(31));
            // idle for 61 s: ended; busy idle for 31 s: goes on; the block idle for 10 s and more: ended
            assertThat(idle.untilClosed()).extracting(PgRawClient.Message::toString)
                    .containsExactly("E(FATAL 57P05 terminating connection due to idle-session timeout)");
            assertThat(inBlock.untilClosed()).extracting(PgRawClient.Message::toString)
                    .containsExactly("E(FATAL 25P03 terminating connection due to idle-in-transaction timeout)");
            assertThat(query(busy, "SELECT 1")).last().extracting(PgRawClient.Message::type).isEqualTo('Z');
            awaitConnections(1);
        }
        awaitConnections(0);
    }

    private static List<PgRawClient.Message> query(PgRawClient c, String sql) throws java.io.IOException {
        c.send('Q', PgRawClient.cstring(sql));
        return c.untilReady();
    }

    @Test
    void aConnectionThatDoesNotAuthenticateInTimeIsEndedWith57014AndAStartedOneIsNot() throws Exception {
        start(new PgWireServer.Guards(100, 3, Duration.ofMillis(300), LoginThrottle.none()));
        try (Connection bob = connect("bob", bobSecret, "127.0.0.1"); Socket silent = new Socket("127.0.0.1", server.port())) {
            silent.setSoTimeout(10_000);
            DataInputStream in = new DataInputStream(silent.getInputStream());
            assertThat((char) in.readByte()).isEqualTo('E');
            byte[] body = new byte[in.readInt() - 4];
            in.readFully(body);
            assertThat(new String(body, StandardCharsets.UTF_8)).contains("FATAL", "57014", "canceling authentication due to timeout");
            assertThatThrownBy(in::readByte).isInstanceOf(EOFException.class);
            // the session that authenticated outlives the timeout
            Thread.sleep(400);
            assertThat(selectOne(bob)).isEqualTo(1);
        }
        awaitConnections(0);
    }

    @Test
    void failedLoginsWaitLongerEachTimeOnTheTimerWhileARightPasswordFromAnotherAddressDoesNot() throws Exception {
        VirtualTimeScheduler time = VirtualTimeScheduler.create();
        List<String> failures = new ArrayList<>();
        LoginThrottle throttle = new LoginThrottle(Duration.ofSeconds(1), Duration.ofSeconds(8), Duration.ofMinutes(15), 1000,
                () -> time.now(TimeUnit.NANOSECONDS), (surface, reason) -> failures.add(surface + "/" + reason));
        start(new PgWireServer.Guards(100, 3, Duration.ofMinutes(10), throttle, time));
        try {
            // 1st wrong password: checked at once, refused after what bob owes (1 s)
            CompletableFuture<Connection> first = async("bob", "wrong", "127.0.0.1");
            assertPending(first);
            time.advanceTimeBy(Duration.ofSeconds(1));
            assertRefused28P01(first);

            // 2nd from the same address: held 1 s before it is checked, then refused after 2 s more
            CompletableFuture<Connection> second = async("bob", "wrong", "127.0.0.1");
            assertPending(second);
            time.advanceTimeBy(Duration.ofSeconds(1));
            assertPending(second);
            time.advanceTimeBy(Duration.ofSeconds(2));
            assertRefused28P01(second);
            assertThat(failures).containsExactly("pgwire/password", "pgwire/password");

            // bob's right password from an address without failures: no delay at all
            try (Connection bob = async("bob", bobSecret, "127.0.0.2").get(10, TimeUnit.SECONDS)) {
                assertThat(selectOne(bob)).isEqualTo(1);
            }
            // from the address that failed twice it waits 2 s first; logging in forgets the address's failures
            CompletableFuture<Connection> right = async("bob", bobSecret, "127.0.0.1");
            assertPending(right);
            time.advanceTimeBy(Duration.ofSeconds(2));
            try (Connection bob = right.get(10, TimeUnit.SECONDS)) {
                assertThat(selectOne(bob)).isEqualTo(1);
            }
            try (Connection bob = async("bob", bobSecret, "127.0.0.1").get(10, TimeUnit.SECONDS)) {
                assertThat(selectOne(bob)).isEqualTo(1);
            }
            assertThat(audit.recent()).filteredOn(e -> e.toString().contains("password authentication failed")).hasSize(2);
        } finally {
            time.dispose();
        }
    }

    private CompletableFuture<Connection> async(String user, String secret, String from) {
        CompletableFuture<Connection> f = CompletableFuture.supplyAsync(() -> {
            try {
                return connect(user, secret, from);
            } catch (SQLException e) {
                throw new java.util.concurrent.CompletionException(e);
            }
        });
        pending.add(f);
        return f;
    }

    /** Not answered within a moment: the answer waits on the (virtual) timer. */
    private static void assertPending(CompletableFuture<?> f) throws InterruptedException {
        Thread.sleep(300);
        assertThat(f).isNotDone();
    }

    private static void assertRefused28P01(CompletableFuture<Connection> f) {
        assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(SQLException.class)
                .cause().satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("28P01"));
    }
}
