package dev.tandem.bench;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import reactor.core.publisher.Mono;
import reactor.netty.ByteBufFlux;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * The load generator's HTTP client to one child server on loopback: Reactor Netty's non-blocking
 * {@link HttpClient} over a bounded keep-alive connection pool, so a few event-loop threads drive
 * thousands of requests per second. Requests beyond the pool's connections wait in its acquire queue
 * (open-loop latencies are measured from the intended send time, so that wait counts).
 */
final class BenchHttp implements AutoCloseable {

    static final ObjectMapper JSON = JsonMapper.builder().build();

    private final ConnectionProvider pool;
    private final HttpClient client;
    private final HttpClient measured;

    /**
     * @param requestTimeout how long a measured request ({@link #status}) may wait for its answer before
     *     it fails and its connection is closed; it bounds the cost of a connection the server stops
     *     reading (see docs/BENCHMARKS.md)
     */
    BenchHttp(int port, String name, int maxConnections, Duration requestTimeout) {
        this.pool = ConnectionProvider.builder("tandem-bench-" + name)
                .maxConnections(maxConnections)
                .pendingAcquireMaxCount(-1)
                .pendingAcquireTimeout(Duration.ofMinutes(10))
                .build();
        this.client = HttpClient.create(pool)
                .baseUrl("http://127.0.0.1:" + port)
                .keepAlive(true)
                .compress(false)
                .responseTimeout(Duration.ofMinutes(5));
        this.measured = client.responseTimeout(requestTimeout);
    }

    BenchHttp(int port, String name, int maxConnections) {
        this(port, name, maxConnections, Duration.ofMinutes(5));
    }

    /** A GET whose answer is only its status code (the body is read and released). */
    Mono<Integer> status(String uri) {
        return measured.get().uri(uri)
                .responseSingle((res, body) -> body.asByteArray()
                        .map(b -> res.status().code())
                        .defaultIfEmpty(res.status().code()));
    }

    /** A measured POST of JSON whose answer is only its status code. */
    Mono<Integer> postStatus(String uri, String body) {
        return measured.headers(h -> h.set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON))
                .post().uri(uri).send(ByteBufFlux.fromString(Mono.just(body)))
                .responseSingle((res, b) -> b.asByteArray().map(x -> res.status().code()).defaultIfEmpty(res.status().code()));
    }

    /** A measured POST of JSON answering its body; fails on a non-2xx answer. */
    Mono<String> postBody(String uri, String body) {
        return measured.headers(h -> h.set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON))
                .post().uri(uri).send(ByteBufFlux.fromString(Mono.just(body)))
                .responseSingle((res, b) -> b.asString().defaultIfEmpty("").map(s -> {
                    if (res.status().code() / 100 != 2) {
                        throw new IllegalStateException("POST " + uri + " answered " + res.status().code() + ": " + s);
                    }
                    return s;
                }));
    }

    /** A blocking GET of JSON; fails on a non-2xx answer. */
    JsonNode getJson(String uri) {
        return JSON.readTree(exchange(client.get().uri(uri), "GET " + uri));
    }

    /** A blocking GET of text; fails on a non-2xx answer. */
    String getText(String uri) {
        return exchange(client.get().uri(uri), "GET " + uri);
    }

    /** A blocking POST of JSON; fails on a non-2xx answer. */
    JsonNode postJson(String uri, String body) {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        var request = client.headers(h -> h.set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON))
                .post().uri(uri).send(ByteBufFlux.fromString(Mono.just(body)));
        return JSON.readTree(exchange(request, "POST " + uri + " (" + bytes.length + " bytes)"));
    }

    /** A blocking DELETE; fails on a non-2xx answer other than 404. */
    void delete(String uri) {
        client.delete().uri(uri)
                .responseSingle((res, body) -> body.asString().defaultIfEmpty("").map(s -> {
                    int code = res.status().code();
                    if (code / 100 != 2 && code != 404) {
                        throw new IllegalStateException("DELETE " + uri + " answered " + code + ": " + s);
                    }
                    return code;
                }))
                .block(Duration.ofMinutes(5));
    }

    private static String exchange(HttpClient.ResponseReceiver<?> request, String what) {
        return request.responseSingle((res, body) -> body.asString().defaultIfEmpty("").map(s -> {
                    int code = res.status().code();
                    if (code / 100 != 2) {
                        throw new IllegalStateException(what + " answered " + code + ": " + s);
                    }
                    return s;
                }))
                .block(Duration.ofMinutes(5));
    }

    @Override
    public void close() {
        pool.disposeLater().block(Duration.ofSeconds(10));
    }
}
