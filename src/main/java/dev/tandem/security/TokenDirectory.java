package dev.tandem.security;

import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The configured API tokens, replaceable as a whole while running (token rotation): a lookup sees
 * either the old set or the new one, and a token removed from the set stops working at once.
 */
public final class TokenDirectory implements PrincipalLookup {

    private volatile List<ApiToken> tokens;

    public TokenDirectory(List<ApiToken> tokens) {
        this.tokens = checked(tokens);
    }

    /** Replaces every token; a set with two tokens of one name is refused and the old set kept. */
    public void replace(List<ApiToken> next) {
        tokens = checked(next);
    }

    /** The tokens' names, in configured order. */
    public List<String> names() {
        return tokens.stream().map(ApiToken::name).toList();
    }

    public boolean isEmpty() {
        return tokens.isEmpty();
    }

    @Override
    public Optional<AccessPrincipal> authenticate(String secret) {
        for (ApiToken t : tokens) {
            if (TokenHash.matches(t.hash(), secret)) {
                return Optional.of(principal(t));
            }
        }
        return Optional.empty();
    }

    @Override
    public Optional<AccessPrincipal> verify(String name, String secret) {
        for (ApiToken t : tokens) {
            if (t.name().equals(name) && TokenHash.matches(t.hash(), secret)) {
                return Optional.of(principal(t));
            }
        }
        return Optional.empty();
    }

    /** The SCRAM verifier of the token named {@code name}, if there is such a token and it has one. */
    public Optional<ScramVerifier> scramVerifier(String name) {
        for (ApiToken t : tokens) {
            if (t.name().equals(name)) {
                return Optional.ofNullable(t.scram());
            }
        }
        return Optional.empty();
    }

    /** Whether any token has a SCRAM verifier. */
    public boolean anyScram() {
        return tokens.stream().anyMatch(t -> t.scram() != null);
    }

    /**
     * The principal named {@code name} if its token's verifier is still {@code proven} (a client proved
     * it knows the secret behind it): a token removed or re-keyed during the exchange is refused.
     */
    public Optional<AccessPrincipal> scramPrincipal(String name, ScramVerifier proven) {
        for (ApiToken t : tokens) {
            if (t.name().equals(name) && proven.equals(t.scram())) {
                return Optional.of(principal(t));
            }
        }
        return Optional.empty();
    }

    private static AccessPrincipal principal(ApiToken t) {
        return new AccessPrincipal(t.name(), t.roles(), t.objects(), "token");
    }

    private static List<ApiToken> checked(List<ApiToken> tokens) {
        Set<String> names = new HashSet<>();
        for (ApiToken t : tokens) {
            if (!names.add(t.name())) {
                throw new IllegalArgumentException("two tokens are named '" + t.name() + "'; token names are unique");
            }
        }
        return List.copyOf(tokens);
    }
}
