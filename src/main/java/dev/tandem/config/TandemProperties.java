package dev.tandem.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Every {@code tandem.*} setting. Start-up-only settings (mode, runtimes, worker counts, storage,
 * including its tick interval) are read once; a later change to one is reported, not applied. Live
 * settings (compaction window, peek limits and default timeout) are re-read on {@code /actuator/refresh}
 * and applied without a restart.
 */
@ConfigurationProperties("tandem")
public record TandemProperties(
        @DefaultValue("standalone") Mode mode,
        @DefaultValue Compute compute,
        @DefaultValue Storage storage,
        @DefaultValue Compaction compaction,
        @DefaultValue Peek peek) {

    /** {@code standalone}: built-in controller and user API; {@code replica}: the compute protocol only. */
    public enum Mode { STANDALONE, REPLICA }

    /** Start-up only. */
    public record Compute(@DefaultValue InteractiveRuntime interactiveRuntime, @DefaultValue("0") int maintenanceWorkers,
            @DefaultValue("0") int interactiveWorkers) {

        /** Workers of the maintenance (or solo) runtime; 0 means one per available processor. */
        public int maintenanceWorkerCount() {
            return maintenanceWorkers > 0 ? maintenanceWorkers : Runtime.getRuntime().availableProcessors();
        }

        /** Threads of the interactive runtime's fast lane (and of its slow lane); 0 means one per processor. */
        public int interactiveWorkerCount() {
            return interactiveWorkers > 0 ? interactiveWorkers : Runtime.getRuntime().availableProcessors();
        }
    }

    /** Whether a second, interactive runtime answers reads (two-runtime mode). Start-up only. */
    public record InteractiveRuntime(@DefaultValue("true") boolean enabled) {
    }

    /** Start-up only (the storage's tick timer is fixed when it opens). */
    public record Storage(@DefaultValue("./data") Path dataDir, @DefaultValue("true") boolean fsync,
            @DefaultValue("10ms") Duration tickInterval) {
    }

    /** Live. */
    public record Compaction(@DefaultValue("1s") Duration window) {
    }

    /** Live. */
    public record Peek(@DefaultValue("100000") long maxResultRows, @DefaultValue("1024") int maxPending,
            @DefaultValue("10s") Duration defaultTimeout) {
    }

    /** The start-up-only settings by property name, compared on refresh to report changes that need a restart. */
    public Map<String, Object> startupSettings() {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("tandem.mode", mode);
        s.put("tandem.compute.interactive-runtime.enabled", compute.interactiveRuntime().enabled());
        s.put("tandem.compute.maintenance-workers", compute.maintenanceWorkers());
        s.put("tandem.compute.interactive-workers", compute.interactiveWorkers());
        s.put("tandem.storage.data-dir", storage.dataDir());
        s.put("tandem.storage.fsync", storage.fsync());
        s.put("tandem.storage.tick-interval", storage.tickInterval());
        return s;
    }
}
