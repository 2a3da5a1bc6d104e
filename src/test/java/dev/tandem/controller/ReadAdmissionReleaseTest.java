package dev.tandem.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tandem.api.JsonRequests;
import dev.tandem.row.Column;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.runtime.ReadPath;
import dev.tandem.security.PrincipalLimits;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;

/**
 * The permits {@link Controller#read} takes through the {@link ReadAdmission} in the read's context come
 * back however the read ends: answered, refused at the caller's limit of slow-path dataflows, refused
 * before its read time is held (an {@code as_of} before {@code since}), timed out while its dataflow was
 * pending, refused by the server's limit of reads in flight, or cancelled by its subscriber. And a table's
 * status asked for after the table was dropped (as a listing racing a drop does) is a 404, not a 500.
 */
class ReadAdmissionReleaseTest {

    @TempDir
    Path dir;

    private static Mono<ReadResult> read(Controller c, ReadRequest req, ReadAdmission admission) {
        return c.read(req).contextWrite(Context.of(ReadAdmission.class, admission));
    }

    /** A slow-path read of {@code from} at {@code asOf}, waiting at most {@code timeoutMs}. */
    private static ReadRequest slow(String from, Long asOf, long timeoutMs) {
        return new ReadRequest(from, null, null, null, null, null, asOf, timeoutMs);
    }

    private static void assertNothingHeld(PrincipalLimits limits) {
        assertThat(limits.held("ada", PrincipalLimits.Kind.PEEKS)).as("reads in flight").isZero();
        assertThat(limits.held("ada", PrincipalLimits.Kind.DATAFLOWS)).as("pending dataflows").isZero();
    }

    @Test
    void everyWayAReadEndsGivesItsPermitsBack() {
        try (ControllerStack s = new ControllerStack(dir, false, 1, ControllerSettings.DEFAULTS)) {
            Controller c = s.controller;
            c.createTable("t", List.of(new Column("id", DatumType.INT64, false)));
            long written = JsonRequests.write(c, "t", tools.jackson.databind.json.JsonMapper.builder().build().readTree("[[1],[2]]"), null)
                    .block(Duration.ofSeconds(30));
            PrincipalLimits limits = new PrincipalLimits(2, 1, 0);
            ReadAdmission ada = limits.admission("ada");

            // Answered on the slow path (the table has no index).
            ReadResult answered = read(c, new ReadRequest("t", null, null, null, null, ReadRequest.Isolation.STRICT, null, null), ada)
                    .block(Duration.ofSeconds(30));
            assertThat(answered.readPath()).isIn(ReadPath.SLOW, ReadPath.SLOW_EARLY);
            assertThat(answered.rows()).containsExactlyInAnyOrder(Row.of(1L), Row.of(2L));
            // the answer may reach the caller a moment before its transient dataflow's permit is given back
            await("the answered read's permits").atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertNothingHeld(limits));

            // Timed out while its dataflow waits for a read time ahead of the present.
            assertThatThrownBy(() -> read(c, slow("t", System.currentTimeMillis() + 60_000, 300), ada).block(Duration.ofSeconds(30)))
                    .isInstanceOfSatisfying(ControllerException.class, e -> assertThat(e.kind()).isEqualTo(ControllerException.Kind.TIMEOUT));
            await("the timed-out read's permits").atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertNothingHeld(limits));

            // Cancelled by its subscriber while pending; meanwhile a second slow-path read is over the dataflow limit.
            Disposable waiting = read(c, slow("t", System.currentTimeMillis() + 60_000, 120_000), ada).subscribe(r -> { }, e -> { });
            await().atMost(Duration.ofSeconds(10)).until(() -> limits.held("ada", PrincipalLimits.Kind.DATAFLOWS) == 1);
            assertThatThrownBy(() -> read(c, slow("t", null, 10_000), ada).block(Duration.ofSeconds(30)))
                    .isInstanceOfSatisfying(ControllerException.class, e -> assertThat(e.kind()).isEqualTo(ControllerException.Kind.LIMITED));
            assertThat(limits.held("ada", PrincipalLimits.Kind.PEEKS)).as("the refused read's own permit is back").isEqualTo(1);
            waiting.dispose();
            await("the cancelled read's permits").atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertNothingHeld(limits));

            // Refused before its read time is held: an as_of before the table's compaction frontier.
            await("the table compacts past its first write").atMost(Duration.ofSeconds(20))
                    .until(() -> !c.tableStatus((CatalogEntry.Table) c.entry("t")).since().isEmpty()
                            && c.tableStatus((CatalogEntry.Table) c.entry("t")).since().time() > written);
            assertThatThrownBy(() -> read(c, slow("t", written - 1, 10_000), ada).block(Duration.ofSeconds(30)))
                    .isInstanceOfSatisfying(ControllerException.class, e -> assertThat(e.kind()).isEqualTo(ControllerException.Kind.BEFORE_SINCE));
            assertNothingHeld(limits);

            // Invalid before anything is held.
            assertThatThrownBy(() -> read(c, new ReadRequest("t", null, null, null, null, null, null, 0L), ada).block(Duration.ofSeconds(30)))
                    .isInstanceOfSatisfying(ControllerException.class, e -> assertThat(e.kind()).isEqualTo(ControllerException.Kind.INVALID));
            assertNothingHeld(limits);

            // A table dropped after its entry was read: its status is not found.
            CatalogEntry.Table t = (CatalogEntry.Table) c.entry("t");
            assertThat(c.tableStatus(t).records()).isEqualTo(2);
            c.drop("t", CatalogEntry.Table.class);
            assertThatThrownBy(() -> c.tableStatus(t)).isInstanceOfSatisfying(ControllerException.class,
                    e -> assertThat(e.kind()).isEqualTo(ControllerException.Kind.NOT_FOUND));
        }
    }

    @Test
    void aReadRefusedByTheServersLimitOfReadsInFlightGivesItsPermitBack() {
        ControllerSettings one = new ControllerSettings(Duration.ofSeconds(1), 1, 100_000, Duration.ofSeconds(10));
        try (ControllerStack s = new ControllerStack(dir, false, 1, one)) {
            Controller c = s.controller;
            c.createTable("t", List.of(new Column("id", DatumType.INT64, false)));
            PrincipalLimits limits = new PrincipalLimits(5, 5, 0);
            ReadAdmission ada = limits.admission("ada");
            Disposable waiting = read(c, slow("t", System.currentTimeMillis() + 60_000, 120_000), ada).subscribe(r -> { }, e -> { });
            await().atMost(Duration.ofSeconds(10)).until(() -> limits.held("ada", PrincipalLimits.Kind.DATAFLOWS) == 1);
            assertThatThrownBy(() -> read(c, slow("t", null, 10_000), ada).block(Duration.ofSeconds(30)))
                    .isInstanceOfSatisfying(ControllerException.class, e -> assertThat(e.kind()).isEqualTo(ControllerException.Kind.OVERLOADED));
            assertThat(limits.held("ada", PrincipalLimits.Kind.PEEKS)).isEqualTo(1);
            assertThat(limits.held("ada", PrincipalLimits.Kind.DATAFLOWS)).isEqualTo(1);
            waiting.dispose();
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertNothingHeld(limits));
        }
    }
}
