package dev.tandem.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tandem.source.postgres.PgSourceManager;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGKILL of a Tandem child process mid-stream, then a restart over the same data directory: the
 * PostgreSQL source resumes from its durable position, losing and repeating nothing.
 */
class PostgresSourceCrashTest extends PostgresSourceTesting {

    /** A Tandem server in a child JVM over {@code data}, with its wire-protocol port once it listens. */
    private record Child(Process process, int pgPort) {
    }

    private Child startChild(Path data, Path log) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m",
                "-cp", System.getProperty("java.class.path"), "dev.tandem.TandemApplication",
                "--server.address=127.0.0.1", "--server.port=0", "--tandem.pgwire.port=0",
                "--tandem.storage.data-dir=" + data, "--tandem.storage.fsync=true",
                "--tandem.compute.interactive-runtime.enabled=false", "--spring.main.banner-mode=off",
                "--tandem.secrets.up=unused"));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        java.util.regex.Pattern listening = java.util.regex.Pattern.compile("PostgreSQL wire protocol listening on \\S+:(\\d+)");
        AtomicReference<Integer> port = new AtomicReference<>();
        try {
            waitFor("the child server", () -> {
                try {
                    java.util.regex.Matcher m = listening.matcher(java.nio.file.Files.readString(log));
                    if (m.find()) {
                        port.set(Integer.parseInt(m.group(1)));
                    }
                } catch (java.io.IOException e) {
                    throw new AssertionError(e);
                }
                if (!p.isAlive()) {
                    throw new AssertionError("the child server exited");
                }
                return port.get() != null;
            });
        } catch (AssertionError e) {
            p.destroyForcibly();
            throw new AssertionError(e.getMessage() + "\n" + java.nio.file.Files.readString(log), e);
        }
        return new Child(p, port.get());
    }

    private static Map<String, Integer> childRows(Child child, String table) {
        Map<String, Integer> out = new TreeMap<>();
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + child.pgPort() + "/tandem?user=me&sslmode=disable");
                Statement s = c.createStatement(); ResultSet r = s.executeQuery("SELECT * FROM " + table)) {
            int n = r.getMetaData().getColumnCount();
            while (r.next()) {
                Object[] row = new Object[n];
                for (int i = 0; i < n; i++) {
                    Object v = r.getObject(i + 1);
                    row[i] = v instanceof Integer x ? Long.valueOf(x) : v;
                }
                out.merge(line(row), 1, Integer::sum);
            }
        } catch (SQLException e) {
            return Map.of("error: " + e.getMessage(), 1);
        }
        return out;
    }

    /**
     * SIGKILL of a Tandem child process mid-stream while the upstream keeps committing, then a restart
     * over the same data directory: the tables equal PostgreSQL's, with no row twice (c is a multiset).
     */
    @Test
    @org.junit.jupiter.api.Timeout(value = 400, unit = TimeUnit.SECONDS) // two child JVMs start on a shared 2-core machine
    void sigkillMidStreamThenRestartLosesAndRepeatsNothing() throws Exception {
        createModelTables();
        Path data = dir.resolve("child-data");
        Child child = startChild(data, dir.resolve("child1.log"));
        AtomicBoolean writing = new AtomicBoolean(true);
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread writer = null;
        try {
            try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + child.pgPort() + "/tandem?user=me&sslmode=disable");
                    Statement s = c.createStatement()) {
                s.execute("CREATE SOURCE m FROM POSTGRES CONNECTION '" + conninfo() + "' PASSWORD SECRET 'up' PUBLICATION 'pub'");
            }
            Child first = child;
            waitFor("the copy", () -> childRows(first, "c").values().stream().mapToInt(Integer::intValue).sum() == 30);
            writer = upstreamWriter(5, writing, failed);
            writer.start();
            Thread.sleep(1500);
            child.process().destroyForcibly(); // SIGKILL
            assertThat(child.process().waitFor(30, TimeUnit.SECONDS)).isTrue();
            Thread.sleep(500);
            child = startChild(data, dir.resolve("child2.log"));
            Thread.sleep(1000);
        } finally {
            writing.set(false);
            if (writer != null) {
                writer.join(30_000);
            }
        }
        try {
            assertThat(failed.get()).isNull();
            for (String t : List.of("a", "b", "c")) {
                Map<String, Integer> want = upstreamRows(t, "*");
                Child now = child;
                AtomicReference<Map<String, Integer>> got = new AtomicReference<>();
                try {
                    waitFor(t + " to catch up", () -> {
                        got.set(childRows(now, t));
                        return got.get().equals(want);
                    });
                } catch (AssertionError e) {
                    assertThat(got.get()).as("table " + t + "; the child's sources: " + childRows(now, "tandem_internal.pg_sources")).isEqualTo(want);
                }
            }
            try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + child.pgPort() + "/tandem?user=me&sslmode=disable");
                    Statement s = c.createStatement()) {
                // the source's status, as the catalog shows it
                try (ResultSet r = s.executeQuery("SELECT name, publication, slot, tables, state, lag_seconds FROM tandem_internal.pg_sources")) {
                    assertThat(r.next()).as("a row for the source").isTrue();
                    assertThat(List.of(r.getString(1), r.getString(2), r.getString(4), r.getString(5))).containsExactly("m", "pub", "public.a AS a, public.b AS b, public.c AS c", "streaming");
                    assertThat(r.getString(3)).isNotBlank();
                    assertThat(r.getDouble(6)).isGreaterThanOrEqualTo(0);
                    assertThat(r.next()).isFalse();
                }
                s.execute("DROP SOURCE m");
                Child last = child;
                waitFor("the dropped source to leave tandem_internal.pg_sources", () -> childRows(last, "tandem_internal.pg_sources").isEmpty());
            }
            assertThat(slots()).isZero();
        } finally {
            child.process().destroyForcibly();
            child.process().waitFor(30, TimeUnit.SECONDS);
        }
    }
}
