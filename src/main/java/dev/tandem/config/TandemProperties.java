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
        @DefaultValue Peek peek,
        @DefaultValue Http http,
        @DefaultValue Pgwire pgwire,
        @DefaultValue Sql sql) {

    /** {@code standalone}: built-in controller and user API; {@code replica}: the compute protocol only. */
    public enum Mode { STANDALONE, REPLICA }

    /** Start-up only. */
    public record Compute(@DefaultValue InteractiveRuntime interactiveRuntime, @DefaultValue("0") int maintenanceWorkers,
            @DefaultValue("0") int interactiveWorkers, @DefaultValue("0") org.springframework.util.unit.DataSize dataflowMemoryBudget,
            @DefaultValue("10") int maintenanceNice, @DefaultValue("19") int hydrationNice, @DefaultValue("true") boolean hydrationLanes,
            @DefaultValue("0.5") double maintenanceReserve, @DefaultValue("1000") long freshRoundUpdates, @DefaultValue("5") int jitNice) {

        public Compute {
            checkNice("tandem.compute.maintenance-nice", maintenanceNice);
            checkNice("tandem.compute.hydration-nice", hydrationNice);
            checkNice("tandem.compute.jit-nice", jitNice);
            dev.tandem.runtime.MaintenanceReserve.requireValid(maintenanceReserve);
            if (freshRoundUpdates < 0) {
                throw new IllegalArgumentException("tandem.compute.fresh-round-updates must be 0 (every round of a hydrated index at "
                        + "tandem.compute.maintenance-nice) or more, got " + freshRoundUpdates);
            }
        }

        private static void checkNice(String name, int nice) {
            if (nice < 0 || nice > 19) {
                throw new IllegalArgumentException(name + " must be between 0 (normal priority) and 19, got " + nice);
            }
        }

        /**
         * Workers of the maintenance (or solo) runtime; 0 means one per available processor, less one
         * when an interactive runtime runs beside it, so that reads keep a core to themselves.
         */
        public int maintenanceWorkerCount() {
            if (maintenanceWorkers > 0) {
                return maintenanceWorkers;
            }
            int cpus = Runtime.getRuntime().availableProcessors();
            return interactiveRuntime.enabled() ? Math.max(1, cpus - 1) : cpus;
        }

        /**
         * The heap one dataflow may hold (arrangements and buffers) before it is stopped with an error;
         * 0 means a quarter of the maximum heap.
         */
        public long dataflowMemoryBudgetBytes() {
            long bytes = dataflowMemoryBudget.toBytes();
            return bytes > 0 ? bytes : Runtime.getRuntime().maxMemory() / 4;
        }

        /** Threads of the interactive runtime's fast lane (and of its slow lane); 0 means one per processor. */
        public int interactiveWorkerCount() {
            return interactiveWorkers > 0 ? interactiveWorkers : Runtime.getRuntime().availableProcessors();
        }
    }

    /** Whether a second, interactive runtime answers reads (two-runtime mode). Start-up only. */
    public record InteractiveRuntime(@DefaultValue("true") boolean enabled) {
    }

    /**
     * Start-up only (the storage's tick timer is fixed when it opens). {@code repair}: {@code none}
     * refuses to start on a log damaged in the middle; {@code truncate} keeps a backup of the original
     * and cuts the log at the damage, accepting the loss of the records after it. {@code backend}:
     * {@code local} keeps the log in {@code dataDir}; {@code kafka} shares one log topic among replicas
     * ({@code kafka.*}), and {@code dataDir}, {@code fsync} and {@code repair} do not apply.
     */
    public record Storage(@DefaultValue("./data") Path dataDir, @DefaultValue("true") boolean fsync,
            @DefaultValue("10ms") Duration tickInterval, @DefaultValue("none") Repair repair,
            @DefaultValue("local") Backend backend, @DefaultValue Kafka kafka) {
    }

    /** Where the storage's log lives. */
    public enum Backend { LOCAL, KAFKA }

    /**
     * Start-up only: the shared log of {@code backend=kafka}. {@code topic} is created if absent (one
     * partition, kept forever) with {@code replicationFactor}; {@code timeout} bounds a produce and a
     * metadata call.
     */
    public record Kafka(@DefaultValue("localhost:9092") String bootstrapServers, @DefaultValue("tandem-log") String topic,
            @DefaultValue("1") short replicationFactor, @DefaultValue("30s") Duration timeout) {
    }

    /** What to do with a log damaged in the middle. */
    public enum Repair { NONE, TRUNCATE }

    /**
     * Start-up only: how long an HTTP connection may take. {@code requestHeadTimeout}: from a request's
     * first byte to its complete request line and headers (else 408 and close); {@code readTimeout}:
     * between two reads of a request body; {@code requestBodyTimeout}: for a whole request body;
     * {@code idleTimeout}: a keep-alive connection with no request in progress is closed after it. None
     * applies to a connection once it has upgraded to a WebSocket. At most {@code maxConnections} HTTP and
     * WebSocket connections are open at once (0: half the process's file-descriptor limit) and
     * {@code maxConnectionsPerAddress} from one client address; one more is answered 503 and closed.
     */
    public record Http(@DefaultValue("10s") Duration requestHeadTimeout, @DefaultValue("10s") Duration readTimeout,
            @DefaultValue("60s") Duration requestBodyTimeout, @DefaultValue("60s") Duration idleTimeout,
            @DefaultValue("0") int maxConnections, @DefaultValue("1000") int maxConnectionsPerAddress) {

        public Http {
            if (maxConnections < 0 || maxConnectionsPerAddress < 1) {
                throw new IllegalArgumentException("tandem.http: max-connections must be 0 (half the file-descriptor limit) or more and "
                        + "max-connections-per-address at least 1, got " + maxConnections + " and " + maxConnectionsPerAddress);
            }
        }
    }

    /**
     * Start-up only: the PostgreSQL wire protocol. {@code port} 6875 by default, 0 for a free port (logged),
     * -1 for off; {@code host} the interface it listens on, loopback by default. PostgreSQL's connection
     * guards: {@code maxConnections} open at once (authenticated or not), the last
     * {@code reservedAdminConnections} of them for sessions with the admin role ({@code 53300} beyond), and
     * {@code authenticationTimeout} to authenticate in ({@code 57014} after it), and idle sessions ended after
     * {@code idleSessionTimeout} ({@code 57P05}) or, in a transaction block, {@code idleInTransactionSessionTimeout}
     * ({@code 25P03}); zero: never, PostgreSQL's defaults.
     */
    public record Pgwire(@DefaultValue("6875") int port, @DefaultValue("127.0.0.1") String host, @DefaultValue("30000") long warmUpReads,
            @DefaultValue("100") int maxConnections, @DefaultValue("3") int reservedAdminConnections,
            @DefaultValue("60s") Duration authenticationTimeout, @DefaultValue("0s") Duration idleSessionTimeout,
            @DefaultValue("0s") Duration idleInTransactionSessionTimeout) {

        public Pgwire {
            if (warmUpReads < 0) {
                throw new IllegalArgumentException("tandem.pgwire.warm-up-reads must be 0 (no warm-up) or more, got " + warmUpReads);
            }
        }
    }

    /**
     * Start-up only: what one SQL statement may cost before it runs, over every surface. {@code maxStatementBytes}:
     * its text; {@code maxLiterals}: the numbers and strings in it (an IN list's elements, a VALUES list's);
     * {@code planningTimeout}: parsing, validating and planning it; over any, {@code 54000} "statement too
     * complex" (HTTP 413). {@code planCacheBytes}: what the plan cache (and the cache of the objects
     * statements name, each) holds at most, estimated from each statement's text. {@code maxRecursionIterations}
     * and {@code maxRecursionRows}: the iterations and rows of one recursive {@code WITH} query, past which it
     * is stopped with {@code 54000}.
     */
    public record Sql(@DefaultValue("4MB") org.springframework.util.unit.DataSize maxStatementBytes, @DefaultValue("200000") int maxLiterals,
            @DefaultValue("30s") Duration planningTimeout, @DefaultValue("64MB") org.springframework.util.unit.DataSize planCacheBytes,
            @DefaultValue("10000") int maxRecursionIterations, @DefaultValue("1000000") long maxRecursionRows) {

        /** These settings as the SQL engine's limits (an {@link IllegalArgumentException} names a bad one). */
        public dev.tandem.sql.SqlLimits limits() {
            return new dev.tandem.sql.SqlLimits(maxStatementBytes.toBytes(), maxLiterals, planningTimeout, planCacheBytes.toBytes(),
                    maxRecursionIterations, maxRecursionRows);
        }
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
        s.put("tandem.compute.dataflow-memory-budget", compute.dataflowMemoryBudget());
        s.put("tandem.compute.maintenance-nice", compute.maintenanceNice());
        s.put("tandem.compute.hydration-nice", compute.hydrationNice());
        s.put("tandem.compute.jit-nice", compute.jitNice());
        s.put("tandem.compute.hydration-lanes", compute.hydrationLanes());
        s.put("tandem.compute.fresh-round-updates", compute.freshRoundUpdates());
        s.put("tandem.compute.maintenance-reserve", compute.maintenanceReserve());
        s.put("tandem.storage.data-dir", storage.dataDir());
        s.put("tandem.storage.fsync", storage.fsync());
        s.put("tandem.storage.tick-interval", storage.tickInterval());
        s.put("tandem.storage.repair", storage.repair());
        s.put("tandem.storage.backend", storage.backend());
        s.put("tandem.storage.kafka.bootstrap-servers", storage.kafka().bootstrapServers());
        s.put("tandem.storage.kafka.topic", storage.kafka().topic());
        s.put("tandem.storage.kafka.replication-factor", storage.kafka().replicationFactor());
        s.put("tandem.storage.kafka.timeout", storage.kafka().timeout());
        s.put("tandem.http.request-head-timeout", http.requestHeadTimeout());
        s.put("tandem.http.read-timeout", http.readTimeout());
        s.put("tandem.http.request-body-timeout", http.requestBodyTimeout());
        s.put("tandem.http.idle-timeout", http.idleTimeout());
        s.put("tandem.http.max-connections", http.maxConnections());
        s.put("tandem.http.max-connections-per-address", http.maxConnectionsPerAddress());
        s.put("tandem.pgwire.port", pgwire.port());
        s.put("tandem.pgwire.warm-up-reads", pgwire.warmUpReads());
        s.put("tandem.pgwire.host", pgwire.host());
        s.put("tandem.pgwire.max-connections", pgwire.maxConnections());
        s.put("tandem.pgwire.reserved-admin-connections", pgwire.reservedAdminConnections());
        s.put("tandem.pgwire.authentication-timeout", pgwire.authenticationTimeout());
        s.put("tandem.pgwire.idle-session-timeout", pgwire.idleSessionTimeout());
        s.put("tandem.pgwire.idle-in-transaction-session-timeout", pgwire.idleInTransactionSessionTimeout());
        s.put("tandem.sql.max-statement-bytes", sql.maxStatementBytes());
        s.put("tandem.sql.max-literals", sql.maxLiterals());
        s.put("tandem.sql.planning-timeout", sql.planningTimeout());
        s.put("tandem.sql.plan-cache-bytes", sql.planCacheBytes());
        s.put("tandem.sql.max-recursion-iterations", sql.maxRecursionIterations());
        s.put("tandem.sql.max-recursion-rows", sql.maxRecursionRows());
        return s;
    }
}
