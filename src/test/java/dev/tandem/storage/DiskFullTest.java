package dev.tandem.storage;

import static dev.tandem.storage.StorageTesting.KV;
import static dev.tandem.storage.StorageTesting.accumulate;
import static dev.tandem.storage.StorageTesting.kv;
import static dev.tandem.storage.StorageTesting.read;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * The durable storage on a small file system that fills up: failed writes and catalog changes are
 * refused with {@link StorageFullException} and leave nothing behind, a failed compaction keeps the old
 * log, the storage reports itself unavailable, and once space is freed it resumes by itself.
 */
class DiskFullTest {

    @TempDir
    Path dir;

    private static List<RowDiff> rows(long from, int n) {
        List<RowDiff> out = new ArrayList<>();
        for (long k = from; k < from + n; k++) {
            out.add(RowDiff.insert(kv(k, "x".repeat(100))));
        }
        return out;
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void writesFailCleanlyWhileTheDiskIsFullAndResumeOnceSpaceFrees() throws Exception {
        Scheduler timer = Schedulers.newSingle("disk-full-timer");
        try (SmallFileSystem fs = SmallFileSystem.mountOrSkip(dir.resolve("mnt"), "4m")) {
            Path data = fs.root.resolve("data");
            StorageOptions options = StorageOptions.defaults(timer).withTickInterval(Duration.ofMillis(10));
            TableStorage storage = TableStorages.durable(data, options);
            try {
                storage.createTable("u1", KV);
                long t1 = storage.write("u1", rows(0, 100)).block(Duration.ofSeconds(10));
                long logBefore = Files.size(data.resolve(FileJournal.LOG_FILE));
                byte[] imageBefore = Files.readAllBytes(data.resolve(FileJournal.LOG_FILE));
                assertThat(storage.unavailable()).isNull();

                fs.fill();
                assertThatThrownBy(() -> storage.write("u1", rows(1000, 200)).block(Duration.ofSeconds(10)))
                        .isInstanceOf(StorageFullException.class).hasMessageContaining("nothing of this change was kept");
                assertThat(Files.size(data.resolve(FileJournal.LOG_FILE))).as("nothing half-written").isEqualTo(logBefore);
                assertThat(storage.unavailable()).contains("could not be written");
                assertThat(storage.tables()).containsExactly("u1");

                // Compaction's rewrite fails for space too: the old log stays, whole.
                assertThatThrownBy(storage::compact).isInstanceOf(StorageFullException.class).hasMessageContaining("old log is kept");
                assertThat(Files.readAllBytes(data.resolve(FileJournal.LOG_FILE))).isEqualTo(imageBefore);
                assertThat(data.resolve(FileJournal.TMP_FILE)).doesNotExist();

                // Once space frees, the storage probes its way back without any write.
                fs.free();
                await().atMost(Duration.ofSeconds(30)).until(() -> storage.unavailable() == null);
                assertThat(Files.readAllBytes(data.resolve(FileJournal.LOG_FILE))).as("probes never touch the log").isEqualTo(imageBefore);
                assertThat(data.resolve(FileJournal.PROBE_FILE)).doesNotExist();
                storage.createTable("u2", KV);
                long t2 = storage.write("u1", rows(2000, 10)).block(Duration.ofSeconds(10));
                assertThat(accumulate(read(storage, "u1", t2, t2), t2)).hasSize(110);
                assertThat(t2).isGreaterThan(t1);
            } finally {
                storage.close();
            }
            TableStorage reopened = TableStorages.durable(data, options);
            try {
                long last = reopened.lastWriteTime();
                assertThat(reopened.tables()).containsExactly("u1", "u2");
                assertThat(accumulate(read(reopened, "u1", last, last), last)).as("exactly the acknowledged rows").hasSize(110)
                        .doesNotContainKey(kv(1000, "x".repeat(100)));
            } finally {
                reopened.close();
            }
        } finally {
            timer.dispose();
        }
    }
}
