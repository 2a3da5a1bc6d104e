package dev.tandem.storage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.row.Column;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.row.Schema;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Shared fixtures of the storage tests: a two-column schema, rows, and reading a subscription back. */
final class StorageTesting {

    /** {@code (k int64 not null, v string null)}. */
    static final Schema KV = new Schema(List.of(
            new Column("k", DatumType.INT64, false),
            new Column("v", DatumType.STRING, true)));

    private StorageTesting() {
    }

    static Row kv(long k, String v) {
        return Row.pack(KV.types(), Arrays.asList(k, v));
    }

    /** Subscribes at {@code asOf} and collects events until the upper passes {@code until}. */
    static List<TableEvent> read(TableStorage storage, String id, long asOf, long until) {
        List<TableEvent> events = storage.subscribe(id, asOf)
                .takeUntil(e -> e instanceof TableEvent.Progress p && p.upper().isPast(until))
                .collectList()
                .block(Duration.ofSeconds(30));
        checkShape(events, asOf);
        return events;
    }

    /**
     * Checks the promised shape: first a snapshot at {@code asOf}, then updates in time order, each at or
     * beyond the last reported upper and below the next one, uppers strictly increasing.
     */
    static void checkShape(List<TableEvent> events, long asOf) {
        assertThat(events).isNotEmpty();
        assertThat(events.get(0)).isInstanceOf(TableEvent.Updates.class);
        for (TableUpdate u : ((TableEvent.Updates) events.get(0)).updates()) {
            assertThat(u.time()).as("snapshot times are advanced to as_of").isEqualTo(asOf);
            assertThat(u.diff()).as("the snapshot is consolidated").isNotZero();
        }
        long lastTime = asOf;
        long lastUpper = Long.MIN_VALUE;
        boolean sawProgress = false;
        for (TableEvent e : events.subList(1, events.size())) {
            switch (e) {
                case TableEvent.Updates u -> {
                    for (TableUpdate x : u.updates()) {
                        assertThat(x.time()).as("updates after the snapshot are in time order beyond as_of").isGreaterThanOrEqualTo(lastTime);
                        assertThat(x.time()).isGreaterThan(asOf);
                        if (sawProgress) {
                            assertThat(x.time()).as("no update below an upper already reported").isGreaterThanOrEqualTo(lastUpper);
                        }
                        lastTime = x.time();
                    }
                }
                case TableEvent.Progress p -> {
                    if (!p.upper().isEmpty()) {
                        assertThat(p.upper().time()).as("uppers increase").isGreaterThan(lastUpper);
                        assertThat(p.upper().time()).as("the first upper is beyond as_of").isGreaterThan(asOf);
                        assertThat(p.upper().isPast(lastTime)).as("an upper passes the updates before it").isTrue();
                        lastUpper = p.upper().time();
                    }
                    sawProgress = true;
                }
            }
        }
    }

    /** The collection at {@code t} according to the events of one subscription. */
    static Map<Row, Long> accumulate(List<TableEvent> events, long t) {
        Map<Row, Long> out = new HashMap<>();
        for (TableEvent e : events) {
            if (e instanceof TableEvent.Updates u) {
                for (TableUpdate x : u.updates()) {
                    if (x.time() <= t) {
                        out.merge(x.row(), x.diff(), Long::sum);
                    }
                }
            }
        }
        out.values().removeIf(d -> d == 0);
        return out;
    }

    /** The naive model: the collection at {@code t} from a list of acknowledged updates. */
    static Map<Row, Long> model(List<TableUpdate> updates, long t) {
        Map<Row, Long> out = new HashMap<>();
        for (TableUpdate x : updates) {
            if (x.time() <= t) {
                out.merge(x.row(), x.diff(), Long::sum);
            }
        }
        out.values().removeIf(d -> d == 0);
        return out;
    }

    /** Every update a subscription at {@code asOf} delivered, flattened. */
    static List<TableUpdate> updatesOf(List<TableEvent> events) {
        List<TableUpdate> out = new ArrayList<>();
        for (TableEvent e : events) {
            if (e instanceof TableEvent.Updates u) {
                out.addAll(u.updates());
            }
        }
        return out;
    }
}
