package dev.tandem.storage;

import dev.tandem.row.Schema;
import dev.tandem.time.Frontier;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A replica's table storage over a {@link SharedLog} that several replicas append to: every change
 * goes to the log, and every replica applies the whole log, in log order, to an in-memory
 * {@link LogTableStorage} that serves its reads and subscriptions.
 *
 * <h2>Timestamps</h2>
 * Every entry's time is a function of the log alone: {@code max(entry timestamp, previous entry's time
 * + 1)}, where the entry timestamp is the one the log stored with it; a write's timestamp is its entry's
 * time. So every replica stamps every write alike without an oracle of its own. The applied storage's
 * clock follows the derived times, so its upper never runs ahead of the log: once an entry at {@code t}
 * is applied it is {@code t + 1} (the next entry's time is later). With no new entries the upper stands
 * still; it does not follow the wall clock.
 *
 * <h2>Acknowledgement</h2>
 * A change is validated against this replica's tables, appended, and acknowledged once this replica
 * has applied it: the caller learns the timestamp (or the deterministic rejection every replica makes
 * of it, e.g. a delete of rows another replica's write already removed). Any replica then reading
 * {@code as_of} that timestamp waits until it has applied the write itself.
 *
 * <h2>Keys</h2>
 * A table's unique keys travel with its creation (or their addition, and drop, through the log), and a
 * write is checked against them where it is applied, by the applied storage's admission, as deletes are:
 * of two replicas' concurrent inserts of one key, the one later in the log is refused, alike on every
 * replica, and its appender is told so. A key's addition is checked there too, against the rows as the
 * entries before it in the log leave them: it and a racing write of a duplicate cannot both hold.
 *
 * <h2>Definitions</h2>
 * Tables and catalog entries travel through the log like writes, and any replica may make them. A
 * guarded catalog change ({@link #changeCatalog}) is checked where it is applied, so of two replicas
 * racing to define the same name, the one whose entry comes second in the log is refused, alike on every
 * replica. Once following the log, every applied change of tables or catalog entries is announced to
 * the {@link #watchDefinitions watcher}, through which a controller learns definitions made elsewhere.
 *
 * <h2>Start-up</h2>
 * The constructor applies the log up to its end as of opening before returning (catch-up), so the
 * catalog a controller reads at start-up is complete; a thread then follows the log.
 */
final class ReplicatedTableStorage implements TableStorage {

    private static final System.Logger LOG = System.getLogger(ReplicatedTableStorage.class.getName());
    private static final Duration POLL = Duration.ofMillis(200);
    /** How long the follower may see no entries before it asks the log for its end. */
    private static final Duration REACH_CHECK = Duration.ofSeconds(5);

    private final SharedLog log;
    /** The derived time of the write being applied; the applied storage's clock. */
    private final AtomicLong derivedClock = new AtomicLong(-1);
    private final LogTableStorage applied;
    private final String replicaId = UUID.randomUUID().toString();
    private final AtomicLong requests = new AtomicLong();
    private final Map<String, CompletableFuture<Long>> waiting = new ConcurrentHashMap<>();
    private final Thread follower;
    private volatile boolean closing;
    /** Set once the follower is running: entries applied after it were not in the catalog at start-up. */
    private volatile boolean following;
    /** Told of each change of tables or catalog entries applied while following; never null. */
    private volatile Runnable definitionsChanged = () -> { };
    /** The derived time of the last entry applied (every entry takes one, applied or rejected). */
    private volatile long lastTime = -1;
    private volatile long appliedPosition = -1;
    /** Why the last append failed, until one succeeds; null while appends succeed. */
    private volatile String unavailable;
    /** Why the last read of the log failed, until one succeeds. */
    private volatile String readFailure;
    private final AtomicLong appliedEntries = new AtomicLong();
    private final AtomicLong rejectedEntries = new AtomicLong();

    /** Monotonic nanoseconds (the options' ticker), for asking the log's end when nothing comes. */
    private final java.util.function.LongSupplier nanos;

    ReplicatedTableStorage(SharedLog log, StorageOptions options) {
        this.nanos = options.tickerNanos();
        this.log = log;
        this.applied = new LogTableStorage(new MemoryJournal(), options.withClock(derivedClock::get));
        try {
            long end = log.endPosition();
            while (appliedPosition + 1 < end) {
                log.poll(POLL).forEach(this::apply);
            }
        } catch (RuntimeException e) {
            applied.close();
            log.close();
            throw e;
        }
        following = true;
        follower = new Thread(this::follow, "tandem-log-follower");
        follower.setDaemon(true);
        follower.start();
    }

    /**
     * Follows the log until closed. A failure to read is retried (and shown by {@link #unavailable}),
     * and while no entries come the log's end is asked for every {@link #REACH_CHECK} (a consumer does not
     * fail on an unreachable broker, it only returns nothing). A failure to apply is a defect and
     * escapes to the thread's uncaught-exception handler (shared fate).
     */
    private void follow() {
        long lastReached = nanos.getAsLong();
        while (!closing) {
            List<SharedLog.Entry> entries;
            try {
                entries = log.poll(POLL);
                if (entries.isEmpty() && nanos.getAsLong() - lastReached > REACH_CHECK.toNanos()) {
                    log.endPosition();
                    lastReached = nanos.getAsLong();
                }
                readFailure = null;
            } catch (RuntimeException e) {
                if (closing) {
                    return;
                }
                readFailure = "cannot read the shared log: " + e.getMessage();
                LOG.log(System.Logger.Level.WARNING, "reading the shared log failed; retrying", e);
                try {
                    Thread.sleep(POLL.toMillis());
                } catch (InterruptedException ie) {
                    return;
                }
                continue;
            }
            if (!entries.isEmpty()) {
                lastReached = nanos.getAsLong();
                entries.forEach(this::apply);
            }
        }
    }

    /**
     * Applies one entry, identically on every replica, and answers its appender if it is waiting here.
     * Every entry, applied or rejected, takes the next derived time; afterwards the applied storage's
     * clock stands just past it, so its upper shows that nothing earlier can still come.
     */
    private void apply(SharedLog.Entry e) {
        CompletableFuture<Long> waiter = e.origin() == null ? null : waiting.remove(e.origin());
        long time = Math.max(e.timestamp(), lastTime + 1);
        try {
            LogRecord record = LogCodec.decode(e.payload());
            long result = switch (record) {
                case LogRecord.CreateTable c -> {
                    applied.createTable(c.id(), c.schema(), c.keys());
                    yield 0L;
                }
                case LogRecord.DropTable d -> {
                    applied.dropTable(d.id());
                    yield 0L;
                }
                case LogRecord.AddKey a -> {
                    applied.addKey(a.id(), a.key(), a.swap());
                    yield 0L;
                }
                case LogRecord.DropKey d -> {
                    applied.dropKey(d.id(), d.name(), d.swap());
                    yield 0L;
                }
                case LogRecord.Write w -> {
                    derivedClock.set(time);
                    long t = join(applied.write(w.id(), w.updates(), w.swap()).toFuture());
                    if (t != time) {
                        throw new IllegalStateException("the applied storage stamped " + t + ", the log derives " + time);
                    }
                    yield t;
                }
                case LogRecord.WriteTables w -> {
                    derivedClock.set(time);
                    Map<String, List<RowDiff>> updates = new java.util.LinkedHashMap<>();
                    w.parts().forEach(part -> updates.put(part.id(), part.updates()));
                    long t = join(applied.writeTables(updates, w.swap()).toFuture());
                    if (t != time) {
                        throw new IllegalStateException("the applied storage stamped " + t + ", the log derives " + time);
                    }
                    yield t;
                }
                case LogRecord.CatalogPut p -> {
                    applied.putCatalogEntry(p.key(), p.json());
                    yield 0L;
                }
                case LogRecord.CatalogRemove r -> {
                    applied.removeCatalogEntry(r.key());
                    yield 0L;
                }
                case LogRecord.CatalogChange c -> {
                    applied.changeCatalog(c.swap());
                    yield 0L;
                }
                case LogRecord.Since s -> throw new IllegalArgumentException("a shared log holds no compaction records");
                case LogRecord.Clock c -> throw new IllegalArgumentException("a shared log holds no clock records");
            };
            appliedEntries.incrementAndGet();
            if (following && changesDefinitions(record)) {
                definitionsChanged.run();
            }
            if (waiter != null) {
                waiter.complete(result);
            }
        } catch (IllegalArgumentException | java.nio.BufferUnderflowException ex) {
            // Rejected alike on every replica: the entry changes nothing.
            rejectedEntries.incrementAndGet();
            if (waiter != null) {
                waiter.completeExceptionally(ex instanceof IllegalArgumentException ? ex
                        : new IllegalArgumentException("log entry " + e.position() + " rejected: " + ex.getMessage(), ex));
            }
        }
        lastTime = time;
        derivedClock.set(time + 1);
        appliedPosition = e.position();
    }

    /**
     * Whether {@code record} may change what a controller serves: anything but a write, and a write whose
     * catalog changes touch more than its guard entry (a source's batch only moves its progress, the guard;
     * its drop removes its definition).
     */
    private static boolean changesDefinitions(LogRecord record) {
        CatalogSwap swap;
        if (record instanceof LogRecord.Write w) {
            swap = w.swap();
        } else if (record instanceof LogRecord.WriteTables w) {
            swap = w.swap();
        } else {
            return true;
        }
        return swap != null && (!swap.removes().isEmpty() || swap.puts().keySet().stream().anyMatch(k -> !k.equals(swap.guardKey())));
    }

    private static long join(CompletableFuture<Long> f) {
        try {
            return f.join();
        } catch (CompletionException ex) {
            if (ex.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw ex;
        }
    }

    /** Appends a change and completes once this replica has applied it (with a write's timestamp). */
    private CompletableFuture<Long> submit(LogRecord record) {
        if (closing) {
            return CompletableFuture.failedFuture(new IllegalStateException("the storage is closed"));
        }
        LogCodec.FrameBuffer frame = new LogCodec.FrameBuffer();
        frame.frame(record);
        byte[] payload = Arrays.copyOfRange(frame.array(), LogCodec.FRAME_HEADER, frame.length());
        String origin = replicaId + "/" + requests.incrementAndGet();
        CompletableFuture<Long> done = new CompletableFuture<>();
        waiting.put(origin, done);
        log.append(origin, payload).whenComplete((position, error) -> {
            if (error != null) {
                waiting.remove(origin);
                unavailable = "the shared log did not take a change: " + error.getMessage();
                done.completeExceptionally(new LogUnavailableException("the shared log did not take the change ("
                        + error.getMessage() + "); it may or may not be applied later", error));
            } else {
                unavailable = null;
            }
        });
        return done;
    }

    private void submitAndAwait(LogRecord record) {
        join(submit(record));
    }

    // ---- changes: through the log ----------------------------------------------------------------

    @Override
    public void createTable(String id, Schema schema, List<UniqueKey> keys) {
        requireId(id);
        Objects.requireNonNull(schema, "schema");
        WriteChecks.checkKeys(schema, keys);
        submitAndAwait(new LogRecord.CreateTable(id, schema, keys));
    }

    @Override
    public List<UniqueKey> keys(String id) {
        return applied.keys(id);
    }

    @Override
    public void dropTable(String id) {
        requireId(id);
        applied.schema(id);
        submitAndAwait(new LogRecord.DropTable(id));
    }

    /** Checked where the entry is applied, against the rows as the log leaves them there, alike on every replica. */
    @Override
    public void addKey(String id, UniqueKey key, CatalogSwap swap) {
        requireId(id);
        Objects.requireNonNull(key, "key");
        applied.schema(id);
        submitAndAwait(new LogRecord.AddKey(id, key, swap));
    }

    @Override
    public void dropKey(String id, String name, CatalogSwap swap) {
        requireId(id);
        Objects.requireNonNull(name, "name");
        applied.schema(id);
        submitAndAwait(new LogRecord.DropKey(id, name, swap));
    }

    @Override
    public Mono<Long> write(String id, List<RowDiff> updates) {
        return write(id, updates, null);
    }

    /** The swap's guard is checked where the entry is applied, alike on every replica. */
    @Override
    public Mono<Long> write(String id, List<RowDiff> updates, CatalogSwap swap) {
        Objects.requireNonNull(updates, "updates");
        Schema schema;
        try {
            schema = applied.schema(id);
        } catch (IllegalArgumentException e) {
            return Mono.error(e);
        }
        WriteRefusal violation = WriteChecks.violation(id, schema, updates);
        if (violation != null) {
            return Mono.error(violation);
        }
        CompletableFuture<Long> done = submit(new LogRecord.Write(id, -1, List.copyOf(updates), swap));
        return Mono.fromFuture(done, true);
    }

    /** Each table's rows are checked here; the swap's guard, keys and deletes where the entry is applied, alike on every replica. */
    @Override
    public Mono<Long> writeTables(Map<String, List<RowDiff>> updates, CatalogSwap swap) {
        Objects.requireNonNull(updates, "updates");
        if (updates.isEmpty()) {
            return Mono.error(new WriteRefusal(WriteRefusal.Reason.NO_TABLES, "a write to several tables names at least one table"));
        }
        List<LogRecord.Write> parts = new java.util.ArrayList<>();
        for (Map.Entry<String, List<RowDiff>> e : new java.util.TreeMap<>(updates).entrySet()) {
            Schema schema;
            try {
                schema = applied.schema(e.getKey());
            } catch (IllegalArgumentException ex) {
                return Mono.error(ex);
            }
            WriteRefusal violation = WriteChecks.violation(e.getKey(), schema, e.getValue());
            if (violation != null) {
                return Mono.error(violation);
            }
            parts.add(new LogRecord.Write(e.getKey(), -1, List.copyOf(e.getValue())));
        }
        return Mono.fromFuture(submit(new LogRecord.WriteTables(-1, parts, swap)), true);
    }

    @Override
    public void putCatalogEntry(String key, String json) {
        requireId(key);
        Objects.requireNonNull(json, "json");
        submitAndAwait(new LogRecord.CatalogPut(key, json));
    }

    @Override
    public void removeCatalogEntry(String key) {
        requireId(key);
        submitAndAwait(new LogRecord.CatalogRemove(key));
    }

    /** Checked where the entry is applied, alike on every replica: a guard that no longer holds refuses it. */
    @Override
    public void changeCatalog(CatalogSwap swap) {
        Objects.requireNonNull(swap, "swap");
        swap.puts().keySet().forEach(ReplicatedTableStorage::requireId);
        swap.removes().forEach(ReplicatedTableStorage::requireId);
        submitAndAwait(new LogRecord.CatalogChange(swap));
    }

    @Override
    public void watchDefinitions(Runnable changed) {
        definitionsChanged = Objects.requireNonNull(changed, "changed");
    }

    // ---- reads: from the applied tables ---------------------------------------------------------

    @Override
    public Schema schema(String id) {
        return applied.schema(id);
    }

    @Override
    public List<String> tables() {
        return applied.tables();
    }

    @Override
    public Flux<TableEvent> subscribe(String id, long asOf) {
        return applied.subscribe(id, asOf);
    }

    @Override
    public Frontier upper(String id) {
        return applied.upper(id);
    }

    @Override
    public Frontier since(String id) {
        return applied.since(id);
    }

    @Override
    public long records(String id) {
        return applied.records(id);
    }

    @Override
    public java.util.Map<dev.tandem.row.Row, Long> rowsWithKey(String id, dev.tandem.row.Row key) {
        return applied.rowsWithKey(id, key);
    }

    @Override
    public void allowCompaction(String id, Frontier since) {
        applied.allowCompaction(id, since);
    }

    @Override
    public long lastWriteTime() {
        return applied.lastWriteTime();
    }

    @Override
    public Map<String, String> catalogEntries() {
        return applied.catalogEntries();
    }

    /** Consolidates the applied tables in memory; the shared log itself is never rewritten. */
    @Override
    public void compact() {
        applied.compact();
    }

    @Override
    public List<StorageError> errors() {
        return applied.errors();
    }

    @Override
    public StorageStats stats() {
        return applied.stats();
    }

    @Override
    public String unavailable() {
        String read = readFailure;
        return read != null ? read : unavailable;
    }

    @Override
    public void close() {
        if (closing) {
            return;
        }
        closing = true;
        log.wakeup();
        boolean interrupted = false;
        while (follower.isAlive()) {
            try {
                follower.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        IllegalStateException closed = new IllegalStateException("the storage is closed");
        waiting.values().forEach(f -> f.completeExceptionally(closed));
        waiting.clear();
        applied.close();
        log.close();
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private static void requireId(String id) {
        if (id == null || id.isEmpty()) {
            throw new IllegalArgumentException("an id must be a non-empty string");
        }
    }
}
