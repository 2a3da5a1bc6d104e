package dev.tandem.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Runs the sqllogictest files whose every record PostgreSQL answers as Tandem does against a real
 * PostgreSQL ({@code POSTGRES_ORACLE_ADDRESS}, as for the differential test), each in a schema of its
 * own: the expected answers and SQLSTATEs of those files are PostgreSQL's.
 */
class PostgresSltTest {

    @ParameterizedTest
    @ValueSource(strings = {"11_keys.slt", "12_transactions.slt", "13_defaults.slt", "14_returning.slt", "15_create_table_as.slt", "18_window.slt", "21_jsonb.slt", "23_bytea.slt"})
    void postgresAnswersAsTheFileSays(String file) throws IOException, SQLException {
        String address = System.getenv("POSTGRES_ORACLE_ADDRESS");
        if (address == null || address.isBlank()) {
            org.junit.jupiter.api.Assertions.assertFalse("true".equalsIgnoreCase(System.getenv("CI")),
                    "POSTGRES_ORACLE_ADDRESS is not set on CI: .ci/run starts a PostgreSQL");
            System.err.println("!!! PostgresSltTest SKIPPED: POSTGRES_ORACLE_ADDRESS is not set (bin/dev test and .ci/run start a PostgreSQL)");
        }
        Assumptions.assumeTrue(address != null && !address.isBlank(), "POSTGRES_ORACLE_ADDRESS is not set");
        String schema = "slt_" + Long.toHexString(System.nanoTime());
        try (Connection pg = DriverManager.getConnection("jdbc:postgresql://" + address + "/postgres?user=postgres&sslmode=disable")) {
            try (Statement s = pg.createStatement()) {
                s.execute("CREATE SCHEMA " + schema);
                s.execute("SET search_path TO " + schema);
            }
            int[] count = {0};
            List<String> failures = SltRunner.run(file, SltRunner.parse(Files.readString(Path.of("src/test/resources/sql", file))),
                    (sql, line) -> run(pg, sql), count);
            try (Statement s = pg.createStatement()) {
                s.execute("DROP SCHEMA " + schema + " CASCADE");
            }
            assertThat(failures).as("%d of %d records answered otherwise by PostgreSQL", failures.size(), count[0]).isEmpty();
            assertThat(count[0]).isPositive();
        }
    }

    /** One statement against PostgreSQL: its rows as text, or its error as a {@link SqlException} with PostgreSQL's SQLSTATE. */
    private static List<Object[]> run(Connection pg, String sql) {
        try (Statement s = pg.createStatement()) {
            List<Object[]> rows = new ArrayList<>();
            if (s.execute(sql)) {
                try (ResultSet r = s.getResultSet()) {
                    int n = r.getMetaData().getColumnCount();
                    while (r.next()) {
                        Object[] row = new Object[n];
                        for (int i = 0; i < n; i++) {
                            row[i] = r.getString(i + 1);
                        }
                        rows.add(row);
                    }
                }
            }
            return rows;
        } catch (SQLException e) {
            throw new SqlException(SqlState.of(e.getSQLState()), e.getMessage());
        }
    }
}
