package dev.tandem.pgwire;

import dev.tandem.controller.ReadAdmission;
import dev.tandem.net.WritableGate;
import dev.tandem.row.DatumType;
import dev.tandem.security.AccessPrincipal;
import dev.tandem.security.AuditLog;
import dev.tandem.security.LoginThrottle;
import dev.tandem.security.PrincipalLimits;
import dev.tandem.security.ScramVerifier;
import dev.tandem.security.SqlGrants;
import dev.tandem.sql.PlanningAdmission;
import dev.tandem.sql.SqlColumn;
import dev.tandem.sql.SqlCopyIn;
import dev.tandem.sql.SqlEngine;
import dev.tandem.sql.SqlException;
import dev.tandem.sql.SqlResult;
import dev.tandem.sql.SqlSession;
import dev.tandem.sql.SqlStatement;
import dev.tandem.sql.catalog.CatalogAccess;
import dev.tandem.sql.catalog.CatalogQuery;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Fuseable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * One PostgreSQL wire-protocol (v3) connection: start-up, the simple query protocol, the extended
 * protocol (prepared statements and portals, Parse/Bind/Describe/Execute/Sync/Close/Flush), text and
 * binary result formats, ErrorResponse with SQLSTATE, CancelRequest and Terminate.
 *
 * <p><b>Authentication.</b> When the authenticator asks for a password, a user with a SCRAM verifier
 * is asked AuthenticationSASL ({@code SCRAM-SHA-256}, run by {@link ScramServer}; on any connection,
 * since it never reveals the secret), any other AuthenticationCleartextPassword, but only on an
 * encrypted or a loopback connection (else FATAL {@code 28000}). A refused password or proof is FATAL
 * {@code 28P01}, a malformed SASL message FATAL {@code 08P01}, both audited, and a principal without a
 * SQL role (a replica) FATAL {@code 42501}. The session then runs as the principal: each statement
 * needs the role of its kind and the grants on the objects it names ({@link SqlGrants}; else
 * {@code 42501}), checked when it is parsed.
 *
 * <p><b>Transactions and cursors.</b> The session's {@link SqlSession} holds its transaction block and the
 * cursors declared in it; ReadyForQuery reports the block ({@code I}, {@code T}, {@code E}), every error
 * answered fails an open block, and the end of the connection closes the cursors. Each change stream
 * (a SUBSCRIBE as COPY or as a cursor) holds one of the principal's subscription permits
 * ({@link PrincipalLimits}; {@code 53400} over the limit) while it runs, and each query is admitted
 * against the principal's limits of reads in flight and of slow-path dataflows ({@code 53400} too).
 *
 * <p><b>Errors.</b> A {@link SqlException} is answered with its SQLSTATE; a malformed message body is
 * ERROR {@code 08P01} ({@code 22023} for a format code, {@code 22021} for text that is not UTF-8), after
 * which an extended-protocol step skips to Sync, while a broken frame or start-up ends the connection
 * (FATAL {@code 08P01}); any other failure of a statement is a bug, answered {@code XX000} and logged
 * with its stack, and the session goes on.
 *
 * <p>Messages are handled one at a time, in order ({@link #handle} is called from a {@code concatMap});
 * each returns the backend's answer as one buffer (a simple query with a {@code SUBSCRIBE}: a buffer per
 * statement and per batch of streamed rows). A query in flight can be cancelled from another
 * connection through {@link #cancel}, which is the only method called from another thread.
 */
final class PgSession {

    /** Thrown (as a signal) to end the connection after the answer so far. */
    static final class Close extends RuntimeException {
        final ByteBuf last;

        Close(ByteBuf last) {
            super(null, null, false, false);
            this.last = last;
        }
    }

    private record Prepared(SqlStatement statement, CatalogQuery canned, int[] paramOids, String text) {
        List<SqlColumn> columns() {
            return canned != null ? canned.columns() : statement == null ? null : statement.columns();
        }

        /**
         * The OIDs a Describe answers: a catalog query's parameters are text unless the client gave their types (pgjdbc
         * looks up an OID it does not know with an {@code int4} parameter, and refuses a description that differs).
         */
        int[] describedOids() {
            if (canned == null) {
                return parameterTypes().stream().mapToInt(PgWriter::oid).toArray();
            }
            int[] oids = new int[canned.parameterCount()];
            for (int i = 0; i < oids.length; i++) {
                oids[i] = i < paramOids.length && paramOids[i] != 0 ? paramOids[i] : PgWriter.oid(DatumType.STRING);
            }
            return oids;
        }

        List<DatumType> parameterTypes() {
            return canned != null ? java.util.Collections.nCopies(canned.parameterCount(), DatumType.STRING)
                    : statement == null ? List.of() : statement.parameterTypes();
        }
    }

    private static final class Portal {
        final Prepared prepared;
        final List<Object> params;
        final short[] resultFormats;
        List<Object[]> pending;
        SqlResult result;
        int sent;

        Portal(Prepared prepared, List<Object> params, short[] resultFormats) {
            this.prepared = prepared;
            this.params = params;
            this.resultFormats = resultFormats;
        }

        int format(int column) {
            return resultFormats.length == 0 ? 0 : resultFormats.length == 1 ? resultFormats[0] : resultFormats[column];
        }
    }

    /**
     * The other end of the connection: its address, whether it is loopback, whether the server offers
     * TLS and whether the connection is encrypted (now: it becomes so after an SSLRequest).
     */
    record Peer(String address, boolean loopback, boolean tlsOffered, BooleanSupplier encrypted, WritableGate writable) {
    }

    /**
     * What guards a session's start: the login throttle that slows repeated failed logins (its delays
     * waited on {@code timer}, never on a thread), and the connection slots, which may refuse a session
     * once it knows who it is ({@link Slots#refusal}).
     */
    record Guards(LoginThrottle throttle, Slots slots, Scheduler timer) {
        static final Guards NONE = new Guards(LoginThrottle.none(), admin -> null, Schedulers.parallel());
    }

    /** The server's connection slots as a starting session sees them. */
    interface Slots {
        /** Null when a session may start (an admin's may use the slots reserved for admins), else why not. */
        String refusal(boolean admin);
    }

    private static final Logger LOG = LoggerFactory.getLogger(PgSession.class);
    private static final String ANONYMOUS = "anonymous";
    /** SQLSTATE configuration_limit_exceeded: a principal at its limit of subscriptions. */
    static final String LIMIT_EXCEEDED = "53400";
    /** SQLSTATE too_many_connections. */
    static final String TOO_MANY_CONNECTIONS = "53300";

    private final SqlEngine engine;
    private final PgAuthenticator authenticator;
    private final AuditLog audit;
    private final Peer peer;
    private final PgWireServer.Sessions sessions;
    private final PrincipalLimits limits;
    private final Guards guards;
    /** What the refusal of the login being checked waits before it is sent (the login throttle's delay). */
    private Duration owed = Duration.ZERO;
    private final SqlSession sql = new SqlSession(true);
    /**
     * How many named prepared statements, and as many named portals, a session may hold: each pins its plan
     * (some kilobytes), so that one session's statements cannot fill the heap (pgjdbc keeps at most 256).
     */
    static final int MAX_NAMED = 1_000;
    private final Map<String, Prepared> statements = new HashMap<>();
    private final Map<String, Portal> portals = new HashMap<>();
    private final int pid;
    private final int secret;
    private boolean started;
    /** The start-up parameters while the password (or the SASL exchange) is awaited, else null. */
    private Map<String, String> awaitingPassword;
    /** The SCRAM exchange under way while awaiting a SASL login, else null (a cleartext password is awaited). */
    private ScramServer scram;
    /** Who the session runs as; null under trust (every statement allowed). */
    private AccessPrincipal principal;
    /** The user the session started as, as {@code current_user} gives it to catalog reads. */
    private String user = "tandem";
    /** When the session connected, its application_name, and its current or last statement and when it started (pg_stat_activity). */
    private final long backendStart = System.currentTimeMillis();
    private volatile String application = "";
    private volatile String lastQuery = "";
    private volatile long queryStart;
    /** pg_stat_activity shows a statement's first 1,024 characters, as PostgreSQL's track_activity_query_size does. */
    private static final int MAX_ACTIVITY_QUERY = 1024;
    /** The principal {@link #limitsContext} admits, and that context. */
    private String limitsOf;
    private reactor.util.context.ContextView limitsContext;
    private boolean skipToSync;
    /** The {@code COPY ... FROM STDIN} taking CopyData now (null: none). */
    private SqlCopyIn copyIn;
    /** After a COPY FROM STDIN failed: the client's remaining CopyData, CopyDone or CopyFail are dropped. */
    private boolean discardCopy;
    /** The statement being parsed, to place a Parse error's position. */
    private String errorText;
    private volatile Sinks.One<Boolean> running;

    PgSession(SqlEngine engine, PgAuthenticator authenticator, AuditLog audit, PrincipalLimits limits, Guards guards, Peer peer,
            PgWireServer.Sessions sessions, int pid, int secret) {
        this.engine = engine;
        this.limits = limits;
        this.guards = guards;
        sql.streamPermits(this::subscriptionPermit);
        this.authenticator = authenticator;
        this.audit = audit;
        this.peer = peer;
        this.sessions = sessions;
        this.pid = pid;
        this.secret = secret;
    }

    int secret() {
        return secret;
    }

    /** Whether the session has started (authenticated); until then the authentication timeout may end it. */
    boolean started() {
        return started;
    }

    /** Cancels the query in flight, if any (called from the connection that sent the CancelRequest). */
    void cancel() {
        Sinks.One<Boolean> r = running;
        if (r != null) {
            r.tryEmitValue(true);
        }
    }

    /** Ends the session with its connection: the transaction block ends, its cursors' subscriptions and permits are released. */
    void close() {
        cancel();
        sql.close();
    }

    /** A permit for one more change stream of the session's principal, or {@code 53400} at its limit. */
    private Runnable subscriptionPermit() {
        String who = limitedAs();
        PrincipalLimits.Permit permit = limits.tryAcquire(who, PrincipalLimits.Kind.SUBSCRIPTIONS);
        if (permit == null) {
            throw new SqlException(LIMIT_EXCEEDED, "'" + who + "' holds " + limits.limit(PrincipalLimits.Kind.SUBSCRIPTIONS)
                    + " subscriptions, its limit (tandem.security.limits.max-subscriptions); close one first");
        }
        return permit::close;
    }

    /**
     * The answer to one frontend message. The answers to the extended protocol's steps (Parse, Bind,
     * Describe, Execute, Close) are held and sent with what follows them — at the latest with the Sync's
     * ReadyForQuery or a Flush — as PostgreSQL sends them: one write a statement, not one a message.
     */
    Flux<ByteBuf> handle(PgMessage m) {
        Flux<ByteBuf> out = answer(m);
        if (started && HELD_STEPS.indexOf(m.type()) >= 0) {
            if (out instanceof Callable<?> now) {
                // answered already (a Bind, a Describe): held without a subscription
                try {
                    Object b = now.call();
                    if (b != null) {
                        held.add((ByteBuf) b);
                    }
                    return Flux.empty();
                } catch (Exception e) {
                    // an error signal: the step's answer goes the general way below
                }
            }
            // (mapped to a marker before being dropped: Reactor Netty releases the buffers an operator discards)
            return out.map(b -> {
                held.add(b);
                return Boolean.TRUE;
            }).thenMany(Flux.empty());
        }
        if (held.isEmpty()) {
            return out;
        }
        ByteBuf[] before = held.toArray(ByteBuf[]::new);
        held.clear();
        if (out instanceof Callable<?> now) {
            try {
                ByteBuf last = (ByteBuf) now.call();
                return Flux.just(last == null ? Unpooled.wrappedBuffer(before) : Unpooled.wrappedBuffer(Unpooled.wrappedBuffer(before), last));
            } catch (Exception e) {
                return Flux.concat(Flux.just(Unpooled.wrappedBuffer(before)), out);
            }
        }
        return Flux.concat(Flux.just(Unpooled.wrappedBuffer(before)), out);
    }

    /** The extended protocol's steps whose answers {@link #handle} holds until a Sync or Flush (or anything else). */
    private static final String HELD_STEPS = "PBDEC";
    /** Answers held until the next Sync or Flush. */
    private final List<ByteBuf> held = new ArrayList<>();

    private Flux<ByteBuf> answer(PgMessage m) {
        try {
            org.reactivestreams.Publisher<ByteBuf> answer = dispatch(m);
            if (answer instanceof Fuseable.ScalarCallable<?> now) {
                // answered already (a Bind, a Describe, a Sync...): nothing runs later to be admitted
                try {
                    Object buffer = now.call();
                    return buffer == null ? Flux.empty() : Flux.just((ByteBuf) buffer);
                } catch (Close c) {
                    return Flux.error(c);
                } catch (Exception e) {
                    return Flux.just(unexpected(m, e));
                }
            }
            // Each query is admitted against the principal's own limits (reads in flight, slow-path dataflows,
            // statements being planned).
            return Flux.from(answer).onErrorResume(e -> !(e instanceof Close), e -> Mono.just(unexpected(m, e))).contextWrite(limitsContext());
        } catch (Close c) {
            return Flux.error(c);
        } catch (SqlException e) {
            if (!started) {
                return Flux.error(new Close(new PgWriter().error("FATAL", e.sqlState(), e.getMessage(), 0).buffer()));
            }
            return Flux.just(refused(m, e));
        } catch (PgReader.Malformed e) {
            if (!started) {
                return Flux.error(new Close(new PgWriter().error("FATAL", PROTOCOL_VIOLATION, "protocol violation: " + e.getMessage(), 0).buffer()));
            }
            return Flux.just(refused(m, new SqlException(PROTOCOL_VIOLATION, e.getMessage())));
        } catch (RuntimeException e) {
            if (!started) {
                return Flux.error(new Close(new PgWriter().error("FATAL", "08P01", "protocol violation: " + e, 0).buffer()));
            }
            return Flux.just(unexpected(m, e));
        }
    }

    /**
     * Whom the per-principal limits count this session's work against: its principal, or without
     * credentials the client's address ({@code anonymous@127.0.0.1}), so that in open mode too one client
     * cannot hold every slow-path read.
     */
    private String limitedAs() {
        return principal == null ? ANONYMOUS + "@" + peer.address() : principal.name();
    }

    /** The principal's admissions, as the context of the statements the session runs (made again only if the principal changes). */
    private reactor.util.context.ContextView limitsContext() {
        String who = limitedAs();
        if (!who.equals(limitsOf)) {
            limitsOf = who;
            limitsContext = reactor.util.context.Context.of(ReadAdmission.class, limits.admission(who), PlanningAdmission.class, limits.planning(who));
        }
        return limitsContext;
    }

    /**
     * The answer to a failure that is no SQL error (a bug): {@code XX000} without the stack, which goes to
     * the log; a simple query is then ready for the next, an extended-protocol step skips to Sync.
     */
    private ByteBuf unexpected(PgMessage m, Throwable e) {
        return refused(m, internal(e));
    }

    /**
     * The answer to a message refused with {@code e} (a malformed field, a bad encoding): the error, then
     * a simple query is ready for the next, and an extended-protocol step skips to Sync, as in PostgreSQL.
     */
    private ByteBuf refused(PgMessage m, SqlException e) {
        PgWriter w = new PgWriter().error(e, 0);
        sql.fail();
        if (m.type() == 'Q') {
            return w.readyForQuery(status()).buffer();
        }
        skipToSync = EXTENDED_STEPS.indexOf(m.type()) >= 0;
        return w.buffer();
    }

    /** The extended-protocol messages after whose error the session skips to Sync. */
    private static final String EXTENDED_STEPS = "PBDECH";
    /** SQLSTATE protocol_violation. */
    static final String PROTOCOL_VIOLATION = "08P01";
    /** SQLSTATE invalid_parameter_value: a format code other than text (0) or binary (1). */
    static final String INVALID_PARAMETER_VALUE = "22023";

    /** A failure that is no SQL error, logged with its stack, as the {@code XX000} error a client gets. */
    private static SqlException internal(Throwable e) {
        if (e instanceof SqlException s) {
            return s;
        }
        LOG.error("internal error in a PostgreSQL-protocol session", e);
        return new SqlException(SqlException.INTERNAL, "internal error: " + e.getClass().getSimpleName()
                + (e.getMessage() == null ? "" : ": " + e.getMessage()));
    }

    /** The transaction status ReadyForQuery reports. */
    private char status() {
        return sql.block().status();
    }

    /** The transaction status ReadyForQuery reports now: {@code I} idle, {@code T} in a block, {@code E} in a failed block. */
    char transactionStatus() {
        return status();
    }

    private org.reactivestreams.Publisher<ByteBuf> dispatch(PgMessage m) {
        if (m.type() == PgMessage.TOO_LARGE) {
            throw new Close(new PgWriter().error("FATAL", "08P01", "invalid message length (messages are limited)", 0).buffer());
        }
        if (m.type() == PgMessage.INVALID) {
            throw new Close(new PgWriter().error("FATAL", "08P01", new String(m.body(), StandardCharsets.UTF_8), 0).buffer());
        }
        if (m.type() == PgMessage.SSL_REQUEST || m.type() == PgMessage.GSS_REQUEST) {
            return Mono.just(Unpooled.wrappedBuffer(new byte[] {'N'}));
        }
        if (!started) {
            if (awaitingPassword != null) {
                if (m.type() != 'p') {
                    throw new Close(new PgWriter().error("FATAL", "08P01", "expected a " + (scram != null ? "SASL response" : "password message")
                            + ", got '" + printable(m.type()) + "'", 0).buffer());
                }
                if (scram != null && !scram.started()) {
                    return sasl(m.body());
                }
                if (scram != null) {
                    return throttled(() -> sasl(m.body()));
                }
                // (read here: a malformed password message ends the start-up with 08P01, unthrottled)
                String password = new PgReader(m.body()).cstringReplacing();
                return throttled(() -> password(password));
            }
            if (m.type() != PgMessage.STARTUP) {
                throw new Close(new PgWriter().error("FATAL", "08P01", "expected a start-up message", 0).buffer());
            }
            return startup(m.body());
        }
        if (skipToSync && m.type() != 'S' && m.type() != 'X' && m.type() != 'Q') {
            return Mono.empty();
        }
        PgReader in = new PgReader(m.body());
        if (copyIn != null || discardCopy) {
            Mono<ByteBuf> copying = copying(m);
            if (copying != null) {
                return copying;
            }
        }
        return switch (m.type()) {
            case 'Q' -> {
                String text = in.cstring();
                noteQuery(text);
                if (SqlEngine.copiesIn(text)) {
                    yield copyInStart(text);
                }
                // A simple query that leaves no transaction block open (COMMIT, ROLLBACK, or any statement outside
                // one) ends a transaction, and with it every portal, as in PostgreSQL.
                Runnable endOfTransaction = () -> {
                    if (sql.block() == SqlSession.Block.IDLE) {
                        portals.clear();
                    }
                };
                yield SUBSCRIBE.matcher(text).find() ? streamingQuery(text).doOnTerminate(endOfTransaction)
                        : simpleQuery(text).doOnTerminate(endOfTransaction);
            }
            case 'P' -> guardedLater(() -> parse(in));
            case 'B' -> guarded(() -> bind(in));
            case 'D' -> guarded(() -> describe(in));
            case 'E' -> execute(in);
            case 'C' -> guarded(() -> close(in));
            case 'S' -> {
                skipToSync = false;
                // a Sync outside a transaction block ends its implicit transaction, and with it the portals; inside
                // BEGIN ... COMMIT they live on until the block ends (a fetch size reads one in several Executes)
                if (sql.block() == SqlSession.Block.IDLE) {
                    portals.clear();
                }
                yield Mono.just(new PgWriter().readyForQuery(status()).buffer());
            }
            case 'H' -> Mono.empty();
            case 'X' -> Mono.error(new Close(null));
            case 'd', 'c', 'f' -> guarded(() -> {
                throw SqlException.notSupported("COPY");
            });
            default -> throw new Close(new PgWriter().error("FATAL", "08P01", "unknown message type '" + printable(m.type()) + "'", 0).buffer());
        };
    }

    // ------------------------------------------------------------------ COPY FROM STDIN

    /** Starts a {@code COPY ... FROM STDIN} of a simple query: CopyInResponse, or its refusal and ReadyForQuery. */
    private Mono<ByteBuf> copyInStart(String text) {
        return authorize(text).then(Mono.fromCallable(() -> {
            copyIn = engine.copyIn(text, sql);
            discardCopy = false;
            return new PgWriter().copyInResponse(copyIn.columns()).buffer();
        })).onErrorResume(e -> Mono.fromSupplier(() -> {
            sql.fail();
            SqlException error = internal(e);
            return new PgWriter().error(error, position(new SqlEngine.Part(text, 0), error)).readyForQuery(status()).buffer();
        }));
    }

    /**
     * A message while a COPY FROM STDIN runs (or after it failed): CopyData taken, CopyDone ending it with
     * its write, CopyFail abandoning it; Sync and Flush ignored; null for any other message.
     */
    private Mono<ByteBuf> copying(PgMessage m) {
        return switch (m.type()) {
            case 'd' -> {
                if (discardCopy) {
                    yield Mono.empty();
                }
                try {
                    copyIn.data(m.body());
                    yield Mono.empty();
                } catch (RuntimeException e) {
                    yield Mono.just(copyFailed(internal(e)));
                }
            }
            case 'c' -> {
                if (discardCopy) {
                    discardCopy = false;
                    yield Mono.empty();
                }
                SqlCopyIn done = copyIn;
                copyIn = null;
                yield done.done()
                        .map(r -> new PgWriter().commandComplete(r.tag()).readyForQuery(status()).buffer())
                        .onErrorResume(e -> Mono.fromSupplier(() -> {
                            sql.fail();
                            return new PgWriter().error(internal(e), 0).readyForQuery(status()).buffer();
                        }));
            }
            case 'f' -> {
                if (discardCopy) {
                    discardCopy = false;
                    yield Mono.empty();
                }
                String why = new PgReader(m.body()).cstringReplacing();
                yield Mono.just(copyFailed(new SqlException(SqlException.CANCELED, "COPY from stdin failed: " + why)));
            }
            case 'S', 'H' -> Mono.empty();
            default -> {
                copyIn = null;
                discardCopy = false;
                yield null;
            }
        };
    }

    /** Ends a COPY FROM STDIN with an error (nothing of it written); the client's further copy messages are dropped. */
    private ByteBuf copyFailed(SqlException e) {
        copyIn = null;
        discardCopy = true;
        sql.fail();
        return new PgWriter().error(e, 0).readyForQuery(status()).buffer();
    }

    // ------------------------------------------------------------------ start-up

    private Mono<ByteBuf> startup(byte[] body) {
        PgReader in = new PgReader(body);
        int code = in.int32();
        if (code == PgDecoder.CANCEL_CODE) {
            int targetPid = in.int32();
            int targetSecret = in.int32();
            sessions.cancel(targetPid, targetSecret);
            return Mono.error(new Close(null));
        }
        if (code >> 16 != 3) {
            throw new Close(new PgWriter().error("FATAL", "0A000", "unsupported frontend protocol " + (code >> 16) + "." + (code & 0xffff)
                    + ": Tandem speaks protocol 3.0", 0).buffer());
        }
        Map<String, String> params = new LinkedHashMap<>();
        while (in.remaining() > 1) {
            String k = in.cstringReplacing();
            params.put(k, in.cstringReplacing());
        }
        String user = params.getOrDefault("user", "");
        if (user.isEmpty()) {
            throw new Close(new PgWriter().error("FATAL", "28000", "no user name given in the start-up packet", 0).buffer());
        }
        if (!authenticator.asksPassword()) {
            // open (trust) mode: every session may do what an admin may, so it may take any slot
            refuseOverSlots(true);
            return Mono.just(ready(params));
        }
        Optional<ScramVerifier> verifier = authenticator.scramVerifier(user);
        if (verifier.isPresent()) {
            awaitingPassword = params;
            scram = new ScramServer(verifier.get());
            return Mono.just(new PgWriter().authenticationSasl(ScramServer.MECHANISM).buffer());
        }
        if (!peer.encrypted().getAsBoolean() && !peer.loopback()) {
            String why = peer.tlsOffered() ? "connect with TLS (sslmode=require)"
                    : "this server offers no TLS on the wire protocol (configure server.ssl.*), so connect from loopback";
            audit.record(ANONYMOUS, peer.address(), "authenticate", "pgwire user " + abbreviate(user), "refused: unencrypted connection");
            throw new Close(new PgWriter().error("FATAL", "28000", "password authentication for user \"" + user
                    + "\" needs an encrypted connection from " + peer.address() + ": " + why, 0).buffer());
        }
        awaitingPassword = params;
        return Mono.just(new PgWriter().authenticationCleartextPassword().buffer());
    }

    /** Checks the password of the awaited start-up: the session begins as its principal, or the connection ends with 28P01. */
    private Mono<ByteBuf> password(String password) {
        Map<String, String> params = awaitingPassword;
        awaitingPassword = null;
        return Mono.just(startAs(params, authenticator.login(params.get("user"), password)));
    }

    /**
     * One SASL message of the awaited start-up: the SASLInitialResponse (mechanism and client-first
     * message) is answered with the server-first message, the SASLResponse (client-final message) with
     * the server-final message and the session's start when the proof holds, else 28P01. A malformed
     * message ends the connection with 08P01.
     */
    private org.reactivestreams.Publisher<ByteBuf> sasl(byte[] body) {
        String user = awaitingPassword.get("user");
        try {
            if (!scram.started()) {
                PgReader in = new PgReader(body);
                String mechanism = in.cstringReplacing();
                if (!mechanism.equals(ScramServer.MECHANISM)) {
                    throw new ScramServer.Violation("SASL mechanism \"" + abbreviate(mechanism) + "\" is not offered; the server offers "
                            + ScramServer.MECHANISM);
                }
                int length = in.int32();
                if (length < 0 || length != in.remaining()) {
                    throw new ScramServer.Violation("SASLInitialResponse's data length " + length + " does not match the message ("
                            + in.remaining() + " bytes)");
                }
                return Mono.just(new PgWriter().authenticationSaslContinue(scram.first(in.bytes(length))).buffer());
            }
            byte[] serverFinal = scram.last(body);
            Map<String, String> params = awaitingPassword;
            awaitingPassword = null;
            ByteBuf started = startAs(params, serverFinal == null ? Optional.empty() : authenticator.scramLogin(user, scram.verifier()));
            return Flux.just(new PgWriter().authenticationSaslFinal(serverFinal).buffer(), started);
        } catch (ScramServer.Violation | IllegalStateException e) {
            audit.record(ANONYMOUS, peer.address(), "authenticate", "pgwire user " + abbreviate(user), "refused: malformed SASL message");
            owed = guards.throttle().failed("pgwire", "malformed", peer.address(), user);
            throw new Close(new PgWriter().error("FATAL", "08P01", e.getMessage(), 0).buffer());
        }
    }

    /**
     * The session's start as {@code who} (the principal a password or a SCRAM proof logged in as): its
     * AuthenticationOk and parameters, or a Close with 28P01 (refused) or 42501 (no SQL role), audited.
     */
    private ByteBuf startAs(Map<String, String> params, Optional<AccessPrincipal> who) {
        String user = params.get("user");
        if (who.isEmpty()) {
            audit.record(ANONYMOUS, peer.address(), "authenticate", "pgwire user " + abbreviate(user), "refused: password authentication failed");
            owed = guards.throttle().failed("pgwire", "password", peer.address(), user);
            throw new Close(new PgWriter().error("FATAL", "28P01", "password authentication failed for user \"" + user + "\"", 0).buffer());
        }
        if (!who.get().has(dev.tandem.security.Role.READER)) {
            audit.record(who.get().name(), peer.address(), "authenticate", "pgwire user " + abbreviate(user), "forbidden: no SQL role");
            throw new Close(new PgWriter().error("FATAL", INSUFFICIENT_PRIVILEGE, "permission denied: '" + who.get().name()
                    + "' has no role that may use SQL (reader, writer or admin)", 0).buffer());
        }
        guards.throttle().succeeded(peer.address());
        refuseOverSlots(who.get().has(dev.tandem.security.Role.ADMIN));
        principal = who.get();
        sql.visibleObjects(principal::mayAccess);
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
        }).onErrorMap(e -> !(e instanceof Close), e -> new Close(new PgWriter().error("FATAL", PROTOCOL_VIOLATION,
                "protocol violation: " + e.getMessage(), 0).buffer())).onErrorResume(Close.class, c -> owed.isZero() ? Flux.error(c) : Mono.delay(owed, guards.timer()).then(Mono.error(c)));
        return before.isZero() ? checked : Mono.delay(before, guards.timer()).thenMany(checked);
    }

    /** Ends the start-up with FATAL {@code 53300} when the server's connection slots refuse this session. */
    private void refuseOverSlots(boolean admin) {
        String refusal = guards.slots().refusal(admin);
        if (refusal != null) {
            throw new Close(new PgWriter().error("FATAL", TOO_MANY_CONNECTIONS, refusal, 0).buffer());
        }
    }

    private ByteBuf ready(Map<String, String> params) {
        started = true;
        user = params.getOrDefault("user", user);
        PgWriter w = new PgWriter().authenticationOk();
        w.parameterStatus("server_version", SqlEngine.SERVER_VERSION);
        w.parameterStatus("server_encoding", "UTF8");
        w.parameterStatus("client_encoding", "UTF8");
        w.parameterStatus("DateStyle", "ISO, MDY");
        w.parameterStatus("TimeZone", "UTC");
        w.parameterStatus("IntervalStyle", "postgres");
        w.parameterStatus("integer_datetimes", "on");
        w.parameterStatus("standard_conforming_strings", "on");
        w.parameterStatus("is_superuser", "off");
        w.parameterStatus("session_authorization", params.get("user"));
        application = params.getOrDefault("application_name", "");
        w.parameterStatus("application_name", application);
        w.backendKeyData(pid, secret);
        return w.readyForQuery('I').buffer();
    }

    private static String printable(char type) {
        return type >= 0x20 && type < 0x7f ? String.valueOf(type) : String.format("\\x%02x", (int) type);
    }

    // ------------------------------------------------------------------ authorization

    /**
     * Refuses ({@code 42501}, audited) a statement the session's principal may not run. The role is checked
     * first; only a principal with an allow-list has the statement's objects found, which may plan it (off
     * the event loop, as {@link SqlEngine#objectsAsync} does).
     */
    private Mono<Void> authorize(String text) {
        AccessPrincipal who = principal;
        if (who == null) {
            return Mono.empty();
        }
        SqlStatement.Kind kind = SqlEngine.kind(text);
        String byRole = SqlGrants.refusal(who, kind, java.util.Set::of);
        Mono<String> refusal = byRole != null || who.objects() == null ? Mono.justOrEmpty(byRole)
                : engine.objectsAsync(text).mapNotNull(objects -> SqlGrants.refusal(who, kind, () -> objects));
        return refusal.flatMap(r -> {
            audit.record(who.name(), peer.address(), "sql", abbreviate(text), "forbidden: " + r);
            return Mono.error(new SqlException(INSUFFICIENT_PRIVILEGE, "permission denied: " + r));
        });
    }

    /**
     * What the session's principal may see of the catalog: the objects it is granted (all without security),
     * and in {@code pg_stat_activity} every session, the statements of other users' only to an admin.
     */
    private CatalogAccess catalogAccess() {
        if (principal == null) {
            return CatalogAccess.all(user).withBackends(() -> sessions.backends(this, true));
        }
        boolean admin = principal.has(dev.tandem.security.Role.ADMIN);
        return new CatalogAccess(user, principal::mayAccess, principal.has(dev.tandem.security.Role.WRITER))
                .withBackends(() -> sessions.backends(this, admin));
    }

    /** The statement the session runs now (or last ran), for {@code pg_stat_activity}. */
    private void noteQuery(String text) {
        lastQuery = text.length() > MAX_ACTIVITY_QUERY ? text.substring(0, MAX_ACTIVITY_QUERY) : text;
        queryStart = System.currentTimeMillis();
    }

    /**
     * The session as {@code pg_stat_activity} shows it: with its state and statement when {@code full},
     * else without ({@code <insufficient privilege>}); a session reading it sees itself {@code active}.
     */
    dev.tandem.sql.catalog.Backend backend(boolean full, boolean self) {
        String state = self || running != null ? "active" : switch (status()) {
            case 'T' -> "idle in transaction";
            case 'E' -> "idle in transaction (aborted)";
            default -> "idle";
        };
        String app = sql.applicationName() != null ? sql.applicationName() : application;
        return new dev.tandem.sql.catalog.Backend(pid, user, peer.address(), -1, app, backendStart, full ? state : null,
                full ? lastQuery : null, full ? queryStart : 0);
    }

    /** The user the session logged in as. */
    String user() {
        return user;
    }

    private void authorizeCatalog() {
        String refusal = principal == null ? null : SqlGrants.refusal(principal, SqlStatement.Kind.READ, java.util.Set::of);
        if (refusal != null) {
            throw new SqlException(INSUFFICIENT_PRIVILEGE, "permission denied: " + refusal);
        }
    }

    /** A catalog change's outcome in the audit trail. */
    private Mono<SqlResult> audited(SqlStatement statement, Mono<SqlResult> result) {
        if (statement.kind() != SqlStatement.Kind.DDL) {
            return result;
        }
        String text = statement.text();
        String who = principal == null ? ANONYMOUS : principal.name();
        return result.doOnSuccess(r -> audit.record(who, peer.address(), "sql", abbreviate(text), r.command()))
                .doOnError(e -> audit.record(who, peer.address(), "sql", abbreviate(text), "failed: " + e.getMessage()));
    }

    private static final String INSUFFICIENT_PRIVILEGE = "42501";

    /** A client's text as the audit trail shows it: one line (white space runs as one space, other control characters as ?), at most 200 characters. */
    private static String abbreviate(String text) {
        String t = text.strip().replaceAll("\\s+", " ").replaceAll("\\p{Cntrl}", "?");
        return t.length() <= 200 ? t : t.substring(0, 200) + "...";
    }

    // ------------------------------------------------------------------ simple query

    private Mono<ByteBuf> simpleQuery(String text) {
        List<SqlEngine.Part> parts;
        try {
            parts = SqlEngine.splitAt(text);
        } catch (SqlException e) {
            sql.fail();
            return Mono.just(new PgWriter().error(e, position(new SqlEngine.Part(text, 0), e)).readyForQuery(status()).buffer());
        }
        if (parts.isEmpty()) {
            return Mono.just(new PgWriter().simple('I').readyForQuery(status()).buffer());
        }
        PgWriter w = new PgWriter();
        return Flux.fromIterable(parts)
                .concatMap(part -> run(part.text(), List.of()).map(r -> {
                    if (r.isQuery()) {
                        w.rowDescription(r.columns(), i -> 0);
                        for (Object[] row : r.rows()) {
                            w.dataRow(row, r.columns(), i -> 0);
                        }
                    }
                    w.commandComplete(r.command().equals("EMPTY") ? "" : r.tag());
                    return r;
                }).onErrorMap(e -> !(e instanceof Located), e -> located(part, e)))
                .then(Mono.fromSupplier(() -> w.readyForQuery(status()).buffer()))
                .onErrorResume(Located.class, e -> Mono.fromSupplier(() -> {
                    sql.fail();
                    return w.error(e.error, e.position).readyForQuery(status()).buffer();
                }));
    }

    /** A simple query that may hold a {@code SUBSCRIBE} or {@code COPY (SUBSCRIBE ...)} (a guess: any statement so starting). */
    private static final java.util.regex.Pattern SUBSCRIBE = java.util.regex.Pattern.compile("(?i)(^|;)\\s*(subscribe|copy)\\b");

    /**
     * A simple query with a {@code SUBSCRIBE} in it: each statement answered in turn, a SUBSCRIBE as COPY
     * out ({@code CopyOutResponse}, a {@code CopyData} text row per change, then {@code CopyDone} and
     * {@code COPY n} when it ends by {@code UP TO}), flushed as its rows come. A CancelRequest ends it
     * with 57014; closing the connection ends it too (and drops what it owned).
     */
    private Flux<ByteBuf> streamingQuery(String text) {
        List<SqlEngine.Part> parts;
        try {
            parts = SqlEngine.splitAt(text);
        } catch (SqlException e) {
            sql.fail();
            return Flux.just(new PgWriter().error(e, position(new SqlEngine.Part(text, 0), e)).readyForQuery(status()).buffer());
        }
        return Flux.fromIterable(parts)
                .concatMap(part -> statement(part.text()).onErrorMap(e -> !(e instanceof Located), e -> located(part, e)))
                .concatWith(Mono.fromSupplier(() -> new PgWriter().readyForQuery(status()).buffer()))
                .onErrorResume(Located.class, e -> Mono.fromSupplier(() -> {
                    sql.fail();
                    return new PgWriter().error(e.error, e.position).readyForQuery(status()).buffer();
                }));
    }

    /** A statement's failure placed in the whole query string; a failure that is no SQL error becomes {@code XX000}. */
    private static Located located(SqlEngine.Part part, Throwable e) {
        SqlException error = internal(e);
        return new Located(error, position(part, error));
    }

    /** One statement of a simple query, answered on its own: rows and a tag, or a COPY-out stream. */
    private Flux<ByteBuf> statement(String part) {
        return Flux.defer(() -> {
            if (PgCatalogQueries.reads(part)) {
                return answer(catalogRead(part)).flux();
            }
            return authorize(part).then(engine.prepareAsync(part, sql))
                    .flatMapMany(s -> SqlEngine.streams(s) ? copyOut(s) : SqlEngine.copiesOut(s) ? copiedOut(s) : answer(run(s, List.of())).flux());
        });
    }

    /** A simple query's answer: its rows (in text) and its command tag. */
    private static Mono<ByteBuf> answer(Mono<SqlResult> result) {
        return result.map(r -> {
            PgWriter w = new PgWriter();
            if (r.isQuery()) {
                w.rowDescription(r.columns(), i -> 0);
                for (Object[] row : r.rows()) {
                    w.dataRow(row, r.columns(), i -> 0);
                }
            }
            return w.commandComplete(r.command().equals("EMPTY") ? "" : r.tag()).buffer();
        });
    }

    /** A {@code COPY ... TO STDOUT} of a table or query: CopyOutResponse, a CopyData per line, CopyDone and {@code COPY n}. */
    private Flux<ByteBuf> copiedOut(SqlStatement s) {
        return run(s, List.of()).map(r -> {
            PgWriter w = new PgWriter().copyOutResponse(SqlEngine.copyColumns(s));
            for (Object[] line : r.rows()) {
                w.copyData(((String) line[0]).getBytes(StandardCharsets.UTF_8));
            }
            return w.simple('c').commandComplete(r.tag()).buffer();
        }).flux();
    }

    private Flux<ByteBuf> copyOut(SqlStatement s) {
        Sinks.One<Boolean> cancel = Sinks.one();
        running = cancel;
        java.util.concurrent.atomic.AtomicBoolean canceled = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicLong rows = new java.util.concurrent.atomic.AtomicLong();
        // A batch at a time, once the socket can take it: a client that stops reading leaves the changes in the
        // subscription's bounded buffer, which ends the stream as lagged past its bound (and the session goes on).
        Flux<ByteBuf> data = engine.subscribe(s, List.of(), sql)
                .concatMap(batch -> peer.writable().whenWritable().thenReturn(batch), 1)
                .map(batch -> {
                    PgWriter w = new PgWriter();
                    for (Object[] row : batch) {
                        w.copyData(row);
                    }
                    rows.addAndGet(batch.size());
                    return w.buffer();
                })
                .takeUntilOther(cancel.asMono().doOnNext(x -> canceled.set(true)));
        return Flux.concat(
                        Mono.fromSupplier(() -> new PgWriter().copyOutResponse(s.columns().size()).buffer()),
                        data,
                        Mono.defer(() -> canceled.get()
                                ? Mono.error(new SqlException(SqlException.CANCELED, "canceling statement due to user request"))
                                : Mono.just(new PgWriter().simple('c').commandComplete("COPY " + rows.get()).buffer())))
                .doFinally(x -> running = null);
    }

    /** A SQL error and its position in the whole query string. */
    private static final class Located extends RuntimeException {
        final SqlException error;
        final int position;

        Located(SqlException error, int position) {
            super(error.getMessage(), null, false, false);
            this.error = error;
            this.position = position;
        }
    }

    /** Prepares (or reads the catalog with) and executes one statement; cancellable when it is a query. */
    private Mono<SqlResult> run(String statement, List<Object> params) {
        if (PgCatalogQueries.reads(statement)) {
            return catalogRead(statement);
        }
        return Mono.defer(() -> authorize(statement)
                .then(engine.prepareAsync(statement, sql))
                .flatMap(s -> run(s, params)));
    }

    /** Executes a prepared statement: audited when it changes the catalog, cancellable when it is a query. */
    private Mono<SqlResult> run(SqlStatement s, List<Object> params) {
        return audited(s, cancellable(engine.execute(s, params, sql), s.columns() != null));
    }

    /** A read of the catalog, prepared and run at once; refused in a failed block as the engine refuses statements. */
    private Mono<SqlResult> catalogRead(String text) {
        return Mono.defer(() -> {
            failedBlock();
            authorizeCatalog();
            return engine.prepareCatalog(text, user, pid, catalogAccess()).flatMap(q -> engine.executeCatalog(q, List.of(), catalogAccess()));
        });
    }

    private Mono<SqlResult> cancellable(Mono<SqlResult> exec, boolean query) {
        if (!query) {
            return exec;
        }
        // takeUntilOther stops at the companion's first value (not at its completion), so a cancel emits one
        Sinks.One<Boolean> cancel = Sinks.one();
        running = cancel;
        return exec.takeUntilOther(cancel.asMono())
                .switchIfEmpty(Mono.error(() -> new SqlException(SqlException.CANCELED, "canceling statement due to user request")))
                .doFinally(s -> running = null);
    }

    private ByteBuf errorAnswer(SqlException e, int position) {
        sql.fail();
        return new PgWriter().error(e, position).buffer();
    }

    /** Refuses a catalog query (answered here, not by the engine) in a failed transaction block, as the engine refuses statements. */
    private void failedBlock() {
        if (sql.block() == SqlSession.Block.FAILED) {
            throw new SqlException("25P02", "current transaction is aborted, commands ignored until end of transaction block");
        }
    }

    /** The 1-based character position of an error in the query string, from its line and column in the statement {@code part} of it. */
    private static int position(SqlEngine.Part part, SqlException e) {
        if (e.line() <= 0) {
            return 0;
        }
        String statement = part.text();
        int offset = 0;
        int line = 1;
        while (line < e.line() && offset < statement.length()) {
            if (statement.charAt(offset++) == '\n') {
                line++;
            }
        }
        return part.offset() + offset + e.column();
    }

    // ------------------------------------------------------------------ extended protocol

    /** Runs a step of the extended protocol; an error is answered and the rest skipped until Sync. */
    private Mono<ByteBuf> guarded(java.util.function.Supplier<ByteBuf> step) {
        try {
            return Mono.just(step.get());
        } catch (SqlException e) {
            skipToSync = true;
            int position = errorText != null ? position(new SqlEngine.Part(errorText, 0), e) : 0;
            errorText = null;
            return Mono.just(errorAnswer(e, position));
        } catch (PgReader.Malformed e) {
            throw e;
        } catch (RuntimeException e) {
            skipToSync = true;
            errorText = null;
            return Mono.just(errorAnswer(internal(e), 0));
        }
    }

    /**
     * Runs a step of the extended protocol that answers later (a Parse, planned off the event loop); an
     * error is answered, placed in {@link #errorText} when it has a position, and the rest skipped until Sync.
     */
    private Mono<ByteBuf> guardedLater(java.util.function.Supplier<Mono<ByteBuf>> step) {
        Mono<ByteBuf> answer;
        try {
            answer = step.get();
        } catch (PgReader.Malformed e) {
            throw e;
        } catch (RuntimeException e) {
            answer = Mono.error(e);
        }
        return answer.doOnSuccess(b -> errorText = null).onErrorResume(e -> !(e instanceof PgReader.Malformed), e -> {
            skipToSync = true;
            SqlException error = internal(e);
            int position = errorText != null ? position(new SqlEngine.Part(errorText, 0), error) : 0;
            errorText = null;
            return Mono.just(errorAnswer(error, position));
        });
    }

    private Mono<ByteBuf> parse(PgReader in) {
        String name = in.cstring();
        String query = in.cstring();
        int n = in.count(4);
        int[] oids = new int[n];
        for (int i = 0; i < n; i++) {
            oids[i] = in.int32();
        }
        in.end();
        if (!name.isEmpty()) {
            if (statements.containsKey(name)) {
                throw new SqlException("42P05", "prepared statement \"" + name + "\" already exists");
            }
            if (statements.size() - (statements.containsKey("") ? 1 : 0) >= MAX_NAMED) {
                throw new SqlException(SqlException.PROGRAM_LIMIT, "a session may hold at most " + MAX_NAMED
                        + " named prepared statements; close (deallocate) some first");
            }
        }
        List<String> parts = SqlEngine.split(query);
        if (parts.size() > 1) {
            throw new SqlException(SqlException.SYNTAX, "cannot insert multiple commands into a prepared statement");
        }
        if (parts.isEmpty()) {
            return Mono.just(parsed(name, new Prepared(null, null, oids, "")));
        }
        String text = parts.get(0);
        if (PgCatalogQueries.reads(text)) {
            failedBlock();
            authorizeCatalog();
            return engine.prepareCatalog(text, user, pid, catalogAccess()).map(q -> parsed(name, new Prepared(null, q, oids, text)));
        }
        errorText = text;
        return authorize(text).then(engine.prepareAsync(text, sql)).map(s -> parsed(name, new Prepared(s, null, oids, text)));
    }

    /** Keeps a parsed statement under its name: ParseComplete. */
    private ByteBuf parsed(String name, Prepared p) {
        statements.put(name, p);
        return new PgWriter().simple('1').buffer();
    }

    private ByteBuf bind(PgReader in) {
        String portal = in.cstring();
        String name = in.cstring();
        Prepared p = statements.get(name);
        if (p == null) {
            throw new SqlException("26000", "prepared statement \"" + name + "\" does not exist");
        }
        int nf = in.count(2);
        short[] formats = new short[nf];
        for (int i = 0; i < nf; i++) {
            formats[i] = (short) in.int16();
        }
        int np = in.uint16();
        if (nf > 1 && nf != np) {
            throw new SqlException(PROTOCOL_VIOLATION, "bind message has " + nf + " parameter formats but " + np + " parameters");
        }
        List<Object> params = new ArrayList<>();
        List<DatumType> types = p.parameterTypes();
        if (np != types.size()) {
            throw new SqlException(PROTOCOL_VIOLATION, "bind message supplies " + np + " parameters, but prepared statement \"" + name
                    + "\" requires " + types.size());
        }
        for (int i = 0; i < np; i++) {
            int len = in.int32();
            byte[] b = len == -1 ? null : in.bytes(len);
            int format = nf == 0 ? 0 : nf == 1 ? formats[0] : formats[i];
            if (format != 0 && format != 1) {
                throw new SqlException(INVALID_PARAMETER_VALUE, "unsupported format code: " + format);
            }
            if (b == null) {
                params.add(null);
            } else if (format == 0) {
                params.add(PgReader.utf8(b));
            } else {
                int oid = i < p.paramOids().length && p.paramOids()[i] != 0 ? p.paramOids()[i]
                        : i < types.size() ? PgWriter.oid(types.get(i)) : 25;
                params.add(PgWriter.decodeBinary(b, oid));
            }
        }
        int nr = in.count(2);
        short[] results = new short[nr];
        for (int i = 0; i < nr; i++) {
            results[i] = (short) in.int16();
            if (results[i] != 0 && results[i] != 1) {
                throw new SqlException(INVALID_PARAMETER_VALUE, "unsupported format code: " + results[i]);
            }
        }
        in.end();
        List<SqlColumn> columns = p.columns();
        if (nr > 1 && columns != null && nr != columns.size()) {
            throw new SqlException(PROTOCOL_VIOLATION, "bind message has " + nr + " result formats but query has " + columns.size() + " columns");
        }
        if (!portal.isEmpty()) {
            if (portals.containsKey(portal)) {
                throw new SqlException("42P03", "portal \"" + portal + "\" already exists");
            }
            if (portals.size() - (portals.containsKey("") ? 1 : 0) >= MAX_NAMED) {
                throw new SqlException(SqlException.PROGRAM_LIMIT, "a session may hold at most " + MAX_NAMED + " named portals; close some first");
            }
        }
        portals.put(portal, new Portal(p, params, results));
        return new PgWriter().simple('2').buffer();
    }

    private ByteBuf describe(PgReader in) {
        char kind = (char) in.int8();
        String name = in.cstring();
        in.end();
        if (kind != 'S' && kind != 'P') {
            throw new SqlException(PROTOCOL_VIOLATION, "invalid DESCRIBE message subtype " + (int) kind);
        }
        PgWriter w = new PgWriter();
        if (kind == 'S') {
            Prepared p = statements.get(name);
            if (p == null) {
                throw new SqlException("26000", "prepared statement \"" + name + "\" does not exist");
            }
            w.parameterDescription(p.describedOids());
            return (p.columns() == null ? w.simple('n') : w.rowDescription(p.columns(), i -> 0)).buffer();
        }
        Portal portal = portals.get(name);
        if (portal == null) {
            throw new SqlException("34000", "portal \"" + name + "\" does not exist");
        }
        List<SqlColumn> cols = portal.prepared.columns();
        return (cols == null ? w.simple('n') : w.rowDescription(cols, portal::format)).buffer();
    }

    private Mono<ByteBuf> execute(PgReader in) {
        String name = in.cstring();
        int maxRows = in.int32();
        in.end();
        Portal portal = portals.get(name);
        if (portal == null) {
            return guarded(() -> {
                throw new SqlException("34000", "portal \"" + name + "\" does not exist");
            });
        }
        noteQuery(portal.prepared.text());
        Mono<SqlResult> result;
        if (portal.result != null) {
            result = Mono.just(portal.result);
        } else if (portal.prepared.canned() != null) {
            result = engine.executeCatalog(portal.prepared.canned(), portal.params, catalogAccess());
        } else if (portal.prepared.statement() == null) {
            return Mono.just(new PgWriter().simple('I').buffer());
        } else if (SqlEngine.copiesOut(portal.prepared.statement())) {
            return guarded(() -> {
                throw SqlException.notSupported("COPY ... TO STDOUT in the extended query protocol (send it as a simple query)");
            });
        } else {
            result = audited(portal.prepared.statement(),
                    cancellable(engine.execute(portal.prepared.statement(), portal.params, sql), portal.prepared.columns() != null));
        }
        return result.map(r -> {
            portal.result = r;
            PgWriter w = new PgWriter();
            if (!r.isQuery()) {
                return w.commandComplete(r.tag()).buffer();
            }
            Function<Integer, Integer> format = portal::format;
            int end = maxRows > 0 ? Math.min(r.rows().size(), portal.sent + maxRows) : r.rows().size();
            for (int i = portal.sent; i < end; i++) {
                w.dataRow(r.rows().get(i), r.columns(), format);
            }
            portal.sent = end;
            return (end < r.rows().size() ? w.simple('s') : w.commandComplete(r.tag())).buffer();
        }).onErrorResume(e -> {
            skipToSync = true;
            return Mono.just(errorAnswer(internal(e), 0));
        });
    }

    private ByteBuf close(PgReader in) {
        char kind = (char) in.int8();
        String name = in.cstring();
        in.end();
        if (kind != 'S' && kind != 'P') {
            throw new SqlException(PROTOCOL_VIOLATION, "invalid CLOSE message subtype " + (int) kind);
        }
        if (kind == 'S') {
            statements.remove(name);
        } else {
            portals.remove(name);
        }
        return new PgWriter().simple('3').buffer();
    }
}
