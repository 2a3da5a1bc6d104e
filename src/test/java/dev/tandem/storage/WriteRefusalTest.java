package dev.tandem.storage;

import static dev.tandem.storage.StorageTesting.KV;
import static dev.tandem.storage.StorageTesting.kv;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tandem.row.Column;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.row.Schema;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;
import reactor.test.scheduler.VirtualTimeScheduler;

/** Every change storage refuses at admission is a {@link WriteRefusal} whose reason says why, whatever its message. */
class WriteRefusalTest {

    @TempDir
    Path dir;

    private VirtualTimeScheduler time;
    private TableStorage storage;

    @BeforeEach
    void open() {
        time = VirtualTimeScheduler.create();
        storage = TableStorages.durable(dir, StorageOptions.defaults(time));
        storage.createTable("u1", KV);
    }

    @AfterEach
    void close() {
        storage.close();
        time.dispose();
    }

    private static void refused(Executable change, WriteRefusal.Reason reason) {
        assertThatThrownBy(change::execute).isInstanceOfSatisfying(WriteRefusal.class, r -> assertThat(r.reason()).isEqualTo(reason));
    }

    @Test
    void eachRefusalCarriesItsReason() {
        refused(() -> storage.createTable("u1", KV), WriteRefusal.Reason.TABLE_EXISTS);
        refused(() -> storage.createTable("u2", KV, List.of(new UniqueKey("pk", List.of(1), true))), WriteRefusal.Reason.INVALID_KEYS);
        refused(() -> storage.write("nope", List.of(RowDiff.insert(kv(1, "a")))).block(), WriteRefusal.Reason.UNKNOWN_TABLE);
        refused(() -> storage.write("u1", List.of(RowDiff.insert(Row.of(1L)))).block(), WriteRefusal.Reason.SCHEMA_MISMATCH);
        refused(() -> storage.write("u1", List.of(RowDiff.insert(Row.pack(KV.types(), Arrays.asList(null, "a"))))).block(),
                WriteRefusal.Reason.NOT_NULLABLE);
        refused(() -> storage.writeTables(Map.of(), null).block(), WriteRefusal.Reason.NO_TABLES);
        refused(() -> storage.changeCatalog(new CatalogSwap("version", "1", Map.of("version", "2"), List.of())), WriteRefusal.Reason.GUARD_MOVED);
        refused(() -> storage.write("u1", List.of(RowDiff.insert(kv(1, "a"))), new CatalogSwap("version", "1", Map.of("version", "2"), List.of())).block(),
                WriteRefusal.Reason.GUARD_MOVED);
    }

    @Test
    void aNullInANotNullColumnIsRefusedWithTheRowAndColumnNamed() {
        Schema s = new Schema(List.of(new Column("a", DatumType.INT64, false)));
        storage.createTable("u3", s);
        assertThatThrownBy(() -> storage.write("u3", List.of(RowDiff.insert(Row.pack(s.types(), Arrays.asList((Object) null))))).block())
                .isInstanceOf(WriteRefusal.class)
                .hasMessage("write to table 'u3' rejected: row 0, column 'a' (#0) is not nullable but is NULL");
    }
}
