package dev.tandem.controller;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.row.Column;
import dev.tandem.row.DatumType;
import dev.tandem.row.Schema;
import dev.tandem.storage.StorageOptions;
import dev.tandem.storage.TableStorage;
import dev.tandem.storage.TableStorages;
import dev.tandem.time.Frontier;
import java.util.List;
import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/** How compute's frontier reports move an index's state: its upper, and an introspection collection's start. */
class IndexTrackerTest {

    static final long NOW = 1_000_000;

    private static CatalogEntry.Index entry(String id) {
        return new CatalogEntry.Index(id, "i_" + id, "t", List.of("k"), new Schema(List.of(new Column("k", DatumType.INT64, false))),
                CatalogEntry.Index.DEFAULT_WINDOW);
    }

    @Test
    void onlyAnIntrospectionCollectionsCompactionFrontierStartsAtItsFirstReport() {
        Scheduler timer = Schedulers.newSingle("tracker-test");
        try (TableStorage storage = TableStorages.inMemory(StorageOptions.defaults(timer))) {
            IndexTracker tracker = new IndexTracker();
            ReadPolicy policy = new ReadPolicy(storage, () -> NOW, () -> ControllerSettings.DEFAULTS, tracker, null);
            // An index created before the storage's first tick starts at time 0, and is first reported past a later write.
            IndexState index = new IndexState(entry("u1"), 0);
            IndexState introspection = IndexState.introspection(entry("s1"));
            tracker.advance(index, Frontier.at(NOW), policy);
            tracker.advance(introspection, Frontier.at(NOW), policy);

            assertThat(index.reads.since()).isEqualTo(Frontier.at(0));
            assertThat(index.awaitingFirstFrontier()).isFalse();
            assertThat(policy.chooseTime(false, NOW - 1, List.of(index), List.of())).as("the last write before the report stays readable")
                    .isEqualTo(NOW - 1);
            assertThat(introspection.reads.since()).isEqualTo(Frontier.at(NOW));
            assertThat(introspection.awaitingFirstFrontier()).isFalse();
        } finally {
            timer.dispose();
        }
    }

    @Test
    void anIntrospectionCollectionAwaitsItsFirstReportAndAnIndexAtTimeZeroDoesNot() {
        assertThat(IndexState.introspection(entry("s1")).awaitingFirstFrontier()).isTrue();
        assertThat(new IndexState(entry("u1"), 0).awaitingFirstFrontier()).isFalse();
    }
}
