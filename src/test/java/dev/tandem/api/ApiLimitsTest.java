package dev.tandem.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.http.MediaType;
import reactor.core.publisher.Mono;

/**
 * The limits a user meets over HTTP: admission control (503 with Retry-After), a read that cannot be
 * answered in time (504), a read before the compaction frontier (409), a result over the size limit
 * (413). None changes state.
 */
class ApiLimitsTest {

    @TempDir
    Path dir;

    @Test
    void limitsAnswerPreciseProblems() {
        try (TandemServer s = new TandemServer(dir, Map.of("tandem.peek.max-pending", 2, "tandem.peek.max-result-rows", 3,
                "tandem.compaction.window", "50ms"))) {
            assertThat(s.post("/v1/tables", "{\"name\":\"t\",\"columns\":[{\"name\":\"k\",\"type\":\"int64\"}]}").status()).isEqualTo(201);
            long t1 = s.post("/v1/tables/t/rows", "{\"insert\":[[1],[2],[3],[4]]}").json().get("timestamp").asLong();
            assertThat(s.post("/v1/indexes", "{\"name\":\"t_k\",\"on\":\"t\",\"key\":[\"k\"]}").status()).isEqualTo(201);
            await().atMost(Duration.ofSeconds(30)).until(() -> s.get("/v1/indexes/t_k").json().get("hydrated").asBoolean());

            // Every answer, a problem too, carries the protective headers; HSTS only over TLS (TlsTest).
            var problemHeaders = s.client.post().uri("/v1/peek").contentType(MediaType.APPLICATION_JSON).bodyValue("{\"from\":\"t_k\"}")
                    .exchangeToMono(r -> r.toBodilessEntity()).block(Duration.ofSeconds(30)).getHeaders();
            assertThat(problemHeaders.getFirst("X-Content-Type-Options")).isEqualTo("nosniff");
            assertThat(problemHeaders.getFirst("X-Frame-Options")).isEqualTo("DENY");
            assertThat(problemHeaders.getFirst("Cache-Control")).isEqualTo("no-cache, no-store, max-age=0, must-revalidate");
            assertThat(problemHeaders.containsHeader("Strict-Transport-Security")).isFalse();

            // 413: four rows where at most three may be returned; with a limit the same read is fine.
            TandemServer.Response big = s.post("/v1/peek", "{\"from\":\"t_k\"}");
            assertThat(big.status()).isEqualTo(413);
            assertThat(big.isProblem()).isTrue();
            assertThat(big.json().get("detail").asString()).contains("maximum result size of 3 rows");
            assertThat(s.post("/v1/peek", "{\"from\":\"t_k\",\"limit\":2}").json().get("rows").size()).isEqualTo(2);

            // 504: a read at a time the index will not reach within the timeout.
            long future = System.currentTimeMillis() + 600_000;
            TandemServer.Response late = s.post("/v1/peek", "{\"from\":\"t_k\",\"as_of\":" + future + ",\"timeout_ms\":300}");
            assertThat(late.status()).isEqualTo(504);
            assertThat(late.json().get("detail").asString()).contains("could not be answered within 300 ms");

            // 503 with Retry-After: two reads wait, a third is refused at once.
            List<Mono<Integer>> waiting = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                waiting.add(s.client.post().uri("/v1/peek").contentType(MediaType.APPLICATION_JSON)
                        .bodyValue("{\"from\":\"t_k\",\"as_of\":" + future + ",\"timeout_ms\":5000}")
                        .exchangeToMono(r -> Mono.just(r.statusCode().value())).cache());
            }
            waiting.forEach(Mono::subscribe);
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                var r = s.client.post().uri("/v1/peek").contentType(MediaType.APPLICATION_JSON).bodyValue("{\"from\":\"t_k\",\"key\":[[1]]}")
                        .exchangeToMono(x -> x.bodyToMono(String.class).defaultIfEmpty("")
                                .map(body -> x.statusCode().value() + " " + x.headers().asHttpHeaders().getFirst("Retry-After") + " " + body))
                        .block(Duration.ofSeconds(10));
                return r.startsWith("503 1 ") && r.contains("too many reads in flight (2)");
            });
            for (Mono<Integer> w : waiting) {
                assertThat(w.block(Duration.ofSeconds(20))).isEqualTo(504);
            }

            // 409: after compaction has passed t1, a read at t1 is refused; the index still answers now.
            s.post("/v1/tables/t/rows", "{\"insert\":[[5]]}");
            await().atMost(Duration.ofSeconds(30)).until(() -> s.get("/v1/indexes/t_k").json().get("since").asLong() > t1);
            TandemServer.Response old = s.post("/v1/peek", "{\"from\":\"t_k\",\"as_of\":" + t1 + ",\"limit\":1}");
            assertThat(old.status()).isEqualTo(409);
            assertThat(old.json().get("detail").asString()).contains("before the compaction frontier");
            assertThat(s.post("/v1/peek", "{\"from\":\"t_k\",\"key\":[[5]]}").json().get("rows").toString()).isEqualTo("[[5]]");
        }
    }
}
