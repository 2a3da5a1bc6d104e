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
 * node-postgres ({@code pg} from npm, installed into {@code target/node-pg}), unmodified, against Tandem:
 * it connects, runs a parameterized query over the extended protocol and gets its values typed by
 * their OIDs (a bigint as a string, a double as a number, a boolean, a timestamp as a Date, text),
 * and reads the catalog. Without node or npm, or with the npm registry unreachable, it skips loudly.
 */
class NodePostgresClientTest {

    private static final Path MODULES = Path.of("target", "node-pg");

    @TempDir
    Path dir;

    /** The directory {@code pg} is installed in, installing it when missing; null when it cannot be. */
    private static Path installPg() throws Exception {
        if (Files.isDirectory(MODULES.resolve("node_modules").resolve("pg"))) {
            return MODULES;
        }
        Files.createDirectories(MODULES);
        Process p;
        try {
            p = new ProcessBuilder("npm", "install", "--no-audit", "--no-fund", "--prefix", MODULES.toString(), "pg@8")
                    .redirectErrorStream(true).start();
        } catch (java.io.IOException e) {
            return null;
        }
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(300, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return null;
        }
        if (p.exitValue() != 0) {
            System.err.println("npm install pg failed:\n" + out);
            return null;
        }
        return MODULES;
    }

    @Test
    void aParameterizedQueryReturnsTypedValues() throws Exception {
        Path modules = installPg();
        if (modules == null) {
            org.junit.jupiter.api.Assertions.assertFalse("true".equalsIgnoreCase(System.getenv("CI")),
                    "node-postgres could not be installed on CI (node and npm come from .ci/run)");
            System.err.println("!!! NodePostgresClientTest SKIPPED: node/npm missing or `npm install pg` failed");
        }
        Assumptions.assumeTrue(modules != null, "node-postgres is not installed");
        Path script = dir.resolve("client.js");
        Files.writeString(script, """
                const { Client } = require('pg');
                (async () => {
                  const client = new Client({ host: '127.0.0.1', port: Number(process.argv[2]), user: 'tandem', database: 'tandem' });
                  await client.connect();
                  const r = await client.query('SELECT id, name, score, ok, "at" FROM t WHERE id >= $1 AND name <> $2 ORDER BY id', [2, 'nobody']);
                  for (const row of r.rows) {
                    console.log('row', JSON.stringify(row), typeof row.id, typeof row.score, typeof row.ok, row.at instanceof Date);
                  }
                  console.log('fields', r.fields.map(f => f.name + ':' + f.dataTypeID).join(','));
                  const c = await client.query('SELECT relname FROM pg_catalog.pg_class WHERE relkind = $1 AND relnamespace = 2200', ['r']);
                  console.log('tables', c.rows.map(x => x.relname).join(','));
                  await client.end();
                })().catch(e => { console.log('error', e.code, e.message); process.exit(1); });
                """);
        try (SqlTesting.Stack stack = SqlTesting.stack(Files.createDirectory(dir.resolve("data")));
                PgWireServer server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0)) {
            try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/tandem", "tandem", "");
                    Statement s = c.createStatement()) {
                for (String ddl : PgCatalogClientsTest.DDL.strip().split(";\n")) {
                    s.execute(ddl);
                }
                s.execute("INSERT INTO t VALUES (1, 'one', 1.5, '2024-01-02 03:04:05', true), (2, 'two', 2.25, '2024-05-06 07:08:09', false), "
                        + "(3, 'three', NULL, NULL, NULL)");
            }
            ProcessBuilder pb = new ProcessBuilder("node", script.toString(), Integer.toString(server.port())).redirectErrorStream(true);
            pb.environment().put("NODE_PATH", modules.resolve("node_modules").toAbsolutePath().toString());
            pb.environment().put("TZ", "UTC");
            Process p = pb.start();
            p.getOutputStream().close();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("node finished").isTrue();
            assertThat(out).as(out)
                    .contains("row {\"id\":\"2\",\"name\":\"two\",\"score\":2.25,\"ok\":false,\"at\":\"2024-05-06T07:08:09.000Z\"} string number boolean true")
                    .contains("row {\"id\":\"3\",\"name\":\"three\",\"score\":null,\"ok\":null,\"at\":null} string object object false")
                    .contains("fields id:20,name:25,score:701,ok:16,at:1114")
                    .contains("tables t");
            assertThat(p.exitValue()).as(out).isZero();
        }
    }
}
