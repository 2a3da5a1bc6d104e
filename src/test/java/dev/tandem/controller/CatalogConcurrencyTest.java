package dev.tandem.controller;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.multiplex.Multiplexer;
import dev.tandem.row.Column;
import dev.tandem.row.DatumType;
import dev.tandem.runtime.RuntimeObserver;
import dev.tandem.sharing.ArrangementSharingRegistry;
import dev.tandem.storage.StorageOptions;
import dev.tandem.storage.TableStorage;
import dev.tandem.storage.TableStorages;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/** Catalog reads (listing, lookups by reads) run on any thread while catalog changes happen. */
class CatalogConcurrencyTest {

    @Test
    void listingAndLookupsDuringCatalogChangesNeverFail() throws Exception {
        Scheduler timer = Schedulers.newParallel("test-timer", 1);
        TableStorage storage = TableStorages.inMemory(StorageOptions.defaults(timer));
        ArrangementSharingRegistry registry = new ArrangementSharingRegistry();
        Multiplexer mux = Multiplexer.start(false, 1, 1, storage, registry, (w, e) -> { throw new AssertionError(w, e); },
                System::currentTimeMillis, RuntimeObserver.NONE);
        Controller c = new Controller(storage, mux, registry, ControllerSettings.DEFAULTS, System::currentTimeMillis, timer);
        AtomicBoolean done = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread reader = new Thread(() -> {
            while (!done.get()) {
                try {
                    for (CatalogEntry e : c.catalog()) {
                        try {
                            c.entry(e.name());
                        } catch (ControllerException gone) {
                            // dropped since the listing: fine
                        }
                    }
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                    return;
                }
            }
        });
        reader.start();
        try {
            for (int i = 0; i < 3000 && failure.get() == null; i++) {
                c.createTable("t" + i, List.of(new Column("a", DatumType.INT64, true)));
                if (i % 3 == 0) {
                    c.drop("t" + i, CatalogEntry.Table.class);
                }
            }
        } finally {
            done.set(true);
            reader.join();
            c.close();
            mux.close();
            storage.close();
            timer.dispose();
        }
        assertThat(failure.get()).isNull();
    }
}
