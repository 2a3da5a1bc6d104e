package dev.tandem.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tandem.storage.SmallFileSystem;
import dev.tandem.storage.TableStorage;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server whose data directory is on a small file system that fills up: writes answer 507 with a
 * problem, the {@code storage} component takes readiness out, reads still answer, and once space is
 * freed writes and readiness come back by themselves; after a restart exactly the acknowledged rows remain.
 */
class DiskFullApiTest {

    @TempDir
    Path dir;

    private static String rows(int from, int n) {
        StringBuilder b = new StringBuilder("{\"insert\":[");
        for (int k = from; k < from + n; k++) {
            b.append(k == from ? "" : ",").append("[").append(k).append(",\"").append("x".repeat(200)).append("\"]");
        }
        return b.append("]}").toString();
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void writesAnswer507WhileTheDiskIsFullAndRecoverByThemselves() throws Exception {
        try (SmallFileSystem fs = SmallFileSystem.mountOrSkip(dir.resolve("mnt"), "8m")) {
            Path data = fs.root.resolve("data");
            try (TandemServer s = new TandemServer(data, Map.of())) {
                assertThat(s.post("/v1/tables", "{\"name\":\"t\",\"columns\":[{\"name\":\"k\",\"type\":\"int64\"},{\"name\":\"v\",\"type\":\"string\"}]}")
                        .status()).isEqualTo(201);
                assertThat(s.post("/v1/tables/t/rows", rows(0, 10)).status()).isEqualTo(200);

                fs.fill();
                TandemServer.Response full = s.post("/v1/tables/t/rows", rows(100, 200));
                assertThat(full.status()).isEqualTo(507);
                assertThat(full.isProblem()).isTrue();
                assertThat(full.json().get("detail").asString()).contains("nothing of this change was kept");
                TandemServer.Response ready = s.get("/actuator/health/readiness");
                assertThat(ready.status()).isEqualTo(503);
                assertThat(ready.json().get("status").asString()).isEqualTo("DOWN");
                assertThat(s.get("/actuator/health").json().get("status").asString()).isEqualTo("DOWN");
                assertThat(s.get("/actuator/health/liveness").status()).as("the process is alive; only readiness is out").isEqualTo(200);
                assertThat(s.bean(TableStorage.class).unavailable()).contains("could not be written");
                assertThat(s.post("/v1/peek", "{\"from\":\"t\",\"isolation\":\"strict\"}").json().get("rows").size()).isEqualTo(10);

                fs.free();
                await().atMost(Duration.ofSeconds(30)).until(() -> s.get("/actuator/health/readiness").status() == 200);
                assertThat(s.post("/v1/tables/t/rows", rows(300, 5)).status()).isEqualTo(200);
                assertThat(s.post("/v1/peek", "{\"from\":\"t\",\"isolation\":\"strict\"}").json().get("rows").size()).isEqualTo(15);
            }
            try (TandemServer s = new TandemServer(data, Map.of())) {
                assertThat(s.post("/v1/peek", "{\"from\":\"t\",\"isolation\":\"strict\"}").json().get("rows").size())
                        .as("exactly the acknowledged rows survive a restart").isEqualTo(15);
            }
        }
    }
}
