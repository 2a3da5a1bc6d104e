package dev.tandem.security;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * One configured API token: a name, the salted hash of its secret, its roles, optionally the objects
 * it may touch ({@code null}: all) and optionally the SCRAM verifier of its secret ({@code null}: none;
 * with one, a wire-protocol login runs SCRAM-SHA-256 instead of sending the secret).
 */
public record ApiToken(String name, String hash, Set<Role> roles, Set<String> objects, ScramVerifier scram) {

    /**
     * A token from its configured strings ({@code roles} comma-separated), or an
     * {@link IllegalArgumentException} naming the token and what is wrong with it.
     */
    public static ApiToken parse(int index, String name, String hash, String roles, List<String> objects, String scram) {
        String where = "tandem.security.tokens[" + index + "]";
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException(where + ".name is required");
        }
        try {
            TokenHash.validate(hash);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(where + ".hash (token '" + name + "'): " + e.getMessage());
        }
        if (roles == null || roles.isBlank()) {
            throw new IllegalArgumentException(where + ".roles (token '" + name + "') is required: reader, writer, admin or replica");
        }
        Set<Role> parsed = new LinkedHashSet<>();
        for (String r : roles.split(",")) {
            try {
                parsed.add(Role.parse(r));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(where + ".roles (token '" + name + "'): " + e.getMessage());
            }
        }
        ScramVerifier verifier = null;
        if (scram != null && !scram.isBlank()) {
            try {
                verifier = ScramVerifier.parse(scram.strip());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(where + ".scram (token '" + name + "'): " + e.getMessage());
            }
        }
        return new ApiToken(name.strip(), hash, Set.copyOf(parsed), objects == null || objects.isEmpty() ? null : Set.copyOf(objects), verifier);
    }
}
