package dev.tandem.stream;

import dev.tandem.api.JsonRequests;
import dev.tandem.api.ReadJson;
import dev.tandem.controller.ChangeStreamStart;
import dev.tandem.controller.Controller;
import dev.tandem.controller.ControllerSettings;
import dev.tandem.multiplex.Multiplexer;
import dev.tandem.row.Column;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.runtime.RuntimeObserver;
import dev.tandem.sharing.ArrangementSharingRegistry;
import dev.tandem.storage.StorageOptions;
import dev.tandem.storage.TableStorage;
import dev.tandem.storage.TableStorages;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;

/**
 * Durable storage (fsync off), a real compute replica (solo or two runtimes), the controller (with a
 * compaction window of an hour, so any past time stays readable for the oracle) and a change-stream
 * server on the reading runtime's threads. A fatal error on a runtime thread fails {@link #close}.
 */
final class StreamStack implements AutoCloseable {

    static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    /** The storage's default idle tick. */
    static final Duration DEFAULT_TICK = Duration.ofMillis(10);

    final Scheduler timer = Schedulers.newParallel("test-timer", 1);
    final TableStorage storage;
    final ArrangementSharingRegistry registry = new ArrangementSharingRegistry();
    final Multiplexer mux;
    final Controller controller;
    final ChangeStreams streams;
    final List<Throwable> fatal = new CopyOnWriteArrayList<>();

    StreamStack(Path dir, boolean twoRuntimes, ChangeStreamLimits limits) {
        this(dir, twoRuntimes, limits, DEFAULT_TICK);
    }

    /**
     * As above, with the storage's idle tick every {@code storageTick}: a tick longer than the test keeps
     * the storage's upper at 0 until the first write, as when a table and its index are created before
     * the first tick.
     */
    StreamStack(Path dir, boolean twoRuntimes, ChangeStreamLimits limits, Duration storageTick) {
        storage = TableStorages.durable(dir, StorageOptions.defaults(timer).withFsync(false).withTickInterval(storageTick));
        mux = Multiplexer.start(twoRuntimes, 1, 1, storage, registry, (w, e) -> fatal.add(new AssertionError("fatal error in " + w, e)),
                System::currentTimeMillis, RuntimeObserver.NONE);
        controller = new Controller(storage, mux, registry, new ControllerSettings(Duration.ofHours(1), 1024, 1_000_000, Duration.ofSeconds(30)),
                System::currentTimeMillis, timer);
        streams = new ChangeStreams(registry, Schedulers.fromExecutor(mux.reader()::execute), limits);
    }

    /** A table {@code name(k int64 not null, v int64)} with an index {@code name_k} on k. */
    void tableWithIndex(String name) {
        controller.createTable(name, List.of(new Column("k", DatumType.INT64, false), new Column("v", DatumType.INT64, true)));
        controller.createIndex(name + "_k", name, List.of("k"), null);
    }

    static ArrayNode rows(List<long[]> rows) {
        ArrayNode a = NODES.arrayNode();
        for (long[] r : rows) {
            ArrayNode row = a.addArray();
            for (long x : r) {
                row.add(x);
            }
        }
        return a;
    }

    long write(String table, List<long[]> insert, List<long[]> delete) {
        return JsonRequests.write(controller, table, insert.isEmpty() ? null : rows(insert), delete.isEmpty() ? null : rows(delete)).block(Duration.ofSeconds(30));
    }

    ChangeSubscription subscribe(String index, List<long[]> keys, JsonNode filter, JsonNode project, Long asOf, boolean snapshot, Envelope envelope) {
        ChangeStreamStart start = JsonRequests.startChangeStream(controller, index, keys == null ? null : rows(keys), filter, project, asOf);
        return streams.subscribe(new ChangeStreamRequest(start, snapshot, envelope, "test"));
    }

    /** A peek of {@code index} at {@code t} (null: the server's choice) with the same keys and shaping: the oracle of a change stream. */
    List<Row> peek(String index, List<long[]> keys, JsonNode filter, JsonNode project, Long t) {
        return new ArrayList<>(JsonRequests.read(controller, new ReadJson(index, null, keys == null ? null : rows(keys), filter, project, null, null, null,
                null, t, null)).block(Duration.ofSeconds(30)).rows());
    }

    @Override
    public void close() {
        streams.close();
        controller.close();
        mux.close();
        storage.close();
        timer.dispose();
        if (!fatal.isEmpty()) {
            AssertionError e = new AssertionError(fatal.size() + " fatal error(s) on runtime threads", fatal.get(0));
            fatal.stream().skip(1).forEach(e::addSuppressed);
            throw e;
        }
    }
}
