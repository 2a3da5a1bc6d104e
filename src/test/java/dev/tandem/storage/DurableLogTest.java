package dev.tandem.storage;

import static dev.tandem.storage.StorageTesting.KV;
import static dev.tandem.storage.StorageTesting.accumulate;
import static dev.tandem.storage.StorageTesting.kv;
import static dev.tandem.storage.StorageTesting.read;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tandem.row.Row;
import dev.tandem.time.Frontier;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.scheduler.VirtualTimeScheduler;

/** The durable log: recovery, torn and corrupt tails, log compaction, group commit, the directory lock. */
class DurableLogTest {

    @TempDir
    Path dir;

    private final AtomicLong clock = new AtomicLong(10_000);
    private VirtualTimeScheduler time;
    private StorageOptions options;
    private TableStorage storage;

    @BeforeEach
    void open() {
        time = VirtualTimeScheduler.create();
        options = StorageOptions.defaults(time).withClock(clock::get);
        storage = TableStorages.durable(dir, options);
    }

    @AfterEach
    void close() {
        storage.close();
        time.dispose();
    }

    private void reopen() {
        storage.close();
        storage = TableStorages.durable(dir, options);
    }

    private long insert(long k) {
        return storage.write("u1", List.of(RowDiff.insert(kv(k, "x")))).block(Duration.ofSeconds(10));
    }

    private Map<Row, Long> contents(long at) {
        return accumulate(read(storage, "u1", at, at), at);
    }

    private Path log() {
        return dir.resolve(FileJournal.LOG_FILE);
    }

    @Test
    void recoversTablesWritesCatalogAndTheClock() {
        storage.createTable("u1", KV);
        storage.createTable("u2", KV);
        storage.putCatalogEntry("table/u1", "{\"name\":\"t1\"}");
        storage.putCatalogEntry("table/u2", "{\"name\":\"t2\"}");
        long t1 = insert(1);
        long t2 = storage.write("u1", List.of(RowDiff.delete(kv(1, "x")), new RowDiff(kv(2, "y"), 3))).block();
        storage.dropTable("u2");
        storage.removeCatalogEntry("table/u2");
        reopen();
        assertThat(storage.tables()).containsExactly("u1");
        assertThat(storage.schema("u1")).isEqualTo(KV);
        assertThat(storage.catalogEntries()).containsExactly(Map.entry("table/u1", "{\"name\":\"t1\"}"));
        assertThat(storage.lastWriteTime()).isEqualTo(t2);
        assertThat(storage.upper("u1")).isEqualTo(Frontier.at(t2 + 1));
        assertThat(contents(t1)).containsExactly(Map.entry(kv(1, "x"), 1L));
        assertThat(contents(t2)).containsExactly(Map.entry(kv(2, "y"), 3L));
        clock.set(0);
        assertThat(insert(3)).as("timestamps stay monotone across a restart with a clock that went back").isEqualTo(t2 + 1);
    }

    @Test
    void cutsATornTailExactlyAtTheTornRecord() throws IOException {
        storage.createTable("u1", KV);
        long t1 = insert(1);
        long t2 = insert(2);
        long intact = Files.size(log());
        insert(3);
        long full = Files.size(log());
        storage.close();
        try (FileChannel ch = FileChannel.open(log(), StandardOpenOption.WRITE)) {
            ch.truncate(full - 3);
        }
        storage = TableStorages.durable(dir, options);
        assertThat(Files.size(log())).as("the torn record is cut, nothing before it").isEqualTo(intact);
        assertThat(storage.lastWriteTime()).isEqualTo(t2);
        assertThat(contents(t2)).containsOnlyKeys(kv(1, "x"), kv(2, "x"));
        long t4 = insert(4);
        reopen();
        assertThat(contents(t4)).containsOnlyKeys(kv(1, "x"), kv(2, "x"), kv(4, "x"));
        assertThat(t1).isLessThan(t2);
    }

    @Test
    void cutsACorruptRecordExactlyAndKeepsEarlierOnes() throws IOException {
        storage.createTable("u1", KV);
        insert(1);
        long t2 = insert(2);
        long intact = Files.size(log());
        insert(3);
        long full = Files.size(log());
        storage.close();
        try (RandomAccessFile f = new RandomAccessFile(log().toFile(), "rw")) {
            long at = intact + LogCodec.FRAME_HEADER + (full - intact - LogCodec.FRAME_HEADER) / 2;
            f.seek(at);
            int b = f.read();
            f.seek(at);
            f.write(b ^ 0x5a);
        }
        assertThat(Files.size(log())).isEqualTo(full);
        storage = TableStorages.durable(dir, options);
        assertThat(Files.size(log())).isEqualTo(intact);
        assertThat(storage.lastWriteTime()).isEqualTo(t2);
        assertThat(contents(t2)).containsOnlyKeys(kv(1, "x"), kv(2, "x"));
    }

    @Test
    void refusesALogDamagedInTheMiddleThenRepairsItKeepingABackup() throws IOException {
        storage.createTable("u1", KV);
        long t1 = insert(1);
        long intact = Files.size(log());
        insert(2);
        long damagedEnd = Files.size(log());
        insert(3);
        insert(4);
        long full = Files.size(log());
        storage.close();
        flipByte(intact + LogCodec.FRAME_HEADER + (damagedEnd - intact - LogCodec.FRAME_HEADER) / 2);
        byte[] original = Files.readAllBytes(log());

        assertThatThrownBy(() -> TableStorages.durable(dir, options))
                .isInstanceOf(StorageException.class)
                .hasMessageContaining("damaged at offset " + intact)
                .hasMessageContaining("2 intact records follow from offset " + damagedEnd)
                .hasMessageContaining("--tandem.storage.repair=truncate");
        assertThat(Files.readAllBytes(log())).as("a refused log is left untouched").isEqualTo(original);

        storage = TableStorages.durable(dir, options, true);
        assertThat(Files.size(log())).isEqualTo(intact);
        assertThat(storage.lastWriteTime()).isEqualTo(t1);
        assertThat(contents(t1)).containsOnlyKeys(kv(1, "x"));
        try (var backups = Files.list(dir)) {
            List<Path> kept = backups.filter(p -> p.getFileName().toString().startsWith(FileJournal.LOG_FILE + ".damaged-")).toList();
            assertThat(kept).hasSize(1);
            assertThat(Files.readAllBytes(kept.get(0))).as("the backup is the original file").isEqualTo(original).hasSize((int) full);
        }
    }

    private void flipByte(long at) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(log().toFile(), "rw")) {
            f.seek(at);
            int b = f.read();
            f.seek(at);
            f.write(b ^ 0x5a);
        }
    }

    @Test
    void cutsARecordWhoseLengthRunsPastTheEndOfTheFile() throws IOException {
        storage.createTable("u1", KV);
        long t1 = insert(1);
        long intact = Files.size(log());
        insert(2);
        storage.close();
        try (RandomAccessFile f = new RandomAccessFile(log().toFile(), "rw")) {
            f.seek(intact);
            f.writeInt(1 << 20);
        }
        storage = TableStorages.durable(dir, options);
        assertThat(Files.size(log())).isEqualTo(intact);
        assertThat(storage.lastWriteTime()).isEqualTo(t1);
    }

    @Test
    void compactionShrinksTheLogUnderChurnAndKeepsResults() {
        storage.createTable("u1", KV);
        storage.putCatalogEntry("table/u1", "{}");
        List<RowDiff> rows = new ArrayList<>();
        for (int k = 0; k < 10; k++) {
            rows.add(RowDiff.insert(kv(k, "x")));
        }
        List<RowDiff> deletes = rows.stream().map(r -> RowDiff.delete(r.row())).toList();
        long last = 0;
        for (int i = 0; i < 200; i++) {
            storage.write("u1", rows).block();
            last = storage.write("u1", deletes).block();
        }
        long keep = storage.write("u1", rows.subList(0, 3)).block();
        long latest = insert(99);
        Map<Row, Long> atKeep = contents(keep);
        Map<Row, Long> atLatest = contents(latest);
        long before = storage.stats().logBytes();

        storage.allowCompaction("u1", Frontier.at(keep));
        storage.compact();
        long after = storage.stats().logBytes();
        assertThat(after).as("log bytes after compaction").isLessThan(before / 20);
        assertThat(storage.stats().compactions()).isEqualTo(1);
        assertThat(contents(keep)).isEqualTo(atKeep);
        assertThat(contents(latest)).isEqualTo(atLatest);
        assertThat(atKeep).hasSize(3);

        long t = insert(100);
        reopen();
        assertThat(storage.since("u1")).isEqualTo(Frontier.at(keep));
        assertThat(storage.catalogEntries()).containsOnlyKeys("table/u1");
        assertThat(contents(keep)).isEqualTo(atKeep);
        assertThat(contents(latest)).isEqualTo(atLatest);
        assertThat(contents(t)).hasSize(5);
        assertThat(insert(101)).isGreaterThan(t);
        assertThat(last).isLessThan(keep);
    }

    @Test
    void compactsPeriodicallyOnceHistoryHasGrown() {
        storage.close();
        storage = TableStorages.durable(dir, options.withFsync(false).withCompactionInterval(Duration.ofSeconds(5)));
        storage.createTable("u1", KV);
        List<RowDiff> inserts = new ArrayList<>();
        for (int k = 0; k < 60_000; k++) {
            inserts.add(RowDiff.insert(kv(k, "x")));
        }
        storage.write("u1", inserts).block();
        long t = storage.write("u1", inserts.stream().map(r -> RowDiff.delete(r.row())).toList()).block();
        storage.allowCompaction("u1", Frontier.at(t));
        long before = storage.stats().logBytes();
        time.advanceTimeBy(Duration.ofSeconds(5));
        await().atMost(Duration.ofSeconds(20)).until(() -> storage.stats().compactions() == 1);
        assertThat(storage.stats().logBytes()).isLessThan(before / 100);
        assertThat(contents(t)).isEmpty();
    }

    /**
     * Group commit, deterministically: while one commit is held inside its fsync, writes queue up; when
     * it is released they are all stamped, appended and forced together by exactly one more fsync.
     */
    @Test
    void writesQueuedBehindACommitShareOneFsync() throws InterruptedException {
        storage.close();
        GatedJournal journal = new GatedJournal(FileJournal.open(dir, true));
        storage = new LogTableStorage(journal, options);
        storage.createTable("u1", KV);
        StorageStats before = storage.stats();
        int queued = 32;
        journal.holdNextSync();
        Mono<Long> first = storage.write("u1", List.of(RowDiff.insert(kv(0, "x")))).cache();
        first.subscribe();
        assertThat(journal.syncing.await(20, TimeUnit.SECONDS)).as("the first commit reached its fsync").isTrue();
        List<Mono<Long>> rest = new ArrayList<>();
        for (int w = 1; w <= queued; w++) {
            rest.add(storage.write("u1", List.of(RowDiff.insert(kv(w, "x")))).cache());
        }
        rest.forEach(Mono::subscribe);
        journal.release.countDown();
        long t0 = first.block(Duration.ofSeconds(20));
        List<Long> times = new ArrayList<>();
        for (Mono<Long> m : rest) {
            times.add(m.block(Duration.ofSeconds(20)));
        }
        StorageStats stats = storage.stats();
        assertThat(stats.records() - before.records()).isEqualTo(queued + 1);
        assertThat(stats.syncs() - before.syncs()).as("one fsync for the held commit, one for everything queued behind it").isEqualTo(2);
        assertThat(stats.commits() - before.commits()).as("one fsync per group commit").isEqualTo(2);
        assertThat(times).doesNotHaveDuplicates().allMatch(t -> t > t0);
        assertThat(times).as("queued writes are stamped in arrival order").isSorted();
        assertThat(contents(storage.lastWriteTime())).hasSize(queued + 1);
    }


    /** Reopens the storage over a journal whose next fsync waits, so a write's caller subscribes before it is acknowledged. */
    private GatedJournal gatedStorage() {
        storage.close();
        GatedJournal journal = new GatedJournal(FileJournal.open(dir, true));
        storage = new LogTableStorage(journal, options);
        storage.createTable("u1", KV);
        journal.holdNextSync();
        return journal;
    }

    @Test
    void aCallerStillBusyWithItsAcknowledgementDoesNotHoldUpLaterCommits() throws InterruptedException {
        GatedJournal journal = gatedStorage();
        CountDownLatch inCallback = new CountDownLatch(1);
        CountDownLatch releaseCallback = new CountDownLatch(1);
        List<String> completedOn = new ArrayList<>();
        storage.write("u1", List.of(RowDiff.insert(kv(1, "x")))).subscribe(t -> {
            completedOn.add(Thread.currentThread().getName());
            inCallback.countDown();
            try {
                releaseCallback.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertThat(journal.syncing.await(20, TimeUnit.SECONDS)).as("the first commit reached its fsync").isTrue();
        journal.release.countDown();
        try {
            assertThat(inCallback.await(20, TimeUnit.SECONDS)).as("the first write was acknowledged").isTrue();
            long before = storage.lastWriteTime();
            storage.write("u1", List.of(RowDiff.insert(kv(2, "x")))).subscribe();
            // committed and applied while the first caller still holds its acknowledgement's thread
            await().atMost(Duration.ofSeconds(20)).until(() -> storage.lastWriteTime() > before);
            assertThat(contents(storage.lastWriteTime())).hasSize(2);
            assertThat(completedOn).containsExactly("tandem-storage-acks");
        } finally {
            releaseCallback.countDown();
        }
    }

    @Test
    void aBlockingStorageCallFromAnAcknowledgementFailsInsteadOfDeadlocking() throws InterruptedException {
        GatedJournal journal = gatedStorage();
        Mono<Void> createInCallback = storage.write("u1", List.of(RowDiff.insert(kv(1, "x"))))
                .doOnNext(t -> storage.createTable("u2", KV)).then().cache();
        createInCallback.subscribe(x -> { }, e -> { });
        assertThat(journal.syncing.await(20, TimeUnit.SECONDS)).as("the commit reached its fsync").isTrue();
        journal.release.countDown();
        assertThatThrownBy(() -> createInCallback.block(Duration.ofSeconds(20)))
                .hasMessageContaining("tandem-storage-acks thread would deadlock");
    }
    /** A journal whose next fsync, once armed, waits for the test to release it. */
    private static final class GatedJournal implements Journal {
        private final Journal inner;
        private volatile boolean armed;
        final CountDownLatch syncing = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        GatedJournal(Journal inner) {
            this.inner = inner;
        }

        void holdNextSync() {
            armed = true;
        }

        @Override
        public void recover(java.util.function.Consumer<LogRecord> replay) {
            inner.recover(replay);
        }

        @Override
        public boolean appendAndSync(byte[] frames, int length) throws IOException {
            if (armed) {
                armed = false;
                syncing.countDown();
                try {
                    if (!release.await(30, TimeUnit.SECONDS)) {
                        throw new IOException("the test never released the held fsync");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException(e);
                }
            }
            return inner.appendAndSync(frames, length);
        }

        @Override
        public void probe() throws IOException {
            inner.probe();
        }

        @Override
        public void rewrite(List<LogRecord> image) throws IOException {
            inner.rewrite(image);
        }

        @Override
        public long size() {
            return inner.size();
        }

        @Override
        public void close() {
            inner.close();
        }
    }

    @Test
    void aSecondOpenerOfTheDirectoryIsRefused() {
        assertThatThrownBy(() -> TableStorages.durable(dir, options))
                .isInstanceOf(StorageException.class)
                .hasMessageContaining("is in use by another process");
    }

    @Test
    void aFileThatIsNotALogIsRefused() throws IOException {
        storage.close();
        Files.writeString(log(), "definitely not a log");
        assertThatThrownBy(() -> TableStorages.durable(dir, options))
                .isInstanceOf(StorageException.class)
                .hasMessageContaining("is not a Tandem log");
        Files.delete(log());
        storage = TableStorages.durable(dir, options);
    }
}
