package dev.tandem.pgwire;

import java.util.Map;
import reactor.core.publisher.Mono;

/**
 * Decides whether a connection's start-up may proceed: the hook where authentication goes. The
 * default trusts every user and database name as given; a refusal is an error that the session
 * reports as a FATAL {@code 28000} (or {@code 28P01}) and closes.
 */
public interface PgAuthenticator {

    /** Authentication by trust: every start-up is accepted. */
    PgAuthenticator TRUST = startup -> Mono.empty();

    /**
     * Completes empty to accept the start-up parameters ({@code user}, {@code database},
     * {@code application_name}...) or with an error to refuse them.
     */
    Mono<Void> authenticate(Map<String, String> startup);
}
