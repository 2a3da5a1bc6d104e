package dev.tandem.api;

import dev.tandem.security.TokenHash;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.http.HttpHeaders;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.netty.http.client.HttpClient;

/**
 * A real Tandem server configured with one API token per role (and one limited to an allow-list), and
 * clients holding each; the server's own clients ({@link TandemServer#client}) hold the admin token.
 */
final class SecuredServer implements AutoCloseable {

    /** Token name → roles (comma-separated); {@code scoped} is a reader granted only {@code orders} and {@code orders_by_id}. */
    static final Map<String, String> TOKENS = Map.of("reader", "reader", "writer", "writer", "admin", "admin", "replica", "replica",
            "scoped", "reader");

    static final SecureRandom RANDOM = new SecureRandom();

    final Map<String, String> secrets = new LinkedHashMap<>();
    final TandemServer server;

    SecuredServer(Path dir, Map<String, Object> extra) {
        Map<String, Object> props = new LinkedHashMap<>();
        int i = 0;
        for (String name : List.of("reader", "writer", "admin", "replica", "scoped")) {
            String secret = TokenHash.newSecret(RANDOM);
            secrets.put(name, secret);
            props.put("tandem.security.tokens[" + i + "].name", name);
            props.put("tandem.security.tokens[" + i + "].hash", TokenHash.hash(secret, RANDOM));
            props.put("tandem.security.tokens[" + i + "].roles", TOKENS.get(name));
            if (name.equals("scoped")) {
                props.put("tandem.security.tokens[" + i + "].objects", "orders,orders_by_id");
            }
            i++;
        }
        props.putAll(extra);
        server = new TandemServer(dir, props, secrets.get("admin"));
        anonymous = WebClient.builder().baseUrl("http://127.0.0.1:" + server.port)
                .clientConnector(new ReactorClientHttpConnector(HttpClient.create().keepAlive(false))).build();
    }

    /** A client without credentials, one connection per request. */
    private final WebClient anonymous;

    /** A client sending {@code token}'s secret as a bearer token, one connection per request; {@code null}: no credentials. */
    WebClient as(String token) {
        return token == null ? anonymous : anonymous.mutate().defaultHeader(HttpHeaders.AUTHORIZATION, "Bearer " + secrets.get(token)).build();
    }

    HttpHeaders bearer(String token) {
        HttpHeaders h = new HttpHeaders();
        if (token != null) {
            h.setBearerAuth(secrets.get(token));
        }
        return h;
    }

    @Override
    public void close() {
        server.close();
    }
}
