package dev.tandem.pgwire;

import dev.tandem.security.AccessPrincipal;
import java.util.Optional;

/**
 * Who may start a session. {@link #TRUST} (no credentials configured: loopback only) accepts every user
 * name as given and authorizes nothing; otherwise the session asks for a password in the clear
 * (AuthenticationCleartextPassword, only over TLS or from loopback) and {@link #login} decides.
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
}
