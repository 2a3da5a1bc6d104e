package dev.tandem.config;

import dev.tandem.security.ApiToken;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code tandem.security.*}: the API tokens (live: re-read on {@code /actuator/refresh}), the JWT
 * resource server (start-up only) and per-principal limits (live). With neither tokens nor a JWT
 * issuer configured at start-up, Tandem serves loopback only and asks no credentials.
 */
@ConfigurationProperties("tandem.security")
public record SecurityProperties(
        @DefaultValue List<Token> tokens,
        @DefaultValue Jwt jwt,
        @DefaultValue Limits limits,
        @DefaultValue LoginDelay loginDelay) {

    /**
     * One API token: {@code hash} is the output of {@code tandem.jar token hash}; {@code roles}
     * comma-separated; {@code objects} the tables, views and indexes it may touch (empty: all);
     * {@code scram} (optional) the SCRAM-SHA-256 verifier of its secret, also printed by {@code token
     * hash}, with which a wire-protocol login runs SCRAM instead of a cleartext password.
     */
    public record Token(String name, String hash, String roles, List<String> objects, String scram) {
    }

    /**
     * A JWT resource server: tokens signed by a key of {@code jwkSetUri} (or of the issuer's published
     * keys), issued by {@code issuerUri} when set, for {@code audience} when set; roles from the claim
     * {@code rolesClaim} (a list, or a string of names separated by spaces or commas), the principal's
     * name from {@code nameClaim}.
     */
    public record Jwt(String issuerUri, String jwkSetUri, String audience, @DefaultValue("roles") String rolesClaim,
            @DefaultValue("sub") String nameClaim) {

        public boolean enabled() {
            return has(issuerUri) || has(jwkSetUri);
        }
    }

    /**
     * Per principal, when credentials are in use: reads in flight (peeks, lookups and SQL queries over
     * HTTP, the WebSocket and the wire protocol together), slow-path reads among them whose transient
     * dataflow is pending on compute, change streams held at once, and SQL statements being planned (those
     * the plan cache does not hold); 0 means unlimited. Over a limit a request gets 429 with
     * {@code Retry-After} (the wire protocol {@code 53400}).
     */
    public record Limits(@DefaultValue("64") int maxConcurrentPeeks, @DefaultValue("16") int maxPendingDataflows,
            @DefaultValue("256") int maxSubscriptions, @DefaultValue("4") int maxConcurrentPlans) {
    }

    /**
     * Start-up only: how repeated failed logins (wire-protocol passwords and SCRAM proofs, HTTP bearer
     * tokens) are slowed. After a failure from a client address, its next attempts wait {@code base},
     * doubling with each further failure up to {@code max}, before their credentials are checked; a failed
     * attempt's refusal waits what its user name owes the same way. Failures are forgotten {@code forget}
     * after the last one (an address's at once when it logs in); at most {@code maxEntries} addresses and as
     * many user names are remembered. {@code base} 0 turns the delays off (failures are still counted).
     */
    public record LoginDelay(@DefaultValue("250ms") java.time.Duration base, @DefaultValue("8s") java.time.Duration max,
            @DefaultValue("15m") java.time.Duration forget, @DefaultValue("100000") int maxEntries) {
    }

    /** Whether any credentials are configured; without them the server is open but bound to loopback only. */
    public boolean credentialsConfigured() {
        return !tokens.isEmpty() || jwt.enabled();
    }

    /** The tokens, parsed and validated; an {@link IllegalArgumentException} names the first bad one. */
    public List<ApiToken> apiTokens() {
        List<ApiToken> out = new ArrayList<>();
        for (int i = 0; i < tokens.size(); i++) {
            Token t = tokens.get(i);
            out.add(ApiToken.parse(i, t.name(), t.hash(), t.roles(), t.objects(), t.scram()));
        }
        return out;
    }

    private static boolean has(String s) {
        return s != null && !s.isBlank();
    }
}
