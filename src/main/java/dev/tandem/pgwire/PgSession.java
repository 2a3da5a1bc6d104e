package dev.tandem.pgwire;

import dev.tandem.controller.ReadAdmission;
import dev.tandem.net.WritableGate;
import dev.tandem.security.AccessPrincipal;
import dev.tandem.security.AuditLog;
import dev.tandem.security.LoginThrottle;
import dev.tandem.security.PrincipalLimits;
import dev.tandem.security.SqlGrants;
import dev.tandem.sql.PlanningAdmission;
import dev.tandem.sql.SqlEngine;
import dev.tandem.sql.SqlException;
import dev.tandem.sql.SqlResult;
import dev.tandem.sql.SqlSession;
import dev.tandem.sql.SqlState;
import dev.tandem.sql.SqlStatement;
import dev.tandem.sql.catalog.CatalogAccess;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Fuseable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * One PostgreSQL wire-protocol (v3) connection: what its parts share (the SQL session, the principal, the
 * statement in flight), the routing of each {@link FrontendMessage} to the part whose state it belongs to
 * ({@link PgStartup} until the session has started, then {@link PgSimpleProtocol} and
 * {@link PgExtendedProtocol}), the errors answered for all of them, and the session's authorization.
 *
 * <p><b>Authorization.</b> Once started ({@link PgStartup}), the session runs as the principal that logged
 * in: each statement needs the role of its kind and the grants on the objects it names ({@link SqlGrants};
 * else {@code 42501}), checked when it is parsed.
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
    static final String ANONYMOUS = "anonymous";
    /** SQLSTATE configuration_limit_exceeded: a principal at its limit of subscriptions. */
    static final SqlState LIMIT_EXCEEDED = SqlState.CONFIGURATION_LIMIT_EXCEEDED;
    /** SQLSTATE too_many_connections. */
    static final SqlState TOO_MANY_CONNECTIONS = SqlState.TOO_MANY_CONNECTIONS;
    /** SQLSTATE insufficient_privilege. */
    static final SqlState INSUFFICIENT_PRIVILEGE = SqlState.INSUFFICIENT_PRIVILEGE;

    private final SqlEngine engine;
    private final AuditLog audit;
    private final Peer peer;
    private final PgWireServer.Sessions sessions;
    private final PrincipalLimits limits;
    final SqlSession sql = new SqlSession(true);
    private final int pid;
    private final int secret;
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
    /** The statement in flight that a CancelRequest ends (a query or a COPY-out stream), else null. */
    volatile Sinks.One<Boolean> running;
    private final PgStartup startup;
    private final PgSimpleProtocol simple;
    private final PgExtendedProtocol extended;

    PgSession(SqlEngine engine, PgAuthenticator authenticator, AuditLog audit, PrincipalLimits limits, Guards guards, Peer peer,
            PgWireServer.Sessions sessions, int pid, int secret) {
        this.engine = engine;
        this.limits = limits;
        sql.streamPermits(this::subscriptionPermit);
        this.audit = audit;
        this.peer = peer;
        this.sessions = sessions;
        this.pid = pid;
        this.secret = secret;
        this.startup = new PgStartup(this, authenticator, audit, peer, guards, sessions, pid, secret);
        this.extended = new PgExtendedProtocol(this, engine);
        this.simple = new PgSimpleProtocol(this, engine, peer, extended);
    }

    int secret() {
        return secret;
    }

    int pid() {
        return pid;
    }

    /** Whether the session has started (authenticated); until then the authentication timeout may end it. */
    boolean started() {
        return startup.started();
    }

    /** The session starts as {@code who} (a password or a SCRAM proof logged in as it): it sees only what it may access. */
    void runAs(AccessPrincipal who) {
        principal = who;
        sql.visibleObjects(principal::mayAccess);
    }

    /** The session has started with the start-up {@code params}: its user and application_name. */
    void begin(java.util.Map<String, String> params) {
        user = params.getOrDefault("user", user);
        application = params.getOrDefault("application_name", "");
        for (String zone : startupZones(params)) {
            try {
                sql.startupZone(zone);
            } catch (SqlException e) {
                throw new Close(new PgWriter().error("FATAL", e.state(), e.getMessage(), 0).buffer());
            }
        }
    }

    /**
     * The {@code TimeZone}s a client starts the session in, in the order PostgreSQL applies them: {@code -c TimeZone=...} in
     * its {@code options}, then its {@code TimeZone} start-up parameter; the last is the session's, an unknown one refuses it.
     */
    static List<String> startupZones(java.util.Map<String, String> params) {
        List<String> zones = new ArrayList<>();
        String options = params.get("options");
        if (options != null) {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?:-c\\s*|--)timezone=((?:\\\\.|\\S)+)", java.util.regex.Pattern.CASE_INSENSITIVE)
                    .matcher(options);
            while (m.find()) {
                zones.add(m.group(1).replaceAll("\\\\(.)", "$1"));
            }
        }
        for (java.util.Map.Entry<String, String> e : params.entrySet()) {
            if (e.getKey().equalsIgnoreCase("timezone")) {
                zones.add(e.getValue());
            }
        }
        return zones;
    }

    /** The zone last reported to the client in a ParameterStatus. */
    private volatile String reportedZone;

    /** The session's {@code TimeZone} when it changed since it was last reported to the client (a ParameterStatus is owed), else null. */
    String zoneReport() {
        String now = sql.zone().name();
        if (now.equals(reportedZone)) {
            return null;
        }
        reportedZone = now;
        return now;
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
            throw new SqlException(LIMIT_EXCEEDED, limits.subscriptionsExhausted(who));
        }
        return permit::close;
    }

    /**
     * The answer to one frontend message. The answers to the extended protocol's steps (Parse, Bind,
     * Describe, Execute, Close) are held and sent with what follows them — at the latest with the Sync's
     * ReadyForQuery or a Flush — as PostgreSQL sends them: one write a statement, not one a message.
     */
    Flux<ByteBuf> handle(FrontendMessage m) {
        Flux<ByteBuf> out = answer(m);
        if (started() && HELD_STEPS.indexOf(m.type()) >= 0) {
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

    private Flux<ByteBuf> answer(FrontendMessage m) {
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
            if (!started()) {
                return Flux.error(new Close(new PgWriter().error("FATAL", e.state(), e.getMessage(), 0).buffer()));
            }
            return Flux.just(refused(m, e));
        } catch (PgReader.Malformed e) {
            if (!started()) {
                return Flux.error(new Close(new PgWriter().error("FATAL", PROTOCOL_VIOLATION, "protocol violation: " + e.getMessage(), 0).buffer()));
            }
            return Flux.just(refused(m, new SqlException(PROTOCOL_VIOLATION, e.getMessage())));
        } catch (RuntimeException e) {
            if (!started()) {
                return Flux.error(new Close(new PgWriter().error("FATAL", SqlState.PROTOCOL_VIOLATION, "protocol violation: " + e, 0).buffer()));
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
    private ByteBuf unexpected(FrontendMessage m, Throwable e) {
        return refused(m, internal(e));
    }

    /**
     * The answer to a message refused with {@code e} (a malformed field, a bad encoding): the error, then
     * a simple query is ready for the next, and an extended-protocol step skips to Sync, as in PostgreSQL.
     */
    private ByteBuf refused(FrontendMessage m, SqlException e) {
        PgWriter w = new PgWriter().error(e, 0);
        sql.fail();
        if (m.type() == 'Q') {
            return w.readyForQuery(status(), zoneReport()).buffer();
        }
        extended.skipToSync(EXTENDED_STEPS.indexOf(m.type()) >= 0);
        return w.buffer();
    }

    /** The extended-protocol messages after whose error the session skips to Sync. */
    private static final String EXTENDED_STEPS = "PBDECH";
    /** SQLSTATE protocol_violation. */
    static final SqlState PROTOCOL_VIOLATION = SqlState.PROTOCOL_VIOLATION;
    /** SQLSTATE invalid_parameter_value: a format code other than text (0) or binary (1). */
    static final SqlState INVALID_PARAMETER_VALUE = SqlState.INVALID_PARAMETER_VALUE;

    /** A failure that is no SQL error, logged with its stack, as the {@code XX000} error a client gets. */
    static SqlException internal(Throwable e) {
        if (e instanceof SqlException s) {
            return s;
        }
        LOG.error("internal error in a PostgreSQL-protocol session", e);
        return new SqlException(SqlException.INTERNAL, "internal error: " + e.getClass().getSimpleName()
                + (e.getMessage() == null ? "" : ": " + e.getMessage()));
    }

    /** The transaction status ReadyForQuery reports. */

    /** The transaction status ReadyForQuery reports. */
    char status() {
        return sql.block().status();
    }

    /** The transaction status ReadyForQuery reports now: {@code I} idle, {@code T} in a block, {@code E} in a failed block. */
    char transactionStatus() {
        return status();
    }

    /**
     * The answer to {@code m} by the part of the session whose state it belongs to: a broken stream ends the
     * connection in any state, start-up takes every message until the session has started, then an
     * extended-protocol error skips to Sync and a COPY FROM STDIN takes its messages, before each message
     * goes to the simple or the extended protocol.
     */
    private org.reactivestreams.Publisher<ByteBuf> dispatch(FrontendMessage m) {
        if (m.type() < ' ') {
            // the pseudo-types of the start-up packets and of a broken stream (no message after start-up has a control-character type)
            switch (m) {
                case FrontendMessage.TooLarge t ->
                    throw new Close(new PgWriter().error("FATAL", SqlState.PROTOCOL_VIOLATION, "invalid message length (messages are limited)", 0).buffer());
                case FrontendMessage.Invalid i -> throw new Close(new PgWriter().error("FATAL", SqlState.PROTOCOL_VIOLATION, i.reason(), 0).buffer());
                case FrontendMessage.SslRequest r -> {
                    return Mono.just(Unpooled.wrappedBuffer(new byte[] {'N'}));
                }
                case FrontendMessage.GssEncRequest r -> {
                    return Mono.just(Unpooled.wrappedBuffer(new byte[] {'N'}));
                }
                default -> {
                }
            }
        }
        if (!startup.started()) {
            return startup.receive(m);
        }
        char type = m.type();
        if (extended.skippingToSync() && type != 'S' && type != 'X' && type != 'Q') {
            return Mono.empty();
        }
        if (simple.copying()) {
            Mono<ByteBuf> copying = simple.copying(m);
            if (copying != null) {
                return copying;
            }
        }
        return switch (m) {
            case FrontendMessage.Query q -> simple.query(q.text());
            case FrontendMessage.Malformed bad -> throw bad.error();
            case FrontendMessage.Parse _, FrontendMessage.Bind _, FrontendMessage.Describe _, FrontendMessage.Execute _, FrontendMessage.Close _,
                    FrontendMessage.Sync _ -> extended.step(m);
            case FrontendMessage.Flush f -> Mono.empty();
            case FrontendMessage.Terminate x -> Mono.error(new Close(null));
            case FrontendMessage.CopyData _, FrontendMessage.CopyDone _, FrontendMessage.CopyFail _ -> extended.refuseCopy();
            default -> throw new Close(new PgWriter().error("FATAL", SqlState.PROTOCOL_VIOLATION, "unknown message type '" + PgStartup.printable(type) + "'", 0).buffer());
        };
    }

    // ------------------------------------------------------------------ authorization

    /**
     * Refuses ({@code 42501}, audited) a statement the session's principal may not run. The role is checked
     * first; only a principal with an allow-list has the statement's objects found, which may plan it (off
     * the event loop, as {@link SqlEngine#objectsAsync} does).
     */
    Mono<Void> authorize(String text) {
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
    CatalogAccess catalogAccess() {
        if (principal == null) {
            return CatalogAccess.all(user).withBackends(() -> sessions.backends(this, true)).withTimeZone(sql.zone().name());
        }
        boolean admin = principal.has(dev.tandem.security.Role.ADMIN);
        return new CatalogAccess(user, principal::mayAccess, principal.has(dev.tandem.security.Role.WRITER))
                .withBackends(() -> sessions.backends(this, admin)).withTimeZone(sql.zone().name());
    }

    /** The statement the session runs now (or last ran), for {@code pg_stat_activity}. */
    void noteQuery(String text) {
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

    void authorizeCatalog() {
        String refusal = principal == null ? null : SqlGrants.refusal(principal, SqlStatement.Kind.READ, java.util.Set::of);
        if (refusal != null) {
            throw new SqlException(INSUFFICIENT_PRIVILEGE, "permission denied: " + refusal);
        }
    }

    /** A catalog change's outcome in the audit trail. */
    Mono<SqlResult> audited(SqlStatement statement, Mono<SqlResult> result) {
        if (statement.kind() != SqlStatement.Kind.DDL) {
            return result;
        }
        String text = statement.text();
        String who = principal == null ? ANONYMOUS : principal.name();
        return result.doOnSuccess(r -> audit.record(who, peer.address(), "sql", abbreviate(text), r.command()))
                .doOnError(e -> audit.record(who, peer.address(), "sql", abbreviate(text), "failed: " + e.getMessage()));
    }

    /** A client's text as the audit trail shows it: one line (white space runs as one space, other control characters as ?), at most 200 characters. */
    static String abbreviate(String text) {
        String t = text.strip().replaceAll("\\s+", " ").replaceAll("\\p{Cntrl}", "?");
        return t.length() <= 200 ? t : t.substring(0, 200) + "...";
    }


    // ------------------------------------------------------------------ statements

    Mono<SqlResult> cancellable(Mono<SqlResult> exec, boolean query) {
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

    /** Refuses a catalog query (answered here, not by the engine) in a failed transaction block, as the engine refuses statements. */
    void failedBlock() {
        if (sql.block() == SqlSession.Block.FAILED) {
            throw new SqlException(SqlState.IN_FAILED_SQL_TRANSACTION, "current transaction is aborted, commands ignored until end of transaction block");
        }
    }

    /** The 1-based character position of an error in the query string, from its line and column in the statement {@code part} of it. */
    static int position(SqlEngine.Part part, SqlException e) {
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
}
