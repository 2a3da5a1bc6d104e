package dev.tandem.pgwire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tandem.TandemApplication;
import dev.tandem.config.SecurityProperties;
import dev.tandem.config.SqlConfiguration;
import dev.tandem.security.ScramVerifier;
import dev.tandem.security.TokenHash;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.HttpHeaders;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * SCRAM verifiers as configured: {@code tandem.security.tokens[N].scram} in a mounted properties file
 * logs in over the wire protocol, is re-keyed by {@code /actuator/refresh} like the hashes (the old
 * secret refused, the new one accepted, without a restart), and a malformed verifier is refused where
 * the settings are bound (at the start, or at a refresh, which then keeps the old tokens), naming the token.
 */
class PgWireScramConfigTest {

    static final SecureRandom RANDOM = new SecureRandom();

    @TempDir
    Path dir;

    @Test
    void aVerifierInTheConfigurationLogsInAndIsRotatedByRefresh() throws Exception {
        String admin = TokenHash.newSecret(RANDOM);
        String oldSecret = TokenHash.newSecret(RANDOM);
        String newSecret = TokenHash.newSecret(RANDOM);
        Path tokens = dir.resolve("tokens.properties");
        Files.writeString(tokens, token(0, "admin", admin, "admin") + token(1, "dash", oldSecret, "reader"));
        try (ConfigurableApplicationContext tandem = start("--spring.config.additional-location=optional:file:" + tokens)) {
            int pg = tandem.getBean(SqlConfiguration.PgWireHolder.class).port();
            assertThat(query(pg, "dash", oldSecret)).isEqualTo(2);

            Files.writeString(tokens, token(0, "admin", admin, "admin") + token(1, "dash", newSecret, "reader"));
            WebClient http = WebClient.create("http://127.0.0.1:" + ((WebServerApplicationContext) tandem).getWebServer().getPort());
            int refreshed = http.post().uri("/actuator/refresh").header(HttpHeaders.AUTHORIZATION, "Bearer " + admin)
                    .exchangeToMono(r -> r.releaseBody().thenReturn(r.statusCode().value())).block(Duration.ofSeconds(30));
            assertThat(refreshed).isEqualTo(200);
            assertThatThrownBy(() -> query(pg, "dash", oldSecret)).isInstanceOfSatisfying(SQLException.class,
                    e -> assertThat(e.getSQLState()).isEqualTo("28P01"));
            assertThat(query(pg, "dash", newSecret)).isEqualTo(2);
        }
    }

    @Test
    void aMalformedVerifierIsRefusedAsTheSettingsAreBoundNamingTheToken() {
        String hash = TokenHash.hash(TokenHash.newSecret(RANDOM), RANDOM);
        Map<String, String> props = Map.of("tandem.security.tokens[0].name", "ada", "tandem.security.tokens[0].hash", hash,
                "tandem.security.tokens[0].roles", "reader", "tandem.security.tokens[0].scram", "SCRAM-SHA-256$4096:c2FsdA==$AAAA:AAAA");
        // The same binding and validation the start (ApiSecurity's token directory) and every refresh run, without starting a server.
        SecurityProperties bound = new Binder(new MapConfigurationPropertySource(props)).bindOrCreate("tandem.security", SecurityProperties.class);
        assertThatThrownBy(bound::apiTokens).hasMessageContaining("tandem.security.tokens[0].scram (token 'ada')")
                .hasMessageContaining("StoredKey and ServerKey are 32 bytes");
    }

    private static String token(int i, String name, String secret, String roles) {
        String p = "tandem.security.tokens[" + i + "].";
        return p + "name=" + name + "\n" + p + "hash=" + TokenHash.hash(secret, RANDOM) + "\n" + p + "scram="
                + ScramVerifier.create(secret, RANDOM).encode() + "\n" + p + "roles=" + roles + "\n";
    }

    private static int query(int port, String user, String password) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/tandem?sslmode=disable&connectTimeout=10",
                user, password); Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT 1 + 1")) {
            assertThat(rs.next()).isTrue();
            return rs.getInt(1);
        }
    }

    private ConfigurableApplicationContext start(String... extra) {
        String[] args = new String[extra.length + 6];
        args[0] = "--server.port=0";
        args[1] = "--tandem.storage.data-dir=" + dir.resolve("data");
        args[2] = "--tandem.storage.fsync=false";
        args[3] = "--tandem.compute.maintenance-workers=1";
        args[4] = "--tandem.compute.interactive-workers=1";
        args[5] = "--tandem.pgwire.port=0";
        System.arraycopy(extra, 0, args, 6, extra.length);
        return new SpringApplicationBuilder(TandemApplication.class).run(args);
    }
}
