package dev.tandem.config;

import dev.tandem.controller.Controller;
import dev.tandem.pgwire.PgAuthenticator;
import dev.tandem.pgwire.PgWireServer;
import dev.tandem.sql.SqlEngine;
import dev.tandem.stream.ChangeStreams;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * The SQL front end in standalone mode: the SQL engine (used by {@code POST /v1/sql}, the WebSocket
 * and the wire protocol) and the PostgreSQL wire-protocol server on {@code tandem.pgwire.port}
 * (default 6875; 0 picks a free port and logs it; -1 turns it off) at {@code tandem.pgwire.host}
 * (default: loopback). Authentication is the {@link PgAuthenticator} bean when there is one,
 * else trust.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "tandem.mode", havingValue = "standalone", matchIfMissing = true)
public class SqlConfiguration {

    @Bean(destroyMethod = "dispose")
    Scheduler tandemSqlBlocking() {
        return Schedulers.newBoundedElastic(Schedulers.DEFAULT_BOUNDED_ELASTIC_SIZE, Schedulers.DEFAULT_BOUNDED_ELASTIC_QUEUESIZE, "tandem-sql");
    }

    @Bean
    SqlEngine tandemSqlEngine(Controller controller, Scheduler tandemSqlBlocking, ChangeStreams changeStreams) {
        SqlEngine engine = new SqlEngine(controller, tandemSqlBlocking, changeStreams);
        engine.warmUp();
        return engine;
    }

    /**
     * With credentials configured, the wire protocol refuses every connection (28000) until it
     * authenticates against the same principals: it cannot yet exchange a password, and trust would let
     * any local process past the tokens. Without credentials (loopback only) it trusts, like the HTTP API.
     */
    @Bean
    PgAuthenticator tandemPgAuthenticator(SecurityProperties security) {
        if (!security.credentialsConfigured()) {
            return PgAuthenticator.TRUST;
        }
        return startup -> reactor.core.publisher.Mono.error(new IllegalStateException("with tandem.security credentials configured the"
                + " PostgreSQL wire protocol refuses connections (it does not authenticate yet); use POST /v1/sql with an admin token"));
    }

    @Bean(destroyMethod = "close")
    PgWireHolder tandemPgWire(SqlEngine engine, ObjectProvider<PgAuthenticator> authenticator, TandemProperties props) {
        TandemProperties.Pgwire pg = props.pgwire();
        return new PgWireHolder(pg.port() < 0 ? null
                : PgWireServer.start(engine, authenticator.getIfAvailable(() -> PgAuthenticator.TRUST), pg.host(), pg.port()));
    }

    /** The running wire-protocol server, or none when it is turned off. */
    public record PgWireHolder(PgWireServer server) implements AutoCloseable {
        /** The port it listens on, or -1 when off. */
        public int port() {
            return server == null ? -1 : server.port();
        }

        @Override
        public void close() {
            if (server != null) {
                server.close();
            }
        }
    }
}
