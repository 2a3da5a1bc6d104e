package dev.tandem.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.PlainJWT;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;

/**
 * JWT bearer tokens: a key pair generated here, its JWKS (and an issuer's discovery document) served
 * by a local HTTP server; a valid token's roles claim decides what it may do, and an expired,
 * not-yet-valid, wrongly issued, wrongly addressed, badly signed or unsigned ({@code alg: none}) token
 * is refused with 401. Both configurations: a JWKS URI, and an issuer alone.
 */
class JwtAuthenticationTest {

    static final String ISSUER = "https://issuer.tandem.test";

    @TempDir
    Path dir;

    /**
     * {@code jwk-set-uri} with an expected issuer: the keys are fetched from the JWKS URI, the issuer is
     * checked in each token.
     */
    @Test
    void aValidJwtIsAuthorizedByItsRolesClaimAndEveryInvalidOneIsRefused() throws Exception {
        RSAKey key = new RSAKeyGenerator(2048).keyID("k1").generate();
        HttpServer jwks = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        serve(jwks, "/jwks", new JWKSet(key.toPublicJWK()).toString());
        jwks.start();
        try (TandemServer s = new TandemServer(dir, Map.of(
                "tandem.security.jwt.jwk-set-uri", "http://127.0.0.1:" + jwks.getAddress().getPort() + "/jwks",
                "tandem.security.jwt.issuer-uri", ISSUER,
                "tandem.security.jwt.audience", "tandem",
                "tandem.security.jwt.roles-claim", "tandem_roles"))) {
            authorizesByRolesAndRefusesEveryInvalidToken(s, key, ISSUER);
        } finally {
            jwks.stop(0);
        }
    }

    /**
     * {@code issuer-uri} alone: the keys are found through the issuer's discovery document
     * ({@code /.well-known/openid-configuration}), fetched when the first token arrives, not at start-up.
     */
    @Test
    void anIssuerAloneIsDiscoveredWhenTheFirstTokenArrives() throws Exception {
        RSAKey key = new RSAKeyGenerator(2048).keyID("k1").generate();
        HttpServer idp = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        String issuer = "http://127.0.0.1:" + idp.getAddress().getPort() + "/realms/tandem";
        AtomicInteger discovered = new AtomicInteger();
        serve(idp, "/realms/tandem/jwks", new JWKSet(key.toPublicJWK()).toString());
        idp.createContext("/realms/tandem/.well-known/openid-configuration", exchange -> {
            discovered.incrementAndGet();
            reply(exchange, discovery(issuer));
        });
        idp.start();
        try (TandemServer s = new TandemServer(dir, issuerOnly(issuer))) {
            assertThat(discovered.get()).as("nothing is fetched at start-up").isZero();
            authorizesByRolesAndRefusesEveryInvalidToken(s, key, issuer);
            assertThat(discovered.get()).isPositive();
        } finally {
            idp.stop(0);
        }
    }

    /**
     * An identity provider that cannot answer when a token arrives (its discovery document, here a 503) is
     * no fault of the token: the request is answered 503 with {@code Retry-After}, not a 500 nor a 401, and
     * once the provider answers again the same token is accepted (a failed discovery is not kept).
     */
    @Test
    void anIdentityProviderThatCannotAnswerIsA503AndTheSameTokenWorksOnceItAnswers() throws Exception {
        RSAKey key = new RSAKeyGenerator(2048).keyID("k1").generate();
        HttpServer idp = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        String issuer = "http://127.0.0.1:" + idp.getAddress().getPort() + "/realms/tandem";
        java.util.concurrent.atomic.AtomicBoolean up = new java.util.concurrent.atomic.AtomicBoolean();
        serve(idp, "/realms/tandem/jwks", new JWKSet(key.toPublicJWK()).toString());
        idp.createContext("/realms/tandem/.well-known/openid-configuration", exchange -> {
            if (!up.get()) {
                exchange.sendResponseHeaders(503, -1);
                exchange.close();
                return;
            }
            reply(exchange, discovery(issuer));
        });
        idp.start();
        try (TandemServer s = new TandemServer(dir, issuerOnly(issuer))) {
            String reader = sign(key, issuer, c -> c.claim("tandem_roles", List.of("reader")));
            TandemServer.Response down = s.oneShot.get().uri("/v1/tables").header(HttpHeaders.AUTHORIZATION, "Bearer " + reader)
                    .exchangeToMono(r -> r.bodyToMono(String.class).defaultIfEmpty("").map(b -> new TandemServer.Response(r.statusCode().value(),
                            r.headers().contentType().orElse(null), null, r.headers().asHttpHeaders().getFirst(HttpHeaders.RETRY_AFTER) + " " + b)))
                    .block(Duration.ofSeconds(30));
            assertThat(down.status()).as(down.text()).isEqualTo(503);
            assertThat(down.contentType().isCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)).isTrue();
            assertThat(down.text()).startsWith("1 ").contains("could not be verified", "retry");
            up.set(true);
            assertThat(status(s, reader, HttpMethod.GET, "/v1/tables")).as("the same token once the provider answers").isEqualTo(200);
        } finally {
            idp.stop(0);
        }
    }

    private static void authorizesByRolesAndRefusesEveryInvalidToken(TandemServer s, RSAKey key, String issuer) throws Exception {
        RSAKey impostor = new RSAKeyGenerator(2048).keyID(key.getKeyID()).generate();
        Instant now = Instant.now();
        String reader = sign(key, issuer, c -> c.claim("tandem_roles", List.of("reader", "some-other-app-role")));
        assertThat(status(s, reader, HttpMethod.GET, "/v1/tables")).isEqualTo(200);
        assertThat(status(s, reader, HttpMethod.POST, "/v1/tables")).isEqualTo(403);
        String admin = sign(key, issuer, c -> c.claim("tandem_roles", "admin"));
        assertThat(status(s, admin, HttpMethod.POST, "/v1/tables")).as("admin passes to the handler, which wants a body").isEqualTo(400);
        String noRoles = sign(key, issuer, c -> c.claim("tandem_roles", List.of()));
        assertThat(status(s, noRoles, HttpMethod.GET, "/v1/tables")).as("a valid token without a Tandem role").isEqualTo(403);

        Map<String, String> refused = Map.of(
                "expired", sign(key, issuer, c -> c.expirationTime(Date.from(now.minusSeconds(600)))),
                "not yet valid", sign(key, issuer, c -> c.notBeforeTime(Date.from(now.plusSeconds(600)))),
                "wrong issuer", sign(key, issuer, c -> c.issuer("https://elsewhere.test")),
                "wrong audience", sign(key, issuer, c -> c.audience("another-service")),
                "bad signature", sign(impostor, issuer, c -> { }),
                "alg none", new PlainJWT(claims(now, issuer, c -> { })).serialize());
        refused.forEach((why, token) -> assertThat(status(s, token, HttpMethod.GET, "/v1/tables")).as(why).isEqualTo(401));
    }

    private static void serve(HttpServer server, String path, String json) {
        server.createContext(path, exchange -> reply(exchange, json));
    }

    private static void reply(com.sun.net.httpserver.HttpExchange exchange, String json) throws java.io.IOException {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(200, body.length);
        exchange.getResponseBody().write(body);
        exchange.close();
    }

    private static JWTClaimsSet claims(Instant now, String issuer, Consumer<JWTClaimsSet.Builder> change) {
        JWTClaimsSet.Builder c = new JWTClaimsSet.Builder().subject("ada").issuer(issuer).audience("tandem")
                .issueTime(Date.from(now.minusSeconds(5))).expirationTime(Date.from(now.plusSeconds(600)))
                .claim("tandem_roles", List.of("reader"));
        change.accept(c);
        return c.build();
    }

    private static String sign(RSAKey key, String issuer, Consumer<JWTClaimsSet.Builder> change) throws JOSEException {
        SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(key.getKeyID()).build(), claims(Instant.now(), issuer, change));
        jwt.sign(new RSASSASigner(key));
        return jwt.serialize();
    }

    private static int status(TandemServer s, String token, HttpMethod method, String uri) {
        return s.oneShot.method(method).uri(uri).header(HttpHeaders.AUTHORIZATION, "Bearer " + token).contentType(MediaType.APPLICATION_JSON)
                .exchangeToMono(r -> r.releaseBody().thenReturn(r.statusCode().value())).block(Duration.ofSeconds(30));
    }

    /** The OpenID discovery document of {@code issuer}, its keys at {@code issuer/jwks}. */
    private static String discovery(String issuer) {
        return "{\"issuer\":\"" + issuer + "\",\"jwks_uri\":\"" + issuer + "/jwks\","
                + "\"subject_types_supported\":[\"public\"],\"response_types_supported\":[\"code\"]}";
    }

    /** A server that knows its JWT issuer only by URI (its keys found through discovery). */
    private static Map<String, Object> issuerOnly(String issuer) {
        return Map.of("tandem.security.jwt.issuer-uri", issuer, "tandem.security.jwt.audience", "tandem",
                "tandem.security.jwt.roles-claim", "tandem_roles");
    }
}
