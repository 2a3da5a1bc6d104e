package dev.tandem.api;

import dev.tandem.TandemApplication;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.client.WebClient;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** A real Tandem server on a random loopback port over a data directory, with a small HTTP client. */
final class TandemServer implements AutoCloseable {

    static final JsonMapper JSON = JsonMapper.builder().build();

    /** A response: status, content type and body (JSON when it parses, else a JSON string of the text). */
    record Response(int status, MediaType contentType, JsonNode json, String text) {
        boolean isProblem() {
            return contentType != null && MediaType.APPLICATION_PROBLEM_JSON.isCompatibleWith(contentType);
        }
    }

    final ConfigurableApplicationContext context;
    final int port;
    final WebClient client;
    /** A client that opens a new connection for every request (no keep-alive). */
    final WebClient oneShot;

    TandemServer(Path dataDir, Map<String, Object> extra) {
        this(dataDir, extra, null);
    }

    /** A server whose clients send {@code bearer} as their {@code Authorization: Bearer} token (null: none). */
    TandemServer(Path dataDir, Map<String, Object> extra, String bearer) {
        Map<String, Object> props = new LinkedHashMap<>();
        props.put("server.port", 0);
        props.put("server.address", "127.0.0.1");
        props.put("tandem.storage.data-dir", dataDir.toString());
        props.put("tandem.storage.fsync", false);
        props.put("tandem.compute.maintenance-workers", 2);
        props.put("tandem.compute.interactive-workers", 1);
        props.putAll(extra);
        context = new SpringApplicationBuilder(TandemApplication.class).properties(props).run();
        port = Integer.parseInt(context.getEnvironment().getProperty("local.server.port"));
        WebClient.Builder builder = WebClient.builder().baseUrl("http://127.0.0.1:" + port)
                .codecs(c -> c.defaultCodecs().maxInMemorySize(16 << 20));
        if (bearer != null) {
            builder.defaultHeader(org.springframework.http.HttpHeaders.AUTHORIZATION, "Bearer " + bearer);
        }
        client = builder.build();
        oneShot = client.mutate().clientConnector(new org.springframework.http.client.reactive.ReactorClientHttpConnector(
                reactor.netty.http.client.HttpClient.create().keepAlive(false))).build();
    }

    static JsonNode json(String s) {
        return JSON.readTree(s);
    }

    Response call(HttpMethod method, String uri, String body) {
        return call(method, uri, body == null ? null : MediaType.APPLICATION_JSON, body == null ? null : body.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    Response call(HttpMethod method, String uri, MediaType type, byte[] body) {
        return call(client, method, uri, type, body);
    }

    Response call(WebClient through, HttpMethod method, String uri, MediaType type, byte[] body) {
        WebClient.RequestBodySpec spec = through.method(method).uri(uri);
        if (type != null) {
            spec.contentType(type);
        }
        WebClient.RequestHeadersSpec<?> req = body == null ? spec : spec.bodyValue(body);
        try {
            return exchange(req);
        } catch (IllegalStateException e) {
            if (e.getMessage() == null || !e.getMessage().startsWith("Timeout on blocking read")) {
                throw e;
            }
            // a hang says why only with the threads' stacks at the moment it was seen
            StringBuilder dump = new StringBuilder("no answer to " + method + " " + uri + " within " + ANSWER_WITHIN.toSeconds() + " s; threads:\n");
            for (java.lang.management.ThreadInfo t : java.lang.management.ManagementFactory.getThreadMXBean().dumpAllThreads(true, true)) {
                dump.append(t);
                for (StackTraceElement frame : t.getStackTrace()) {
                    dump.append("\t  at ").append(frame).append('\n');
                }
            }
            System.err.println(dump);
            throw new AssertionError("no answer to " + method + " " + uri + " within " + ANSWER_WITHIN.toSeconds() + " s (thread dump on stderr)", e);
        }
    }

    private static final Duration ANSWER_WITHIN = Duration.ofSeconds(30);

    private static Response exchange(WebClient.RequestHeadersSpec<?> req) {
        return req.exchangeToMono(r -> r.bodyToMono(String.class).defaultIfEmpty("").map(text -> {
            JsonNode n;
            try {
                n = text.isEmpty() ? null : JSON.readTree(text);
            } catch (RuntimeException e) {
                n = JSON.getNodeFactory().stringNode(text);
            }
            return new Response(r.statusCode().value(), r.headers().contentType().orElse(null), n, text);
        })).block(ANSWER_WITHIN);
    }

    Response get(String uri) {
        return call(HttpMethod.GET, uri, null);
    }

    Response post(String uri, String body) {
        return call(HttpMethod.POST, uri, body);
    }

    Response delete(String uri) {
        return call(HttpMethod.DELETE, uri, null);
    }

    <T> T bean(Class<T> type) {
        return context.getBean(type);
    }

    @Override
    public void close() {
        context.close();
    }
}
