package dev.tandem.render;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tandem.plan.DataflowDescription;
import dev.tandem.plan.Plan;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.storage.TableEvent;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Tick work is proportional to changes: with the dataflow's clock held still, hundreds of idle
 * frontier ticks of its table run no round at all; each write runs at most one; and a heartbeat's worth
 * of clock runs exactly one frontier-only round. Counted in rounds, not measured in CPU time.
 */
class DataflowIdleTest {

    @Test
    void idleTicksRunNoRoundsAndChangesRunAtMostOneEach() {
        try (RenderHarness h = new RenderHarness(2)) {
            h.createTable("u1", List.of(DatumType.INT64));
            long t0 = h.write("u1", Map.of(Row.of(0L), 1L));
            AtomicLong clock = new AtomicLong(1_000_000);
            DataflowDescription desc = new DataflowDescription(Map.of("u1", h.schemas.get("u1")), Map.of(),
                    List.of(new DataflowDescription.BuildDesc("o1", Plan.get("u1"))),
                    List.of(new DataflowDescription.IndexExport("u2", "o1", List.of(0))), t0, null);
            Dataflow df = Dataflow.render("u2", desc, new Dataflow.Env(h.pool, h.storage, h.registry, DataflowListener.NONE, clock::get,
                    Dataflow.StepObserver.NONE));
            df.schedule();
            h.awaitSealed(df, t0);
            long hydrated = df.rounds();

            // Idle: the table's frontier ticks (reported every 100 ms of idle) but nothing changes.
            awaitTicks(h, 30);
            assertThat(df.rounds()).as("rounds while idle").isEqualTo(hydrated);

            // Changes: each write is reflected promptly, by at most one round.
            long last = t0;
            for (long k = 1; k <= 10; k++) {
                last = h.write("u1", Map.of(Row.of(k), 1L));
                h.awaitSealed(df, last);
            }
            long afterWrites = df.rounds();
            assertThat(afterWrites - hydrated).isBetween(1L, 10L);
            assertThat(RenderHarness.read(df.exports().get(0), last).rows()).hasSize(11);

            // A heartbeat later, one frontier-only round moves the frontier on; then idle again.
            awaitTicks(h, 10);
            assertThat(df.rounds()).isEqualTo(afterWrites);
            clock.addAndGet(Dataflow.IDLE_HEARTBEAT_MILLIS);
            await().atMost(Duration.ofSeconds(30)).until(() -> df.rounds() == afterWrites + 1);
            awaitTicks(h, 30);
            assertThat(df.rounds()).isEqualTo(afterWrites + 1);

            // A write to another table: the idle dataflow passes its timestamp at once (no heartbeat), so a
            // read at that timestamp (read-your-writes, strict) does not wait; the clock stays frozen.
            h.createTable("u9", List.of(DatumType.INT64));
            long other = h.write("u9", Map.of(Row.of(1L), 1L));
            h.awaitSealed(df, other);
            assertThat(df.rounds()).isEqualTo(afterWrites + 2);
        }
    }

    /** Waits for {@code n} frontier ticks of table u1 (as any subscriber sees them). */
    private static void awaitTicks(RenderHarness h, int n) {
        h.storage.subscribe("u1", h.storage.upper("u1").time() - 1)
                .filter(e -> e instanceof TableEvent.Progress)
                .take(n)
                .blockLast(Duration.ofSeconds(30));
    }
}
