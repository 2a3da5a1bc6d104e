package dev.tandem.pgwire;

import dev.tandem.security.AccessPrincipal;
import dev.tandem.security.ScramVerifier;
import java.util.Optional;

/**
 * Who may start a session. {@link #TRUST} (no credentials configured: loopback only) accepts every user
 * name as given and authorizes nothing; otherwise a user with a SCRAM verifier
 * ({@link #scramVerifier}) logs in with SCRAM-SHA-256 and {@link #scramLogin} decides, and any other
 * user is asked for a password in the clear (AuthenticationCleartextPassword, only over TLS or from
 * loopback) and {@link #login} decides.
 */
public interface PgAuthenticator {

    /** Authentication by trust: no password is asked and every statement is allowed. */
    PgAuthenticator TRUST = new PgAuthenticator() {
        @Override
        public boolean asksPassword() {
            return false;
        }

        @Override
        public Optional<AccessPrincipal> login(String user, String password) {
            return Optional.empty();
        }
    };

    /** Whether start-up asks the client for a password. */
    boolean asksPassword();

    /** The principal {@code user} logs in as with {@code password}, or empty when refused. */
    Optional<AccessPrincipal> login(String user, String password);

    /**
     * The verifier {@code user} proves its secret against with SCRAM-SHA-256, or empty when it logs in
     * with a cleartext password. A user that does not exist may be given a mock verifier, so that it
     * fails like a wrong password rather than being told apart.
     */
    default Optional<ScramVerifier> scramVerifier(String user) {
        return Optional.empty();
    }

    /** The principal {@code user} logs in as having proved the secret behind {@code proven}, or empty when refused. */
    default Optional<AccessPrincipal> scramLogin(String user, ScramVerifier proven) {
        return Optional.empty();
    }
}
