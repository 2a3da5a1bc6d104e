package dev.tandem.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tandem.sharing.ArrangementSharingRegistry;
import dev.tandem.storage.StorageOptions;
import dev.tandem.storage.TableStorage;
import dev.tandem.storage.TableStorages;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/** The runtime builder checks its settings together when it builds, and a runtime it builds has them. */
class ComputeRuntimeBuilderTest {

    private Scheduler ticks;
    private TableStorage storage;
    private final ArrangementSharingRegistry registry = new ArrangementSharingRegistry();

    @BeforeEach
    void open() {
        ticks = Schedulers.newSingle("builder-ticks");
        storage = TableStorages.inMemory(StorageOptions.defaults(ticks));
    }

    @AfterEach
    void close() {
        storage.close();
        ticks.dispose();
    }

    private ComputeRuntimeBuilder of(Role role) {
        return ComputeRuntime.builder().role(role).storage(storage).registry(registry).fatalErrorHandler((where, t) -> { });
    }

    private void refused(Role role, UnaryOperator<ComputeRuntimeBuilder> settings, String message) {
        assertThatThrownBy(() -> settings.apply(of(role)).build()).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(message);
    }

    @Test
    void aRuntimeHasWhatItWasBuiltWith() {
        ComputeRuntime maintenance = of(Role.MAINTENANCE).workers(3).shareWithReader(true).workerNice(0, 0).hydrationLanes(false)
                .freshRoundUpdates(0).dataflowMemoryBudget(1L << 20).build();
        try {
            assertThat(maintenance.role()).isEqualTo(Role.MAINTENANCE);
            assertThat(maintenance.workers()).isEqualTo(3);
            assertThat(maintenance.pendingPeeks()).isZero();
        } finally {
            maintenance.close();
        }
        ComputeRuntime interactive = of(Role.INTERACTIVE).build();
        try {
            assertThat(interactive.workers()).as("one worker by default").isEqualTo(1);
        } finally {
            interactive.close();
        }
    }

    @Test
    void theRoleStorageAndRegistryMustBeGiven() {
        assertThatThrownBy(() -> ComputeRuntime.builder().storage(storage).registry(registry).build())
                .isInstanceOf(NullPointerException.class).hasMessage("role");
        assertThatThrownBy(() -> ComputeRuntime.builder().role(Role.SOLO).registry(registry).build())
                .isInstanceOf(NullPointerException.class).hasMessage("storage");
        assertThatThrownBy(() -> ComputeRuntime.builder().role(Role.SOLO).storage(storage).build())
                .isInstanceOf(NullPointerException.class).hasMessage("registry");
    }

    @Test
    void settingsOutOfRangeAreRefused() {
        refused(Role.SOLO, b -> b.workers(0), "workers must be 1 or more, got 0");
        refused(Role.SOLO, b -> b.dataflowMemoryBudget(0), "a dataflow memory budget must be positive, got 0");
        refused(Role.MAINTENANCE, b -> b.workerNice(-1, 0), "nice values must be 0 (normal priority) or more");
        refused(Role.MAINTENANCE, b -> b.freshRoundUpdates(-1), "fresh round updates must be 0 (none) or more, got -1");
        refused(Role.SOLO, b -> b.clock(System::currentTimeMillis).resources(RuntimeResources.of(System::currentTimeMillis)),
                "a clock or its resources, not both");
    }

    @Test
    void settingsOfAnotherRoleAreRefused() {
        refused(Role.SOLO, b -> b.hydrationLanes(false), "a maintenance runtime's only, not for role solo");
        refused(Role.INTERACTIVE, b -> b.freshRoundUpdates(10), "a maintenance runtime's only, not for role interactive");
        refused(Role.INTERACTIVE, b -> b.workerNice(5, 10), "the interactive runtime's threads answer reads at normal priority");
        refused(Role.MAINTENANCE, b -> b.maintenanceReserve(new MaintenanceReserve(0.5, () -> MaintenanceReserve.Sample.NONE, 2)),
                "a maintenance reserve admits an interactive runtime's peeks");
    }
}
