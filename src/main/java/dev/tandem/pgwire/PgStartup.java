package dev.tandem.pgwire;

import dev.tandem.security.AccessPrincipal;
import dev.tandem.security.AuditLog;
import dev.tandem.security.ScramVerifier;
import dev.tandem.sql.SqlEngine;
import dev.tandem.sql.SqlState;
import io.netty.buffer.ByteBuf;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The start-up of a {@link PgSession}: the start-up message (or a CancelRequest), then, when the
 * authenticator asks for one, a cleartext password or a SCRAM-SHA-256 exchange, until the session starts
 * (AuthenticationOk, its parameters, BackendKeyData, ReadyForQuery) or the connection ends with a FATAL
 * error.
 *
 * <p>A user with a SCRAM verifier is asked AuthenticationSASL ({@link ScramServer}; on any connection,
 * since it never reveals the secret), any other AuthenticationCleartextPassword, but only on an
 * encrypted or a loopback connection (else FATAL {@code 28000}). A refused password or proof is FATAL
 * {@code 28P01}, a malformed SASL message FATAL {@code 08P01}, both audited and counted by the login
 * throttle, whose delays are waited on the guards' timer; a principal without a SQL role (a replica) is
 * FATAL {@code 42501}, and the server's connection slots may refuse the session ({@code 53300}).
 */
final class PgStartup {

    /** Where the start-up is. */
    enum State {
        /** Nothing received yet: a start-up message or a CancelRequest is expected. */
        AWAITING_STARTUP,
        /** AuthenticationCleartextPassword sent: a PasswordMessage is expected. */
        AWAITING_PASSWORD,
        /** AuthenticationSASL sent: a SASLInitialResponse is expected. */
        AWAITING_SASL_INITIAL_RESPONSE,
        /** AuthenticationSASLContinue sent: a SASLResponse with the client's proof is expected. */
        AWAITING_SASL_RESPONSE,
        /** The session has started: start-up takes no more messages. */
        STARTED
    }

    private final PgSession session;
    private final PgAuthenticator authenticator;
    private final AuditLog audit;
    private final PgSession.Peer peer;
    private final PgSession.Guards guards;
    private final PgWireServer.Sessions sessions;
    private final int pid;
    private final int secret;
    /** Read from other threads (the authentication timeout, the idle guard) as the session's started flag was. */
    private State state = State.AWAITING_STARTUP;
    /** The start-up parameters while the password (or the SASL exchange) is awaited, else null. */
    private Map<String, String> awaiting;
    /** The SCRAM exchange under way while awaiting a SASL login, else null. */
    private ScramServer scram;
    /** What the refusal of the login being checked waits before it is sent (the login throttle's delay). */
    private Duration owed = Duration.ZERO;

    PgStartup(PgSession session, PgAuthenticator authenticator, AuditLog audit, PgSession.Peer peer, PgSession.Guards guards,
            PgWireServer.Sessions sessions, int pid, int secret) {
        this.session = session;
        this.authenticator = authenticator;
        this.audit = audit;
        this.peer = peer;
        this.guards = guards;
        this.sessions = sessions;
        this.pid = pid;
        this.secret = secret;
    }

    /** Whether the session has started (authenticated). */
    boolean started() {
        return state == State.STARTED;
    }

    /**
     * The answer to a message before the session has started; a message the state does not expect ends
     * the connection (FATAL {@code 08P01}), as does a malformed start-up packet.
     */
    org.reactivestreams.Publisher<ByteBuf> receive(FrontendMessage m) {
        if (state == State.AWAITING_STARTUP) {
            return switch (m) {
                case FrontendMessage.StartupMessage s -> startup(s);
                case FrontendMessage.CancelRequest c -> {
                    sessions.cancel(c.pid(), c.secret());
                    yield Mono.error(new PgSession.Close(null));
                }
                case FrontendMessage.Malformed bad when bad.type() == FrontendMessage.STARTUP -> throw bad.error();
                default -> throw new PgSession.Close(new PgWriter().error("FATAL", SqlState.PROTOCOL_VIOLATION, "expected a start-up message", 0).buffer());
            };
        }
        if (!(m instanceof FrontendMessage.PasswordMessage p)) {
            throw new PgSession.Close(new PgWriter().error("FATAL", SqlState.PROTOCOL_VIOLATION, "expected a "
                    + (state == State.AWAITING_PASSWORD ? "password message" : "SASL response") + ", got '" + printable(m.type()) + "'", 0).buffer());
        }
        if (state == State.AWAITING_SASL_INITIAL_RESPONSE) {
            return sasl(p.body());
        }
        if (state == State.AWAITING_SASL_RESPONSE) {
            return throttled(() -> sasl(p.body()));
        }
        // (read here: a malformed password message ends the start-up with 08P01, unthrottled)
        String password = new PgReader(p.body()).cstringReplacing();
        return throttled(() -> password(password));
    }

    private Mono<ByteBuf> startup(FrontendMessage.StartupMessage m) {
        int code = m.protocol();
        if (code >> 16 != 3) {
            throw new PgSession.Close(new PgWriter().error("FATAL", SqlState.FEATURE_NOT_SUPPORTED, "unsupported frontend protocol " + (code >> 16) + "." + (code & 0xffff)
                    + ": Tandem speaks protocol 3.0", 0).buffer());
        }
        Map<String, String> params = m.parameters();
        String user = params.getOrDefault("user", "");
        if (user.isEmpty()) {
            throw new PgSession.Close(new PgWriter().error("FATAL", SqlState.INVALID_AUTHORIZATION_SPECIFICATION, "no user name given in the start-up packet", 0).buffer());
        }
        if (!authenticator.asksPassword()) {
            // open (trust) mode: every session may do what an admin may, so it may take any slot
            refuseOverSlots(true);
            return Mono.just(ready(params));
        }
        Optional<ScramVerifier> verifier = authenticator.scramVerifier(user);
        if (verifier.isPresent()) {
            awaiting = params;
            scram = new ScramServer(verifier.get());
            state = State.AWAITING_SASL_INITIAL_RESPONSE;
            return Mono.just(new PgWriter().authenticationSasl(ScramServer.MECHANISM).buffer());
        }
        if (!peer.encrypted().getAsBoolean() && !peer.loopback()) {
            String why = peer.tlsOffered() ? "connect with TLS (sslmode=require)"
                    : "this server offers no TLS on the wire protocol (configure server.ssl.*), so connect from loopback";
            audit.record(PgSession.ANONYMOUS, peer.address(), "authenticate", "pgwire user " + PgSession.abbreviate(user), "refused: unencrypted connection");
            throw new PgSession.Close(new PgWriter().error("FATAL", SqlState.INVALID_AUTHORIZATION_SPECIFICATION, "password authentication for user \"" + user
                    + "\" needs an encrypted connection from " + peer.address() + ": " + why, 0).buffer());
        }
        awaiting = params;
        state = State.AWAITING_PASSWORD;
        return Mono.just(new PgWriter().authenticationCleartextPassword().buffer());
    }

    /** Checks the password of the awaited start-up: the session begins as its principal, or the connection ends with 28P01. */
    private Mono<ByteBuf> password(String password) {
        Map<String, String> params = awaiting;
        awaiting = null;
        return Mono.just(startAs(params, authenticator.login(params.get("user"), password)));
    }

    /**
     * One SASL message of the awaited start-up: the SASLInitialResponse (mechanism and client-first
     * message) is answered with the server-first message, the SASLResponse (client-final message) with
     * the server-final message and the session's start when the proof holds, else 28P01. A malformed
     * message ends the connection with 08P01.
     */
    private org.reactivestreams.Publisher<ByteBuf> sasl(byte[] body) {
        String user = awaiting.get("user");
        try {
            if (state == State.AWAITING_SASL_INITIAL_RESPONSE) {
                PgReader in = new PgReader(body);
                String mechanism = in.cstringReplacing();
                if (!mechanism.equals(ScramServer.MECHANISM)) {
                    throw new ScramServer.Violation("SASL mechanism \"" + PgSession.abbreviate(mechanism) + "\" is not offered; the server offers "
                            + ScramServer.MECHANISM);
                }
                int length = in.int32();
                if (length < 0 || length != in.remaining()) {
                    throw new ScramServer.Violation("SASLInitialResponse's data length " + length + " does not match the message ("
                            + in.remaining() + " bytes)");
                }
                ByteBuf serverFirst = new PgWriter().authenticationSaslContinue(scram.first(in.bytes(length))).buffer();
                state = State.AWAITING_SASL_RESPONSE;
                return Mono.just(serverFirst);
            }
            byte[] serverFinal = scram.last(body);
            Map<String, String> params = awaiting;
            awaiting = null;
            ByteBuf started = startAs(params, serverFinal == null ? Optional.empty() : authenticator.scramLogin(user, scram.verifier()));
            return Flux.just(new PgWriter().authenticationSaslFinal(serverFinal).buffer(), started);
        } catch (ScramServer.Violation | IllegalStateException e) {
            audit.record(PgSession.ANONYMOUS, peer.address(), "authenticate", "pgwire user " + PgSession.abbreviate(user), "refused: malformed SASL message");
            owed = guards.throttle().failed("pgwire", "malformed", peer.address(), user);
            throw new PgSession.Close(new PgWriter().error("FATAL", SqlState.PROTOCOL_VIOLATION, e.getMessage(), 0).buffer());
        }
    }

    /**
     * The session's start as {@code who} (the principal a password or a SCRAM proof logged in as): its
     * AuthenticationOk and parameters, or a Close with 28P01 (refused) or 42501 (no SQL role), audited.
     */
    private ByteBuf startAs(Map<String, String> params, Optional<AccessPrincipal> who) {
        String user = params.get("user");
        if (who.isEmpty()) {
            audit.record(PgSession.ANONYMOUS, peer.address(), "authenticate", "pgwire user " + PgSession.abbreviate(user), "refused: password authentication failed");
            owed = guards.throttle().failed("pgwire", "password", peer.address(), user);
            throw new PgSession.Close(new PgWriter().error("FATAL", SqlState.INVALID_PASSWORD, "password authentication failed for user \"" + user + "\"", 0).buffer());
        }
        if (!who.get().has(dev.tandem.security.Role.READER)) {
            audit.record(who.get().name(), peer.address(), "authenticate", "pgwire user " + PgSession.abbreviate(user), "forbidden: no SQL role");
            throw new PgSession.Close(new PgWriter().error("FATAL", PgSession.INSUFFICIENT_PRIVILEGE, "permission denied: '" + who.get().name()
                    + "' has no role that may use SQL (reader, writer or admin)", 0).buffer());
        }
        guards.throttle().succeeded(peer.address());
        refuseOverSlots(who.get().has(dev.tandem.security.Role.ADMIN));
        session.runAs(who.get());
        return ready(params);
    }

    /**
     * The checking of credentials, after what the client's address owes the login throttle; a refusal
     * (a Close) waits what the failure owes before it is sent. Both are waited on the guards' timer.
     */
    private Flux<ByteBuf> throttled(java.util.function.Supplier<org.reactivestreams.Publisher<ByteBuf>> check) {
        Duration before = guards.throttle().beforeAttempt(peer.address());
        Flux<ByteBuf> checked = Flux.defer(() -> {
            owed = Duration.ZERO;
            return check.get();
        }).onErrorMap(e -> !(e instanceof PgSession.Close), e -> new PgSession.Close(new PgWriter().error("FATAL", PgSession.PROTOCOL_VIOLATION,
                "protocol violation: " + e.getMessage(), 0).buffer())).onErrorResume(PgSession.Close.class, c -> owed.isZero() ? Flux.error(c) : Mono.delay(owed, guards.timer()).then(Mono.error(c)));
        return before.isZero() ? checked : Mono.delay(before, guards.timer()).thenMany(checked);
    }

    /** Ends the start-up with FATAL {@code 53300} when the server's connection slots refuse this session. */
    private void refuseOverSlots(boolean admin) {
        String refusal = guards.slots().refusal(admin);
        if (refusal != null) {
            throw new PgSession.Close(new PgWriter().error("FATAL", PgSession.TOO_MANY_CONNECTIONS, refusal, 0).buffer());
        }
    }

    private ByteBuf ready(Map<String, String> params) {
        state = State.STARTED;
        session.begin(params);
        PgWriter w = new PgWriter().authenticationOk();
        w.parameterStatus("server_version", SqlEngine.SERVER_VERSION);
        w.parameterStatus("server_encoding", "UTF8");
        w.parameterStatus("client_encoding", "UTF8");
        w.parameterStatus("DateStyle", "ISO, MDY");
        w.parameterStatus("TimeZone", session.zoneReport());
        w.parameterStatus("IntervalStyle", "postgres");
        w.parameterStatus("integer_datetimes", "on");
        w.parameterStatus("standard_conforming_strings", "on");
        w.parameterStatus("is_superuser", "off");
        w.parameterStatus("session_authorization", params.get("user"));
        w.parameterStatus("application_name", params.getOrDefault("application_name", ""));
        w.backendKeyData(pid, secret);
        return w.readyForQuery('I').buffer();
    }

    static String printable(char type) {
        return type >= 0x20 && type < 0x7f ? String.valueOf(type) : String.format("\\x%02x", (int) type);
    }
}
