package dev.tandem.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.springframework.http.HttpMethod;
import org.springframework.web.reactive.function.server.HandlerFunction;
import org.springframework.web.reactive.function.server.RequestPredicate;
import org.springframework.web.reactive.function.server.RequestPredicates;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Mono;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/** The OpenAPI description at {@code /v3/api-docs} lists every {@code /v1} operation, with the bearer scheme and the role each needs. */
class OpenApiTest {

    @TempDir
    Path dir;

    @Test
    void describesEveryOperation() {
        try (TandemServer s = new TandemServer(dir, Map.of())) {
            TandemServer.Response r = s.get("/v3/api-docs");
            assertThat(r.status()).isEqualTo(200);
            JsonNode paths = r.json().get("paths");
            assertThat(r.json().get("info").get("title").asString()).isEqualTo("Tandem API");
            assertThat(paths.has("/v1/tables")).isTrue();
            assertThat(paths.get("/v1/tables").has("post")).isTrue();
            assertThat(paths.get("/v1/tables/{name}/rows").has("post")).isTrue();
            assertThat(paths.get("/v1/indexes/{name}/rows").has("get")).isTrue();
            assertThat(paths.get("/v1/peek").has("post")).isTrue();
            // Every path that answers 405 for other methods is a described path, with exactly its methods.
            assertThat(paths.propertyNames()).containsExactlyInAnyOrderElementsOf(ApiRoutesAccess.allowed().keySet());
            ApiRoutesAccess.allowed().forEach((p, allow) -> assertThat(paths.get(p).propertyNames().stream().map(String::toUpperCase))
                    .as(p).containsExactlyInAnyOrder(allow.split(", ")));
            // Every operation that reads is admitted against the caller's own limits (ReadAdmission): its errors name the 429.
            for (String[] read : new String[][] {{"/v1/peek", "post"}, {"/v1/sql", "post"}, {"/v1/indexes/{name}/rows", "get"},
                    {"/v1/introspection/{name}", "get"}, {"/v1/introspection/{name}", "post"}}) {
                assertThat(paths.get(read[0]).get(read[1]).at("/responses/default/description").asString()).as(read[1] + " " + read[0])
                        .contains("429 the caller at its limit of reads in flight or of slow-path dataflows", "with Retry-After");
            }
            assertThat(r.json().at("/components/schemas/Problem").isObject()).isTrue();
            assertThat(r.json().at("/components/schemas/Source/properties/offsets").isObject()).isTrue();

            // Security: the bearer scheme, and on every operation the role the route table (ApiAccess) gives it.
            assertThat(r.json().at("/components/securitySchemes/bearer/type").asString()).isEqualTo("http");
            assertThat(r.json().at("/components/securitySchemes/bearer/scheme").asString()).isEqualTo("bearer");
            for (String path : paths.propertyNames()) {
                for (String method : paths.get(path).propertyNames()) {
                    dev.tandem.security.AccessTable.Route route = ApiAccess.TABLE.routes().stream()
                            .filter(x -> x.method().equalsIgnoreCase(method) && x.pattern().equals(path)).findFirst().orElseThrow();
                    assertThat(paths.get(path).get(method).at("/security/0/bearer").toString()).as(method + " " + path)
                            .isEqualTo("[\"" + route.role().label() + "\"]");
                }
            }
        }
    }

    /**
     * Every (method, path) the router really serves, read from the {@code tandemApi} router function
     * itself rather than from a list kept beside it, is an operation of the served OpenAPI document, and
     * the document describes no operation the router does not serve.
     */
    @Test
    @SuppressWarnings("unchecked")
    void everyRouteOfTheRouterIsInTheServedDocument() {
        try (TandemServer s = new TandemServer(dir, Map.of())) {
            RouterFunction<ServerResponse> router = s.context.getBean("tandemApi", RouterFunction.class);
            Set<String> routes = new TreeSet<>();
            router.accept(new RouteCollector(routes));
            assertThat(routes).as("routes found in the router").contains("POST /v1/peek", "GET /v1/indexes/{name}/rows");

            JsonNode paths = s.get("/v3/api-docs").json().get("paths");
            Set<String> documented = new TreeSet<>();
            for (String path : paths.propertyNames()) {
                for (String method : paths.get(path).propertyNames()) {
                    documented.add(method.toUpperCase(Locale.ROOT) + " " + path);
                }
            }
            assertThat(documented).as("operations of /v3/api-docs").containsExactlyInAnyOrderElementsOf(routes);
        }
    }

    /** Collects "METHOD /path" for each route with both a method and a path; method-less fallbacks are skipped. */
    private static final class RouteCollector implements RouterFunctions.Visitor {
        private final Set<String> out;

        RouteCollector(Set<String> out) {
            this.out = out;
        }

        @Override
        public void startNested(RequestPredicate predicate) {
        }

        @Override
        public void endNested(RequestPredicate predicate) {
        }

        @Override
        public void route(RequestPredicate predicate, HandlerFunction<?> handlerFunction) {
            Set<String> methods = new TreeSet<>();
            List<String> paths = new ArrayList<>();
            predicate.accept(new RequestPredicates.Visitor() {
                @Override
                public void method(Set<HttpMethod> m) {
                    m.forEach(x -> methods.add(x.name()));
                }

                @Override
                public void path(String pattern) {
                    paths.add(pattern);
                }

                @Override
                public void pathExtension(String extension) {
                }

                @Override
                public void header(String name, String value) {
                }

                @Override
                public void queryParam(String name, String value) {
                }

                @Override
                public void version(String version) {
                }

                @Override
                public void startAnd() {
                }

                @Override
                public void and() {
                }

                @Override
                public void endAnd() {
                }

                @Override
                public void startOr() {
                }

                @Override
                public void or() {
                }

                @Override
                public void endOr() {
                }

                @Override
                public void startNegate() {
                }

                @Override
                public void endNegate() {
                }

                @Override
                public void unknown(RequestPredicate p) {
                }
            });
            for (String method : methods) {
                for (String path : paths) {
                    out.add(method + " " + path);
                }
            }
        }

        @Override
        public void resources(java.util.function.Function<ServerRequest, Mono<org.springframework.core.io.Resource>> lookupFunction) {
        }

        @Override
        public void attributes(Map<String, Object> attributes) {
        }

        @Override
        public void unknown(RouterFunction<?> routerFunction) {
        }
    }
}
