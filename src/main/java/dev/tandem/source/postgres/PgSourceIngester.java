package dev.tandem.source.postgres;

import dev.tandem.row.Row;
import dev.tandem.source.SourceListener;
import dev.tandem.storage.CatalogSwap;
import dev.tandem.storage.RowDiff;
import dev.tandem.storage.TableEvent;
import dev.tandem.storage.TableStorage;
import dev.tandem.storage.TableUpdate;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import org.postgresql.PGConnection;
import org.postgresql.replication.LogSequenceNumber;
import org.postgresql.replication.PGReplicationStream;

/**
 * Replicates one PostgreSQL source on its own thread: the initial copy (inside the slot's exported
 * snapshot, handed over by {@link PgSourceManager} with the replication connection that exported it),
 * then the slot's changes through pgoutput. Each upstream transaction becomes part of one write to every
 * Tandem table it touched, at one timestamp ({@link TableStorage#writeTables}), so a reader sees all of a
 * transaction or none of it. Writes are group commits: a committed transaction is written at once when
 * no write is in flight; while one is, the transactions committed meanwhile (up to {@link #MAX_BATCH_ROWS}
 * rows) are received and batched, and written as one as soon as it is durable. So a busy upstream costs
 * one durable write per batch, not per transaction, and no transaction waits for more than the write
 * before it and its own. The write
 * carries, in the same log record, the source's new position (the transaction's end LSN, in {@link PgProgress}), guarded by the
 * position before it: after a crash the source resumes from the last durable transaction, and one
 * already applied is skipped, so nothing is applied twice or lost. The position confirmed to
 * PostgreSQL ({@code flush_lsn}) is only ever a durable one; pgjdbc's automatic flush moves it on with
 * the server's keepalives while every transaction received is applied, so an idle source does not
 * hold WAL back. When PostgreSQL is down the source retries with backoff ({@code reconnecting}).
 */
final class PgSourceIngester {

    private static final System.Logger LOG = System.getLogger(PgSourceIngester.class.getName());
    private static final Duration WRITE_TIMEOUT = Duration.ofSeconds(60);
    private static final int COPY_BATCH = 10_000;
    /** The most changed rows the upstream transactions written as one may hold. */
    static final int MAX_BATCH_ROWS = 10_000;
    private static final long MAX_BACKOFF_MILLIS = 30_000;

    /** What {@link #status} reports. */
    record Status(String state, String detail, long lsn, long rowsCopied, long transactions, double lagSeconds, long bytesBehind,
            Map<String, String> tableErrors) {
    }

    /** The replication connection that created the slot and still holds its exported snapshot, for the initial copy. */
    record Initial(Connection replication, String snapshot, long consistentPoint) {
    }

    private final PgSourceDefinition def;
    private final PgConnect connect;
    private final TableStorage storage;
    private final Map<String, PgTableState> byName = new LinkedHashMap<>();
    private final Map<Integer, PgTableState> byOid = new HashMap<>();
    private final Thread thread;
    private final SourceListener listener;
    private volatile boolean running = true;
    private volatile Initial initial;
    private volatile Connection current;
    private PgProgress progress;
    private String progressJson;
    private volatile String state = "starting";
    private volatile String detail;
    private volatile long transactions;
    private volatile double lagSeconds;
    private volatile long serverLsn;
    /** The upstream position through which everything this source received is applied (durably): a read after it sees it all. */
    private volatile long appliedThrough;
    /** The position of the last write known durable. */
    private volatile long durableLsn;
    /**
     * Upstream transactions committed and applied to the tables' rows here but not yet written: their net
     * change per table and row, merged; written as one at the next {@link #flush} (nothing more received
     * yet, or {@link #MAX_BATCH_ROWS} rows). Null position: no batch.
     */
    private final Map<String, Map<Row, Long>> batch = new LinkedHashMap<>();
    private PgProgress batchProgress;
    private long batchRows;
    private int batchTransactions;
    private long batchCommitMicros;
    /** When the batch's first transaction arrived ({@link System#nanoTime}). */
    private long batchReceivedNanos;
    /** The upstream position to confirm once the batch is durable (the last commit received, ours or not). */
    private long confirmAfterFlush;
    /** The batch's sequence number: a keyed table's rows it changed are durable once its write is. */
    private long batchSeq;
    /** The batch being written, or null. */
    private Flight inFlight;
    /** A position to confirm once the write in flight is durable (commits received since, none of them ours). */
    private long confirmAfterFlight;

    /** A batch's write on its way to being durable, and what its completion confirms and reports. */
    private record Flight(CompletableFuture<?> write, long seq, PgProgress progress, long confirmLsn,
            long receivedNanos, int transactions, long commitMicros, long startedNanos) {
    }

    PgSourceIngester(PgSourceDefinition def, PgConnect connect, Map<String, String> tableIds, TableStorage storage, Initial initial,
            SourceListener listener) {
        this.def = def;
        this.listener = listener;
        this.connect = connect;
        this.storage = storage;
        this.initial = initial;
        for (PgSourceDefinition.Table t : def.tables()) {
            byName.put(t.qualified(), new PgTableState(t, tableIds.get(t.local()), storage));
        }
        this.progressJson = storage.catalogEntries().get(PgSourceDefinition.progressKey(def.name()));
        this.progress = PgProgress.fromJson(progressJson);
        this.durableLsn = progress.lsn();
        progress.tableErrors().forEach((local, why) -> byName.values().stream().filter(s -> s.def.local().equals(local)).forEach(s -> s.error = why));
        this.thread = new Thread(this::run, "tandem-pgsource-" + def.name());
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /** Stops replicating and waits (bounded) for the thread; the position confirmed upstream is the durable one. */
    void stop() {
        running = false;
        Connection c = current;
        thread.interrupt();
        try {
            thread.join(TimeUnit.SECONDS.toMillis(15));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive() && c != null) {
            closeQuietly(c);
        }
        Initial i = initial;
        if (i != null) {
            closeQuietly(i.replication());
        }
    }

    long appliedThrough() {
        return Math.max(appliedThrough, durableLsn);
    }

    Status status() {
        PgProgress p = progress;
        long through = appliedThrough();
        long behind = Long.compareUnsigned(serverLsn, through) > 0 ? serverLsn - through : 0;
        return new Status(state, detail, durableLsn, p.rowsCopied(), transactions, lagSeconds, behind, p.tableErrors());
    }

    private void run() {
        long backoff = 500;
        while (running) {
            try {
                Initial i = initial;
                if (i != null) {
                    copy(i);
                    initial = null;
                    stream(i.replication());
                } else if (!progress.copied()) {
                    fail("the initial copy was interrupted (Tandem stopped before it finished); drop the source and create it again");
                    return;
                } else {
                    stream(null);
                }
                backoff = 500;
            } catch (Permanent e) {
                fail(e.getMessage());
                return;
            } catch (Exception e) {
                if (!running) {
                    break;
                }
                if (initial != null) {
                    fail("the initial copy failed (" + e.getMessage() + "); drop the source and create it again");
                    return;
                }
                state = "reconnecting";
                detail = "PostgreSQL at " + connect.describe() + ": " + e.getMessage() + "; retrying in " + backoff + " ms";
                LOG.log(System.Logger.Level.WARNING, "source '" + def.name() + "': " + detail);
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(backoff));
                backoff = Math.min(MAX_BACKOFF_MILLIS, backoff * 2);
            } finally {
                Connection c = current;
                current = null;
                if (c != null) {
                    closeQuietly(c);
                }
            }
        }
        if (!"failed".equals(state)) {
            state = "stopped";
        }
    }

    private void fail(String why) {
        state = "failed";
        detail = why;
        LOG.log(System.Logger.Level.WARNING, "source '" + def.name() + "' failed: " + why);
    }

    // ---- the initial copy ---------------------------------------------------------------------

    private void copy(Initial i) throws Exception {
        state = "copying";
        current = i.replication();
        try (Connection c = connect.plain()) {
            c.setAutoCommit(false);
            try (var s = c.createStatement()) {
                s.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
                s.execute("SET TRANSACTION SNAPSHOT '" + i.snapshot().replace("'", "''") + "'");
            }
            var copyApi = c.unwrap(PGConnection.class).getCopyAPI();
            // the write of one batch runs while the next is read and parsed
            CompletableFuture<?> inFlight = null;
            for (PgTableState t : byName.values()) {
                detail = "copying " + t.def.qualified();
                List<String> cols = t.def.columns().stream().map(col -> PgSchemaReader.quote(col.name())).toList();
                var out = copyApi.copyOut("COPY " + PgSchemaReader.quote(t.def.schema()) + "." + PgSchemaReader.quote(t.def.name())
                        + " (" + String.join(", ", cols) + ") TO STDOUT");
                List<RowDiff> batch = new ArrayList<>();
                byte[] line;
                while ((line = out.readFromCopy()) != null) {
                    if (!running) {
                        out.cancelCopy();
                        throw new InterruptedException("stopped");
                    }
                    Row row = t.row(PgCopyText.fields(line), null);
                    batch.add(RowDiff.insert(row));
                    if (batch.size() >= COPY_BATCH) {
                        inFlight = writeCopied(t, batch, i.consistentPoint(), inFlight);
                        batch = new ArrayList<>();
                    }
                }
                inFlight = writeCopied(t, batch, i.consistentPoint(), inFlight);
            }
            await(inFlight);
            c.commit();
        }
        // The copy is complete: from here on, the slot's changes after its consistent point.
        commitProgress(Map.of(), new PgProgress(true, i.consistentPoint(), progress.rowsCopied(), progress.tableErrors()));
        detail = null;
    }

    /**
     * Writes a batch of copied rows with the copy's progress, waits until the write before it ({@code previous},
     * or null) is durable, and returns the new write without waiting for it: the caller reads the next
     * batch meanwhile. The progress guarding each write is the one the write before it set, so the writes
     * apply in order. A failure surfaces at the next wait and fails the copy.
     */
    private CompletableFuture<?> writeCopied(PgTableState t, List<RowDiff> batch, long lsn,
            CompletableFuture<?> previous) {
        if (batch.isEmpty()) {
            return previous;
        }
        if (!t.keyed()) {
            // a keyed table's rows are read from the table itself once the copy is durable
            for (RowDiff d : batch) {
                t.apply(d.row(), d.diff(), 0);
            }
        }
        PgProgress next = new PgProgress(false, lsn, progress.rowsCopied() + batch.size(), progress.tableErrors());
        String key = PgSourceDefinition.progressKey(def.name());
        String json = next.toJson();
        CatalogSwap swap = new CatalogSwap(key, progressJson, Map.of(key, json), List.of());
        // Admitted (on this thread) while the batch before it commits, so the commit thread always has the
        // next batch; at most two are in flight. Should the one before fail, this one fails with it.
        // The table is new, only this source writes it, and the rows are one snapshot of an upstream table
        // whose primary key (or replica identity index) is the table's key: their keys are unique.
        CompletableFuture<?> write = storage.writeTablesKeysGuaranteed(Map.of(t.tableId, batch), swap).toFuture();
        long previousLsn = progress.lsn();
        progress = next;
        progressJson = json;
        await(previous);
        durableLsn = previousLsn;
        return write;
    }

    /** Waits (bounded) for a write; its failure is thrown. */
    private static void await(CompletableFuture<?> write) {
        if (write == null) {
            return;
        }
        try {
            write.get(WRITE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while a copied batch was written", e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("a copied batch was not durable within " + WRITE_TIMEOUT, e);
        }
    }

    /** Writes {@code updates} with {@code next} as the source's position, guarded by the position before; blocks until durable. */
    private void commitProgress(Map<String, List<RowDiff>> updates, PgProgress next) {
        String key = PgSourceDefinition.progressKey(def.name());
        String json = next.toJson();
        CatalogSwap swap = new CatalogSwap(key, progressJson, Map.of(key, json), List.of());
        if (updates.isEmpty()) {
            storage.changeCatalog(swap);
        } else {
            storage.writeTables(updates, swap).block(WRITE_TIMEOUT);
        }
        progress = next;
        progressJson = json;
        durableLsn = next.lsn();
    }

    // ---- streaming ------------------------------------------------------------------------------

    private void stream(Connection held) throws Exception {
        // a batch a failed write left behind is not durable: it comes again from the durable position
        settle();
        batch.clear();
        batchProgress = null;
        batchRows = 0;
        batchTransactions = 0;
        confirmAfterFlight = 0;
        if (held == null) {
            // A restart or a reconnect: from the durable position and the rows as durably applied.
            progressJson = storage.catalogEntries().get(PgSourceDefinition.progressKey(def.name()));
            progress = PgProgress.fromJson(progressJson);
            durableLsn = progress.lsn();
            reload();
        }
        Connection c = held != null ? held : connect.replication();
        current = c;
        PGReplicationStream stream;
        try {
            stream = c.unwrap(PGConnection.class).getReplicationAPI().replicationStream().logical()
                    .withSlotName(def.slot())
                    .withStartPosition(LogSequenceNumber.valueOf(progress.lsn()))
                    .withSlotOption("proto_version", 1)
                    .withSlotOption("publication_names", PgSchemaReader.quote(def.publication()))
                    .withStatusInterval(1, TimeUnit.SECONDS)
                    .start();
        } catch (SQLException e) {
            if ("42704".equals(e.getSQLState())) {
                throw new Permanent("the replication slot '" + def.slot() + "' no longer exists upstream (it was dropped); drop the source and create it again");
            }
            throw e;
        }
        state = "streaming";
        detail = null;
        PgTransaction txn = null;
        while (running) {
            ByteBuffer buf = stream.readPending();
            LogSequenceNumber received = stream.getLastReceiveLSN();
            serverLsn = Math.max(serverLsn, received.asLong());
            if (buf == null) {
                // nothing more received for now: what is committed becomes durable and visible
                land(stream, 0);
                write();
                if (inFlight != null) {
                    // a write is in flight: wait a little for it, then read what arrived meanwhile
                    land(stream, TimeUnit.MILLISECONDS.toNanos(1));
                    continue;
                }
                if (txn == null) {
                    // every transaction received is applied: the server's position is reached
                    lagSeconds = 0;
                    appliedThrough = Math.max(appliedThrough, received.asLong());
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
                continue;
            }
            PgOutput.Message m = PgOutput.decode(buf);
            PgTransaction open = txn;
            switch (m) {
                // A transaction whose commit lies before the durable position was applied before a restart.
                case PgOutput.Begin b -> txn = new PgTransaction(b.finalLsn() < progress.lsn());
                case PgOutput.Relation r -> {
                    drain(stream);
                    relation(r, open);
                }
                case PgOutput.Insert ins -> change(open, ins.oid(), t -> open.insert(t, ins));
                case PgOutput.Update up -> change(open, up.oid(), t -> open.update(t, up));
                case PgOutput.Delete del -> change(open, del.oid(), t -> open.delete(t, del));
                case PgOutput.Truncate tr -> {
                    for (int oid : tr.oids()) {
                        change(open, oid, t -> open.truncate(t));
                    }
                }
                case PgOutput.Commit cm -> {
                    commit(txn(txn), cm);
                    txn = null;
                    if (batchProgress != null) {
                        confirmAfterFlush = cm.endLsn();
                        // a full batch waits for the write in flight; else it is written if none is
                        land(stream, batchRows >= MAX_BATCH_ROWS ? WRITE_TIMEOUT.toNanos() : 0);
                        write();
                    } else if (inFlight != null) {
                        // nothing of this source's, but its position lies after the write in flight
                        confirmAfterFlight = cm.endLsn();
                    } else {
                        // applied before, or nothing of this source's: nothing of it is needed again
                        confirm(stream, cm.endLsn());
                    }
                }
                case PgOutput.Other o -> {
                }
            }
        }
        stream.close();
    }

    private static PgTransaction txn(PgTransaction txn) {
        if (txn == null) {
            throw new IllegalStateException("pgoutput: a change outside a transaction");
        }
        return txn;
    }

    /**
     * Forgets what no durable write holds, after a restart or a reconnect; a table without a key rebuilds
     * its rows from what Tandem holds (a keyed one reads them from the table as it needs them).
     */
    private void reload() {
        for (PgTableState t : byName.values()) {
            t.clear();
            if (t.keyed()) {
                continue;
            }
            long upper = storage.upper(t.tableId).time();
            long asOf = Math.max(storage.since(t.tableId).time(), upper - 1);
            Map<Row, Long> counts = new HashMap<>();
            storage.subscribe(t.tableId, asOf).takeUntil(e -> e instanceof TableEvent.Progress).doOnNext(e -> {
                if (e instanceof TableEvent.Updates u) {
                    for (TableUpdate x : u.updates()) {
                        counts.merge(x.row(), x.diff(), Long::sum);
                    }
                }
            }).blockLast(WRITE_TIMEOUT);
            counts.forEach((row, n) -> {
                if (n != 0) {
                    t.apply(row, n, 0);
                }
            });
        }
    }

    private void relation(PgOutput.Relation r, PgTransaction txn) {
        PgTableState t = byName.get(r.schema() + "." + r.name());
        if (t == null) {
            return;
        }
        byOid.put(r.oid(), t);
        List<String> names = r.columns().stream().map(PgOutput.RelColumn::name).toList();
        List<String> types = r.columns().stream().map(c -> Integer.toUnsignedString(c.typeOid())).toList();
        List<String> wantNames = t.def.columns().stream().map(c -> c.name()).toList();
        List<String> wantTypes = t.def.pgTypes().stream().map(s -> s.substring(0, s.indexOf(' '))).toList();
        if (t.error == null && (!names.equals(wantNames) || !types.equals(wantTypes))) {
            String why = "upstream table " + t.def.qualified() + " changed shape (columns now " + names + ", were " + wantNames
                    + "; or a column's type changed): '" + t.def.local() + "' stopped following it; drop the source and create it again";
            t.error = why;
            if (txn != null) {
                txn.errors.put(t.def.local(), why);
            } else {
                commitProgress(Map.of(), progress.withTableError(t.def.local(), why));
            }
            LOG.log(System.Logger.Level.WARNING, "source '" + def.name() + "': " + why);
        }
    }

    private interface TableChange {
        void apply(PgTableState t);
    }

    private void change(PgTransaction txn, int oid, TableChange c) {
        PgTableState t = byOid.get(oid);
        if (t == null || t.error != null || txn(txn).skip) {
            return;
        }
        try {
            c.apply(t);
        } catch (RuntimeException e) {
            String why = "table " + t.def.qualified() + ": " + e.getMessage() + "; '" + t.def.local() + "' stopped following it";
            t.error = why;
            txn(txn).errors.put(t.def.local(), why);
            txn.forget(t);
        }
    }

    /** Tells PostgreSQL that everything through {@code lsn} is durable here ({@code flush_lsn}). */
    private static void confirm(PGReplicationStream stream, long lsn) {
        stream.setFlushedLSN(LogSequenceNumber.valueOf(lsn));
        stream.setAppliedLSN(LogSequenceNumber.valueOf(lsn));
    }

    /**
     * Starts writing the batch of committed upstream transactions, unless a write is in flight: one write
     * at one timestamp, with the position after the last, guarded by the position before it (the one the
     * write in flight, if any, sets: the storage admits writes in order). A reader sees all of a
     * transaction or none of it; transactions that arrived together may become visible together.
     */
    private void write() {
        if (batchProgress == null || inFlight != null) {
            return;
        }
        Map<String, List<RowDiff>> updates = new LinkedHashMap<>();
        batch.forEach((table, rows) -> {
            List<RowDiff> diffs = new ArrayList<>();
            rows.forEach((row, n) -> {
                if (n != 0) {
                    diffs.add(new RowDiff(row, n));
                }
            });
            if (!diffs.isEmpty()) {
                updates.put(table, diffs);
            }
        });
        String key = PgSourceDefinition.progressKey(def.name());
        String json = batchProgress.toJson();
        CatalogSwap swap = new CatalogSwap(key, progressJson, Map.of(key, json), List.of());
        CompletableFuture<?> write;
        if (updates.isEmpty()) {
            // only tables put in error: a catalog change, durable when it returns
            storage.changeCatalog(swap);
            write = CompletableFuture.completedFuture(null);
        } else {
            write = storage.writeTables(updates, swap).toFuture();
        }
        inFlight = new Flight(write, batchSeq, batchProgress, confirmAfterFlush, batchReceivedNanos, batchTransactions, batchCommitMicros,
                System.nanoTime());
        progress = batchProgress;
        progressJson = json;
        batch.clear();
        batchProgress = null;
        batchRows = 0;
        batchTransactions = 0;
        batchSeq++;
    }

    /**
     * Completes the write in flight if it is durable, waiting up to {@code waitNanos} for it: its rows are
     * read from the storage from here on, and its position is confirmed upstream. A failed write, or one
     * not durable within {@link #WRITE_TIMEOUT}, is thrown: the source reconnects and rebuilds its rows
     * from what is durable.
     */
    private void land(PGReplicationStream stream, long waitNanos) {
        Flight f = inFlight;
        if (f == null) {
            return;
        }
        try {
            f.write().get(waitNanos, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            if (System.nanoTime() - f.startedNanos() > WRITE_TIMEOUT.toNanos()) {
                throw new IllegalStateException("a replicated batch was not durable within " + WRITE_TIMEOUT, e);
            }
            return;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        }
        inFlight = null;
        durableLsn = f.progress().lsn();
        listener.durable(def.name(), (System.nanoTime() - f.receivedNanos()) / 1000);
        byName.values().forEach(t -> t.durable(f.seq()));
        transactions += f.transactions();
        lagSeconds = Math.max(0, (System.currentTimeMillis() * 1000 - (f.commitMicros() + PG_EPOCH_MICROS)) / 1e6);
        confirm(stream, Math.max(Math.max(f.confirmLsn(), confirmAfterFlight), f.progress().lsn()));
        confirmAfterFlight = 0;
    }

    /** Writes everything committed and waits until it is durable. */
    private void drain(PGReplicationStream stream) {
        land(stream, WRITE_TIMEOUT.toNanos());
        write();
        land(stream, WRITE_TIMEOUT.toNanos());
    }

    /** Waits (bounded) for a write a failed stream left in flight, so a reconnect reads the position it left; its failure is ignored. */
    private void settle() {
        Flight f = inFlight;
        inFlight = null;
        if (f == null) {
            return;
        }
        try {
            f.write().get(WRITE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // not durable: it comes again from the durable position
        }
    }

    /**
     * Adds a committed upstream transaction to the batch (and its rows to the tables' rows here, so the
     * transactions after it see them). One committed before the durable position was applied before a
     * restart: it is skipped, never applied twice.
     */
    private void commit(PgTransaction txn, PgOutput.Commit cm) {
        PgProgress base = batchProgress != null ? batchProgress : progress;
        if (txn.skip || cm.endLsn() <= base.lsn()) {
            return; // applied before a restart: confirmed upstream again, not applied twice
        }
        Map<String, List<RowDiff>> updates = new LinkedHashMap<>();
        txn.net.forEach((t, rows) -> {
            List<RowDiff> diffs = new ArrayList<>();
            rows.forEach((row, n) -> {
                if (n != 0) {
                    diffs.add(new RowDiff(row, n));
                }
            });
            if (!diffs.isEmpty()) {
                updates.put(t.tableId, diffs);
            }
        });
        if (updates.isEmpty() && txn.errors.isEmpty()) {
            return; // nothing of ours: the position moves on with the next write or keepalive
        }
        listener.received(def.name(), Math.max(0, System.currentTimeMillis() * 1000 - (cm.commitMicros() + PG_EPOCH_MICROS)));
        if (batchProgress == null) {
            batchReceivedNanos = System.nanoTime();
        }
        PgProgress next = base.streamedTo(cm.endLsn());
        for (var e : txn.errors.entrySet()) {
            next = next.withTableError(e.getKey(), e.getValue());
        }
        updates.forEach((table, diffs) -> {
            Map<Row, Long> rows = batch.computeIfAbsent(table, x -> new HashMap<>());
            for (RowDiff d : diffs) {
                rows.merge(d.row(), d.diff(), Long::sum);
            }
            batchRows += diffs.size();
        });
        batchProgress = next;
        batchTransactions++;
        batchCommitMicros = cm.commitMicros();
        txn.net.forEach((t, rows) -> rows.forEach((row, n) -> {
            if (n != 0) {
                t.apply(row, n, batchSeq);
            }
        }));
    }

    /** Microseconds from the Unix epoch to PostgreSQL's (2000-01-01). */
    private static final long PG_EPOCH_MICROS = 946_684_800_000_000L;

    /** A failure retrying cannot mend. */
    private static final class Permanent extends RuntimeException {
        Permanent(String message) {
            super(message);
        }
    }

    private static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (SQLException | RuntimeException e) {
            // closing is best effort
        }
    }
}
