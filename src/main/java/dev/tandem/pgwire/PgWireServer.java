package dev.tandem.pgwire;

import dev.tandem.net.WritableGate;
import dev.tandem.security.AuditLog;
import dev.tandem.security.LoginThrottle;
import dev.tandem.security.PrincipalLimits;
import dev.tandem.sql.SqlEngine;
import dev.tandem.sql.SqlState;
import io.netty.channel.Channel;
import io.netty.handler.ssl.SslContext;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.netty.DisposableServer;
import reactor.netty.tcp.TcpServer;

/**
 * The PostgreSQL wire protocol (v3) server on Reactor Netty TCP: each connection is a
 * {@link PgSession} over the SQL engine, so {@code psql}, JDBC and R2DBC drivers talk to Tandem as
 * to PostgreSQL. Start-up goes through a {@link PgAuthenticator} (trust by default); with a TLS context
 * an SSLRequest upgrades the connection to TLS ({@link PgDecoder}), else it is declined.
 */
public final class PgWireServer implements AutoCloseable {

    /** The largest frontend message accepted (a statement with its parameters). */
    static final int MAX_MESSAGE_BYTES = 16 << 20;
    /** The most frontend messages decoded ahead of the one a session is answering. */
    static final int READ_AHEAD = 8;

    /** The open sessions by process id, for CancelRequest. */
    static final class Sessions {
        private final Map<Integer, PgSession> byPid = new ConcurrentHashMap<>();

        void cancel(int pid, int secret) {
            PgSession s = byPid.get(pid);
            if (s != null && s.secret() == secret) {
                s.cancel();
            }
        }

        /**
         * The logged-in sessions as {@code viewer} sees them in {@code pg_stat_activity}: the state and
         * statement of its own user's sessions, and of every session when {@code all}.
         */
        java.util.List<dev.tandem.sql.catalog.Backend> backends(PgSession viewer, boolean all) {
            java.util.List<dev.tandem.sql.catalog.Backend> out = new java.util.ArrayList<>();
            for (PgSession s : byPid.values()) {
                if (s.started()) {
                    out.add(s.backend(all || s.user().equals(viewer.user()), s == viewer));
                }
            }
            out.sort(java.util.Comparator.comparingInt(dev.tandem.sql.catalog.Backend::pid));
            return out;
        }
    }

    /**
     * PostgreSQL's guards on connections: at most {@code maxConnections} open at once, the last
     * {@code reservedAdminConnections} of them only for sessions with the admin role (PostgreSQL's
     * {@code superuser_reserved_connections}); others are refused with FATAL {@code 53300}. A connection
     * that has not authenticated within {@code authenticationTimeout} is ended with FATAL {@code 57014}
     * (PostgreSQL's {@code authentication_timeout}). A session that has answered everything it was sent and
     * waits longer than {@code idleSessionTimeout} for more is ended with FATAL {@code 57P05}, and one idle
     * that long inside a transaction block ({@code idleInTransactionSessionTimeout}) with FATAL
     * {@code 25P03}, its block rolled back (PostgreSQL's {@code idle_session_timeout} and
     * {@code idle_in_transaction_session_timeout}; zero: never). {@code throttle} slows repeated failed
     * logins; its delays and the timeouts run on {@code timer}.
     */
    public record Guards(int maxConnections, int reservedAdminConnections, Duration authenticationTimeout, Duration idleSessionTimeout,
            Duration idleInTransactionSessionTimeout, LoginThrottle throttle, Scheduler timer) {

        /** PostgreSQL's defaults: 100 connections, 3 reserved, 60 s to authenticate, no idle timeouts and no login delays. */
        public static final Guards DEFAULTS = new Guards(100, 3, Duration.ofSeconds(60), LoginThrottle.none());

        /** Guards without idle timeouts whose waits run on Reactor's parallel scheduler. */
        public Guards(int maxConnections, int reservedAdminConnections, Duration authenticationTimeout, LoginThrottle throttle) {
            this(maxConnections, reservedAdminConnections, authenticationTimeout, throttle, Schedulers.parallel());
        }

        /** Guards without idle timeouts whose waits run on {@code timer}. */
        public Guards(int maxConnections, int reservedAdminConnections, Duration authenticationTimeout, LoginThrottle throttle, Scheduler timer) {
            this(maxConnections, reservedAdminConnections, authenticationTimeout, Duration.ZERO, Duration.ZERO, throttle, timer);
        }

        public Guards {
            if (maxConnections < 1 || reservedAdminConnections < 0 || reservedAdminConnections >= maxConnections) {
                throw new IllegalArgumentException("tandem.pgwire: max-connections must be at least 1 and reserved-admin-connections between 0 and "
                        + "max-connections - 1, got " + maxConnections + " and " + reservedAdminConnections);
            }
            if (authenticationTimeout.isNegative() || authenticationTimeout.isZero()) {
                throw new IllegalArgumentException("tandem.pgwire.authentication-timeout must be positive, got " + authenticationTimeout);
            }
            if (idleSessionTimeout.isNegative() || idleInTransactionSessionTimeout.isNegative()) {
                throw new IllegalArgumentException("tandem.pgwire: idle-session-timeout and idle-in-transaction-session-timeout must be 0 (never) "
                        + "or positive, got " + idleSessionTimeout + " and " + idleInTransactionSessionTimeout);
            }
        }

        /** These guards with the given idle timeouts (zero: never). */
        public Guards withIdleTimeouts(Duration idleSession, Duration idleInTransaction) {
            return new Guards(maxConnections, reservedAdminConnections, authenticationTimeout, idleSession, idleInTransaction, throttle, timer);
        }
    }

    private final DisposableServer server;
    private final AtomicInteger open;

    private PgWireServer(DisposableServer server, AtomicInteger open) {
        this.server = server;
        this.open = open;
    }

    /** Starts listening on {@code host:port} (port 0: a free port, see {@link #port}), without TLS, auditing to the log only. */
    public static PgWireServer start(SqlEngine engine, PgAuthenticator authenticator, String host, int port) {
        return start(engine, authenticator, new AuditLog(Clock.systemUTC(), 100), null, host, port);
    }

    /**
     * Starts listening on {@code host:port}; refused logins, refused statements and catalog changes are
     * recorded in {@code audit}; {@code tls} (or null) is offered to clients that ask for it.
     */
    public static PgWireServer start(SqlEngine engine, PgAuthenticator authenticator, AuditLog audit, SslContext tls, String host, int port) {
        return start(engine, authenticator, audit, new PrincipalLimits(0, 0, 0), Guards.DEFAULTS, tls, host, port);
    }

    /**
     * Starts listening as {@link #start(SqlEngine, PgAuthenticator, AuditLog, SslContext, String, int)} does;
     * each change stream a session opens holds one of its principal's permits from {@code limits}.
     */
    public static PgWireServer start(SqlEngine engine, PgAuthenticator authenticator, AuditLog audit, PrincipalLimits limits, SslContext tls,
            String host, int port) {
        return start(engine, authenticator, audit, limits, Guards.DEFAULTS, tls, host, port);
    }

    /** Starts listening as above, with PostgreSQL's connection guards and a login throttle ({@link Guards}). */
    public static PgWireServer start(SqlEngine engine, PgAuthenticator authenticator, AuditLog audit, PrincipalLimits limits, Guards guards,
            SslContext tls, String host, int port) {
        Sessions sessions = new Sessions();
        AtomicInteger open = new AtomicInteger();
        Scheduler timer = guards.timer();
        PgSession.Slots slots = admin -> {
            int n = open.get();
            if (n > guards.maxConnections()) {
                return "sorry, too many clients already";
            }
            return !admin && n > guards.maxConnections() - guards.reservedAdminConnections()
                    ? "remaining connection slots are reserved for sessions with the admin role" : null;
        };
        PgSession.Guards sessionGuards = new PgSession.Guards(guards.throttle(), slots, timer);
        AtomicInteger pids = new AtomicInteger(1000);
        SecureRandom random = new SecureRandom();
        DisposableServer server = TcpServer.create()
                .host(host)
                .port(port)
                .doOnConnection(c -> c.addHandlerFirst("pg-decoder", new PgDecoder(MAX_MESSAGE_BYTES, tls)))
                .handle((in, out) -> {
                    Channel[] channel = new Channel[1];
                    in.withConnection(c -> channel[0] = c.channel());
                    if (open.incrementAndGet() > guards.maxConnections()) {
                        // refused before anything is read: a client reads this after its start-up packet
                        open.decrementAndGet();
                        return out.sendObject(new PgWriter().error("FATAL", PgSession.TOO_MANY_CONNECTIONS, "sorry, too many clients already", 0)
                                .buffer()).then();
                    }
                    int pid = pids.incrementAndGet();
                    PgSession.Peer peer = peer(channel[0], tls != null);
                    PgSession session = new PgSession(engine, authenticator, audit, limits, sessionGuards, peer, sessions, pid, random.nextInt());
                    sessions.byPid.put(pid, session);
                    Disposable authTimeout = timer.schedule(() -> {
                        if (!session.started()) {
                            channel[0].writeAndFlush(new PgWriter().error("FATAL", SqlState.QUERY_CANCELED, "canceling authentication due to timeout", 0).buffer())
                                    .addListener(io.netty.channel.ChannelFutureListener.CLOSE);
                        }
                    }, guards.authenticationTimeout().toMillis(), TimeUnit.MILLISECONDS);
                    IdleGuard idle = new IdleGuard(guards, session, channel[0]);
                    return out.sendObject(in.receiveObject()
                                    .cast(FrontendMessage.class)
                                    .doOnNext(m -> idle.received())
                                    // A few messages are read ahead of the one being answered (a pipelined Bind,
                                    // Execute, Sync): with none, the connection stopped and started reading around
                                    // every answer that came later, two system calls a statement.
                                    .concatMap(m -> session.handle(m).doFinally(s -> idle.answered()), READ_AHEAD)
                                    .onErrorResume(PgSession.Close.class, c -> c.last == null ? Mono.empty() : Mono.just(c.last)))
                            .then()
                            .doFinally(s -> {
                                authTimeout.dispose();
                                idle.close();
                                open.decrementAndGet();
                                sessions.byPid.remove(pid);
                                session.close();
                            });
                })
                .bindNow();
        return new PgWireServer(server, open);
    }

    /**
     * Ends a session left idle too long ({@link Guards#idleSessionTimeout}, in a transaction block
     * {@link Guards#idleInTransactionSessionTimeout}): idle from when it has answered every message it
     * received until the next arrives; a statement still running (a long read, a SUBSCRIBE) is not idle.
     */
    private static final class IdleGuard {
        private final Guards guards;
        private final PgSession session;
        private final Channel channel;
        /** Messages received and not yet answered. */
        private final AtomicInteger pending = new AtomicInteger();
        /** Counts arrivals, so that a timer armed before one does nothing. */
        private final java.util.concurrent.atomic.AtomicLong arrivals = new java.util.concurrent.atomic.AtomicLong();
        private final java.util.concurrent.atomic.AtomicReference<Disposable> timer = new java.util.concurrent.atomic.AtomicReference<>();
        private final boolean off;

        IdleGuard(Guards guards, PgSession session, Channel channel) {
            this.guards = guards;
            this.session = session;
            this.channel = channel;
            this.off = guards.idleSessionTimeout().isZero() && guards.idleInTransactionSessionTimeout().isZero();
        }

        void received() {
            if (off) {
                return;
            }
            pending.incrementAndGet();
            arrivals.incrementAndGet();
            Disposable armed = timer.getAndSet(null);
            if (armed != null) {
                armed.dispose();
            }
        }

        void answered() {
            if (off || pending.decrementAndGet() > 0 || !session.started()) {
                return;
            }
            boolean inBlock = session.transactionStatus() != 'I';
            Duration after = inBlock ? guards.idleInTransactionSessionTimeout() : guards.idleSessionTimeout();
            if (after.isZero()) {
                return;
            }
            long seen = arrivals.get();
            Disposable armed = guards.timer().schedule(() -> {
                if (pending.get() == 0 && arrivals.get() == seen) {
                    PgWriter why = inBlock
                            ? new PgWriter().error("FATAL", SqlState.IDLE_IN_TRANSACTION_SESSION_TIMEOUT, "terminating connection due to idle-in-transaction timeout", 0)
                            : new PgWriter().error("FATAL", SqlState.IDLE_SESSION_TIMEOUT, "terminating connection due to idle-session timeout", 0);
                    channel.writeAndFlush(why.buffer())
                            .addListener(io.netty.channel.ChannelFutureListener.CLOSE);
                }
            }, after.toMillis(), TimeUnit.MILLISECONDS);
            Disposable previous = timer.getAndSet(armed);
            if (previous != null) {
                previous.dispose();
            }
        }

        void close() {
            Disposable armed = timer.getAndSet(null);
            if (armed != null) {
                armed.dispose();
            }
        }
    }

    private static PgSession.Peer peer(Channel channel, boolean tlsOffered) {
        String address = "unknown";
        boolean loopback = false;
        if (channel.remoteAddress() instanceof InetSocketAddress a && a.getAddress() != null) {
            address = a.getAddress().getHostAddress();
            loopback = a.getAddress().isLoopbackAddress();
        }
        return new PgSession.Peer(address, loopback, tlsOffered, () -> channel.pipeline().get(PgDecoder.TLS_HANDLER) != null,
                WritableGate.of(channel));
    }

    /** The connections open now (authenticated or not). */
    public int connections() {
        return open.get();
    }

    /** The port the server listens on. */
    public int port() {
        return server.port();
    }

    @Override
    public void close() {
        server.disposeNow();
    }
}
