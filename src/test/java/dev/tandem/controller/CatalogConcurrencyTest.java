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
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Catalog reads (listing, lookups by reads) run on any thread while catalog changes happen; every
 * listing agrees with a model of the changes completed before it began, and so does the final catalog.
 */
class CatalogConcurrencyTest {

    static final int TABLES = 3000;

    /** Tables t0, t1, ... are created in order; every third (t0, t3, ...) is dropped right after. */
    static boolean dropped(int i) {
        return i % 3 == 0;
    }

    @Test
    void listingAndLookupsDuringCatalogChangesAgreeWithAModel() throws Exception {
        Scheduler timer = Schedulers.newParallel("test-timer", 1);
        TableStorage storage = TableStorages.inMemory(StorageOptions.defaults(timer));
        ArrangementSharingRegistry registry = new ArrangementSharingRegistry();
        List<Throwable> fatal = new CopyOnWriteArrayList<>();
        Multiplexer mux = Multiplexer.start(false, 1, 1, storage, registry, (w, e) -> fatal.add(e),
                System::currentTimeMillis, RuntimeObserver.NONE);
        Controller c = new Controller(storage, mux, registry, ControllerSettings.DEFAULTS, System::currentTimeMillis, timer);
        AtomicBoolean done = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        // The highest i whose create (and, for a dropped one, drop) has returned.
        AtomicInteger completed = new AtomicInteger(-1);
        AtomicLong listings = new AtomicLong();
        Thread reader = new Thread(() -> {
            while (!done.get()) {
                try {
                    int settled = completed.get();
                    Set<String> names = new HashSet<>();
                    for (CatalogEntry e : c.catalog()) {
                        names.add(e.name());
                        try {
                            c.entry(e.name());
                        } catch (ControllerException gone) {
                            // dropped since the listing: fine
                        }
                    }
                    for (int i = 0; i <= settled; i++) {
                        if (names.contains("t" + i) == dropped(i)) {
                            throw new AssertionError("listing after t" + settled + " settled " + (dropped(i) ? "has" : "lacks") + " t" + i);
                        }
                    }
                    int started = completed.get() + 1;
                    for (String name : names) {
                        int i = Integer.parseInt(name.substring(1));
                        if (i > started || i < 0) {
                            throw new AssertionError("listing before t" + started + " was created has " + name);
                        }
                    }
                    listings.incrementAndGet();
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                    return;
                }
            }
        });
        reader.setDaemon(true);
        reader.start();
        Set<String> model = new TreeSet<>();
        try {
            for (int i = 0; i < TABLES && failure.get() == null; i++) {
                c.createTable("t" + i, List.of(new Column("a", DatumType.INT64, true)));
                model.add("t" + i);
                if (dropped(i)) {
                    c.drop("t" + i, CatalogEntry.Table.class);
                    model.remove("t" + i);
                }
                completed.set(i);
            }
            assertThat(failure.get()).isNull();
            assertThat(c.catalog()).extracting(CatalogEntry::name).containsExactlyInAnyOrderElementsOf(model);
            assertThat(model).hasSize(TABLES - (TABLES + 2) / 3);
            for (String name : model) {
                assertThat(c.entry(name)).isInstanceOf(CatalogEntry.Table.class);
            }
        } finally {
            done.set(true);
            reader.join(Duration.ofSeconds(30));
            c.close();
            mux.close();
            storage.close();
            timer.dispose();
        }
        assertThat(reader.isAlive()).isFalse();
        assertThat(failure.get()).isNull();
        assertThat(listings.get()).as("listings taken during the changes").isPositive();
        assertThat(fatal).as("fatal errors on runtime threads").isEmpty();
    }
}
