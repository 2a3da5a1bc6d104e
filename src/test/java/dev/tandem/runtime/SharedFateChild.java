package dev.tandem.runtime;

import dev.tandem.multiplex.Multiplexer;
import dev.tandem.sharing.ArrangementSharingRegistry;
import dev.tandem.storage.StorageOptions;
import dev.tandem.storage.TableStorage;
import dev.tandem.storage.TableStorages;
import reactor.core.scheduler.Schedulers;

/**
 * A child JVM for {@link SharedFateTest}: starts two runtimes with the halting error handler, injects an
 * uncaught error on the runtime named by {@code args[0]} ({@code maintenance}, {@code interactive} or
 * {@code none}), and otherwise exits 0 after a grace period.
 */
public final class SharedFateChild {

    public static void main(String[] args) throws Exception {
        SharedFate.install(FatalErrorHandler.HALT);
        TableStorage storage = TableStorages.inMemory(StorageOptions.defaults(Schedulers.newSingle("child-ticks")));
        Multiplexer mux = Multiplexer.start(true, 2, 1, storage, new ArrangementSharingRegistry(), FatalErrorHandler.HALT,
                System::currentTimeMillis, RuntimeObserver.NONE);
        ComputeRuntime target = switch (args[0]) {
            case "maintenance" -> mux.maintenance();
            case "interactive" -> mux.reader();
            default -> null;
        };
        System.out.println("started");
        System.out.flush();
        if (target != null) {
            target.execute(() -> {
                throw new IllegalStateException("injected failure on " + Thread.currentThread().getName());
            });
        }
        Thread.sleep(5_000);
        System.out.println("still alive");
        System.exit(0);
    }
}
