package dev.tandem.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.http.HttpStatus;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.netty.http.client.HttpClient;

/**
 * Failed bearer tokens over HTTP are slowed per client address: after a failure, that address's next
 * attempt is held before its token is even checked (here for an hour, so: not answered), while a right
 * token from another address is answered at once; each failure is counted in
 * {@code tandem_auth_failures_total}.
 */
class HttpLoginThrottleTest {

    @TempDir
    Path dir;

    private static WebClient from(String address, int port, String bearer) {
        HttpClient http = HttpClient.create().keepAlive(false).bindAddress(() -> new InetSocketAddress(address, 0));
        WebClient.Builder b = WebClient.builder().baseUrl("http://127.0.0.1:" + port).clientConnector(new ReactorClientHttpConnector(http));
        if (bearer != null) {
            b.defaultHeader("Authorization", "Bearer " + bearer);
        }
        return b.build();
    }

    private static HttpStatus status(WebClient c, String path, Duration within) {
        return HttpStatus.valueOf(c.get().uri(path).exchangeToMono(r -> r.releaseBody().thenReturn(r.statusCode().value())).block(within));
    }

    @Test
    void aFailedTokenHoldsItsAddressesNextAttemptButNotARightTokenFromAnotherAddress() {
        try (SecuredServer s = new SecuredServer(dir, Map.of("tandem.security.login-delay.base", "1h", "tandem.security.login-delay.max", "1h"))) {
            int port = s.server.port;
            WebClient wrong = from("127.0.0.1", port, "not-a-token-" + System.nanoTime());
            assertThat(status(wrong, "/v1/tables", Duration.ofSeconds(10))).isEqualTo(HttpStatus.UNAUTHORIZED);
            // held an hour before its token is checked: no answer within a second
            assertThatThrownBy(() -> status(wrong, "/v1/tables", Duration.ofSeconds(1))).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("Timeout");
            // the reader's right token from an address without failures: at once
            assertThat(status(from("127.0.0.2", port, s.secrets.get("reader")), "/v1/tables", Duration.ofSeconds(10))).isEqualTo(HttpStatus.OK);
            String metrics = from("127.0.0.2", port, s.secrets.get("admin")).get().uri("/actuator/prometheus").retrieve().bodyToMono(String.class)
                    .block(Duration.ofSeconds(10));
            assertThat(metrics).containsPattern("tandem_auth_failures_total\\{[^}]*reason=\"token\",surface=\"http\"} 1.0");
        }
    }
}
