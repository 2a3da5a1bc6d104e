package dev.tandem.source;

import dev.tandem.row.Row;
import dev.tandem.storage.CatalogSwap;
import dev.tandem.storage.RowDiff;
import dev.tandem.storage.TableEvent;
import dev.tandem.storage.TableStorage;
import dev.tandem.storage.TableUpdate;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * One source's ingestion: a thread that reads every partition of the topic (a consumer outside any
 * group, {@code read_committed}) and turns each poll's records into one storage write whose
 * {@link CatalogSwap} records the next offsets, the counters and the batch's refused records with the
 * rows, guarded by the progress it started from.
 *
 * <h2>Exactly once</h2>
 * The storage is the only truth: on start, and after any failure (a broker away, a full disk, a guard
 * that no longer holds because another writer moved the offsets), the ingester reads the recorded
 * progress and the table, seeks every partition to its recorded next offset and goes on from there. A
 * batch is durable with its offsets or not at all, so no record is lost or applied twice.
 *
 * <h2>Keyed envelopes</h2>
 * Upsert and Debezium keep the table at one row per key: the ingester holds key → row as the table has
 * it (read from the table when it resyncs), so an update retracts exactly the row the table holds and a
 * delete of a key it does not hold does nothing.
 *
 * <h2>One ingester among replicas</h2>
 * Before it reads the topic the ingester must hold the source's {@link SourceLease} (always, in a single
 * process; among replicas over a shared log, for the one replica Kafka's group membership picks). The
 * others stand by: they read nothing and show the progress recorded in the catalog, which reaches them
 * through the log with the rows. When the holder dies another one gets the lease, resyncs from the
 * recorded progress and goes on; if the old holder was only paused, its next write is refused by the
 * guard, and it finds out it lost the lease before trying again.
 */
final class SourceIngester {

    private static final System.Logger LOG = System.getLogger(SourceIngester.class.getName());
    private static final Duration POLL = Duration.ofMillis(200);
    private static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration WRITE_TIMEOUT = Duration.ofSeconds(60);
    private static final long END_OFFSETS_EVERY_NANOS = 1_000_000_000L;
    private static final long PARTITIONS_EVERY_NANOS = 5_000_000_000L;
    private static final long RECORDED_EVERY_NANOS = 500_000_000L;
    private static final long RETRY_MILLIS = 1000;
    /** Refused records kept per source (the oldest are removed as new ones come). */
    static final int MAX_ERRORS = 1000;
    private static final int VALUE_EXCERPT = 200;

    static final String DEFINITION_PREFIX = "source/";
    static final String PROGRESS_PREFIX = "source-progress/";
    static final String ERROR_PREFIX = "source-errors/";

    private final SourceDefinition def;
    private final String tableId;
    private final TableStorage storage;
    private final RecordDecoder decoder;
    private final SourceLease lease;
    private final Thread thread;
    private final CountDownLatch stop = new CountDownLatch(1);
    private volatile boolean stopping;
    private volatile KafkaConsumer<byte[], byte[]> consumer;

    // Owned by the ingester thread.
    private String guard;
    private final Map<Row, Row> rowsByKey = new HashMap<>();
    private long lastEndOffsets;
    private long lastPartitions;

    // Read by status(); replaced whole.
    private volatile SourceProgress progress = SourceProgress.START;
    private volatile Map<Integer, Long> endOffsets = Map.of();
    private volatile int partitions;
    private volatile String state = "starting";
    private volatile String detail;
    private volatile boolean ingesting;
    private volatile Recorded recorded;
    /** Records this process decoded (whether or not their batch was then written). */
    private final AtomicLong decoded = new AtomicLong();
    private final ArrayDeque<SourceError> recentErrors = new ArrayDeque<>();

    SourceIngester(SourceDefinition def, String tableId, TableStorage storage, SourceLease lease) {
        this.def = def;
        this.tableId = tableId;
        this.storage = storage;
        this.decoder = new RecordDecoder(def);
        this.lease = lease;
        this.thread = new Thread(this::run, "tandem-source-" + def.name());
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /**
     * Stops ingesting and waits until the thread has finished its last write. The lease stays held (no
     * other replica starts ingesting) until {@link #release()}, so a drop can remove the source's
     * progress before anyone else reads it.
     */
    void stop() {
        stopping = true;
        stop.countDown();
        KafkaConsumer<byte[], byte[]> c = consumer;
        if (c != null) {
            c.wakeup();
        }
        lease.wakeup();
        boolean interrupted = false;
        while (thread.isAlive()) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        state = "stopped";
    }

    /** Gives the lease up (after {@link #stop()}): another replica may ingest the source now. */
    void release() {
        try {
            lease.close();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "source '" + def.name() + "': leaving its group: " + e);
        }
    }

    SourceStatus status() {
        boolean ingests = ingesting;
        SourceProgress p = ingests ? progress : recorded();
        Map<Integer, Long> end = ingests ? endOffsets : Map.of();
        long lag = -1;
        if (!end.isEmpty()) {
            lag = 0;
            for (Map.Entry<Integer, Long> e : end.entrySet()) {
                lag += Math.max(0, e.getValue() - p.offsets().getOrDefault(e.getKey(), 0L));
            }
        }
        return new SourceStatus(def, partitions, p.offsets(), end, lag, p.records(), p.errors(), state, detail, ingests, decoded.get());
    }

    /**
     * On a replica standing by, the progress the ingesting one recorded (it arrives with the rows through
     * the log), read from the catalog at most every {@value #RECORDED_EVERY_NANOS} ns: the meters of a
     * scrape read it several times, and reading it copies the catalog.
     */
    private SourceProgress recorded() {
        Recorded r = recorded;
        long now = System.nanoTime();
        if (r == null || now - r.at() > RECORDED_EVERY_NANOS) {
            r = new Recorded(SourceProgress.fromJson(storage.catalogEntries().get(progressKey(def.name()))), now);
            recorded = r;
        }
        return r.progress();
    }

    private record Recorded(SourceProgress progress, long at) {
    }

    /** The refused records kept for this source (on a replica standing by, as the ingesting one recorded them). */
    List<SourceError> errors() {
        if (!ingesting) {
            return storedErrors(storage.catalogEntries());
        }
        synchronized (recentErrors) {
            return List.copyOf(recentErrors);
        }
    }

    private List<SourceError> storedErrors(Map<String, String> catalog) {
        String errorPrefix = ERROR_PREFIX + def.name() + "/";
        List<SourceError> errors = new ArrayList<>();
        catalog.forEach((k, v) -> {
            if (k.startsWith(errorPrefix)) {
                errors.add(SourceErrors.fromJson(def.name(), v));
            }
        });
        return errors;
    }

    static String progressKey(String name) {
        return PROGRESS_PREFIX + name;
    }

    static String errorKey(String name, long seq) {
        return ERROR_PREFIX + name + "/" + String.format("%020d", seq);
    }

    // ---- the ingester thread ----------------------------------------------------------------------

    private void run() {
        while (!stopping) {
            try {
                if (!lease.holds(POLL)) {
                    standBy();
                    continue;
                }
                ingest();
            } catch (WakeupException e) {
                // stopping
            } catch (RuntimeException e) {
                if (stopping) {
                    return;
                }
                state = "retrying";
                detail = String.valueOf(e.getMessage());
                LOG.log(System.Logger.Level.WARNING, "source '" + def.name() + "': " + e + "; resuming from the recorded offsets");
                try {
                    stop.await(RETRY_MILLIS, TimeUnit.MILLISECONDS);
                } catch (InterruptedException ie) {
                    return;
                }
            }
        }
    }

    private void standBy() {
        if (ingesting) {
            LOG.log(System.Logger.Level.INFO, "source '" + def.name() + "': another replica ingests it now");
        }
        ingesting = false;
        state = "standby";
        detail = "another replica ingests this source, or will once " + lease.describe() + " assigns it";
        endOffsets = Map.of();
    }

    /** Ingests while this replica holds the lease. */
    private void ingest() {
        if (!ingesting && lease != SourceLease.ALWAYS) {
            LOG.log(System.Logger.Level.INFO, "source '" + def.name() + "': this replica ingests it now");
        }
        ingesting = true;
        try (KafkaConsumer<byte[], byte[]> c = newConsumer()) {
            consumer = c;
            if (stopping) {
                return;
            }
            resync(c);
            state = "running";
            detail = null;
            while (!stopping && lease.holds(Duration.ZERO)) {
                step(c);
            }
        } finally {
            consumer = null;
        }
    }

    private KafkaConsumer<byte[], byte[]> newConsumer() {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, def.bootstrapServers());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 2000);
        p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 100);
        p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) CLIENT_TIMEOUT.toMillis());
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, "tandem-source-" + def.name());
        return new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /** Reloads the recorded progress, the refused records and the table's rows, and seeks every partition to its recorded offset. */
    private void resync(KafkaConsumer<byte[], byte[]> c) {
        Map<String, String> catalog = storage.catalogEntries();
        if (!catalog.containsKey(DEFINITION_PREFIX + def.name())) {
            throw new IllegalStateException("the source was dropped through another replica");
        }
        guard = catalog.get(progressKey(def.name()));
        SourceProgress p = SourceProgress.fromJson(guard);
        List<SourceError> errors = storedErrors(catalog);
        synchronized (recentErrors) {
            recentErrors.clear();
            recentErrors.addAll(errors);
        }
        rowsByKey.clear();
        if (def.envelope().keyed()) {
            // Read after the progress: the table holds at least what that progress wrote (if more, the
            // next write's guard fails and this runs again).
            int[] key = def.keyColumns();
            tableRows().forEach((row, n) -> rowsByKey.put(row.project(key), row));
        }
        progress = p;
        lastPartitions = 0;
        assignPartitions(c, true);
    }

    /** The table's rows now, with their multiplicities. */
    private Map<Row, Long> tableRows() {
        long upper = storage.upper(tableId).time();
        long asOf = Math.max(storage.since(tableId).time(), upper - 1);
        Map<Row, Long> counts = new HashMap<>();
        storage.subscribe(tableId, asOf).takeUntil(e -> e instanceof TableEvent.Progress).doOnNext(e -> {
            if (e instanceof TableEvent.Updates u) {
                for (TableUpdate x : u.updates()) {
                    counts.merge(x.row(), x.diff(), Long::sum);
                }
            }
        }).blockLast(WRITE_TIMEOUT);
        counts.values().removeIf(n -> n == 0);
        return counts;
    }

    /** Assigns every partition of the topic, seeking those new to this consumer to their recorded offsets. */
    private void assignPartitions(KafkaConsumer<byte[], byte[]> c, boolean seekAll) {
        List<PartitionInfo> infos = c.partitionsFor(def.topic(), CLIENT_TIMEOUT);
        lastPartitions = System.nanoTime();
        List<TopicPartition> all = new ArrayList<>();
        if (infos != null) {
            for (PartitionInfo i : infos) {
                all.add(new TopicPartition(i.topic(), i.partition()));
            }
        }
        if (all.isEmpty()) {
            detail = "topic '" + def.topic() + "' has no partitions yet (does it exist?)";
        }
        List<TopicPartition> fresh = new ArrayList<>(all);
        if (!seekAll) {
            fresh.removeAll(c.assignment());
            if (fresh.isEmpty()) {
                return;
            }
        }
        c.assign(all);
        partitions = all.size();
        for (TopicPartition tp : fresh) {
            Long next = progress.offsets().get(tp.partition());
            if (next != null) {
                c.seek(tp, next);
            } else {
                c.seekToBeginning(List.of(tp));
            }
        }
    }

    private void step(KafkaConsumer<byte[], byte[]> c) {
        long now = System.nanoTime();
        if (now - lastPartitions > PARTITIONS_EVERY_NANOS) {
            assignPartitions(c, false);
        }
        if (c.assignment().isEmpty()) {
            try {
                stop.await(POLL.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new WakeupException();
            }
            return;
        }
        ConsumerRecords<byte[], byte[]> records = c.poll(POLL);
        if (!records.isEmpty()) {
            ingest(records);
        }
        if (System.nanoTime() - lastEndOffsets > END_OFFSETS_EVERY_NANOS) {
            Map<Integer, Long> end = new TreeMap<>();
            c.endOffsets(c.assignment(), CLIENT_TIMEOUT).forEach((tp, off) -> end.put(tp.partition(), off));
            endOffsets = end;
            lastEndOffsets = System.nanoTime();
        }
    }

    /** Writes one poll's records, with the progress after them, in one guarded storage write. */
    private void ingest(ConsumerRecords<byte[], byte[]> records) {
        SourceProgress before = progress;
        Map<Integer, Long> offsets = new TreeMap<>(before.offsets());
        long ok = before.records();
        long bad = before.errors();
        Map<Row, Long> net = new LinkedHashMap<>();
        Map<Row, Row> changed = new HashMap<>();
        Map<String, String> puts = new HashMap<>();
        List<String> removes = new ArrayList<>();
        List<SourceError> refused = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> r : records) {
            offsets.put(r.partition(), r.offset() + 1);
            RecordDecoder.Change change;
            decoded.incrementAndGet();
            try {
                change = decoder.decode(r.key(), r.value());
            } catch (RuntimeException e) {
                SourceError error = new SourceError(def.name(), r.partition(), r.offset(), String.valueOf(e.getMessage()), excerpt(r.value()));
                refused.add(error);
                puts.put(errorKey(def.name(), bad), SourceErrors.toJson(error));
                if (bad >= MAX_ERRORS) {
                    removes.add(errorKey(def.name(), bad - MAX_ERRORS));
                }
                bad++;
                continue;
            }
            apply(change, net, changed);
            ok++;
        }
        SourceProgress after = new SourceProgress(offsets, ok, bad);
        String next = after.toJson();
        puts.put(progressKey(def.name()), next);
        List<RowDiff> diffs = new ArrayList<>();
        net.forEach((row, n) -> {
            if (n != 0) {
                diffs.add(new RowDiff(row, n));
            }
        });
        storage.write(tableId, diffs, new CatalogSwap(progressKey(def.name()), guard, puts, removes)).block(WRITE_TIMEOUT);
        guard = next;
        progress = after;
        changed.forEach((key, row) -> {
            if (row == NONE) {
                rowsByKey.remove(key);
            } else {
                rowsByKey.put(key, row);
            }
        });
        if (!refused.isEmpty()) {
            synchronized (recentErrors) {
                recentErrors.addAll(refused);
                while (recentErrors.size() > MAX_ERRORS) {
                    recentErrors.removeFirst();
                }
            }
        }
    }

    /** Marks a key removed within a batch. */
    private static final Row NONE = Row.EMPTY;

    private void apply(RecordDecoder.Change change, Map<Row, Long> net, Map<Row, Row> changed) {
        switch (change) {
            case RecordDecoder.Insert i -> net.merge(i.row(), 1L, Long::sum);
            case RecordDecoder.Upsert u -> {
                Row current = changed.containsKey(u.key()) ? changed.get(u.key()) : rowsByKey.get(u.key());
                if (current == NONE) {
                    current = null;
                }
                if (current != null) {
                    net.merge(current, -1L, Long::sum);
                }
                if (u.row() != null) {
                    net.merge(u.row(), 1L, Long::sum);
                }
                changed.put(u.key(), u.row() == null ? NONE : u.row());
            }
            case RecordDecoder.Rekey k -> {
                apply(k.removeOld(), net, changed);
                apply(k.setNew(), net, changed);
            }
            case RecordDecoder.Skip s -> {
            }
        }
    }

    private static String excerpt(byte[] value) {
        if (value == null) {
            return null;
        }
        String s = new String(value, 0, Math.min(value.length, VALUE_EXCERPT * 4), StandardCharsets.UTF_8);
        return s.length() > VALUE_EXCERPT ? s.substring(0, VALUE_EXCERPT) : s;
    }
}
