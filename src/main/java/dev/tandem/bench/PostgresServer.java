package dev.tandem.bench;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongFunction;
import java.util.stream.Stream;

/**
 * A throw-away PostgreSQL for a benchmark: {@code initdb} into a fresh temporary directory, started with
 * {@code pg_ctl} on a free loopback port (its Unix socket in that directory), PostgreSQL's defaults but for
 * the settings given ({@code -c name=value}); run as the {@code postgres} user through {@code runuser} when
 * this process is root, as PostgreSQL refuses to run as root. {@link #close()} stops it and deletes the
 * directory; a shutdown hook stops any still running when this JVM exits.
 */
final class PostgresServer implements AutoCloseable {

    /** The database superuser {@code initdb} creates, with trust authentication on loopback. */
    static final String USER = "postgres";
    static final String DATABASE = "postgres";

    private static final double SECONDS_PER_TICK = 0.01;
    private static final Set<PostgresServer> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(PostgresServer::close), "tandem-bench-postgres"));
    }

    private final Path bin;
    private final Path dir;
    private final boolean asPostgresUser;
    private final int port;

    private PostgresServer(Path bin, Path dir, boolean asPostgresUser, int port) {
        this.bin = bin;
        this.dir = dir;
        this.asPostgresUser = asPostgresUser;
        this.port = port;
    }

    /**
     * The directory of PostgreSQL's server binaries: {@code override} when given, else the one holding the
     * {@code initdb} on the PATH, else the newest {@code /usr/lib/postgresql/<version>/bin} (Debian's
     * layout), as {@code bin/test-postgres.sh} finds them; empty when there is none.
     */
    static Optional<Path> binaries(Path override) {
        if (override != null) {
            return Optional.of(override).filter(PostgresServer::isServerBin);
        }
        for (String p : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!p.isEmpty() && isServerBin(Path.of(p))) {
                return Optional.of(Path.of(p));
            }
        }
        try (Stream<Path> versions = Files.list(Path.of("/usr/lib/postgresql"))) {
            return versions.map(v -> v.resolve("bin")).filter(PostgresServer::isServerBin)
                    .max(Comparator.comparingInt(PostgresServer::majorVersion));
        } catch (IOException | UncheckedIOException e) {
            return Optional.empty();
        }
    }

    private static boolean isServerBin(Path dir) {
        return Stream.of("initdb", "pg_ctl", "postgres", "psql").allMatch(b -> Files.isExecutable(dir.resolve(b)));
    }

    private static int majorVersion(Path bin) {
        try {
            return Integer.parseInt(bin.getParent().getFileName().toString());
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** {@code pgbench}: next to the server binaries in {@code bin} (null: none), else on the PATH; null when there is none. */
    static Path pgbench(Path bin) {
        if (bin != null && Files.isExecutable(bin.resolve("pgbench"))) {
            return bin.resolve("pgbench");
        }
        for (String p : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!p.isEmpty() && Files.isExecutable(Path.of(p, "pgbench"))) {
                return Path.of(p, "pgbench");
            }
        }
        return null;
    }

    /** The server binaries ({@link #binaries}), or an error that says how to get them. */
    static Path requireBinaries(Path override) {
        return binaries(override).orElseThrow(() -> new IllegalStateException("no PostgreSQL binaries (initdb, pg_ctl, postgres, psql) "
                + (override != null ? "in " + override : "on the PATH or under /usr/lib/postgresql/*/bin") + ": install PostgreSQL or give --pg-bin"));
    }

    /** {@link #pgbench}, or an error that says how to get it. */
    static Path requirePgbench(Path bin) {
        Path p = pgbench(bin);
        if (p == null) {
            throw new IllegalStateException("no pgbench next to PostgreSQL's binaries or on the PATH: install PostgreSQL's client programs");
        }
        return p;
    }

    /** Initializes and starts a server with {@code settings} ({@code name=value}), waiting until it accepts connections. */
    static PostgresServer start(Path bin, List<String> settings, Duration timeout) {
        Path dir;
        try {
            dir = Files.createTempDirectory("tandem-bench-postgres-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        boolean root = isRoot();
        PostgresServer server = null;
        try {
            if (root) {
                UserPrincipal postgres = dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(USER);
                Files.setOwner(dir, postgres);
            }
            List<String> initdb = List.of(bin.resolve("initdb").toString(), "-D", dir.resolve("data").toString(), "-U", USER,
                    "--auth=trust", "--locale=C", "-E", "UTF8");
            run(root, initdb, dir.resolve("initdb.log"), timeout);
            StringBuilder options = new StringBuilder();
            int port = freePort();
            options.append("-p ").append(port).append(" -c listen_addresses=127.0.0.1 -k ").append(dir);
            for (String s : settings) {
                if (s.contains(" ") || !s.contains("=")) {
                    throw new IllegalArgumentException("a PostgreSQL setting is name=value without spaces, got '" + s + "'");
                }
                options.append(" -c ").append(s);
            }
            server = new PostgresServer(bin, dir, root, port);
            LIVE.add(server);
            run(root, List.of(bin.resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString(), "-l", dir.resolve("server.log").toString(),
                    "-w", "-t", Long.toString(Math.max(1, timeout.toSeconds())), "-o", options.toString(), "start"), dir.resolve("pg_ctl.log"), timeout);
            return server;
        } catch (IOException e) {
            cleanUp(server, dir);
            throw new UncheckedIOException("cannot start PostgreSQL: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            String log = tail(dir.resolve("server.log"));
            cleanUp(server, dir);
            throw new IllegalStateException("cannot start PostgreSQL: " + e.getMessage() + "\n--- PostgreSQL log (tail) ---\n" + log, e);
        }
    }

    private static void cleanUp(PostgresServer server, Path dir) {
        if (server != null) {
            server.close();
        } else {
            ChildServer.deleteTree(dir);
        }
    }

    int port() {
        return port;
    }

    /** The JDBC URL of the {@value #DATABASE} database as {@value #USER}. */
    String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + DATABASE + "?user=" + USER + "&sslmode=disable";
    }

    /** What {@code postgres --version} prints, e.g. {@code postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)}. */
    String version() {
        Path out = dir.resolve("version.log");
        try {
            run(false, List.of(bin.resolve("postgres").toString(), "--version"), out, Duration.ofSeconds(30));
            return Files.readString(out).trim();
        } catch (IOException | RuntimeException e) {
            return "unknown (" + e.getMessage() + ")";
        }
    }

    /** Runs each statement on its own connection, in autocommit. */
    void execute(String... statements) {
        try (Connection c = DriverManager.getConnection(jdbcUrl()); Statement s = c.createStatement()) {
            for (String sql : statements) {
                s.execute(sql);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("PostgreSQL refused a statement: " + e.getMessage(), e);
        }
    }

    /**
     * Loads rows {@code 0..rows-1} into {@code table} with {@code COPY ... FROM STDIN} through {@code psql},
     * row {@code i} being the tab-separated line {@code line.apply(i)}.
     */
    void copy(String table, long rows, LongFunction<String> line, Duration timeout) {
        List<String> cmd = List.of(bin.resolve("psql").toString(), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", Integer.toString(port),
                "-U", USER, "-d", DATABASE, "-c", "COPY " + table + " FROM STDIN");
        Path log = dir.resolve("copy.log");
        try {
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
            pb.environment().put("PGSSLMODE", "disable");
            Process p = pb.start();
            try (BufferedWriter w = new BufferedWriter(new OutputStreamWriter(p.getOutputStream(), StandardCharsets.UTF_8), 1 << 16)) {
                for (long i = 0; i < rows; i++) {
                    w.write(line.apply(i));
                    w.write('\n');
                }
            }
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException("COPY into " + table + " did not finish within " + timeout);
            }
            if (p.exitValue() != 0) {
                throw new IllegalStateException("COPY into " + table + " failed: " + Files.readString(log).trim());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("COPY into " + table + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /**
     * The CPU seconds all of the server's processes have spent so far: the postmaster's and its live
     * children's user and system time, plus what its children that have ended spent (the postmaster's
     * {@code cutime} and {@code cstime}), so a window's difference counts the backends of connections that
     * closed within it; null where there is no procfs.
     */
    Double cpuSeconds() {
        try {
            long postmaster = Long.parseLong(Files.readAllLines(dir.resolve("data").resolve("postmaster.pid")).getFirst().trim());
            String[] own = statFields(Path.of("/proc", Long.toString(postmaster), "stat"));
            if (own == null) {
                return null;
            }
            long ticks = Long.parseLong(own[11]) + Long.parseLong(own[12]) + Long.parseLong(own[13]) + Long.parseLong(own[14]);
            try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), p -> p.getFileName().toString().matches("\\d+"))) {
                for (Path p : procs) {
                    String[] f = statFields(p.resolve("stat"));
                    if (f != null && Long.parseLong(f[1]) == postmaster) {
                        ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]);
                    }
                }
            }
            return ticks * SECONDS_PER_TICK;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** The fields of a {@code /proc/<pid>/stat} after the command name (state first), or null when it is gone. */
    private static String[] statFields(Path stat) {
        try {
            String s = Files.readString(stat);
            return s.substring(s.lastIndexOf(')') + 2).split(" ");
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** Stops the server ({@code pg_ctl stop -m fast}) and deletes its directory. */
    @Override
    public void close() {
        try {
            stop();
        } finally {
            LIVE.remove(this);
            ChildServer.deleteTree(dir);
        }
    }

    private void stop() {
        if (!Files.exists(dir.resolve("data").resolve("postmaster.pid"))) {
            return;
        }
        try {
            run(asPostgresUser, List.of(bin.resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString(), "-m", "fast", "-w", "-t", "60", "stop"),
                    dir.resolve("pg_ctl-stop.log"), Duration.ofSeconds(90));
        } catch (RuntimeException e) {
            BenchMain.log("PostgreSQL on port %d did not stop cleanly: %s", port, e.getMessage());
        }
    }

    /** Runs a command to its end (as the {@code postgres} user when {@code asPostgres}), its output in {@code log}; fails unless it exits with 0. */
    private static void run(boolean asPostgres, List<String> command, Path log, Duration timeout) {
        List<String> cmd = new ArrayList<>();
        if (asPostgres) {
            cmd.addAll(List.of("runuser", "-u", USER, "--"));
        }
        cmd.addAll(command);
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (!p.waitFor(timeout.toMillis() + 10_000, TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(String.join(" ", cmd) + " did not finish within " + timeout);
            }
            if (p.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", cmd) + " exited with " + p.exitValue() + ": " + tail(log));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + cmd, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static boolean isRoot() {
        try {
            return ((Number) Files.getAttribute(Path.of("/proc/self"), "unix:uid")).intValue() == 0;
        } catch (IOException | RuntimeException e) {
            return "root".equals(System.getProperty("user.name"));
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
        } catch (IOException | RuntimeException e) {
            return "(no log)";
        }
    }
}
