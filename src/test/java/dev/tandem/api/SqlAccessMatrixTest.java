package dev.tandem.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tandem.config.SqlConfiguration;
import dev.tandem.security.AuditLog;
import dev.tandem.security.Role;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.socket.client.ReactorNettyWebSocketClient;
import tools.jackson.databind.JsonNode;

/**
 * SQL authorization by statement kind, over every way SQL arrives: each role × each kind of statement
 * through {@code POST /v1/sql}, the WebSocket's {@code sql} op and the PostgreSQL wire protocol (a
 * real socket, pgjdbc with the extended and the simple protocol, and {@code psql}); object allow-lists;
 * wire-protocol logins with API tokens (refused passwords 28P01, audited; no password in the clear
 * from a non-loopback address without TLS; TLS from {@code server.ssl.*}).
 */
class SqlAccessMatrixTest {

    /** Statements by kind, and the role each kind needs: written out here, not taken from the code under test. */
    static final Map<String, Role> STATEMENTS = new LinkedHashMap<>();

    static {
        STATEMENTS.put("SELECT id FROM orders", Role.READER);
        STATEMENTS.put("SHOW TABLES", Role.READER);
        STATEMENTS.put("EXPLAIN SELECT id FROM orders WHERE id = 1", Role.READER);
        STATEMENTS.put("SET transaction_isolation = 'serializable'", Role.READER);
        STATEMENTS.put("INSERT INTO orders VALUES (7)", Role.WRITER);
        STATEMENTS.put("DELETE FROM orders WHERE id = 7", Role.WRITER);
        STATEMENTS.put("CREATE TABLE IF NOT EXISTS scratch (id bigint)", Role.ADMIN);
        STATEMENTS.put("DROP VIEW IF EXISTS absent", Role.ADMIN);
        STATEMENTS.put("DROP SOURCE IF EXISTS absent", Role.ADMIN);
        STATEMENTS.put("SET tandem.after_lsn = ''", Role.READER);
    }

    static final List<String> CALLERS = List.of("reader", "writer", "admin", "replica");

    @TempDir
    Path dir;

    @Test
    void eachRoleRunsExactlyTheStatementKindsItCoversOverHttpWebSocketAndTheWireProtocol() throws Exception {
        try (SecuredServer s = new SecuredServer(dir, Map.of("tandem.pgwire.port", 0, "tandem.pgwire.host", "0.0.0.0"))) {
            int pg = s.server.bean(SqlConfiguration.PgWireHolder.class).port();
            try (Connection admin = connect("127.0.0.1", pg, "admin", s.secrets.get("admin"), ""); Statement st = admin.createStatement()) {
                st.execute("CREATE TABLE orders (id bigint NOT NULL)");
                st.execute("CREATE TABLE secrets (id bigint NOT NULL)");
                st.execute("CREATE INDEX orders_by_id ON orders (id)");
                st.execute("CREATE VIEW all_secrets AS SELECT id FROM secrets");
            }
            List<String> wrong = new ArrayList<>();
            int cells = 0;
            for (String caller : CALLERS) {
                if (caller.equals("replica")) {
                    // A principal without a SQL role is refused at login.
                    cells++;
                    assertThatThrownBy(() -> connect("127.0.0.1", pg, caller, s.secrets.get(caller), "").close())
                            .isInstanceOfSatisfying(SQLException.class, x -> {
                                assertThat(x.getSQLState()).isEqualTo("42501");
                                assertThat(x.getMessage()).contains("'replica' has no role that may use SQL");
                            });
                }
                for (String mode : caller.equals("replica") ? List.<String>of() : List.of("extended", "simple")) {
                    try (Connection c = connect("127.0.0.1", pg, caller, s.secrets.get(caller), mode.equals("simple") ? "&preferQueryMode=simple" : "")) {
                        for (Map.Entry<String, Role> e : STATEMENTS.entrySet()) {
                            cells++;
                            boolean allowed = AccessMatrixTest.expected(e.getValue(), caller) == 0;
                            String state = null;
                            try (PreparedStatement ps = c.prepareStatement(e.getKey())) {
                                ps.execute();
                            } catch (SQLException x) {
                                state = x.getSQLState();
                            }
                            if (allowed ? state != null : !"42501".equals(state)) {
                                wrong.add("pgwire " + mode + " " + caller + ": " + e.getKey() + " → " + (state == null ? "ran" : state));
                            }
                        }
                    }
                }
                for (Map.Entry<String, Role> e : STATEMENTS.entrySet()) {
                    cells++;
                    TandemServer.Response r = s.server.call(s.as(caller), HttpMethod.POST, "/v1/sql", MediaType.APPLICATION_JSON,
                            ("{\"sql\":" + TandemServer.JSON.writeValueAsString(e.getKey()) + "}").getBytes(StandardCharsets.UTF_8));
                    int expected = caller.equals("replica") ? 403 : AccessMatrixTest.expected(e.getValue(), caller) == 0 ? 200 : 403;
                    if (r.status() != expected || (expected == 403 && !r.isProblem())) {
                        wrong.add("POST /v1/sql " + caller + ": " + e.getKey() + " → " + r.status() + " " + r.text());
                    }
                }
                if (caller.equals("replica")) {
                    continue; // the WebSocket handshake needs reader (AccessMatrixTest)
                }
                try (SocketClient ws = new SocketClient(URI.create("ws://127.0.0.1:" + s.server.port + "/v1/ws"), s.bearer(caller),
                        new ReactorNettyWebSocketClient())) {
                    int id = 0;
                    for (Map.Entry<String, Role> e : STATEMENTS.entrySet()) {
                        cells++;
                        int mine = ++id;
                        ws.send("{\"op\":\"sql\",\"id\":" + mine + ",\"sql\":" + TandemServer.JSON.writeValueAsString(e.getKey()) + "}");
                        JsonNode reply = ws.await(n -> n.path("id").asInt() == mine);
                        boolean allowed = AccessMatrixTest.expected(e.getValue(), caller) == 0;
                        boolean ok = allowed ? reply.path("op").asString().equals("sql_result")
                                : reply.path("op").asString().equals("error") && reply.path("status").asInt() == 403;
                        if (!ok) {
                            wrong.add("ws sql " + caller + ": " + e.getKey() + " → " + reply);
                        }
                    }
                }
            }
            assertThat(wrong).as("cells answered wrongly").isEmpty();
            // pgwire: 3 SQL roles x 2 protocols x statements + the replica's login; HTTP: 4 roles; ws: 3 (the replica's handshake is refused)
            assertThat(cells).isEqualTo(3 * 2 * STATEMENTS.size() + 1 + CALLERS.size() * STATEMENTS.size() + 3 * STATEMENTS.size());
            System.out.println("SqlAccessMatrixTest: " + CALLERS.size() + " roles x " + STATEMENTS.size() + " statements over pgwire (extended,"
                    + " simple), POST /v1/sql and ws = " + cells + " cells");

            // Object allow-lists apply to SQL: a view needs its own grant, and so does every table of a join.
            try (Connection scoped = connect("127.0.0.1", pg, "scoped", s.secrets.get("scoped"), ""); Statement st = scoped.createStatement()) {
                try (ResultSet rs = st.executeQuery("SELECT count(*) FROM orders")) {
                    assertThat(rs.next()).isTrue();
                }
                for (String denied : List.of("SELECT id FROM secrets", "SELECT id FROM all_secrets",
                        "SELECT o.id FROM orders o JOIN secrets s ON o.id = s.id", "SHOW COLUMNS FROM secrets")) {
                    assertThatThrownBy(() -> st.executeQuery(denied)).as(denied).isInstanceOfSatisfying(SQLException.class, x -> {
                        assertThat(x.getSQLState()).isEqualTo("42501");
                        assertThat(x.getMessage()).contains("'scoped' is not granted access to '");
                    });
                }
                // A change stream is a read too: SUBSCRIBE, plain or inside COPY, needs the grant on what it watches.
                org.postgresql.copy.CopyManager copy = new org.postgresql.copy.CopyManager(scoped.unwrap(org.postgresql.core.BaseConnection.class));
                for (String denied : List.of("COPY (SUBSCRIBE TO secrets) TO STDOUT", "COPY (SUBSCRIBE all_secrets) TO STDOUT", "SUBSCRIBE TO secrets",
                        "COPY secrets TO STDOUT", "COPY (SELECT id FROM all_secrets) TO STDOUT")) {
                    assertThatThrownBy(() -> copy.copyOut(denied, java.io.OutputStream.nullOutputStream())).as(denied)
                            .isInstanceOfSatisfying(SQLException.class, x -> {
                                assertThat(x.getSQLState()).isEqualTo("42501");
                                assertThat(x.getMessage()).contains("'scoped' is not granted access to '");
                            });
                }
            }
            // COPY FROM STDIN is a write: a reader's is refused before any row is taken, and nothing is written.
            try (Connection reader = connect("127.0.0.1", pg, "reader", s.secrets.get("reader"), "")) {
                org.postgresql.copy.CopyManager copy = new org.postgresql.copy.CopyManager(reader.unwrap(org.postgresql.core.BaseConnection.class));
                assertThatThrownBy(() -> copy.copyIn("COPY orders FROM STDIN", new java.io.ByteArrayInputStream("900\n".getBytes(StandardCharsets.UTF_8))))
                        .isInstanceOfSatisfying(SQLException.class, x -> assertThat(x.getSQLState()).isEqualTo("42501"));
                try (Statement st = reader.createStatement(); ResultSet rs = st.executeQuery("SELECT count(*) FROM orders WHERE id = 900")) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getLong(1)).isZero();
                }
            }
            TandemServer.Response view = s.server.call(s.as("scoped"), HttpMethod.POST, "/v1/sql", MediaType.APPLICATION_JSON,
                    "{\"sql\":\"SELECT id FROM all_secrets\"}".getBytes(StandardCharsets.UTF_8));
            assertThat(view.status()).isEqualTo(403);
            assertThat(view.json().path("detail").asString()).contains("'scoped' is not granted access to 'all_secrets'");
            assertThat(s.server.call(s.as("reader"), HttpMethod.POST, "/v1/sql", MediaType.APPLICATION_JSON,
                    "{\"sql\":\"SELECT id FROM all_secrets\"}".getBytes(StandardCharsets.UTF_8)).status()).isEqualTo(200);

            // Logins: a wrong password, or a right secret under another token's name, is 28P01 and audited.
            for (String[] login : new String[][] {{"reader", "not-the-secret"}, {"writer", s.secrets.get("reader")}, {"nobody", s.secrets.get("reader")}}) {
                assertThatThrownBy(() -> connect("127.0.0.1", pg, login[0], login[1], "").close())
                        .isInstanceOfSatisfying(SQLException.class, x -> assertThat(x.getSQLState()).isEqualTo("28P01"));
            }
            List<AuditLog.Entry> audit = s.server.bean(AuditLog.class).recent();
            assertThat(audit).anySatisfy(e -> assertThat(e.toString()).contains("principal=anonymous", "action=authenticate",
                    "target=pgwire user nobody", "outcome=refused: password authentication failed"));
            assertThat(audit).anySatisfy(e -> assertThat(e.toString()).contains("principal=reader", "action=sql",
                    "target=INSERT INTO orders VALUES (7)", "outcome=forbidden"));
            assertThat(audit).anySatisfy(e -> assertThat(e.toString()).contains("principal=admin", "action=sql",
                    "target=CREATE TABLE orders (id bigint NOT NULL)", "outcome=CREATE TABLE"));

            // No password in the clear from another address without TLS (this server has none).
            InetAddress external = nonLoopbackAddress();
            if (external != null) {
                assertThatThrownBy(() -> connect(external.getHostAddress(), pg, "reader", s.secrets.get("reader"), "").close())
                        .isInstanceOfSatisfying(SQLException.class, x -> {
                            assertThat(x.getSQLState()).isEqualTo("28000");
                            assertThat(x.getMessage()).contains("needs an encrypted connection", "offers no TLS");
                        });
            } else {
                System.err.println("!!! SqlAccessMatrixTest: no non-loopback IPv4 address; the unencrypted remote login is not checked");
            }

            String psql = findPsql();
            if (psql == null) {
                System.err.println("!!! SqlAccessMatrixTest: no psql on the PATH; the psql cells are skipped");
                return;
            }
            Psql read = psql(psql, pg, "reader", s.secrets.get("reader"), "disable", null, "SELECT count(*) FROM orders");
            assertThat(read.exit).as(read.output).isZero();
            Psql write = psql(psql, pg, "reader", s.secrets.get("reader"), "disable", null, "INSERT INTO orders VALUES (9)");
            assertThat(write.exit).as(write.output).isNotZero();
            assertThat(write.output).contains("permission denied: a write (INSERT, DELETE) statement needs the role writer; 'reader' has reader");
            Psql refused = psql(psql, pg, "reader", "wrong-wrong-wrong", "disable", null, "SELECT 1");
            assertThat(refused.exit).isNotZero();
            assertThat(refused.output).contains("password authentication failed for user \"reader\"");
        }
    }

    /** The wire protocol over TLS made from {@code server.ssl.*}: psql and pgjdbc log in encrypted, also from a non-loopback address. */
    @Test
    void theWireProtocolOffersTlsWithTheHttpServersKeyMaterial() throws Exception {
        Path keystore = dir.resolve("tandem.p12");
        Path cert = dir.resolve("tandem.pem");
        String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        run(keytool, "-genkeypair", "-alias", "tandem", "-keyalg", "RSA", "-keysize", "2048", "-validity", "2",
                "-dname", "CN=localhost", "-ext", "SAN=ip:127.0.0.1,dns:localhost", "-storetype", "PKCS12",
                "-keystore", keystore.toString(), "-storepass", TlsTest.PASSWORD, "-keypass", TlsTest.PASSWORD);
        run(keytool, "-exportcert", "-rfc", "-alias", "tandem", "-keystore", keystore.toString(), "-storepass", TlsTest.PASSWORD,
                "-file", cert.toString());
        try (SecuredServer s = new SecuredServer(dir.resolve("server"), Map.of("tandem.pgwire.port", 0, "tandem.pgwire.host", "0.0.0.0",
                "server.ssl.enabled", true,
                "server.ssl.key-store", keystore.toString(),
                "server.ssl.key-store-password", TlsTest.PASSWORD,
                "server.ssl.key-store-type", "PKCS12",
                "server.ssl.key-alias", "tandem"))) {
            int pg = s.server.bean(SqlConfiguration.PgWireHolder.class).port();
            String tls = "&sslmode=verify-ca&sslrootcert=" + cert;
            List<String> hosts = new ArrayList<>(List.of("127.0.0.1"));
            InetAddress external = nonLoopbackAddress();
            if (external != null) {
                hosts.add(external.getHostAddress());
                assertThatThrownBy(() -> connect(external.getHostAddress(), pg, "reader", s.secrets.get("reader"), "").close())
                        .isInstanceOfSatisfying(SQLException.class, x -> assertThat(x.getMessage()).contains("connect with TLS (sslmode=require)"));
            }
            for (String host : hosts) {
                try (Connection c = connect(host, pg, "reader", s.secrets.get("reader"), tls); Statement st = c.createStatement();
                        ResultSet rs = st.executeQuery("SHOW TABLES")) {
                    assertThat(rs.next()).as("no tables yet").isFalse();
                }
            }
            // Plaintext sent behind an SSLRequest is never read as the start-up: refused (08P01), or fed to the TLS handshake.
            try (java.net.Socket raw = new java.net.Socket("127.0.0.1", pg)) {
                raw.setSoTimeout(30_000);
                java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
                java.io.DataOutputStream out = new java.io.DataOutputStream(b);
                out.writeInt(8);
                out.writeInt(80877103);
                byte[] startup = "\0\3\0\0user\0reader\0database\0tandem\0\0".getBytes(StandardCharsets.UTF_8);
                out.writeInt(4 + startup.length);
                out.write(startup);
                raw.getOutputStream().write(b.toByteArray());
                byte[] answer;
                try {
                    answer = raw.getInputStream().readAllBytes();
                } catch (java.net.SocketException reset) {
                    answer = new byte[] {'S'};
                }
                assertThat(answer).isNotEmpty();
                if (answer[0] == 'E') {
                    assertThat(new String(answer, StandardCharsets.UTF_8)).contains("08P01", "received unencrypted data after SSL request");
                } else {
                    assertThat((char) answer[0]).as("TLS was accepted; the plaintext then fails its handshake").isEqualTo('S');
                    assertThat(new String(answer, StandardCharsets.UTF_8)).doesNotContain("R\0\0\0\10");
                }
            }
            // A client that does not trust the certificate is refused at the handshake.
            assertThatThrownBy(() -> connect("127.0.0.1", pg, "reader", s.secrets.get("reader"), "&sslmode=verify-ca&sslrootcert="
                    + TlsTestCertificates.other(dir)).close()).isInstanceOf(SQLException.class);
            String psql = findPsql();
            if (psql != null) {
                Psql p = psql(psql, pg, "reader", s.secrets.get("reader"), "verify-ca", cert, "SHOW TABLES");
                assertThat(p.exit).as(p.output).isZero();
                assertThat(p.output).contains("(0 rows)");
            }
        }
    }

    static Connection connect(String host, int port, String user, String password, String extra) throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", user);
        p.setProperty("password", password);
        p.setProperty("connectTimeout", "30");
        p.setProperty("socketTimeout", "60");
        return DriverManager.getConnection("jdbc:postgresql://" + host + ":" + port + "/tandem?" + (extra.contains("sslmode") ? "" : "sslmode=disable")
                + extra, p);
    }

    /** The first non-loopback IPv4 address of this machine, or null. */
    static InetAddress nonLoopbackAddress() throws Exception {
        for (NetworkInterface i : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (!i.isUp() || i.isLoopback()) {
                continue;
            }
            for (InetAddress a : Collections.list(i.getInetAddresses())) {
                if (a instanceof Inet4Address && !a.isLoopbackAddress() && !a.isLinkLocalAddress()) {
                    return a;
                }
            }
        }
        return null;
    }

    record Psql(int exit, String output) {
    }

    static Psql psql(String psql, int port, String user, String password, String sslmode, Path rootCert, String sql) throws Exception {
        ProcessBuilder b = new ProcessBuilder(psql, "-h", "127.0.0.1", "-p", Integer.toString(port), "-U", user, "-d", "tandem", "-X", "-A",
                "-w", "-v", "ON_ERROR_STOP=1", "-c", sql).redirectErrorStream(true);
        b.environment().put("PGPASSWORD", password);
        b.environment().put("PGSSLMODE", sslmode);
        if (rootCert != null) {
            b.environment().put("PGSSLROOTCERT", rootCert.toString());
        }
        Process p = b.start();
        p.getOutputStream().close();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("psql finished").isTrue();
        return new Psql(p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    }

    static String findPsql() {
        for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
            Path p = Path.of(d, "psql");
            if (Files.isExecutable(p)) {
                return p.toString();
            }
        }
        return null;
    }

    private static void run(String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(new String(p.getInputStream().readAllBytes())).isZero();
    }

    /** A certificate the server does not hold, to be refused by. */
    private static final class TlsTestCertificates {
        static Path other(Path dir) throws Exception {
            Path ks = dir.resolve("other.p12");
            Path pem = dir.resolve("other.pem");
            if (!Files.exists(pem)) {
                String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
                run(keytool, "-genkeypair", "-alias", "other", "-keyalg", "RSA", "-keysize", "2048", "-validity", "2", "-dname", "CN=other",
                        "-storetype", "PKCS12", "-keystore", ks.toString(), "-storepass", TlsTest.PASSWORD, "-keypass", TlsTest.PASSWORD);
                run(keytool, "-exportcert", "-rfc", "-alias", "other", "-keystore", ks.toString(), "-storepass", TlsTest.PASSWORD,
                        "-file", pem.toString());
            }
            return pem;
        }
    }
}
