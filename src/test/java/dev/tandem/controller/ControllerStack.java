package dev.tandem.controller;

import dev.tandem.multiplex.Multiplexer;
import dev.tandem.runtime.RuntimeObserver;
import dev.tandem.sharing.ArrangementSharingRegistry;
import dev.tandem.storage.StorageOptions;
import dev.tandem.storage.TableStorage;
import dev.tandem.storage.TableStorages;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * A controller over a real compute replica and durable storage (fsync off) on a directory. A fatal
 * error on a runtime thread is recorded instead of halting, and {@link #close} fails the test if any was.
 */
final class ControllerStack implements AutoCloseable {

    final Scheduler timer = Schedulers.newParallel("test-timer", 1);
    final TableStorage storage;
    final ArrangementSharingRegistry registry = new ArrangementSharingRegistry();
    final Multiplexer mux;
    final Controller controller;
    final List<Throwable> fatal = new CopyOnWriteArrayList<>();

    ControllerStack(Path dir, boolean twoRuntimes, int maintenanceWorkers, ControllerSettings settings) {
        this(dir, twoRuntimes, maintenanceWorkers, settings, Multiplexer.Tuning.DEFAULTS);
    }

    /** As above, the runtimes tuned by {@code tuning}. */
    ControllerStack(Path dir, boolean twoRuntimes, int maintenanceWorkers, ControllerSettings settings, Multiplexer.Tuning tuning) {
        storage = TableStorages.durable(dir, StorageOptions.defaults(timer).withFsync(false));
        mux = Multiplexer.start(twoRuntimes, maintenanceWorkers, 1, storage, registry, (w, e) -> fatal.add(new AssertionError("fatal error in " + w, e)),
                System::currentTimeMillis, RuntimeObserver.NONE, tuning);
        controller = new Controller(storage, mux, registry, settings, System::currentTimeMillis, timer);
    }

    @Override
    public void close() {
        controller.close();
        mux.close();
        storage.close();
        timer.dispose();
        assertNoFatalErrors();
    }

    /** Fails with the first fatal error a runtime thread reported, if any. */
    void assertNoFatalErrors() {
        if (!fatal.isEmpty()) {
            AssertionError e = new AssertionError(fatal.size() + " fatal error(s) on runtime threads", fatal.get(0));
            fatal.stream().skip(1).forEach(e::addSuppressed);
            throw e;
        }
    }
}
