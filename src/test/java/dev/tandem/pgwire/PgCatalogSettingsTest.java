package dev.tandem.pgwire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.sql.SqlTesting;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.PGConnection;
import org.postgresql.util.PSQLException;

/**
 * The settings and size functions clients call, over the wire protocol, answered as PostgreSQL 15
 * answers them (compared with the one {@code POSTGRES_ORACLE_ADDRESS} names): {@code SHOW}'s column
 * names and the values that do not depend on a server's configuration, {@code SET} and {@code SHOW} of
 * unknown and preset parameters, {@code current_setting()}, {@code pg_size_pretty}.
 */
class PgCatalogSettingsTest {

    @TempDir
    Path dir;

    /** Parameters whose value is the same on any PostgreSQL 15 (the others depend on its initdb and configuration). */
    private static final List<String> FIXED = List.of("standard_conforming_strings", "integer_datetimes", "max_identifier_length",
            "max_index_keys", "block_size", "bytea_output", "intervalstyle", "default_transaction_read_only", "client_encoding");

    /** Parameters whose name SHOW gives its column, value aside. */
    private static final List<String> NAMED = List.of("server_version", "server_version_num", "datestyle", "timezone", "search_path",
            "transaction_isolation", "lc_collate", "server_encoding");

    private static final long[] SIZES = {0, 1, 10239, 10240, 10751, 10752, -10240, -10752, 1048575, 10485759, 10485760, 1073741824L,
        21474836479L, 1099511627776L, 22517998136852479L, 1125899906842624L, 9223372036854775807L, -9223372036854775807L};

    @Test
    void settingsAndSizesAreAnsweredAsPostgresAnswersThem() throws Exception {
        String address = System.getenv("POSTGRES_ORACLE_ADDRESS");
        if (address == null || address.isBlank()) {
            org.junit.jupiter.api.Assertions.assertFalse("true".equalsIgnoreCase(System.getenv("CI")), "no PostgreSQL oracle on CI");
            System.err.println("!!! PgCatalogSettingsTest SKIPPED: POSTGRES_ORACLE_ADDRESS is not set (source bin/test-postgres.sh; test_postgres_start)");
        }
        Assumptions.assumeTrue(address != null && !address.isBlank(), "no PostgreSQL oracle");
        List<String> postgres;
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://" + address + "/postgres", "postgres", "")) {
            postgres = answers(c);
        }
        List<String> tandem;
        try (SqlTesting.Stack stack = SqlTesting.stack(dir);
                PgWireServer server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0);
                Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/tandem", "tandem", "")) {
            tandem = answers(c);
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getInt(1)).as("the pid the server gave at start-up").isEqualTo(c.unwrap(PGConnection.class).getBackendPID());
            }
            try (Statement s = c.createStatement()) {
                s.execute("SET DateStyle = 'ISO, MDY'");
                s.execute("SET standard_conforming_strings = true");
                assertThat(error(s, "SET DateStyle = 'German'")).startsWith("0A000");
                assertThat(value(s, "SHOW DateStyle")).isEqualTo("ISO, MDY");
                assertThat(value(s, "SHOW server_version_num")).isEqualTo("150000");
                assertThat(value(s, "SELECT current_setting('TimeZone')")).as("the zone pgjdbc started the session in")
                        .isEqualTo(c.unwrap(PGConnection.class).getParameterStatus("TimeZone"));
            }
        }
        assertThat(tandem).as("Tandem's answers, line by line against PostgreSQL 15's").isEqualTo(postgres);
    }

    /** What a server answers, one line per statement: a result's column and value, or an error's SQLSTATE and message. */
    private static List<String> answers(Connection c) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Statement s = c.createStatement()) {
            for (String p : FIXED) {
                out.add(show(s, p, true));
            }
            for (String p : NAMED) {
                out.add(show(s, p, false));
            }
            out.add(error(s, "SHOW no_such_parameter"));
            out.add(error(s, "SET no_such_parameter = 1"));
            out.add(error(s, "SET server_version = '9.6'"));
            out.add(error(s, "SELECT current_setting('no_such_parameter')"));
            out.add("missing_ok " + value(s, "SELECT current_setting('no_such_parameter', true)"));
            out.add("current_setting " + value(s, "SELECT current_setting('max_identifier_length')"));
            for (long size : SIZES) {
                out.add(size + " " + value(s, "SELECT pg_size_pretty(" + size + "::bigint)"));
            }
        }
        return out;
    }

    private static String show(Statement s, String parameter, boolean withValue) throws SQLException {
        try (ResultSet rs = s.executeQuery("SHOW " + parameter)) {
            assertThat(rs.next()).isTrue();
            return rs.getMetaData().getColumnLabel(1) + (withValue ? " = " + rs.getString(1) : "");
        }
    }

    private static String value(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            assertThat(rs.next()).isTrue();
            return rs.getString(1);
        }
    }

    private static String error(Statement s, String sql) {
        try {
            s.execute(sql);
            return "no error: " + sql;
        } catch (PSQLException e) {
            return e.getSQLState() + " " + (e.getServerErrorMessage() == null ? e.getMessage() : e.getServerErrorMessage().getMessage());
        } catch (SQLException e) {
            return e.getSQLState() + " " + e.getMessage();
        }
    }
}
