package dev.tandem.sql;

import dev.tandem.controller.Controller;
import dev.tandem.controller.ControllerSettings;
import dev.tandem.multiplex.Multiplexer;
import dev.tandem.runtime.RuntimeObserver;
import dev.tandem.sharing.ArrangementSharingRegistry;
import dev.tandem.storage.StorageOptions;
import dev.tandem.storage.TableStorage;
import dev.tandem.storage.TableStorages;
import dev.tandem.stream.ChangeStreamLimits;
import dev.tandem.stream.ChangeStreams;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * A SQL engine over a real controller, two compute runtimes, durable storage (fsync off) on a directory and a
 * change-stream server (for SUBSCRIBE).
 */
final class SqlStack implements AutoCloseable {

    final Scheduler timer = Schedulers.newParallel("sql-test-timer", 1);
    final Scheduler blocking = Schedulers.newBoundedElastic(4, 1000, "sql-test-blocking");
    final TableStorage storage;
    final Multiplexer mux;
    final Controller controller;
    final SqlEngine sql;
    final ChangeStreams streams;
    final List<Throwable> fatal = new CopyOnWriteArrayList<>();

    SqlStack(Path dir) {
        this(dir, null);
    }

    /** A stack whose engine is bounded by {@code limits} and plans on {@code lanes} (null: the defaults, planning on {@link #blocking}). */
    SqlStack(Path dir, SqlTesting.Lanes lanes) {
        this(dir, lanes, null);
    }

    /** A stack whose storage's timestamps follow {@code clock} (null: the system's), for tests that move time themselves. */
    SqlStack(Path dir, SqlTesting.Lanes lanes, java.util.function.LongSupplier clock) {
        StorageOptions options = StorageOptions.defaults(timer).withFsync(false);
        storage = TableStorages.durable(dir, clock == null ? options : options.withClock(clock));
        ArrangementSharingRegistry registry = new ArrangementSharingRegistry();
        mux = Multiplexer.start(true, 1, 1, storage, registry, (w, e) -> fatal.add(e), System::currentTimeMillis, RuntimeObserver.NONE);
        controller = new Controller(storage, mux, registry, new ControllerSettings(Duration.ofSeconds(10), 1000, 100_000, Duration.ofSeconds(30)), System::currentTimeMillis, timer);
        streams = new ChangeStreams(registry, Schedulers.fromExecutor(mux.reader()::execute), new ChangeStreamLimits(100, 10, 100_000, 0));
        sql = lanes == null ? new SqlEngine(controller, blocking, streams)
                : new SqlEngine(controller, blocking, streams, lanes.limits(), lanes.light(), lanes.heavy(), lanes.timer());
    }

    /** Runs one statement in a session and waits (bounded) for its result. */
    SqlResult run(String statement, SqlSession session, Object... params) {
        return sql.execute(statement, List.of(params), session).block(Duration.ofSeconds(30));
    }

    @Override
    public void close() {
        streams.close();
        controller.close();
        mux.close();
        storage.close();
        timer.dispose();
        blocking.dispose();
        if (!fatal.isEmpty()) {
            throw new AssertionError("fatal error on a runtime thread", fatal.get(0));
        }
    }
}
