package dev.tandem.pgwire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.sql.SqlTesting;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code psql} itself drives a scripted session over the wire protocol (simple queries, its {@code \dt}
 * and {@code \d} catalog queries, an error with its position, EXPLAIN); its output is
 * checked. Skipped, loudly, where there is no {@code psql}.
 */
class PsqlSessionTest {

    @TempDir
    Path dir;

    @Test
    void psqlRunsAScriptedSession() throws Exception {
        String psql = PgWireTesting.requirePsql("PsqlSessionTest");
        Path script = dir.resolve("session.sql");
        Files.writeString(script, """
                CREATE TABLE pets (id bigint NOT NULL, name text, legs integer);
                INSERT INTO pets VALUES (1, 'cat', 4), (2, 'bird', 2), (3, 'snake', NULL);
                CREATE INDEX pets_by_id ON pets (id);
                CREATE VIEW walkers AS SELECT name, legs FROM pets WHERE legs > 0;
                SELECT name FROM pets WHERE id = 2;
                SELECT name, legs FROM walkers ORDER BY legs DESC;
                SELECT count(*), sum(legs) FROM pets;
                \\dt
                \\d
                SELECT nope FROM pets;
                EXPLAIN SELECT name FROM pets WHERE id = 1;
                CREATE TABLE tagged (id bigint, tags text[], ns bigint[]);
                INSERT INTO tagged VALUES (1, '{a,"b c"}', ARRAY[1, 2]);
                SELECT * FROM tagged;
                \\d tagged
                """);
        Path data = Files.createDirectory(dir.resolve("data"));
        try (SqlTesting.Stack stack = SqlTesting.stack(data);
                PgWireServer server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0)) {
            Process p = new ProcessBuilder(psql, "-h", "127.0.0.1", "-p", Integer.toString(server.port()), "-U", "someone", "-d", "tandem",
                    "-X", "-A", "-q", "-f", script.toString())
                    .redirectErrorStream(true)
                    .start();
            p.getOutputStream().close();
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("psql finished").isTrue();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(out).as(out)
                    .contains("name\nbird\n(1 row)")
                    .contains("name|legs\ncat|4\nbird|2\n(2 rows)")
                    .contains("count|sum\n3|6\n(1 row)")
                    .contains("public|pets|table|tandem")
                    .contains("public|walkers|view|tandem")
                    .contains("ERROR:  column \"nope\" does not exist")
                    .contains("LINE 1: SELECT nope FROM pets;\n               ^")
                    .contains("fast path: a lookup of key [1] in index pets_by_id")
                    .contains("id|tags|ns\n1|{a,\"b c\"}|{1,2}\n(1 row)")
                    .contains("tags|text[]|", "ns|bigint[]|");
            assertThat(p.exitValue()).isZero();
        }
    }
}
