package dev.tandem.pgwire;

import dev.tandem.sql.SqlTesting;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A system the corpus runs against, which gives each file a fresh database of its own. */
sealed interface SltTarget extends AutoCloseable {

    /** {@code tandem} or {@code postgres}: what a state directory records, so that runs of two systems never mix. */
    String name();

    /** A fresh, empty database for one file. */
    Database open() throws IOException, SQLException;

    @Override
    void close() throws SQLException;

    /** One file's database: where its records run, dropped when closed. */
    interface Database {
        String url();

        /** Drops the database; a failure found on the way (the server's runtime failed) as a sentence, or null. */
        String close() throws IOException;
    }

    /** An in-process Tandem per file (its own stack in a new directory under {@code scratch}), reached over the wire protocol. */
    record Tandem(Path scratch) implements SltTarget {

        @Override
        public String name() {
            return "tandem";
        }

        @Override
        public Database open() throws IOException {
            Path dir = Files.createTempDirectory(scratch, "slt");
            SqlTesting.Stack stack = SqlTesting.stack(dir);
            PgWireServer server;
            try {
                server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0);
            } catch (RuntimeException e) {
                stack.close();
                deleteTree(dir);
                throw e;
            }
            String url = "jdbc:postgresql://127.0.0.1:" + server.port() + "/tandem?user=slt&sslmode=disable";
            return new Database() {
                @Override
                public String url() {
                    return url;
                }

                @Override
                public String close() throws IOException {
                    String failure = null;
                    try {
                        server.close();
                        stack.close();
                    } catch (RuntimeException | AssertionError e) {
                        failure = "the server's runtime failed: " + e + (e.getCause() == null ? "" : ", caused by " + e.getCause());
                    }
                    deleteTree(dir);
                    return failure;
                }
            };
        }

        @Override
        public void close() {
        }

        static void deleteTree(Path dir) throws IOException {
            try (var walk = Files.walk(dir)) {
                for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    /**
     * A PostgreSQL reached at {@code url} (a JDBC URL naming a database the user may create databases from): each
     * file gets a database {@code slt_PID_N} created from {@code template0} and dropped (with its sessions) after. The
     * databases a killed run left behind (those whose PID is no live process of this machine) are dropped on opening.
     */
    final class Postgres implements SltTarget {

        private static final Pattern URL = Pattern.compile("^(jdbc:postgresql://[^/?]+/)([^?]*)(\\?.*)?$");
        private static final AtomicInteger NEXT = new AtomicInteger();

        private final String prefix;
        private final String parameters;
        private final Connection admin;

        Postgres(String url) throws SQLException {
            Matcher m = URL.matcher(url);
            if (!m.matches()) {
                throw new IllegalArgumentException("not a jdbc:postgresql://HOST:PORT/DATABASE?... URL: " + url);
            }
            this.prefix = m.group(1);
            this.parameters = m.group(3) == null ? "" : m.group(3);
            this.admin = DriverManager.getConnection(url);
            List<String> orphans = new ArrayList<>();
            try (Statement s = admin.createStatement();
                    ResultSet rs = s.executeQuery("SELECT datname FROM pg_database WHERE datname ~ '^slt_[0-9]+_[0-9]+$'")) {
                while (rs.next()) {
                    String name = rs.getString(1);
                    if (ProcessHandle.of(Long.parseLong(name.split("_")[1])).isEmpty()) {
                        orphans.add(name);
                    }
                }
            }
            for (String name : orphans) {
                execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
            }
        }

        @Override
        public String name() {
            return "postgres";
        }

        @Override
        public Database open() throws SQLException {
            String name = "slt_" + ProcessHandle.current().pid() + "_" + NEXT.incrementAndGet();
            execute("CREATE DATABASE " + name + " TEMPLATE template0 ENCODING 'UTF8'");
            String url = prefix + name + parameters;
            return new Database() {
                @Override
                public String url() {
                    return url;
                }

                @Override
                public String close() {
                    try {
                        execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
                        return null;
                    } catch (SQLException e) {
                        return "PostgreSQL did not drop " + name + ": " + e.getSQLState() + " " + e.getMessage();
                    }
                }
            };
        }

        private synchronized void execute(String sql) throws SQLException {
            try (Statement s = admin.createStatement()) {
                s.execute(sql);
            }
        }

        @Override
        public void close() throws SQLException {
            admin.close();
        }
    }
}
