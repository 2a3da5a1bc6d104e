package dev.tandem.storage;

import static dev.tandem.storage.StorageTesting.KV;
import static dev.tandem.storage.StorageTesting.kv;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Mono;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * A write with a {@link CatalogSwap}: its catalog changes are made with its rows, only while the guard
 * holds (checked against changes admitted but not yet applied too), and survive recovery and log
 * compaction. A swap alone ({@link TableStorage#changeCatalog}) behaves the same without rows.
 */
class CatalogSwapTest {

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
        storage.createTable("u1", KV);
    }

    @AfterEach
    void close() {
        storage.close();
        time.dispose();
    }

    private Mono<Long> write(long k, String expected, String next) {
        return storage.write("u1", List.of(RowDiff.insert(kv(k, "x"))), new CatalogSwap("offsets", expected, Map.of("offsets", next, "err/" + k, "e"),
                k > 1 ? List.of("err/" + (k - 1)) : List.of()));
    }

    private long rows() {
        long t = storage.upper("u1").time() - 1;
        return StorageTesting.accumulate(StorageTesting.read(storage, "u1", t, t), t).values().stream().mapToLong(Long::longValue).sum();
    }

    @Test
    void theGuardDecidesAndTheCatalogMovesWithTheRows() {
        write(1, null, "a").block(Duration.ofSeconds(10));
        // Both admitted before either applies: the second is checked against the first's swap.
        Mono<Long> second = write(2, "a", "b");
        Mono<Long> stale = write(3, "a", "c");
        second.block(Duration.ofSeconds(10));
        assertThatThrownBy(() -> stale.block(Duration.ofSeconds(10))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'offsets'");
        assertThatThrownBy(() -> write(4, null, "d").block(Duration.ofSeconds(10))).isInstanceOf(IllegalArgumentException.class);
        assertThat(storage.catalogEntries()).isEqualTo(Map.of("offsets", "b", "err/2", "e"));
        assertThat(rows()).as("refused writes wrote no rows").isEqualTo(2);

        storage.close();
        storage = TableStorages.durable(dir, options);
        assertThat(storage.catalogEntries()).isEqualTo(Map.of("offsets", "b", "err/2", "e"));
        assertThat(rows()).isEqualTo(2);

        storage.compact();
        storage.close();
        storage = TableStorages.durable(dir, options);
        assertThat(storage.catalogEntries()).as("after the log was rewritten").isEqualTo(Map.of("offsets", "b", "err/2", "e"));
        write(3, "b", "c").block(Duration.ofSeconds(10));
        assertThat(rows()).isEqualTo(3);
        storage.putCatalogEntry("offsets", "moved");
        assertThatThrownBy(() -> write(4, "c", "d").block(Duration.ofSeconds(10))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aCatalogChangeAloneHoldsOnlyWhileItsGuardDoes() {
        storage.changeCatalog(new CatalogSwap("version", null, Map.of("version", "1", "table/a", "A"), List.of()));
        assertThatThrownBy(() -> storage.changeCatalog(new CatalogSwap("version", null, Map.of("version", "1", "table/a", "stale"), List.of())))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'version'");
        storage.changeCatalog(new CatalogSwap("version", "1", Map.of("version", "2", "view/b", "B"), List.of("table/a")));
        assertThatThrownBy(() -> storage.changeCatalog(new CatalogSwap("version", "1", Map.of("view/c", "C"), List.of("view/b"))))
                .isInstanceOf(IllegalArgumentException.class);
        Map<String, String> expected = Map.of("version", "2", "view/b", "B");
        assertThat(storage.catalogEntries()).isEqualTo(expected);

        storage.close();
        storage = TableStorages.durable(dir, options);
        assertThat(storage.catalogEntries()).as("after recovery").isEqualTo(expected);
        storage.compact();
        storage.close();
        storage = TableStorages.durable(dir, options);
        assertThat(storage.catalogEntries()).as("after the log was rewritten").isEqualTo(expected);
    }
}
