package dev.tandem.pgwire;

import dev.tandem.security.AuditLog;
import dev.tandem.security.PrincipalLimits;
import dev.tandem.sql.SqlEngine;
import io.netty.channel.Channel;
import io.netty.handler.ssl.SslContext;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Mono;
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
    }

    private final DisposableServer server;

    private PgWireServer(DisposableServer server) {
        this.server = server;
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
        return start(engine, authenticator, audit, new PrincipalLimits(0, 0, 0), tls, host, port);
    }

    /**
     * Starts listening as {@link #start(SqlEngine, PgAuthenticator, AuditLog, SslContext, String, int)} does;
     * each change stream a session opens holds one of its principal's permits from {@code limits}.
     */
    public static PgWireServer start(SqlEngine engine, PgAuthenticator authenticator, AuditLog audit, PrincipalLimits limits, SslContext tls,
            String host, int port) {
        Sessions sessions = new Sessions();
        AtomicInteger pids = new AtomicInteger(1000);
        SecureRandom random = new SecureRandom();
        DisposableServer server = TcpServer.create()
                .host(host)
                .port(port)
                .doOnConnection(c -> c.addHandlerFirst("pg-decoder", new PgDecoder(MAX_MESSAGE_BYTES, tls)))
                .handle((in, out) -> {
                    int pid = pids.incrementAndGet();
                    Channel[] channel = new Channel[1];
                    in.withConnection(c -> channel[0] = c.channel());
                    PgSession.Peer peer = peer(channel[0], tls != null);
                    PgSession session = new PgSession(engine, authenticator, audit, limits, peer, sessions, pid, random.nextInt());
                    sessions.byPid.put(pid, session);
                    return out.sendObject(in.receiveObject()
                                    .cast(PgMessage.class)
                                    // A few messages are read ahead of the one being answered (a pipelined Bind,
                                    // Execute, Sync): with none, the connection stopped and started reading around
                                    // every answer that came later, two system calls a statement.
                                    .concatMap(session::handle, READ_AHEAD)
                                    .onErrorResume(PgSession.Close.class, c -> c.last == null ? Mono.empty() : Mono.just(c.last)))
                            .then()
                            .doFinally(s -> {
                                sessions.byPid.remove(pid);
                                session.close();
                            });
                })
                .bindNow();
        return new PgWireServer(server);
    }

    private static PgSession.Peer peer(Channel channel, boolean tlsOffered) {
        String address = "unknown";
        boolean loopback = false;
        if (channel.remoteAddress() instanceof InetSocketAddress a && a.getAddress() != null) {
            address = a.getAddress().getHostAddress();
            loopback = a.getAddress().isLoopbackAddress();
        }
        return new PgSession.Peer(address, loopback, tlsOffered, () -> channel.pipeline().get(PgDecoder.TLS_HANDLER) != null);
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
