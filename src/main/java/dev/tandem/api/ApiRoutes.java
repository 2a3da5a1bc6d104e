package dev.tandem.api;

import static org.springframework.web.reactive.function.server.RequestPredicates.path;

import dev.tandem.config.SecurityProperties;
import dev.tandem.config.TandemProperties;
import dev.tandem.controller.Controller;
import dev.tandem.source.SourceManager;
import dev.tandem.source.postgres.PgSourceManager;
import dev.tandem.sql.SqlEngine;
import dev.tandem.multiplex.Multiplexer;
import dev.tandem.security.AuditLog;
import dev.tandem.security.PrincipalLimits;
import dev.tandem.stream.ChangeStreams;
import java.util.Map;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.reactor.netty.NettyServerCustomizer;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.web.cors.CorsConfiguration;
import org.springframework.web.reactive.HandlerMapping;
import org.springframework.web.reactive.config.WebFluxConfigurer;
import org.springframework.web.reactive.function.server.RequestPredicates;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.reactive.function.server.support.RouterFunctionMapping;
import org.springframework.web.reactive.handler.SimpleUrlHandlerMapping;
import org.springframework.web.reactive.socket.server.WebSocketService;
import org.springframework.web.reactive.socket.server.support.HandshakeWebSocketService;
import org.springframework.web.reactive.socket.server.upgrade.ReactorNettyRequestUpgradeStrategy;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.netty.NettyPipeline;
import reactor.netty.http.server.WebsocketServerSpec;

/**
 * The routes of the API under {@code /v1}: in standalone mode the REST resources and the
 * {@code /v1/ws} WebSocket; in replica mode only the {@code /v1/compute} WebSocket (the rest answers
 * 409). A known path asked with a method it does not serve answers 405 with {@code Allow}.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(ApiProperties.class)
public class ApiRoutes {

    /** Exchange attribute carrying the {@code Allow} header of a 405. */
    static final String ALLOW = ApiRoutes.class.getName() + ".allow";

    /** Paths and the methods they serve, for 405 answers (from the route table). */
    static final Map<String, String> ALLOWED = ApiAccess.allowed();

    /**
     * The router functions' order: ahead of the actuator's endpoint mappings (order -100), which every
     * API request would otherwise walk first, for nothing (their paths are under {@code /actuator}).
     */
    static final int ROUTES_ORDER = -200;

    /** Puts the API's routes at {@link #ROUTES_ORDER}. */
    @Bean
    static BeanPostProcessor tandemRoutesFirst() {
        return new BeanPostProcessor() {
            @Override
            public Object postProcessAfterInitialization(Object bean, String name) {
                if (bean instanceof RouterFunctionMapping routes) {
                    routes.setOrder(ROUTES_ORDER);
                }
                return bean;
            }
        };
    }

    /** Where catalog calls, which block on durable storage, run. */
    @Bean
    Scheduler tandemApiBlocking() {
        return Schedulers.boundedElastic();
    }

    @Bean
    @ConditionalOnProperty(name = "tandem.mode", havingValue = "standalone", matchIfMissing = true)
    RouterFunction<ServerResponse> tandemApi(Controller controller, ApiProperties props, Scheduler tandemApiBlocking, AuditLog audit,
            ChangeStreams changeStreams, SqlEngine sqlEngine, PrincipalLimits limits,
            SourceManager sourceManager, PgSourceManager pgSources) {
        long max = props.maxBodyBytes().toBytes();
        SourceHandler sources = new SourceHandler(sourceManager, pgSources, max, tandemApiBlocking);
        CatalogHandler catalog = new CatalogHandler(controller, max, tandemApiBlocking);
        ReadHandler read = new ReadHandler(controller, max, audit);
        ChangeStreamHandler changes = new ChangeStreamHandler(controller, changeStreams, limits);
        SqlHandler sql = new SqlHandler(sqlEngine, max, audit);
        ApiAccess.Handlers handlers = new ApiAccess.Handlers(catalog, read, changes, sql, sources);
        RouterFunctions.Builder routes = RouterFunctions.route();
        for (ApiAccess.Route r : ApiAccess.ROUTES) {
            if (r.handler() != null) {
                routes.route(RequestPredicates.method(HttpMethod.valueOf(r.method())).and(RequestPredicates.path(r.pattern())),
                        r.handler().apply(handlers));
            }
        }
        routes                .route(path("/v1/compute"), r -> Mono.error(new ApiException(HttpStatus.NOT_FOUND,
                        "/v1/compute (the compute protocol) is served only in replica mode (tandem.mode=replica)")));
        ALLOWED.forEach((p, allow) -> routes.route(path(p), r -> {
            r.exchange().getAttributes().put(ALLOW, allow);
            return Mono.error(new ApiException(HttpStatus.METHOD_NOT_ALLOWED,
                    r.method() + " is not supported on " + p + "; use " + allow));
        }));
        return routes.build();
    }

    @Bean
    @ConditionalOnProperty(name = "tandem.mode", havingValue = "standalone", matchIfMissing = true)
    HandlerMapping tandemSessionSocket(Controller controller, ApiProperties props, SecurityProperties security, PrincipalLimits limits,
            ChangeStreams changeStreams, SqlEngine sqlEngine, AuditLog audit) {
        long max = props.maxBodyBytes().toBytes();
        return socketMapping("/v1/ws", new SessionSocketHandler(controller, max, security.credentialsConfigured(), limits, changeStreams,
                new SqlHandler(sqlEngine, max, audit)), props);
    }

    /**
     * Connection timeouts of the HTTP server (start-up only, {@code tandem.http.*}): a slow or idle
     * client cannot hold a connection, and a refused request head is answered with a problem.
     */
    @Bean
    NettyServerCustomizer tandemHttpTimeouts(TandemProperties props, dev.tandem.net.ConnectionCaps caps) {
        TandemProperties.Http http = props.http();
        return server -> server
                .idleTimeout(http.idleTimeout())
                .readTimeout(http.readTimeout())
                .doOnChannelInit((observer, channel, address) -> {
                    caps.install(channel);
                    if (channel.pipeline().get(NettyPipeline.HttpCodec) != null) {
                        RequestGuard.install(channel.pipeline(), NettyPipeline.HttpCodec, http.requestHeadTimeout(), http.requestBodyTimeout());
                    }
                    // change streams over this connection take their messages as its socket can take them
                    dev.tandem.net.WritableGate.of(channel);
                });
    }

    /**
     * The caps on HTTP and WebSocket connections open at once ({@code tandem.http.max-connections}, in all
     * and per client address), each refusal counted as {@code tandem_http_connections_refused_total{cap}}.
     */
    @Bean
    dev.tandem.net.ConnectionCaps tandemConnectionCaps(TandemProperties props,
            org.springframework.beans.factory.ObjectProvider<io.micrometer.core.instrument.MeterRegistry> meters) {
        TandemProperties.Http http = props.http();
        int total = http.maxConnections() == 0 ? dev.tandem.net.ConnectionCaps.defaultMaxTotal() : http.maxConnections();
        return new dev.tandem.net.ConnectionCaps(total, Math.min(total, http.maxConnectionsPerAddress()), (address, cap) -> {
            io.micrometer.core.instrument.MeterRegistry m = meters.getIfAvailable();
            if (m != null) {
                m.counter("tandem.http.connections.refused", "cap", cap).increment();
            }
        });
    }

    /** WebSocket upgrades whose frames may exceed the message limit, so an oversized message gets an error reply. */
    @Bean
    WebFluxConfigurer tandemWebSockets() {
        return new WebFluxConfigurer() {
            @Override
            public WebSocketService getWebSocketService() {
                return new HandshakeWebSocketService(new ReactorNettyRequestUpgradeStrategy(
                        () -> WebsocketServerSpec.builder().maxFramePayloadLength(ApiProperties.MAX_SOCKET_FRAME_BYTES)));
            }
        };
    }

    @Bean
    @ConditionalOnProperty(name = "tandem.mode", havingValue = "replica")
    RouterFunction<ServerResponse> tandemReplicaApi() {
        return RouterFunctions.route(path("/v1/**"), r -> Mono.error(new ApiException(HttpStatus.CONFLICT,
                "this server runs in replica mode (tandem.mode=replica): it serves only the compute protocol at /v1/compute;"
                        + " tables, views, indexes and reads are served by a standalone server")));
    }

    @Bean
    @ConditionalOnProperty(name = "tandem.mode", havingValue = "replica")
    HandlerMapping tandemComputeSocket(Multiplexer multiplexer, ApiProperties props) {
        return socketMapping("/v1/compute", new ComputeSocketHandler(multiplexer), props);
    }

    /**
     * Maps a WebSocket path ahead of the router functions. A handshake from a browser page of
     * another origin is refused (403) unless the origin is allowed; same-origin handshakes and those
     * without an {@code Origin} (non-browser clients) pass.
     */
    private static HandlerMapping socketMapping(String path, org.springframework.web.reactive.socket.WebSocketHandler handler,
            ApiProperties props) {
        SimpleUrlHandlerMapping mapping = new SimpleUrlHandlerMapping(Map.of(path, handler));
        mapping.setOrder(ROUTES_ORDER - 1);
        CorsConfiguration origins = new CorsConfiguration();
        origins.setAllowedOriginPatterns(props.allowedOrigins());
        origins.addAllowedMethod(HttpMethod.GET);
        origins.addAllowedHeader(CorsConfiguration.ALL);
        mapping.setCorsConfigurations(Map.of(path, origins));
        return mapping;
    }
}
