package dev.tandem.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tandem.metrics.TandemMeters;
import dev.tandem.multiplex.Multiplexer;
import dev.tandem.runtime.KernelCpuTimes;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tandem.compute.maintenance-reserve} end to end: a server started with it answers reads, measures
 * maintenance's share from the kernel and shows the reserve's meters; it is on by default (0.5) and 0 turns it off; a
 * value out of range stops the start with a message naming the setting. (The budget's behaviour under
 * made-up loads is in {@code MaintenanceReserveTest}; its effect under real load in {@code bench
 * maintenance-throughput}.)
 */
class MaintenanceReserveServerTest {

    @TempDir
    Path dir;

    @Test
    void aServerWithAReserveAnswersReadsAndShowsTheReserveAtWork() {
        try (TandemServer s = new TandemServer(dir.resolve("on"), Map.of("tandem.compute.maintenance-reserve", 0.7))) {
            var reserve = s.bean(Multiplexer.class).maintenanceReserve();
            if (!KernelCpuTimes.available()) {
                assertThat(reserve).as("no scheduler statistics here: the reserve is off, with a warning").isNull();
                return;
            }
            assertThat(reserve).isNotNull();
            assertThat(reserve.reserve()).isEqualTo(0.7);
            assertThat(s.post("/v1/tables", "{\"name\":\"t\",\"columns\":[{\"name\":\"k\",\"type\":\"int64\"}]}").status()).isEqualTo(201);
            assertThat(s.post("/v1/tables/t/rows", "{\"insert\":[[1],[2],[3]]}").status()).isEqualTo(200);
            assertThat(s.post("/v1/indexes", "{\"name\":\"t_k\",\"on\":\"t\",\"key\":[\"k\"]}").status()).isEqualTo(201);
            await().atMost(Duration.ofSeconds(30)).until(() -> s.get("/v1/indexes/t_k").json().get("hydrated").asBoolean());
            for (int i = 0; i < 50; i++) {
                TandemServer.Response r = s.get("/v1/indexes/t_k/rows?key=2");
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.json().get("rows").toString()).isEqualTo("[[2]]");
            }
            // The meters show the reserve (whatever else the machine runs: other tests may share its cores).
            MeterRegistry meters = s.bean(MeterRegistry.class);
            assertThat(meters.get(TandemMeters.RESERVE_SHARE).gauge().value()).isBetween(0.0, 1.0);
            double limit = meters.get(TandemMeters.RESERVE_LIMIT).gauge().value();
            assertThat(Double.isNaN(limit) || limit >= 40).as("no limit, or at least one peek per 25 ms: %s", limit).isTrue();
            assertThat(meters.get(TandemMeters.RESERVE_WAITING).gauge().value()).isGreaterThanOrEqualTo(0);
            assertThat(meters.get(TandemMeters.RESERVE_HELD).functionCounter().count()).isGreaterThanOrEqualTo(0);
        }
        try (TandemServer s = new TandemServer(dir.resolve("default"), Map.of())) {
            var reserve = s.bean(Multiplexer.class).maintenanceReserve();
            if (KernelCpuTimes.available()) {
                assertThat(reserve).as("on by default").isNotNull();
                assertThat(reserve.reserve()).isEqualTo(0.5);
            }
        }
        try (TandemServer s = new TandemServer(dir.resolve("off"), Map.of("tandem.compute.maintenance-reserve", 0))) {
            assertThat(s.bean(Multiplexer.class).maintenanceReserve()).as("0 turns it off").isNull();
            assertThat(s.bean(MeterRegistry.class).find(TandemMeters.RESERVE_SHARE).gauge()).isNull();
        }
    }

    @Test
    void aReserveOutOfRangeStopsTheStartNamingTheSetting() {
        assertThatThrownBy(() -> new TandemServer(dir.resolve("bad"), Map.of("tandem.compute.maintenance-reserve", 1.5)).close())
                .hasStackTraceContaining("tandem.compute.maintenance-reserve must be between 0 (off) and 0.9, got 1.5");
    }
}
