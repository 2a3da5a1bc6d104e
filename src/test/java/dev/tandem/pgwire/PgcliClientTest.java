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
 * pgcli (Debian's), unmodified, in a pseudo-terminal (Python's {@code pty}, every read bounded by a
 * timeout): it connects to Tandem, reading the catalog for its completions (schemas, tables, views,
 * columns, foreign keys, types, databases; its functions' read is refused), and lists the tables with
 * {@code \dt}. Without pgcli it skips loudly (an error on CI, whose .ci/run installs it).
 */
class PgcliClientTest {

    @TempDir
    Path dir;

    @Test
    void pgcliConnectsAndListsTables() throws Exception {
        boolean present = Files.isExecutable(Path.of("/usr/bin/pgcli"));
        if (!present) {
            org.junit.jupiter.api.Assertions.assertFalse("true".equalsIgnoreCase(System.getenv("CI")), "pgcli is missing on CI: .ci/run installs it");
            System.err.println("!!! PgcliClientTest SKIPPED: pgcli is not installed (apt-get install pgcli)");
        }
        Assumptions.assumeTrue(present, "pgcli is not installed");
        Path driver = dir.resolve("pgcli_pty.py");
        try (var in = PgcliClientTest.class.getResourceAsStream("/clients/pgcli_pty.py")) {
            Files.write(driver, in.readAllBytes());
        }
        Path home = Files.createDirectory(dir.resolve("home"));
        try (SqlTesting.Stack stack = SqlTesting.stack(Files.createDirectory(dir.resolve("data")));
                PgWireServer server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0)) {
            try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/tandem", "tandem", "");
                    Statement s = c.createStatement()) {
                for (String ddl : PgCatalogClientsTest.DDL.strip().split(";\n")) {
                    s.execute(ddl);
                }
            }
            Process p = new ProcessBuilder("/usr/bin/python3", driver.toString(), Integer.toString(server.port()), home.toString())
                    .redirectErrorStream(true).start();
            p.getOutputStream().close();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(150, TimeUnit.SECONDS)).as("the pgcli driver finished").isTrue();
            assertThat(out).as(out).contains("PROMPT True LISTED True").contains("| public | t    | table | tandem |");
            // its completion refresher reads the catalog in the background, a failed read printing a traceback: all but
            // the functions' (a cast of oid arrays to regtype[], which Tandem's catalog refuses with 0A000) are answered
            String[] failures = out.split("Exception in thread");
            for (int i = 1; i < failures.length; i++) {
                assertThat(failures[i]).as(out).contains("in refresh_functions").contains("FeatureNotSupported: not supported: a cast to regtype[]");
            }
        }
    }
}
