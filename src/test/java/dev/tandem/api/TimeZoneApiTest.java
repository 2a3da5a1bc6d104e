package dev.tandem.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code POST /v1/sql} with a {@code timeZone}: the statement's session computes and prints in that zone (a timestamptz's text,
 * its date, a literal without an offset), while a timestamptz value in JSON stays an ISO-8601 instant in UTC; without one the
 * session is UTC's, and an unknown zone is refused as PostgreSQL refuses it ({@code 22023}, answered 422).
 */
class TimeZoneApiTest {

    @TempDir
    Path dir;

    private static final String QUERY = "SELECT '2024-07-01 12:00:00+00'::timestamptz::text AS t, ('2024-07-01 23:30:00+00'::timestamptz)::date AS d,"
            + " '2024-07-01 12:00'::timestamptz AS ts";

    @Test
    void aStatementRunsInItsTimeZone() {
        try (TandemServer s = new TandemServer(dir, Map.of())) {
            TandemServer.Response kolkata = s.post("/v1/sql", "{\"sql\":\"" + QUERY + "\",\"timeZone\":\"Asia/Kolkata\"}");
            assertThat(kolkata.status()).as(kolkata.text()).isEqualTo(200);
            assertThat(kolkata.text()).contains("2024-07-01 17:30:00+05:30", "2024-07-02", "2024-07-01T06:30:00Z");
            TandemServer.Response utc = s.post("/v1/sql", "{\"sql\":\"" + QUERY + "\"}");
            assertThat(utc.status()).as(utc.text()).isEqualTo(200);
            assertThat(utc.text()).contains("2024-07-01 12:00:00+00", "2024-07-01T12:00:00Z").doesNotContain("2024-07-02");
            TandemServer.Response unknown = s.post("/v1/sql", "{\"sql\":\"SELECT 1\",\"timeZone\":\"Nowhere/Land\"}");
            assertThat(unknown.status()).as(unknown.text()).isEqualTo(422);
            assertThat(unknown.text()).contains("22023");
        }
    }
}
