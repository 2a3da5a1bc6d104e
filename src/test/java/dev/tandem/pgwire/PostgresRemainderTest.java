package dev.tandem.pgwire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.sql.SqlTesting;
import java.nio.file.Path;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The remainder, {@code a % b} and {@code mod(a, b)}, typed as PostgreSQL 15 types it (the wider of two integer types,
 * whichever side it is on) with its values and errors, over the text and binary formats: the result columns' types
 * (int8, int4, int2, numeric) and values compared with a real PostgreSQL. Skipped without
 * {@code POSTGRES_ORACLE_ADDRESS}, as {@link PostgresDifferentialTest} is.
 */
class PostgresRemainderTest {

    private static final List<String> SETUP = List.of(
            "CREATE TABLE rm (k bigint, b bigint, i integer, s smallint, n numeric)",
            "INSERT INTO rm VALUES (1, 7, 7, 7, 7.5), (2, -7, -7, -7, -7.25), (3, 9000000000, 2147483647, 32767, 10),"
                    + " (4, NULL, NULL, NULL, NULL), (5, 5, 3, 2, 0.5)");

    static final List<String> QUERIES = List.of(
            "SELECT k, b % 3, b % i, i % b, mod(b, 3), mod(3, b), mod(b, s) FROM rm WHERE k <> 4 OR b IS NULL",
            "SELECT k, i % 3, i % s, s % i, mod(i, s), mod(s, i), s % s, mod(s, s) FROM rm",
            "SELECT k, i % 2::smallint, s % 2::smallint, mod(s, 2::smallint), s % 3, 10 % s, 10::smallint % s FROM rm",
            "SELECT k, n % 2, n % i, mod(n, 3), b % 2.5 FROM rm",
            "SELECT k, (b % i) * 1000000000, (i % s) + 2147483600 FROM rm",
            "SELECT 7 % 3, -7 % 3, 7 % -3, mod(7, 3), mod(-7, 3), 7::smallint % 3::smallint, 9000000000 % 7",
            "SELECT k, sum(i % s), max(i % s), min(b % i) FROM rm GROUP BY k ORDER BY k",
            "SELECT b % 0 FROM rm",
            "SELECT mod(i, 0::smallint) FROM rm");

    @TempDir
    Path dir;

    @Test
    void remaindersAreTypedAsPostgresTypesThem() throws SQLException {
        String address = System.getenv("POSTGRES_ORACLE_ADDRESS");
        Assumptions.assumeTrue(address != null && !address.isBlank(), "POSTGRES_ORACLE_ADDRESS is not set");
        List<String> mismatches = new ArrayList<>();
        try (SqlTesting.Stack stack = SqlTesting.stack(dir);
                PgWireServer server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0);
                PgAnswers.Systems systems = PgAnswers.Systems.open(address, server.port(), "INT8,INT4,INT2,NUMERIC")) {
            try (Statement p = systems.pg().createStatement(); Statement t = systems.td().createStatement()) {
                p.execute("DROP TABLE IF EXISTS rm");
                for (String sql : SETUP) {
                    p.execute(sql);
                    t.execute(sql);
                }
            }
            systems.compareAll(QUERIES, mismatches);
        }
        assertThat(mismatches).as("%d differences from PostgreSQL:\n%s", mismatches.size(), String.join("\n", mismatches)).isEmpty();
    }
}
