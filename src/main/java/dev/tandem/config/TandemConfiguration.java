package dev.tandem.config;

import dev.tandem.controller.CatalogEntry;
import dev.tandem.controller.Controller;
import dev.tandem.controller.ControllerSettings;
import dev.tandem.storage.kafka.KafkaSharedLog;
import dev.tandem.metrics.TandemMeters;
import dev.tandem.multiplex.Multiplexer;
import dev.tandem.runtime.FatalErrorHandler;
import dev.tandem.runtime.Introspection;
import dev.tandem.runtime.RuntimeObserver;
import dev.tandem.runtime.SharedFate;
import dev.tandem.sharing.ArrangementSharingRegistry;

import dev.tandem.storage.StorageError;
import dev.tandem.storage.StorageOptions;
import dev.tandem.storage.TableStorage;
import dev.tandem.storage.TableStorages;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/** Wires the engine from {@link TandemProperties}: storage, the compute replica and the controller. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(TandemProperties.class)
public class TandemConfiguration {

    /**
     * The wall clock (epoch milliseconds) every part reads time from: one object, so that the read path's
     * warm-up, whose parts take it too, compiles its calls to the very class the server's parts call
     * (another {@code System::currentTimeMillis} is another class, and its first call from the server's
     * read path would throw the compiled code away).
     */
    static final java.util.function.LongSupplier WALL_CLOCK = System::currentTimeMillis;

    /** Timers of storage ticks and controller policies (not the runtimes' schedulers). */
    @Bean(destroyMethod = "dispose")
    Scheduler tandemTimer() {
        return newTimer("tandem-timer", false);
    }

    /**
     * A timer of storage ticks and controller policies: the server's, and the read path's warm-up's of the
     * same class (compiled code that saw one class of scheduler is thrown away when it meets another).
     */
    static Scheduler newTimer(String name, boolean daemon) {
        return Schedulers.newParallel(name, 1, daemon);
    }

    /** Shared fate for as long as the application runs (closing the context restores the JVM's handlers). */
    @Bean(destroyMethod = "close")
    SharedFate.Installation sharedFate() {
        return SharedFate.install(FatalErrorHandler.HALT);
    }

    @Bean
    FatalErrorHandler fatalErrorHandler(SharedFate.Installation sharedFate) {
        return FatalErrorHandler.HALT;
    }

    @Bean(destroyMethod = "close")
    TableStorage tableStorage(TandemProperties props, Scheduler tandemTimer, ObjectProvider<MeterRegistry> meters) {
        TandemProperties.Storage s = props.storage();
        StorageOptions options = StorageOptions.defaults(tandemTimer).withTickInterval(s.tickInterval()).withFsync(s.fsync());
        TableStorage storage = switch (s.backend()) {
            case LOCAL -> TableStorages.durable(s.dataDir(), options, s.repair() == TandemProperties.Repair.TRUNCATE);
            case KAFKA -> TableStorages.replicated(KafkaSharedLog.open(s.kafka().bootstrapServers(), s.kafka().topic(),
                    s.kafka().replicationFactor(), s.kafka().timeout()), options);
        };
        MeterRegistry registry = meters.getIfAvailable();
        return registry == null ? storage : TandemMeters.countingIngest(storage, registry);
    }

    @Bean
    ArrangementSharingRegistry arrangementSharingRegistry() {
        return new ArrangementSharingRegistry();
    }

    @Bean(destroyMethod = "close")
    Multiplexer multiplexer(TandemProperties props, TableStorage storage, ArrangementSharingRegistry registry, FatalErrorHandler fatal,
            ObjectProvider<RuntimeObserver> observer) {
        return startMultiplexer(props, storage, registry, fatal, observer.getIfAvailable(() -> RuntimeObserver.NONE));
    }

    /** The compute runtimes as the properties configure them (also the read path's warm-up's, on its scratch storage). */
    static Multiplexer startMultiplexer(TandemProperties props, TableStorage storage, ArrangementSharingRegistry registry, FatalErrorHandler fatal,
            RuntimeObserver observer) {
        TandemProperties.Compute c = props.compute();
        Multiplexer.Tuning tuning = new Multiplexer.Tuning(c.dataflowMemoryBudgetBytes(), c.maintenanceNice(), c.hydrationNice(),
                c.hydrationLanes(), c.freshRoundUpdates(), c.maintenanceReserve());
        return Multiplexer.start(c.interactiveRuntime().enabled(), c.maintenanceWorkerCount(), c.interactiveWorkerCount(),
                storage, registry, fatal, WALL_CLOCK, observer, tuning);
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnProperty(name = "tandem.mode", havingValue = "standalone", matchIfMissing = true)
    Controller controller(TandemProperties props, TableStorage storage, Multiplexer multiplexer, ArrangementSharingRegistry registry,
            Scheduler tandemTimer) {
        Controller controller = new Controller(storage, multiplexer, registry, settings(props), WALL_CLOCK, tandemTimer);
        multiplexer.maintenance().addIntrospectionSource(Introspection.STORAGE_ERRORS.id(), () -> storageErrors(storage, controller));
        return controller;
    }

    /** The storage's errors as rows of {@code tandem_storage_errors}, naming each table as users know it. */
    private static List<List<Object>> storageErrors(TableStorage storage, Controller controller) {
        List<StorageError> errors = storage.errors();
        if (errors.isEmpty()) {
            return List.of();
        }
        Map<String, String> names = new HashMap<>();
        for (CatalogEntry e : controller.catalog()) {
            if (e instanceof CatalogEntry.Table t) {
                names.put(t.id(), t.name());
            }
        }
        return errors.stream()
                .map(e -> Arrays.<Object>asList(names.getOrDefault(e.table(), e.table()), e.row(), e.multiplicity(), e.logOffset(), e.error()))
                .toList();
    }

    /** The controller's live settings from the properties. */
    public static ControllerSettings settings(TandemProperties props) {
        return new ControllerSettings(props.compaction().window(), props.peek().maxPending(), props.peek().maxResultRows(),
                props.peek().defaultTimeout());
    }
}
