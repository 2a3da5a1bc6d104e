package dev.tandem.pgwire;

import dev.tandem.security.AccessPrincipal;
import dev.tandem.security.ScramVerifier;
import dev.tandem.security.TokenDirectory;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Optional;

/**
 * Logins with API tokens: the user name is the token's name, the secret its password. A token with a
 * SCRAM verifier logs in with SCRAM-SHA-256; one without, with a cleartext password checked against its
 * hash. The directory is read at each login, so a rotated token is refused at the next one.
 *
 * <p>A user name no token has, once any token has a verifier, runs a SCRAM exchange against a mock
 * verifier (as PostgreSQL does): its salt is derived from the name and a secret of this process, so the
 * same name gets the same salt on every attempt and cannot be told from a real token by its salt, and it
 * fails like a wrong password.
 */
public final class TokenAuthenticator implements PgAuthenticator {

    private final TokenDirectory tokens;
    private final byte[] mockKey;

    /** {@code random} draws the secret the mock verifiers are derived from. */
    public TokenAuthenticator(TokenDirectory tokens, SecureRandom random) {
        this.tokens = tokens;
        this.mockKey = new byte[32];
        random.nextBytes(mockKey);
    }

    @Override
    public boolean asksPassword() {
        return true;
    }

    @Override
    public Optional<AccessPrincipal> login(String user, String password) {
        return tokens.verify(user, password);
    }

    @Override
    public Optional<ScramVerifier> scramVerifier(String user) {
        Optional<ScramVerifier> real = tokens.scramVerifier(user);
        if (real.isPresent() || tokens.names().contains(user) || !tokens.anyScram()) {
            return real;
        }
        return Optional.of(mock(user));
    }

    @Override
    public Optional<AccessPrincipal> scramLogin(String user, ScramVerifier proven) {
        return tokens.scramPrincipal(user, proven);
    }

    /** A verifier no secret is known for: its salt and keys are derived from the user name under this process's secret. */
    private ScramVerifier mock(String user) {
        byte[] name = user.getBytes(StandardCharsets.UTF_8);
        byte[] salt = Arrays.copyOf(ScramVerifier.hmac(mockKey, concat("salt:", name)), 16);
        return new ScramVerifier(ScramVerifier.DEFAULT_ITERATIONS, salt, ScramVerifier.hmac(mockKey, concat("stored:", name)),
                ScramVerifier.hmac(mockKey, concat("server:", name)));
    }

    private static byte[] concat(String label, byte[] name) {
        byte[] l = label.getBytes(StandardCharsets.US_ASCII);
        byte[] out = Arrays.copyOf(l, l.length + name.length);
        System.arraycopy(name, 0, out, l.length, name.length);
        return out;
    }
}
