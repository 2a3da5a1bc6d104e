package dev.tandem.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.http.HttpHeaders;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.socket.client.ReactorNettyWebSocketClient;
import reactor.netty.http.client.HttpClient;

/**
 * TLS with {@code server.ssl.*}: a certificate generated here with the running JDK's {@code keytool};
 * HTTPS and {@code wss://} answer a client that trusts it, with bearer tokens, and plain HTTP does not.
 */
class TlsTest {

    static final String PASSWORD = "changeit";

    @TempDir
    Path dir;

    @Test
    void httpsAndWssServeAClientThatTrustsTheCertificate() throws Exception {
        Path keystore = dir.resolve("tandem.p12");
        Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "tandem", "-keyalg", "RSA", "-keysize", "2048", "-validity", "2",
                "-dname", "CN=localhost", "-ext", "SAN=ip:127.0.0.1,dns:localhost", "-storetype", "PKCS12",
                "-keystore", keystore.toString(), "-storepass", PASSWORD, "-keypass", PASSWORD).redirectErrorStream(true).start();
        assertThat(keytool.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(keytool.exitValue()).as(new String(keytool.getInputStream().readAllBytes())).isZero();
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keystore)) {
            ks.load(in, PASSWORD.toCharArray());
        }
        SslContext trusting = SslContextBuilder.forClient().trustManager((X509Certificate) ks.getCertificate("tandem")).build();
        HttpClient tls = HttpClient.create().secure(spec -> spec.sslContext(trusting));

        try (SecuredServer s = new SecuredServer(dir.resolve("server"), Map.of(
                "server.ssl.enabled", true,
                "server.ssl.key-store", keystore.toString(),
                "server.ssl.key-store-password", PASSWORD,
                "server.ssl.key-store-type", "PKCS12",
                "server.ssl.key-alias", "tandem"))) {
            int port = s.server.port;
            WebClient https = WebClient.builder().baseUrl("https://127.0.0.1:" + port).clientConnector(new ReactorClientHttpConnector(tls)).build();
            var withToken = https.get().uri("/v1/tables").header(HttpHeaders.AUTHORIZATION, "Bearer " + s.secrets.get("reader"))
                    .exchangeToMono(r -> r.toBodilessEntity()).block(Duration.ofSeconds(30));
            assertThat(withToken.getStatusCode().value()).isEqualTo(200);
            var without = https.get().uri("/v1/tables").exchangeToMono(r -> r.toBodilessEntity()).block(Duration.ofSeconds(30));
            assertThat(without.getStatusCode().value()).isEqualTo(401);
            // The protective headers on answers and refusals alike, HSTS because this is TLS.
            for (var answer : java.util.List.of(withToken, without)) {
                assertThat(answer.getHeaders().getFirst("Strict-Transport-Security")).isEqualTo("max-age=31536000 ; includeSubDomains");
                assertThat(answer.getHeaders().getFirst("X-Content-Type-Options")).isEqualTo("nosniff");
                assertThat(answer.getHeaders().getFirst("X-Frame-Options")).isEqualTo("DENY");
                assertThat(answer.getHeaders().getFirst(HttpHeaders.CACHE_CONTROL)).isEqualTo("no-cache, no-store, max-age=0, must-revalidate");
                assertThat(answer.getHeaders().getFirst("Referrer-Policy")).isEqualTo("no-referrer");
            }

            // A client that does not trust the certificate is refused at the handshake; plain HTTP gets no answer.
            assertThatThrownBy(() -> WebClient.create("https://127.0.0.1:" + port).get().uri("/v1/tables").retrieve().toBodilessEntity()
                    .block(Duration.ofSeconds(30))).hasStackTraceContaining("certificate");
            assertThatThrownBy(() -> WebClient.create("http://127.0.0.1:" + port).get().uri("/v1/tables").retrieve().toBodilessEntity()
                    .block(Duration.ofSeconds(30))).isNotNull();

            try (SocketClient wss = new SocketClient(URI.create("wss://127.0.0.1:" + port + "/v1/ws"), s.bearer("reader"),
                    new ReactorNettyWebSocketClient(tls))) {
                wss.send("{\"op\":\"subscribe\",\"id\":7,\"index\":\"orders_by_id\"}");
                assertThat(wss.await(n -> n.path("id").asInt() == 7).path("op").asString()).isEqualTo("subscribed");
            }
        }
    }
}
