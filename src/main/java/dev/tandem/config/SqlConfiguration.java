package dev.tandem.config;

import dev.tandem.controller.Controller;
import dev.tandem.metrics.TandemMeters;
import dev.tandem.multiplex.Multiplexer;
import dev.tandem.runtime.FatalErrorHandler;
import dev.tandem.runtime.RuntimeObserver;
import dev.tandem.sharing.ArrangementSharingRegistry;
import dev.tandem.storage.StorageOptions;
import dev.tandem.storage.TableStorage;
import dev.tandem.storage.TableStorages;
import io.micrometer.core.instrument.MeterRegistry;
import dev.tandem.pgwire.PgAuthenticator;
import dev.tandem.pgwire.PgWireServer;
import dev.tandem.pgwire.TokenAuthenticator;
import dev.tandem.security.AuditLog;
import dev.tandem.security.LoginThrottle;
import dev.tandem.security.PrincipalLimits;
import dev.tandem.security.TokenDirectory;
import dev.tandem.sql.SqlEngine;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.security.SecureRandom;
import javax.net.ssl.SSLException;
import dev.tandem.stream.ChangeStreams;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.boot.web.server.Ssl;
import org.springframework.boot.web.server.WebServerSslBundle;
import org.springframework.boot.web.server.autoconfigure.ServerProperties;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * The SQL front end in standalone mode: the SQL engine (used by {@code POST /v1/sql}, the WebSocket
 * and the wire protocol) and the PostgreSQL wire-protocol server on {@code tandem.pgwire.port}
 * (default 6875; 0 picks a free port and logs it; -1 turns it off) at {@code tandem.pgwire.host}
 * (default: loopback). Authentication is the {@link PgAuthenticator} bean when there is one,
 * else trust. With {@code server.ssl.*} configured the wire protocol offers TLS with the same key
 * material as the HTTP server.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "tandem.mode", havingValue = "standalone", matchIfMissing = true)
public class SqlConfiguration {

    private static final Logger LOG = LoggerFactory.getLogger(SqlConfiguration.class);

    @Bean(destroyMethod = "dispose")
    Scheduler tandemSqlBlocking() {
        return Schedulers.newBoundedElastic(Schedulers.DEFAULT_BOUNDED_ELASTIC_SIZE, Schedulers.DEFAULT_BOUNDED_ELASTIC_QUEUESIZE, "tandem-sql");
    }

    /** Plans light statements (the plan cache's misses that are short): a thread per processor. */
    @Bean(destroyMethod = "dispose")
    Scheduler tandemSqlPlanning() {
        int threads = Math.max(2, Runtime.getRuntime().availableProcessors());
        return Schedulers.newBoundedElastic(threads, 100_000, "tandem-sql-plan");
    }

    /**
     * Plans heavy statements (long ones, or with many literals) apart from light ones, so that a burst of
     * them queues only behind each other: half the processors.
     */
    @Bean(destroyMethod = "dispose")
    Scheduler tandemSqlHeavyPlanning() {
        int threads = Math.max(1, Runtime.getRuntime().availableProcessors() / 2);
        return Schedulers.newBoundedElastic(threads, 10_000, "tandem-sql-plan-heavy");
    }

    /** The timer of planning deadlines. */
    @Bean(destroyMethod = "dispose")
    Scheduler tandemSqlTimer() {
        return Schedulers.newSingle("tandem-sql-timer", true);
    }

    @Bean
    SqlEngine tandemSqlEngine(Controller controller, Scheduler tandemSqlBlocking, ChangeStreams changeStreams, TandemProperties props,
            Scheduler tandemSqlPlanning, Scheduler tandemSqlHeavyPlanning, Scheduler tandemSqlTimer) {
        SqlEngine engine = new SqlEngine(controller, tandemSqlBlocking, changeStreams, props.sql().limits(), tandemSqlPlanning,
                tandemSqlHeavyPlanning, tandemSqlTimer);
        engine.warmUp();
        return engine;
    }

    /**
     * With credentials configured, a session logs in with an API token: the user name is the token's
     * name and the password its secret, proved with SCRAM-SHA-256 when the token has a verifier
     * ({@code tandem.security.tokens[N].scram}), else sent in the clear and checked against the same
     * salted hash as an HTTP bearer token. The directory is read at each login, so a rotated token is
     * refused at the next one. Without credentials (loopback only) it trusts, like the HTTP API.
     */
    @Bean
    PgAuthenticator tandemPgAuthenticator(SecurityProperties security, TokenDirectory tokens) {
        if (!security.credentialsConfigured()) {
            return PgAuthenticator.TRUST;
        }
        return new TokenAuthenticator(tokens, new SecureRandom());
    }

    @Bean(destroyMethod = "close")
    PgWireHolder tandemPgWire(SqlEngine engine, ObjectProvider<PgAuthenticator> authenticator, TandemProperties props, AuditLog audit,
            ObjectProvider<PrincipalLimits> limits, ObjectProvider<LoginThrottle> throttle, ObjectProvider<ServerProperties> server,
            ObjectProvider<SslBundles> bundles, ObjectProvider<MeterRegistry> meters, Scheduler tandemSqlBlocking, Scheduler tandemSqlPlanning,
            Scheduler tandemSqlHeavyPlanning, Scheduler tandemSqlTimer) {
        TandemProperties.Pgwire pg = props.pgwire();
        if (pg.port() < 0) {
            return new PgWireHolder(null);
        }
        PrincipalLimits principals = limits.getIfAvailable(() -> new PrincipalLimits(0, 0, 0));
        PgWireServer.Guards guards = new PgWireServer.Guards(pg.maxConnections(), pg.reservedAdminConnections(), pg.authenticationTimeout(),
                throttle.getIfAvailable(LoginThrottle::none)).withIdleTimeouts(pg.idleSessionTimeout(), pg.idleInTransactionSessionTimeout());
        return new PgWireHolder(() -> {
            // before the first client can connect: the read path is compiled by then, against parts of the kinds it runs on
            ReadPathWarmup.run(pg.warmUpReads(), new WarmupParts(props, meters.getIfAvailable() != null, audit, principals, guards,
                    new Scheduler[] {tandemSqlBlocking, tandemSqlPlanning, tandemSqlHeavyPlanning, tandemSqlTimer}));
            // what the first clients have compiled again (they take branches and classes the warm-up did not) runs beside their reads, not before them
            int lowered = dev.tandem.runtime.ThreadNice.lowerCompilerThreads(props.compute().jitNice());
            LOG.debug("{} JIT compiler threads at nice {} (tandem.compute.jit-nice)", lowered, props.compute().jitNice());
            PgWireServer wire = PgWireServer.start(engine, authenticator.getIfAvailable(() -> PgAuthenticator.TRUST), audit, principals, guards,
                    tls(server.getIfAvailable(), bundles.getIfAvailable()), pg.host(), pg.port());
            // the line the bench's child servers and operators look for (the warm-up's scratch listener says nothing)
            LOG.info("PostgreSQL wire protocol listening on {}:{}", pg.host(), wire.port());
            return wire;
        });
    }

    /**
     * The read path's warm-up's scratch server, made as this server is: durable storage in a scratch
     * directory, metered (to a registry of the same kind as the server's, never scraped) when the server is,
     * runtimes and controller as the properties configure them, an engine on the server's planning lanes,
     * a listener with its audit, per-principal limits and guards (trusting: the warm-up's own client has no
     * credentials).
     */
    record WarmupParts(TandemProperties props, boolean metered, AuditLog audit, PrincipalLimits principals, PgWireServer.Guards guards,
            Scheduler[] sql) implements ReadPathWarmup.Parts {

        private MeterRegistry registry() {
            return new io.micrometer.prometheusmetrics.PrometheusMeterRegistry(io.micrometer.prometheusmetrics.PrometheusConfig.DEFAULT);
        }

        @Override
        public TableStorage storage(java.nio.file.Path dir, Scheduler timer) {
            TandemProperties.Storage s = props.storage();
            TableStorage storage = TableStorages.durable(dir, StorageOptions.defaults(timer).withTickInterval(s.tickInterval()).withFsync(s.fsync()),
                    false);
            return metered ? TandemMeters.countingIngest(storage, registry()) : storage;
        }

        @Override
        public Multiplexer multiplexer(TableStorage storage, ArrangementSharingRegistry registry, FatalErrorHandler fatal) {
            return TandemConfiguration.startMultiplexer(props, storage, registry, fatal,
                    metered ? TandemMeters.observer(registry(), props.compute().interactiveRuntime().enabled()) : RuntimeObserver.NONE);
        }

        @Override
        public Controller controller(TableStorage storage, Multiplexer multiplexer, ArrangementSharingRegistry registry, Scheduler timer) {
            return new Controller(storage, multiplexer, registry, TandemConfiguration.settings(props), TandemConfiguration.WALL_CLOCK, timer);
        }

        @Override
        public SqlEngine engine(Controller controller, ChangeStreams streams) {
            return new SqlEngine(controller, sql[0], streams, props.sql().limits(), sql[1], sql[2], sql[3]);
        }

        @Override
        public PgWireServer listen(SqlEngine engine) {
            return PgWireServer.start(engine, PgAuthenticator.TRUST, audit, principals, guards, null, "127.0.0.1", 0);
        }
    }

    /** The HTTP server's TLS key material ({@code server.ssl.*}) as a server context for the wire protocol, or null without TLS. */
    static SslContext tls(ServerProperties server, SslBundles bundles) {
        Ssl ssl = server == null ? null : server.getSsl();
        if (!Ssl.isEnabled(ssl)) {
            return null;
        }
        SslBundle bundle = WebServerSslBundle.get(ssl, bundles);
        try {
            return SslContextBuilder.forServer(bundle.getManagers().getKeyManagerFactory()).build();
        } catch (SSLException e) {
            throw new IllegalStateException("server.ssl.* cannot serve TLS on the wire protocol: " + e.getMessage(), e);
        }
    }

    /**
     * The wire-protocol server, started last of all the application's parts (after the HTTP server), so
     * that its first client does not share the machine with the rest of start-up; none when it is turned
     * off. It stops first.
     */
    public static final class PgWireHolder implements SmartLifecycle, AutoCloseable {
        private final java.util.function.Supplier<PgWireServer> start;
        private volatile PgWireServer server;

        PgWireHolder(java.util.function.Supplier<PgWireServer> start) {
            this.start = start;
        }

        /** The port it listens on, or -1 when off or not started yet. */
        public int port() {
            PgWireServer s = server;
            return s == null ? -1 : s.port();
        }

        @Override
        public synchronized void start() {
            if (start != null && server == null) {
                server = start.get();
            }
        }

        @Override
        public synchronized void stop() {
            close();
        }

        @Override
        public boolean isRunning() {
            return server != null;
        }

        @Override
        public int getPhase() {
            return Integer.MAX_VALUE;
        }

        @Override
        public synchronized void close() {
            PgWireServer s = server;
            server = null;
            if (s != null) {
                s.close();
            }
        }
    }
}
