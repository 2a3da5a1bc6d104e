package dev.tandem.storage;

import dev.tandem.row.Column;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.row.Schema;
import dev.tandem.time.Frontier;
import dev.tandem.trace.TraceSnapshot;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The table storage over a {@link Journal}: tables, the timestamp oracle, group commit, frontiers and
 * subscriptions, for both the durable log and the in-memory journal.
 *
 * <h2>Commit path</h2>
 * Callers validate a change and <em>admit</em> it under {@code admitLock}, which checks it against the
 * tables as they will be once everything already admitted has been applied, and enqueues it; so the
 * log order is the admission order and every record is valid against the records before it. One
 * commit thread drains the queue: it stamps every write in the batch from the oracle, frames and
 * appends the whole batch, forces it once (group commit), then applies it to the tables, advances the
 * upper to the last timestamp plus one, emits to subscribers and completes the callers.
 *
 * <h2>Frontiers</h2>
 * All tables share one timeline and one upper. Under {@code lock}, the oracle stamps writes at or
 * beyond the upper, and the upper only advances after the writes stamped below it are applied; an idle
 * tick advances it to the clock only when no stamped write is still on its way to disk
 * ({@code committing}). Hence a write's timestamp is never below an upper already reported.
 *
 * <h2>Subscriptions</h2>
 * A subscriber registers under {@code lock}, the same lock under which writes are applied and emitted,
 * so it sees every write exactly once: in its snapshot if applied before it registered, as an update
 * after. The snapshot is taken under {@code lock} as an immutable trace snapshot but read outside it;
 * updates applied meanwhile are held back for the subscriber and sent after its snapshot. Its events are emitted under {@code lock} into a buffering unicast sink; an emission that fails
 * (the subscriber cancelled) removes it and is counted.
 *
 * <h2>Faults</h2>
 * A log write that fails (a full disk) is cut back out of the log, so nothing of it stays; its callers
 * and every change admitted after it fail with {@link StorageFullException}, and admission restarts
 * from the applied tables. The storage is then {@linkplain #unavailable() unavailable} until a write,
 * or a probe the tick schedules every second, succeeds. Only a failure that leaves the log in an
 * unknown state (a failed write that cannot be cut back) stops the storage for good.
 *
 * <h2>Compaction</h2>
 * {@link #compact} runs on the commit thread between batches: each table's history is consolidated at
 * its compaction frontier (capped at the upper, so later writes still append in time order) and the log
 * is rewritten as that consolidated image.
 */
final class LogTableStorage implements TableStorage {

    private static final int MAX_BATCH = 4096;
    private static final long COMPACTION_MIN_BYTES = 4L << 20;
    private static final long COMPACTION_MIN_UPDATES = 100_000;
    private static final long PROBE_INTERVAL_NANOS = 1_000_000_000L;
    /** How often subscribers hear of an upper that only the clock moved. */
    private static final long IDLE_REPORT_MILLIS = 100;

    private final Journal journal;
    private final TimestampOracle oracle;
    private final java.util.function.LongSupplier clockMillis;
    private final Thread committer;
    private final BlockingQueue<Op> queue = new LinkedBlockingQueue<>();
    private final Disposable ticker;
    private final Disposable compactionChecker;
    private final AtomicBoolean compactionQueued = new AtomicBoolean();

    private final Object admitLock = new Object();
    /** Tables as they will be once every admitted change is applied; guarded by {@code admitLock}. */
    private final Map<String, Schema> admitted = new HashMap<>();
    private boolean closing;
    private volatile StorageException failure;
    /** Why the last log write failed, until one succeeds; null while writes succeed. */
    private volatile StorageFullException unavailable;
    private final AtomicBoolean probeQueued = new AtomicBoolean();
    private volatile long lastProbeNanos;

    private final Object lock = new Object();
    /** Applied state, all guarded by {@code lock}. */
    private final Map<String, StoredTable> tables = new HashMap<>();
    /** Admitted writes not yet applied, by table; guarded by {@code admitLock}. */
    private final Map<String, Map<Row, Long>> pendingDeletes = new HashMap<>();
    /** Admitted writes not yet applied, by table, in admission (= application) order; guarded by {@code admitLock}. */
    private final Map<String, java.util.ArrayDeque<Op>> inflight = new HashMap<>();
    /**
     * Catalog entries as they will be once every admitted change is applied, for the entries admitted
     * changes touched (a null value: removed); others are as applied. Guarded by {@code admitLock}.
     */
    private final Map<String, String> admittedCatalog = new HashMap<>();
    /** The sequence number of the next admitted write; guarded by {@code admitLock}. */
    private long nextSeq;
    private final TreeMap<String, String> catalog = new TreeMap<>();
    private long upper;
    /** The upper last told to subscribers, and when. */
    private long reportedUpper;
    private long lastReportMillis;
    private boolean committing;
    private boolean closed;
    private long lastApplied = -1;
    private long historySize;
    private long historySizeAfterCompaction;
    private long logSizeAfterCompaction;

    private final AtomicLong records = new AtomicLong();
    private final AtomicLong commits = new AtomicLong();
    private final AtomicLong syncs = new AtomicLong();
    private final AtomicLong compactions = new AtomicLong();
    private final AtomicLong emitFailures = new AtomicLong();
    private final AtomicLong writeFailures = new AtomicLong();

    LogTableStorage(Journal journal, StorageOptions options) {
        this.journal = journal;
        this.oracle = new TimestampOracle(options.clockMillis());
        this.clockMillis = options.clockMillis();
        try {
            synchronized (lock) {
                journal.recover(record -> apply(record, null));
                tables.values().forEach(t -> t.flush(-1));
                upper = oracle.last() + 1;
                for (StoredTable t : tables.values()) {
                    admitted.put(t.id, t.schema);
                }
                historySizeAfterCompaction = historySize;
                logSizeAfterCompaction = journal.size();
            }
        } catch (RuntimeException e) {
            journal.close();
            throw e;
        }
        committer = new Thread(this::commitLoop, "tandem-storage-commit");
        committer.setDaemon(true);
        committer.start();
        long tick = options.tickInterval().toNanos();
        ticker = options.scheduler().schedulePeriodically(this::tick, tick, tick, TimeUnit.NANOSECONDS);
        long check = options.compactionInterval().toNanos();
        compactionChecker = options.scheduler().schedulePeriodically(this::compactIfGrown, check, check, TimeUnit.NANOSECONDS);
    }

    // ---- tables and catalog -------------------------------------------------------------------

    @Override
    public void createTable(String id, Schema schema) {
        requireId(id);
        Objects.requireNonNull(schema, "schema");
        Op op;
        synchronized (admitLock) {
            ensureOpen();
            if (admitted.containsKey(id)) {
                throw new IllegalArgumentException("table '" + id + "' already exists");
            }
            admitted.put(id, schema);
            op = enqueue(Op.log(new LogRecord.CreateTable(id, schema)));
        }
        await(op);
    }

    @Override
    public void dropTable(String id) {
        requireId(id);
        Op op;
        synchronized (admitLock) {
            ensureOpen();
            if (admitted.remove(id) == null) {
                throw unknownTable(id);
            }
            pendingDeletes.remove(id);
            inflight.remove(id);
            op = enqueue(Op.log(new LogRecord.DropTable(id)));
        }
        await(op);
    }

    @Override
    public Schema schema(String id) {
        synchronized (lock) {
            return table(id).schema;
        }
    }

    @Override
    public List<String> tables() {
        synchronized (lock) {
            return tables.keySet().stream().sorted().toList();
        }
    }

    @Override
    public void putCatalogEntry(String key, String json) {
        requireId(key);
        Objects.requireNonNull(json, "json");
        Op op;
        synchronized (admitLock) {
            ensureOpen();
            admittedCatalog.put(key, json);
            op = enqueue(Op.log(new LogRecord.CatalogPut(key, json)));
        }
        await(op);
    }

    @Override
    public void removeCatalogEntry(String key) {
        requireId(key);
        Op op;
        synchronized (admitLock) {
            ensureOpen();
            admittedCatalog.put(key, null);
            op = enqueue(Op.log(new LogRecord.CatalogRemove(key)));
        }
        await(op);
    }

    @Override
    public Map<String, String> catalogEntries() {
        synchronized (lock) {
            return Collections.unmodifiableMap(new TreeMap<>(catalog));
        }
    }

    // ---- writes ---------------------------------------------------------------------------------

    @Override
    public Mono<Long> write(String id, List<RowDiff> updates) {
        return write(id, updates, null);
    }

    @Override
    public Mono<Long> write(String id, List<RowDiff> updates, CatalogSwap swap) {
        Objects.requireNonNull(updates, "updates");
        Schema schema;
        synchronized (admitLock) {
            if (closing) {
                return Mono.error(closedError());
            }
            schema = admitted.get(id);
        }
        if (schema == null) {
            return Mono.error(unknownTable(id));
        }
        String violation = violation(schema, updates);
        if (violation != null) {
            return Mono.error(new IllegalArgumentException("write to table '" + id + "' rejected: " + violation));
        }
        Op op = Op.write(id, List.copyOf(updates), swap);
        synchronized (admitLock) {
            if (closing) {
                return Mono.error(closedError());
            }
            if (failure != null) {
                return Mono.error(failure);
            }
            if (admitted.get(id) != schema) {
                return Mono.error(unknownTable(id));
            }
            if (swap != null) {
                String current = admittedCatalog.containsKey(swap.guardKey()) ? admittedCatalog.get(swap.guardKey()) : appliedCatalogEntry(swap.guardKey());
                if (!Objects.equals(current, swap.guardValue())) {
                    return Mono.error(new IllegalArgumentException("write to table '" + id + "' rejected: catalog entry '" + swap.guardKey()
                            + "' does not hold the value the write expects (another writer moved it); nothing was written"));
                }
            }
            Map<Row, Long> deletes = netDeletes(updates);
            if (deletes != null) {
                String negative = negativeCount(id, deletes);
                if (negative != null) {
                    return Mono.error(new IllegalArgumentException("write to table '" + id + "' rejected: " + negative));
                }
                Map<Row, Long> pending = pendingDeletes.computeIfAbsent(id, k -> new HashMap<>());
                deletes.forEach((row, n) -> pending.merge(row, n, Long::sum));
                op.deletes = deletes;
            }
            if (swap != null) {
                admittedCatalog.putAll(swap.puts());
                swap.removes().forEach(k -> admittedCatalog.put(k, null));
            }
            op.seq = nextSeq++;
            inflight.computeIfAbsent(id, k -> new java.util.ArrayDeque<>()).addLast(op);
            enqueue(op);
        }
        return Mono.fromFuture(op.done, true);
    }

    private String appliedCatalogEntry(String key) {
        synchronized (lock) {
            return catalog.get(key);
        }
    }

    /** The rows {@code updates} delete more of than they insert, with how many; null if none. */
    private static Map<Row, Long> netDeletes(List<RowDiff> updates) {
        Map<Row, Long> net = null;
        for (RowDiff u : updates) {
            if (u.diff() < 0) {
                if (net == null) {
                    net = new HashMap<>();
                }
                net.put(u.row(), 0L);
            }
        }
        if (net == null) {
            return null;
        }
        for (RowDiff u : updates) {
            net.computeIfPresent(u.row(), (r, d) -> d - u.diff());
        }
        net.values().removeIf(n -> n <= 0);
        return net.isEmpty() ? null : net;
    }

    /**
     * Why deleting {@code deletes} (row → copies) would make a row's multiplicity negative (a table is a
     * multiset), or null. Checked under {@code admitLock} against the applied rows and the writes
     * admitted and not yet applied, which the commit thread moves from one to the other under the same
     * lock: first cheaply (applied less the deletes in flight, a lower bound); only when that is not
     * enough, exactly, by scanning the writes in flight for the row.
     */
    private String negativeCount(String id, Map<Row, Long> deletes) {
        StoredTable table;
        synchronized (lock) {
            table = tables.get(id);
        }
        StoredTable.Applied view = table == null ? null : table.applied();
        long viewSeq = view == null ? -1 : view.seq();
        Map<Row, Long> pending = pendingDeletes.getOrDefault(id, Map.of());
        Map<Row, long[]> unsure = null;
        for (Map.Entry<Row, Long> e : deletes.entrySet()) {
            long applied = view == null ? 0 : view.count(e.getKey());
            if (applied - pending.getOrDefault(e.getKey(), 0L) < e.getValue()) {
                // Not enough without the inserts in flight (a client that does not wait for acknowledgements):
                // these rows are counted exactly below.
                if (unsure == null) {
                    unsure = new HashMap<>();
                }
                unsure.put(e.getKey(), new long[] {applied});
            }
        }
        if (unsure == null) {
            return null;
        }
        // One pass over the writes in flight that the published history does not yet hold.
        for (Op op : inflight.getOrDefault(id, new java.util.ArrayDeque<>())) {
            if (op.seq <= viewSeq) {
                continue;
            }
            for (RowDiff u : op.updates) {
                long[] have = unsure.get(u.row());
                if (have != null) {
                    have[0] += u.diff();
                }
            }
        }
        for (Map.Entry<Row, long[]> e : unsure.entrySet()) {
            long want = deletes.get(e.getKey());
            long have = e.getValue()[0];
            if (have < want) {
                return "it deletes " + want + " cop" + (want == 1 ? "y" : "ies") + " of row " + e.getKey()
                        + " but the table holds " + Math.max(0, have) + "; nothing was written";
            }
        }
        return null;
    }

    /** Why {@code updates} do not fit {@code schema}, naming the row and column; null if they fit. */
    static String violation(Schema schema, List<RowDiff> updates) {
        for (int i = 0; i < updates.size(); i++) {
            RowDiff u = updates.get(i);
            if (u == null) {
                return "row " + i + " is null";
            }
            if (u.diff() == 0) {
                return "row " + i + " has diff 0";
            }
            Row row = u.row();
            int arity;
            try {
                arity = row.arity();
            } catch (RuntimeException e) {
                return "row " + i + " has a corrupt encoding";
            }
            if (arity != schema.arity()) {
                return "row " + i + " has " + arity + " columns, the table has " + schema.arity();
            }
            for (int c = 0; c < arity; c++) {
                Column column = schema.column(c);
                DatumType type = row.typeAt(c);
                if (type != column.type()) {
                    return "row " + i + ", column '" + column.name() + "' (#" + c + "): expected "
                            + column.type().jsonName() + ", got " + type.jsonName();
                }
                if (!column.nullable() && row.get(c) == null) {
                    return "row " + i + ", column '" + column.name() + "' (#" + c + ") is not nullable but is NULL";
                }
            }
        }
        return null;
    }

    // ---- reading ------------------------------------------------------------------------------

    @Override
    public Flux<TableEvent> subscribe(String id, long asOf) {
        return Flux.defer(() -> {
            synchronized (lock) {
                StoredTable t = tables.get(id);
                if (t == null) {
                    return Flux.error(unknownTable(id));
                }
                if (t.since > asOf) {
                    return Flux.error(new IllegalArgumentException("table '" + id + "': the compaction frontier "
                            + Frontier.at(t.since) + " is beyond the read time " + asOf));
                }
                if (closed) {
                    return Flux.error(closedError());
                }
                StoredTable.Subscriber s = new StoredTable.Subscriber(asOf);
                t.subscribers.add(s);
                Flux<TableEvent> events = s.sink.asFlux().doOnCancel(() -> {
                    synchronized (lock) {
                        t.subscribers.remove(s);
                    }
                });
                if (upper <= asOf) {
                    return events;
                }
                // Capture the history now; read it outside the lock (a large table takes a while), holding
                // back whatever is applied meanwhile until the snapshot has gone out.
                // The operator chain keeps its source (and so this lambda) for the subscription's lifetime:
                // the lambda lets go of the captured history once read, or the table's old batches would
                // stay alive beside their merges for as long as the subscriber lives.
                AtomicReference<TraceSnapshot> history = new AtomicReference<>(t.history());
                long capturedUpper = upper;
                s.primed = true;
                s.held = new ArrayList<>();
                return Mono.fromRunnable(() -> {
                    TraceSnapshot h = history.getAndSet(null);
                    if (h != null) {
                        finishPriming(t, s, h, capturedUpper);
                    }
                }).thenMany(events);
            }
        });
    }

    /** Sends a subscriber its snapshot from {@code history}, then the events held back while it was read. */
    private void finishPriming(StoredTable t, StoredTable.Subscriber s, TraceSnapshot history, long capturedUpper) {
        StoredTable.Snapshot snap = StoredTable.read(history, s.asOf);
        synchronized (lock) {
            boolean ok = emit(s, new TableEvent.Updates(snap.at()))
                    && (snap.later().isEmpty() || emit(s, new TableEvent.Updates(snap.later())))
                    && emit(s, new TableEvent.Progress(Frontier.at(capturedUpper)));
            for (TableEvent e : s.held) {
                ok = ok && emit(s, e);
            }
            s.held = null;
            if (s.completed) {
                s.sink.tryEmitComplete();
            } else if (!ok) {
                t.subscribers.remove(s);
            }
        }
    }

    @Override
    public Frontier upper(String id) {
        synchronized (lock) {
            table(id);
            return Frontier.at(upper);
        }
    }

    @Override
    public Frontier since(String id) {
        synchronized (lock) {
            return Frontier.at(table(id).since);
        }
    }

    @Override
    public void allowCompaction(String id, Frontier since) {
        Objects.requireNonNull(since, "since");
        if (since.isEmpty()) {
            throw new IllegalArgumentException("table '" + id + "': compaction to the empty frontier is a drop; use dropTable");
        }
        synchronized (lock) {
            table(id).advanceSince(since.time());
        }
    }

    @Override
    public long lastWriteTime() {
        synchronized (lock) {
            return lastApplied;
        }
    }

    @Override
    public void compact() {
        Op op;
        synchronized (admitLock) {
            ensureOpen();
            op = enqueue(Op.control(Op.Kind.COMPACT));
        }
        await(op);
    }

    @Override
    public String unavailable() {
        StorageException f = failure;
        if (f != null) {
            return f.getMessage();
        }
        StorageFullException u = unavailable;
        return u == null ? null : u.getMessage();
    }

    /** Log writes (and probes) that failed and were undone. */
    long writeFailures() {
        return writeFailures.get();
    }

    @Override
    public StorageStats stats() {
        return new StorageStats(records.get(), commits.get(), syncs.get(), journal.size(), compactions.get(), emitFailures.get());
    }

    @Override
    public void close() {
        synchronized (admitLock) {
            if (closing) {
                return;
            }
            closing = true;
            enqueue(Op.control(Op.Kind.STOP));
        }
        ticker.dispose();
        compactionChecker.dispose();
        if (Thread.currentThread() != committer) {
            boolean interrupted = false;
            while (committer.isAlive()) {
                try {
                    committer.join();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        synchronized (lock) {
            closed = true;
            for (StoredTable t : tables.values()) {
                for (StoredTable.Subscriber s : List.copyOf(t.subscribers)) {
                    s.sink.tryEmitComplete();
                }
                t.subscribers.clear();
            }
        }
        journal.close();
    }

    // ---- commit thread ------------------------------------------------------------------------

    private void commitLoop() {
        List<Op> batch = new ArrayList<>();
        LogCodec.FrameBuffer frames = new LogCodec.FrameBuffer();
        boolean running = true;
        while (running) {
            try {
                batch.add(queue.take());
            } catch (InterruptedException e) {
                continue;
            }
            queue.drainTo(batch, MAX_BATCH - 1);
            int from = 0;
            RuntimeException abandoned = null;
            for (int i = 0; i < batch.size(); i++) {
                Op op = batch.get(i);
                if (op.kind != Op.Kind.LOG && op.kind != Op.Kind.WRITE) {
                    abandoned = commitOrFail(batch.subList(from, i), frames, abandoned);
                    from = i + 1;
                    switch (op.kind) {
                        case COMPACT -> compactNow(op);
                        case PROBE -> probeNow(op);
                        default -> {
                            running = false;
                            op.done.complete(0L);
                        }
                    }
                }
            }
            commitOrFail(batch.subList(from, batch.size()), frames, abandoned);
            batch.clear();
        }
    }

    /**
     * Commits a segment, unless an earlier segment of the same batch failed ({@code abandoned}): then
     * it fails too, since it was admitted against changes that never happened. Returns the failure, if any.
     */
    private RuntimeException commitOrFail(List<Op> segment, LogCodec.FrameBuffer frames, RuntimeException abandoned) {
        if (abandoned != null) {
            segment.forEach(op -> op.done.completeExceptionally(abandoned));
            return abandoned;
        }
        return commit(segment, frames);
    }

    /** Stamps, appends, forces and applies a batch of log changes, then completes their callers; returns a failure or null. */
    private RuntimeException commit(List<Op> segment, LogCodec.FrameBuffer frames) {
        if (segment.isEmpty()) {
            return null;
        }
        if (failure != null) {
            segment.forEach(op -> op.done.completeExceptionally(failure));
            return null;
        }
        long maxTime = -1;
        synchronized (lock) {
            committing = true;
            for (Op op : segment) {
                if (op.kind == Op.Kind.WRITE) {
                    op.time = oracle.next(upper);
                    op.record = new LogRecord.Write(op.table, op.time, op.updates, op.swap);
                    maxTime = op.time;
                }
            }
        }
        try {
            frames.reset();
            for (Op op : segment) {
                frames.frame(op.record);
            }
            if (journal.appendAndSync(frames.array(), frames.length())) {
                syncs.incrementAndGet();
            }
        } catch (StorageException e) {
            failure = e;
            synchronized (lock) {
                committing = false;
            }
            segment.forEach(op -> op.done.completeExceptionally(failure));
            return null;
        } catch (IOException | RuntimeException e) {
            writeFailures.incrementAndGet();
            StorageFullException full = new StorageFullException("the log could not be written (" + e.getMessage()
                    + "); nothing of this change was kept. The storage retries and accepts changes again once it can write"
                    + " (free space on the data directory's file system)", e);
            unavailable = full;
            synchronized (lock) {
                committing = false;
            }
            abandon(segment, full);
            return full;
        }
        unavailable = null;
        records.addAndGet(segment.size());
        commits.incrementAndGet();
        Map<StoredTable, PackedUpdates.Builder> fresh = new IdentityHashMap<>();
        // Admission counts a row in the published history, which carries the sequence number of the last
        // write applied to it, and in the writes in flight after that number: exactly once, so admission
        // need not wait while a segment applies. Deletes in flight are forgotten only after publication.
        long appliedSeq = -1;
        for (Op op : segment) {
            appliedSeq = Math.max(appliedSeq, op.seq);
        }
        synchronized (lock) {
            for (Op op : segment) {
                apply(op.record, fresh);
            }
            long seq = appliedSeq;
            tables.values().forEach(t -> t.flush(seq));
            committing = false;
            advance(Math.max(upper, maxTime + 1), fresh);
        }
        synchronized (admitLock) {
            for (Op op : segment) {
                java.util.ArrayDeque<Op> queued = op.kind == Op.Kind.WRITE ? inflight.get(op.table) : null;
                if (queued != null) {
                    queued.remove(op);
                    if (queued.isEmpty()) {
                        inflight.remove(op.table);
                    }
                }
                Map<Row, Long> pending = op.deletes == null ? null : pendingDeletes.get(op.table);
                if (pending != null) {
                    op.deletes.forEach((row, n) -> pending.computeIfPresent(row, (r, m) -> m - n == 0 ? null : m - n));
                    if (pending.isEmpty()) {
                        pendingDeletes.remove(op.table);
                    }
                }
            }
        }
        for (Op op : segment) {
            op.done.complete(op.time);
        }
        return null;
    }

    /**
     * Fails a segment that could not be logged and every change admitted after it (they were checked
     * against it), keeps queued control operations, and restarts admission from the applied tables.
     */
    private void abandon(List<Op> segment, StorageFullException error) {
        segment.forEach(op -> op.done.completeExceptionally(error));
        synchronized (admitLock) {
            List<Op> queued = new ArrayList<>();
            queue.drainTo(queued);
            for (Op op : queued) {
                if (op.kind == Op.Kind.LOG || op.kind == Op.Kind.WRITE) {
                    op.done.completeExceptionally(error);
                } else {
                    queue.add(op);
                }
            }
            pendingDeletes.clear();
            inflight.clear();
            admittedCatalog.clear();
            synchronized (lock) {
                admitted.clear();
                for (StoredTable t : tables.values()) {
                    admitted.put(t.id, t.schema);
                }
            }
        }
    }

    /** While unavailable, asks the commit thread about once a second whether the log takes writes again. */
    private void probeIfUnavailable() {
        if (unavailable == null || failure != null || System.nanoTime() - lastProbeNanos < PROBE_INTERVAL_NANOS) {
            return;
        }
        if (probeQueued.compareAndSet(false, true)) {
            lastProbeNanos = System.nanoTime();
            synchronized (admitLock) {
                if (!closing) {
                    enqueue(Op.control(Op.Kind.PROBE));
                } else {
                    probeQueued.set(false);
                }
            }
        }
    }

    private void probeNow(Op op) {
        probeQueued.set(false);
        if (unavailable != null && failure == null) {
            try {
                journal.probe();
                unavailable = null;
            } catch (IOException | RuntimeException e) {
                writeFailures.incrementAndGet();
            }
        }
        op.done.complete(0L);
    }

    /** Applies one record to the tables; {@code fresh} collects new updates for subscribers (null in recovery). */
    private void apply(LogRecord record, Map<StoredTable, PackedUpdates.Builder> fresh) {
        switch (record) {
            case LogRecord.CreateTable c -> {
                if (tables.containsKey(c.id())) {
                    throw new IllegalStateException("log creates table '" + c.id() + "' twice");
                }
                tables.put(c.id(), new StoredTable(c.id(), c.schema()));
            }
            case LogRecord.DropTable d -> {
                StoredTable t = tables.remove(d.id());
                if (t == null) {
                    throw new IllegalStateException("log drops unknown table '" + d.id() + "'");
                }
                historySize -= t.size();
                for (StoredTable.Subscriber s : List.copyOf(t.subscribers)) {
                    if (s.held != null) {
                        s.held.add(new TableEvent.Progress(Frontier.EMPTY));
                        s.completed = true;
                        continue;
                    }
                    if (s.sink.tryEmitNext(new TableEvent.Progress(Frontier.EMPTY)).isFailure()) {
                        emitFailures.incrementAndGet();
                    }
                    s.sink.tryEmitComplete();
                }
                t.subscribers.clear();
                if (fresh != null) {
                    fresh.remove(t);
                }
            }
            case LogRecord.Write w -> {
                StoredTable t = tables.get(w.id());
                if (t == null) {
                    throw new IllegalStateException("log writes to unknown table '" + w.id() + "'");
                }
                PackedUpdates.Builder out = fresh == null || t.subscribers.isEmpty() ? null
                        : fresh.computeIfAbsent(t, k -> new PackedUpdates.Builder());
                for (RowDiff u : w.updates()) {
                    t.stage(u.row(), w.time(), u.diff());
                    if (out != null) {
                        out.add(u.row(), w.time(), u.diff());
                    }
                }
                historySize += w.updates().size();
                if (w.swap() != null) {
                    catalog.putAll(w.swap().puts());
                    w.swap().removes().forEach(catalog::remove);
                }
                oracle.observe(w.time());
                lastApplied = Math.max(lastApplied, w.time());
            }
            case LogRecord.CatalogPut p -> catalog.put(p.key(), p.json());
            case LogRecord.CatalogRemove r -> catalog.remove(r.key());
            case LogRecord.Since s -> {
                StoredTable t = tables.get(s.id());
                if (t == null) {
                    throw new IllegalStateException("log sets the compaction frontier of unknown table '" + s.id() + "'");
                }
                t.advanceSince(s.since());
            }
            case LogRecord.Clock c -> {
                oracle.observe(c.lastTime());
                lastApplied = Math.max(lastApplied, c.lastTime());
            }
        }
    }

    /** Moves the upper to {@code newUpper} (if later) and tells every subscriber. Called under {@code lock}. */
    private void advance(long newUpper, Map<StoredTable, PackedUpdates.Builder> fresh) {
        if (newUpper > upper) {
            upper = newUpper;
        }
        boolean moved = upper > reportedUpper;
        reportedUpper = upper;
        lastReportMillis = clockMillis.getAsLong();
        TableEvent.Progress progress = new TableEvent.Progress(Frontier.at(upper));
        for (StoredTable t : tables.values()) {
            if (t.subscribers.isEmpty()) {
                continue;
            }
            PackedUpdates.Builder mine = fresh.get(t);
            TableEvent.Updates updates = mine == null ? null : new TableEvent.Updates(mine.build());
            for (StoredTable.Subscriber s : List.copyOf(t.subscribers)) {
                boolean ok;
                if (!s.primed) {
                    if (upper <= s.asOf) {
                        continue;
                    }
                    ok = prime(t, s);
                } else if (s.held != null) {
                    if (updates != null) {
                        s.held.add(updates);
                    }
                    if (moved) {
                        s.held.add(progress);
                    }
                    ok = true;
                } else {
                    ok = (updates == null || emit(s, updates)) && (!moved || emit(s, progress));
                }
                if (!ok) {
                    t.subscribers.remove(s);
                }
            }
        }
    }

    /** Sends a subscriber its snapshot at {@code asOf}, the applied updates after it, and the upper. */
    private boolean prime(StoredTable t, StoredTable.Subscriber s) {
        StoredTable.Snapshot snap = StoredTable.read(t.history(), s.asOf);
        s.primed = true;
        return emit(s, new TableEvent.Updates(snap.at()))
                && (snap.later().isEmpty() || emit(s, new TableEvent.Updates(snap.later())))
                && emit(s, new TableEvent.Progress(Frontier.at(upper)));
    }

    private boolean emit(StoredTable.Subscriber s, TableEvent event) {
        if (s.sink.tryEmitNext(event).isFailure()) {
            emitFailures.incrementAndGet();
            return false;
        }
        return true;
    }

    /**
     * Advances the upper to the clock when no write is on its way. Subscribers hear of a move that no
     * write made at most every {@link #IDLE_REPORT_MILLIS} of the storage's clock (a write's move is reported at once), so idle
     * tables cost their subscribers a few events a second rather than one per tick.
     */
    private void tick() {
        probeIfUnavailable();
        synchronized (lock) {
            if (closed || committing) {
                return;
            }
            long t = oracle.tickFrontier(upper);
            if (t > upper) {
                long now = clockMillis.getAsLong();
                if (now - lastReportMillis >= IDLE_REPORT_MILLIS || now < lastReportMillis) {
                    advance(t, Map.of());
                } else {
                    upper = t;
                }
            }
        }
    }

    private void compactIfGrown() {
        boolean grown;
        synchronized (lock) {
            grown = historySize > 2 * historySizeAfterCompaction + COMPACTION_MIN_UPDATES
                    || journal.size() > 2 * logSizeAfterCompaction + COMPACTION_MIN_BYTES;
        }
        if (grown && compactionQueued.compareAndSet(false, true)) {
            synchronized (admitLock) {
                if (!closing) {
                    enqueue(Op.control(Op.Kind.COMPACT));
                }
            }
        }
    }

    /** Consolidates every table at its compaction frontier and rewrites the log as that image. */
    private void compactNow(Op op) {
        compactionQueued.set(false);
        if (failure != null) {
            op.done.completeExceptionally(failure);
            return;
        }
        // Under the lock only merge and capture each table's history; read it into the image outside, so a
        // large table does not hold up subscriptions and frontiers. This runs on the commit thread, so no
        // write is applied meanwhile.
        record Captured(StoredTable table, TraceSnapshot history, long frontier, long since) {
        }
        List<Captured> captured = new ArrayList<>();
        List<LogRecord> image = new ArrayList<>();
        Map<String, String> catalogNow;
        synchronized (lock) {
            image.add(new LogRecord.Clock(oracle.last()));
            historySize = 0;
            for (StoredTable t : tables.values()) {
                captured.add(new Captured(t, t.compacted(), Math.min(t.since, upper), t.since));
                historySize += t.size();
            }
            catalogNow = new TreeMap<>(catalog);
            historySizeAfterCompaction = historySize;
        }
        for (Captured c : captured) {
            image.add(new LogRecord.CreateTable(c.table().id, c.table().schema));
            if (c.since() > 0) {
                image.add(new LogRecord.Since(c.table().id, c.since()));
            }
            image.addAll(StoredTable.consolidated(c.table().id, c.history(), c.frontier()));
        }
        catalogNow.forEach((k, v) -> image.add(new LogRecord.CatalogPut(k, v)));
        try {
            journal.rewrite(image);
        } catch (StorageException e) {
            failure = e;
            op.done.completeExceptionally(failure);
            return;
        } catch (IOException | RuntimeException e) {
            // The old log stays in place and complete; the storage is unavailable until a write or probe succeeds.
            writeFailures.incrementAndGet();
            StorageFullException full = new StorageFullException("the log could not be rewritten (" + e.getMessage()
                    + "); the old log is kept. The storage retries once it can write (free space on the data directory's file system)", e);
            unavailable = full;
            op.done.completeExceptionally(full);
            return;
        }
        logSizeAfterCompaction = journal.size();
        compactions.incrementAndGet();
        op.done.complete(0L);
    }

    // ---- helpers ------------------------------------------------------------------------------

    private Op enqueue(Op op) {
        queue.add(op);
        return op;
    }

    private void await(Op op) {
        if (Thread.currentThread() == committer) {
            throw new IllegalStateException("a blocking storage call on the storage's commit thread would deadlock; hand off to another scheduler");
        }
        try {
            op.done.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw e;
        }
    }

    private void ensureOpen() {
        if (closing) {
            throw closedError();
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** The history a subscriber to {@code id} would be primed from now (for tests of what stays reachable). */
    TraceSnapshot history(String id) {
        synchronized (lock) {
            return table(id).history();
        }
    }

    private StoredTable table(String id) {
        StoredTable t = tables.get(id);
        if (t == null) {
            throw unknownTable(id);
        }
        return t;
    }

    private static void requireId(String id) {
        if (id == null || id.isEmpty()) {
            throw new IllegalArgumentException("an id must be a non-empty string");
        }
    }

    private static IllegalArgumentException unknownTable(String id) {
        return new IllegalArgumentException("unknown table '" + id + "'");
    }

    private static IllegalStateException closedError() {
        return new IllegalStateException("the storage is closed");
    }

    /** A change waiting for the commit thread, with the future its caller waits on. */
    private static final class Op {
        enum Kind { LOG, WRITE, COMPACT, PROBE, STOP }

        final Kind kind;
        final String table;
        final List<RowDiff> updates;
        /** Catalog changes made with a write, or null. */
        final CatalogSwap swap;
        /** The rows this write deletes (net), while it is admitted and not yet applied; null if none. */
        Map<Row, Long> deletes;
        /** A write's place in admission order (= application order); -1 for other operations. */
        long seq = -1;
        final CompletableFuture<Long> done = new CompletableFuture<>();
        LogRecord record;
        long time = -1;

        private Op(Kind kind, LogRecord record, String table, List<RowDiff> updates, CatalogSwap swap) {
            this.kind = kind;
            this.record = record;
            this.table = table;
            this.updates = updates;
            this.swap = swap;
        }

        static Op log(LogRecord record) {
            return new Op(Kind.LOG, record, null, null, null);
        }

        static Op write(String table, List<RowDiff> updates, CatalogSwap swap) {
            return new Op(Kind.WRITE, null, table, updates, swap);
        }

        static Op control(Kind kind) {
            return new Op(kind, null, null, null, null);
        }
    }
}
