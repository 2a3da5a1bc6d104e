package dev.tandem.pgwire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tandem.sql.SqlResult;
import dev.tandem.sql.SqlSession;
import dev.tandem.sql.SqlTesting;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyOut;

/**
 * {@code SUBSCRIBE} over the wire protocol, as real clients consume it: pgjdbc's COPY API reads the rows
 * of {@code COPY (SUBSCRIBE ...) TO STDOUT} as they come (snapshot, then each change with its timestamp
 * and diff) and cancels it; {@code psql} prints a bounded {@code SUBSCRIBE ... UP TO}; a SUBSCRIBE sent
 * through the extended protocol (a prepared statement) is refused with a pointer to what works.
 */
class PgWireSubscribeTest {

    @TempDir
    Path dir;

    private static Connection connect(PgWireServer server) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/tandem?user=ada&sslmode=disable");
    }

    /** The next CopyData row, split into its text fields. */
    private static String[] next(CopyOut copy) throws SQLException {
        byte[] row = copy.readFromCopy();
        assertThat(row).as("a row before the end of the COPY").isNotNull();
        String line = new String(row, StandardCharsets.UTF_8);
        assertThat(line).endsWith("\n");
        return line.substring(0, line.length() - 1).split("\t", -1);
    }

    @Test
    void pgjdbcReadsAViewsChangesAsCopyRowsAndCancelsThem() throws Exception {
        try (SqlTesting.Stack stack = SqlTesting.stack(dir);
                PgWireServer server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0);
                Connection watcher = connect(server);
                Connection writer = connect(server);
                Statement w = writer.createStatement()) {
            w.execute("CREATE TABLE pets (id bigint NOT NULL, name text)");
            w.execute("INSERT INTO pets VALUES (1, 'cat'), (2, 'a\tb\\c'), (3, NULL)");
            w.execute("CREATE VIEW named AS SELECT id, name FROM pets WHERE name IS NOT NULL");

            CopyOut copy = watcher.unwrap(PGConnection.class).getCopyAPI().copyOut("COPY (SUBSCRIBE named) TO STDOUT");
            assertThat(copy.getFieldCount()).as("mz_timestamp, mz_diff, id, name").isEqualTo(4);
            List<List<String>> snapshot = new ArrayList<>();
            String[] first = next(copy);
            snapshot.add(List.of(first));
            snapshot.add(List.of(next(copy)));
            assertThat(snapshot).extracting(r -> r.subList(1, 4)).containsExactlyInAnyOrder(
                    List.of("1", "1", "cat"), List.of("1", "2", "a\\tb\\\\c"));
            long asOf = Long.parseLong(first[0]);
            assertThat(snapshot).allSatisfy(r -> assertThat(r.get(0)).as("the snapshot is at one time").isEqualTo(first[0]));

            w.execute("INSERT INTO pets VALUES (4, 'dog'), (5, NULL)");
            String[] inserted = next(copy);
            assertThat(List.of(inserted).subList(1, 4)).isEqualTo(List.of("1", "4", "dog"));
            assertThat(Long.parseLong(inserted[0])).as("a change after the snapshot").isGreaterThan(asOf);
            w.execute("DELETE FROM pets WHERE id = 1");
            String[] deleted = next(copy);
            assertThat(List.of(deleted).subList(1, 4)).isEqualTo(List.of("-1", "1", "cat"));
            assertThat(Long.parseLong(deleted[0])).isGreaterThan(Long.parseLong(inserted[0]));
            assertThat(stack.openStreams()).as("the stream and its transient dataflow").isEqualTo(2);

            // pgjdbc cancels a COPY out with a CancelRequest (and leaves the answer on the wire: the
            // connection is not reused after it); the server ends the subscription and drops its dataflow.
            copy.cancelCopy();
            assertThat(copy.isActive()).isFalse();
            await().atMost(Duration.ofSeconds(30)).until(() -> stack.openStreams() == 0);
            watcher.close();

            // Without a snapshot, with progress rows, a point watch of an indexed table.
            w.execute("CREATE INDEX pets_id ON pets (id)");
            Connection pointWatcher = connect(server);
            CopyOut point = pointWatcher.unwrap(PGConnection.class).getCopyAPI()
                    .copyOut("SUBSCRIBE TO (SELECT name FROM pets WHERE id = 7) WITH (SNAPSHOT = false, PROGRESS)");
            assertThat(point.getFieldCount()).as("mz_timestamp, mz_progressed, mz_diff, name").isEqualTo(4);
            String[] progress = next(point);
            assertThat(List.of(progress).subList(1, 4)).as("progress first: no snapshot").isEqualTo(List.of("t", "\\N", "\\N"));
            w.execute("INSERT INTO pets VALUES (6, 'six'), (7, 'seven')");
            String[] row;
            do {
                row = next(point);
            } while (row[1].equals("t"));
            assertThat(List.of(row).subList(1, 4)).as("only key 7").isEqualTo(List.of("f", "1", "seven"));
            assertThat(stack.openStreams()).as("a point watch of an index owns no dataflow").isEqualTo(1);
            point.cancelCopy();
            await().atMost(Duration.ofSeconds(30)).until(() -> stack.openStreams() == 0);
            pointWatcher.close();

            // A prepared SUBSCRIBE cannot stream through Execute: a clear refusal, not a hang.
            assertThatThrownBy(() -> writer.prepareStatement("SUBSCRIBE pets").executeQuery())
                    .isInstanceOfSatisfying(SQLException.class, e -> {
                        assertThat(e.getSQLState()).isEqualTo("0A000");
                        assertThat(e.getMessage()).contains("COPY (SUBSCRIBE ...) TO STDOUT").contains("/v1/views/{name}/changes");
                    });
            // Errors a PostgreSQL user recognises.
            try (Statement s = writer.createStatement()) {
                assertThatThrownBy(() -> s.execute("SUBSCRIBE nope"))
                        .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("42P01"));
                assertThatThrownBy(() -> s.execute("SUBSCRIBE pets WITH (FAST = true)"))
                        .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("0A000"));
                assertThatThrownBy(() -> s.execute("SUBSCRIBE (SELECT id FROM pets ORDER BY id)"))
                        .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getMessage()).contains("has no order"));
                assertThatThrownBy(() -> s.execute("COPY pets TO STDOUT"))
                        .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("0A000"));
            }
            assertThat(stack.openStreams()).isZero();
        }
    }

    @Test
    void psqlPrintsABoundedSubscribe() throws Exception {
        String psql = PgWireTesting.psql();
        if (psql == null) {
            System.err.println("!!! PgWireSubscribeTest.psqlPrintsABoundedSubscribe SKIPPED: no psql on the PATH (apt-get install postgresql-client)");
        }
        Assumptions.assumeTrue(psql != null, "psql is not installed");
        try (SqlTesting.Stack stack = SqlTesting.stack(dir);
                PgWireServer server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0)) {
            SqlSession session = new SqlSession();
            stack.engine().execute("CREATE TABLE t (k bigint NOT NULL, v text)", List.of(), session).block(Duration.ofSeconds(30));
            SqlResult a = stack.engine().execute("INSERT INTO t VALUES (1, 'one'), (2, 'two')", List.of(), session).block(Duration.ofSeconds(30));
            SqlResult b = stack.engine().execute("DELETE FROM t WHERE k = 1", List.of(), session).block(Duration.ofSeconds(30));
            SqlResult c = stack.engine().execute("INSERT INTO t VALUES (3, 'three')", List.of(), session).block(Duration.ofSeconds(30));
            long ta = a.timestamp();
            long tb = b.timestamp();
            long tc = c.timestamp();
            Path script = dir.resolve("subscribe.sql");
            Files.writeString(script, "COPY (SUBSCRIBE t AS OF " + ta + " UP TO " + (tb + 1) + ") TO STDOUT;\n"
                    + "SUBSCRIBE TO t WITH (SNAPSHOT = false) AS OF " + tb + " UP TO " + (tc + 1) + ";\n");
            Process p = new ProcessBuilder(psql, "-h", "127.0.0.1", "-p", Integer.toString(server.port()), "-U", "someone", "-d", "tandem",
                    "-X", "-A", "-q", "-f", script.toString())
                    .redirectErrorStream(true)
                    .start();
            p.getOutputStream().close();
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("psql finished").isTrue();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            List<String> lines = out.lines().toList();
            assertThat(lines).as(out).containsExactly(
                    ta + "\t1\t1\tone", ta + "\t1\t2\ttwo", tb + "\t-1\t1\tone",
                    tc + "\t1\t3\tthree");
            assertThat(p.exitValue()).isZero();
            await().atMost(Duration.ofSeconds(30)).until(() -> stack.openStreams() == 0);
        }
    }
}
