package dev.tandem.pgwire;

import dev.tandem.sql.SqlEngine;
import java.security.SecureRandom;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.tcp.TcpServer;

/**
 * The PostgreSQL wire protocol (v3) server on Reactor Netty TCP: each connection is a
 * {@link PgSession} over the SQL engine, so {@code psql}, JDBC and R2DBC drivers talk to Tandem as
 * to PostgreSQL. Start-up goes through a {@link PgAuthenticator} (trust by default).
 */
public final class PgWireServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PgWireServer.class);
    /** The largest frontend message accepted (a statement with its parameters). */
    static final int MAX_MESSAGE_BYTES = 16 << 20;

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

    /** Starts listening on {@code host:port} (port 0: a free port, see {@link #port}). */
    public static PgWireServer start(SqlEngine engine, PgAuthenticator authenticator, String host, int port) {
        Sessions sessions = new Sessions();
        AtomicInteger pids = new AtomicInteger(1000);
        SecureRandom random = new SecureRandom();
        DisposableServer server = TcpServer.create()
                .host(host)
                .port(port)
                .doOnConnection(c -> c.addHandlerFirst("pg-decoder", new PgDecoder(MAX_MESSAGE_BYTES)))
                .handle((in, out) -> {
                    int pid = pids.incrementAndGet();
                    PgSession session = new PgSession(engine, authenticator, sessions, pid, random.nextInt());
                    sessions.byPid.put(pid, session);
                    return out.sendObject(in.receiveObject()
                                    .cast(PgMessage.class)
                                    .concatMap(session::handle)
                                    .onErrorResume(PgSession.Close.class, c -> c.last == null ? Mono.empty() : Mono.just(c.last)))
                            .then()
                            .doFinally(s -> {
                                sessions.byPid.remove(pid);
                                session.cancel();
                            });
                })
                .bindNow();
        LOG.info("PostgreSQL wire protocol listening on {}:{}", host, server.port());
        return new PgWireServer(server);
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
