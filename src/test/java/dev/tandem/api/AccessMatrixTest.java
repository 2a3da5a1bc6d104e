package dev.tandem.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.api.TandemServer.Response;
import dev.tandem.security.AccessTable;
import dev.tandem.security.Role;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.context.ApplicationContext;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.http.server.PathContainer;
import org.springframework.web.reactive.HandlerMapping;
import org.springframework.web.reactive.function.server.HandlerFunction;
import org.springframework.web.reactive.function.server.RequestPredicate;
import org.springframework.web.reactive.function.server.RequestPredicates;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.handler.SimpleUrlHandlerMapping;
import org.springframework.web.reactive.result.method.RequestMappingInfo;
import org.springframework.web.reactive.result.method.RequestMappingInfoHandlerMapping;
import org.springframework.web.reactive.socket.WebSocketHandler;
import org.springframework.web.reactive.socket.client.ReactorNettyWebSocketClient;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;
import tools.jackson.databind.JsonNode;

/**
 * The route × role matrix, generated from the route table ({@link ApiAccess}) and from the routes the
 * running server actually serves: every served route must be declared; then for every declared route
 * and every WebSocket op, no credentials → 401, a role that does not cover it → 403, a role that does
 * → the handler's own answer (never 401/403). Requests name objects that do not exist, so the matrix
 * changes nothing and its order does not matter.
 */
class AccessMatrixTest {

    /** The callers: no credentials, then one token per role. */
    static final List<String> CALLERS = Arrays.asList(null, "reader", "writer", "admin", "replica");

    @TempDir
    Path dir;

    @Test
    void everyServedRouteIsDeclaredAndEveryDeclaredRouteAndOpAnswersEachRoleAsDeclared() {
        try (SecuredServer s = new SecuredServer(dir, Map.of())) {
            Set<String> served = servedRoutes(s.server.context);
            assertThat(served).as("routes the server serves").contains("GET /v1/tables", "POST /v1/peek", "GET /v1/ws");
            List<String> undeclared = served.stream().filter(r -> !declared(r)).toList();
            assertThat(undeclared).as("served routes missing from ApiAccess (declare each with its role)").isEmpty();

            int cells = 0;
            List<String> wrong = new ArrayList<>();
            for (AccessTable.Route route : ApiAccess.TABLE.routes()) {
                String uri = concrete(route.pattern());
                for (String caller : CALLERS) {
                    Answer r = call(s, caller, route.method(), uri);
                    int expected = expected(route.role(), caller);
                    cells++;
                    boolean ok = expected == 0 ? r.status() != 401 && r.status() != 403 : r.status() == expected && r.problem();
                    if (expected == 401 && !"Bearer".equals(r.authenticate())) {
                        ok = false;
                    }
                    if (!ok) {
                        wrong.add(route.method() + " " + uri + " as " + caller + ": expected " + (expected == 0 ? "the handler's answer" : expected)
                                + ", got " + r.status() + " " + r.text());
                    }
                }
            }
            Role handshake = ApiAccess.TABLE.routes().stream().filter(r -> r.pattern().equals("/v1/ws")).findFirst().orElseThrow().role();
            for (Map.Entry<String, Role> op : ApiAccess.TABLE.ops().entrySet()) {
                for (String caller : CALLERS) {
                    try (SocketClient socket = new SocketClient(URI.create("ws://127.0.0.1:" + s.server.port + "/v1/ws"), s.bearer(caller),
                            new ReactorNettyWebSocketClient())) {
                        cells++;
                        if (expected(handshake, caller) != 0) {
                            // Refused at the handshake (401/403, checked as GET /v1/ws above): the connection never opens.
                            assertThat(socket.closed.asMono().block(java.time.Duration.ofSeconds(30))).isNotNull();
                            assertThat(socket.received).isEmpty();
                            continue;
                        }
                        socket.send("{\"op\":\"" + op.getKey() + "\",\"id\":1,\"index\":\"absent\"}");
                        JsonNode reply = socket.await(n -> n.path("id").asInt() == 1);
                        boolean allowed = expected(op.getValue(), caller) == 0;
                        boolean forbidden = "error".equals(reply.path("op").asString()) && reply.path("status").asInt() == 403;
                        boolean unknown = reply.path("detail").asString().contains("unknown op");
                        if (allowed == forbidden || unknown) {
                            wrong.add("op " + op.getKey() + " as " + caller + ": expected " + (allowed ? "the op's own answer" : "403") + ", got " + reply);
                        }
                    }
                }
            }
            // An op the table does not declare is refused, even to admin.
            try (SocketClient socket = new SocketClient(URI.create("ws://127.0.0.1:" + s.server.port + "/v1/ws"), s.bearer("admin"),
                    new ReactorNettyWebSocketClient())) {
                socket.send("{\"op\":\"undeclared\",\"id\":2}");
                assertThat(socket.await(n -> n.path("id").asInt() == 2).path("status").asInt()).isEqualTo(403);
            }
            assertThat(wrong).as("matrix cells answered wrongly").isEmpty();
            assertThat(cells).as("matrix cells checked").isEqualTo(ApiAccess.TABLE.routes().size() * CALLERS.size()
                    + ApiAccess.TABLE.ops().size() * CALLERS.size());
            System.out.println("AccessMatrixTest: " + ApiAccess.TABLE.routes().size() + " routes x " + CALLERS.size() + " callers + "
                    + ApiAccess.TABLE.ops().size() + " ops x " + CALLERS.size() + " callers = " + cells + " cells; served routes: " + served.size());
        }
    }

    @Test
    void aTokenWithAnAllowListReadsOnlyTheObjectsItIsGranted() {
        try (SecuredServer s = new SecuredServer(dir, Map.of())) {
            TandemServer t = s.server;
            String admin = "admin";
            assertThat(t.call(s.as(admin), HttpMethod.POST, "/v1/tables", MediaType.APPLICATION_JSON,
                    "{\"name\":\"orders\",\"columns\":[{\"name\":\"id\",\"type\":\"int64\"}]}".getBytes()).status()).isEqualTo(201);
            assertThat(t.call(s.as(admin), HttpMethod.POST, "/v1/tables", MediaType.APPLICATION_JSON,
                    "{\"name\":\"secrets\",\"columns\":[{\"name\":\"id\",\"type\":\"int64\"}]}".getBytes()).status()).isEqualTo(201);
            assertThat(t.call(s.as(admin), HttpMethod.POST, "/v1/views", MediaType.APPLICATION_JSON,
                    "{\"name\":\"all_secrets\",\"plan\":{\"op\":\"get\",\"name\":\"secrets\"}}".getBytes()).status()).isEqualTo(201);
            assertThat(t.call(s.as("scoped"), HttpMethod.GET, "/v1/tables/orders", null, null).status()).isEqualTo(200);
            assertThat(t.call(s.as("scoped"), HttpMethod.GET, "/v1/tables/secrets", null, null).status()).isEqualTo(403);
            assertThat(t.call(s.as("scoped"), HttpMethod.POST, "/v1/peek", MediaType.APPLICATION_JSON, "{\"from\":\"orders\"}".getBytes()).status())
                    .isEqualTo(200);
            Response secrets = t.call(s.as("scoped"), HttpMethod.POST, "/v1/peek", MediaType.APPLICATION_JSON, "{\"from\":\"secrets\"}".getBytes());
            assertThat(secrets.status()).isEqualTo(403);
            assertThat(secrets.json().get("detail").asString()).contains("'scoped' is not granted access to 'secrets'");
            // A view needs its own grant, and a plan cannot reach around the allow-list.
            assertThat(t.call(s.as("scoped"), HttpMethod.POST, "/v1/peek", MediaType.APPLICATION_JSON, "{\"from\":\"all_secrets\"}".getBytes())
                    .status()).isEqualTo(403);
            assertThat(t.call(s.as("scoped"), HttpMethod.POST, "/v1/peek", MediaType.APPLICATION_JSON,
                    "{\"plan\":{\"op\":\"get\",\"name\":\"secrets\"}}".getBytes()).status()).isEqualTo(403);
            assertThat(t.call(s.as("reader"), HttpMethod.POST, "/v1/peek", MediaType.APPLICATION_JSON, "{\"from\":\"all_secrets\"}".getBytes())
                    .status()).isEqualTo(200);
        }
    }

    /** Status, whether the body is a problem, and the {@code WWW-Authenticate} header of one answer. */
    record Answer(int status, boolean problem, String authenticate, String text) {
    }

    private static Answer call(SecuredServer s, String caller, String method, String uri) {
        return s.as(caller).method(HttpMethod.valueOf(method)).uri(uri).contentType(MediaType.APPLICATION_JSON).bodyValue("{}")
                .exchangeToMono(r -> r.bodyToMono(String.class).defaultIfEmpty("").map(text -> new Answer(r.statusCode().value(),
                        r.headers().contentType().map(MediaType.APPLICATION_PROBLEM_JSON::isCompatibleWith).orElse(false),
                        r.headers().asHttpHeaders().getFirst("WWW-Authenticate"), text)))
                .block(java.time.Duration.ofSeconds(30));
    }

    /** 0: the handler answers; 401: no credentials; 403: the caller's roles do not cover {@code role}. */
    static int expected(Role role, String caller) {
        if (role == null) {
            return 0;
        }
        if (caller == null) {
            return 401;
        }
        return Role.expand(Set.of(Role.parse(SecuredServer.TOKENS.get(caller)))).contains(role) ? 0 : 403;
    }

    /** A request path for a pattern: variables and wildcards name something that does not exist. */
    static String concrete(String pattern) {
        return pattern.replaceAll("\\{[^}]+}", "absent").replace("**", "absent");
    }

    static boolean declared(String route) {
        String method = route.substring(0, route.indexOf(' '));
        PathContainer path = PathContainer.parsePath(concrete(route.substring(route.indexOf(' ') + 1)));
        return ApiAccess.TABLE.routes().stream().anyMatch(r -> r.method().equals(method)
                && PathPatternParser.defaultInstance.parse(r.pattern()).matches(path));
    }

    /**
     * Every {@code METHOD pattern} the server serves: router-function routes with a method (the
     * method-agnostic fallbacks that answer 405/404 are not routes), annotated handler methods
     * (actuator, OpenAPI) and WebSocket paths (GET).
     */
    static Set<String> servedRoutes(ApplicationContext context) {
        Set<String> out = new TreeSet<>();
        for (RouterFunction<?> f : context.getBeansOfType(RouterFunction.class).values()) {
            f.accept(new RoutesVisitor(out));
        }
        for (RequestMappingInfoHandlerMapping m : context.getBeansOfType(RequestMappingInfoHandlerMapping.class).values()) {
            for (RequestMappingInfo info : m.getHandlerMethods().keySet()) {
                Set<String> methods = info.getMethodsCondition().getMethods().isEmpty() ? Set.of("GET")
                        : info.getMethodsCondition().getMethods().stream().map(Enum::name).collect(java.util.stream.Collectors.toSet());
                for (PathPattern p : info.getPatternsCondition().getPatterns()) {
                    methods.forEach(method -> out.add(method + " " + p.getPatternString()));
                }
            }
        }
        for (HandlerMapping m : context.getBeansOfType(HandlerMapping.class).values()) {
            if (m instanceof SimpleUrlHandlerMapping simple) {
                simple.getUrlMap().forEach((path, handler) -> {
                    if (handler instanceof WebSocketHandler) {
                        out.add("GET " + path);
                    }
                });
            }
        }
        return out;
    }

    /** Collects the method and path of each route whose predicate names both. */
    private static final class RoutesVisitor implements RouterFunctions.Visitor, RequestPredicates.Visitor {
        private final Set<String> out;
        private final List<String> methods = new ArrayList<>();
        private String path;

        RoutesVisitor(Set<String> out) {
            this.out = out;
        }

        @Override
        public void route(RequestPredicate predicate, HandlerFunction<?> handler) {
            methods.clear();
            path = null;
            predicate.accept(this);
            if (path != null) {
                methods.forEach(m -> out.add(m + " " + path));
            }
        }

        @Override
        public void method(Set<HttpMethod> set) {
            set.forEach(m -> methods.add(m.name()));
        }

        @Override
        public void path(String pattern) {
            path = pattern;
        }

        @Override public void startNested(RequestPredicate predicate) { }
        @Override public void endNested(RequestPredicate predicate) { }
        @Override public void resources(java.util.function.Function<org.springframework.web.reactive.function.server.ServerRequest,
                reactor.core.publisher.Mono<org.springframework.core.io.Resource>> lookup) { }
        @Override public void attributes(Map<String, Object> attributes) { }
        @Override public void unknown(RouterFunction<?> routerFunction) { }
        @Override public void pathExtension(String extension) { }
        @Override public void header(String name, String value) { }
        @Override public void queryParam(String name, String value) { }
        @Override public void version(String version) { }
        @Override public void startAnd() { }
        @Override public void and() { }
        @Override public void endAnd() { }
        @Override public void startOr() { }
        @Override public void or() { }
        @Override public void endOr() { }
        @Override public void startNegate() { }
        @Override public void endNegate() { }
        @Override public void unknown(RequestPredicate predicate) { }
    }
}
