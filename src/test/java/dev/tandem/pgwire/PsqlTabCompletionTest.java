package dev.tandem.pgwire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.sql.SqlTesting;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * psql's tab completion against Tandem, through psql itself in a pseudo-terminal (Python's {@code pty},
 * every read bounded): {@code SELECT * FROM poi<TAB>} completes the table {@code points} and
 * {@code WHERE xc<TAB>} its column {@code xcoord}, each from the queries psql sends to the catalog, and
 * the completed statement runs. Without psql (or python3) it skips loudly; on CI that is an error.
 */
class PsqlTabCompletionTest {

    @TempDir
    Path dir;

    @Test
    void psqlCompletesATableNameAndAColumnName() throws Exception {
        String psql = PgWireTesting.psql();
        boolean python = Files.isExecutable(Path.of("/usr/bin/python3"));
        if (psql == null || !python) {
            org.junit.jupiter.api.Assertions.assertFalse("true".equalsIgnoreCase(System.getenv("CI")), "no psql or python3 on CI");
            System.err.println("!!! PsqlTabCompletionTest SKIPPED: psql or /usr/bin/python3 is missing (apt-get install postgresql-client python3)");
        }
        Assumptions.assumeTrue(psql != null && python, "psql or python3 is not installed");
        Path driver = dir.resolve("psql_complete_pty.py");
        try (var in = PsqlTabCompletionTest.class.getResourceAsStream("/clients/psql_complete_pty.py")) {
            Files.write(driver, in.readAllBytes());
        }
        Path home = Files.createDirectory(dir.resolve("home"));
        try (SqlTesting.Stack stack = SqlTesting.stack(Files.createDirectory(dir.resolve("data")));
                PgWireServer server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0)) {
            try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/tandem", "tandem", "");
                    Statement s = c.createStatement()) {
                s.execute("CREATE TABLE points (id bigint PRIMARY KEY, xcoord bigint)");
                s.execute("CREATE TABLE lines (id bigint PRIMARY KEY, xfrom bigint)");
                s.execute("INSERT INTO points VALUES (1, 1), (2, 5)");
            }
            Process p = new ProcessBuilder("/usr/bin/python3", driver.toString(), psql, Integer.toString(server.port()), home.toString())
                    .redirectErrorStream(true).start();
            p.getOutputStream().close();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("the psql driver finished").isTrue();
            assertThat(out).as(out).contains("PROMPT True TABLE True COLUMN True RAN True")
                    .contains("SELECT * FROM points WHERE xcoord = 1;")
                    .contains("(1 row)");
        }
    }
}
