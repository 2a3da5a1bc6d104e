package dev.tandem.storage;

import dev.tandem.row.Column;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.row.Schema;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * The child process of {@link CrashRecoveryTest}: opens the durable storage (fsync on), records a
 * catalog entry for its cycle, then writes from several threads until it is killed, printing one line
 * per acknowledged change. Write {@code (cycle, writer, seq)} holds rows {@code (cycle, writer, seq, j)}
 * for {@code j < 1 + seq % 3}; lines end in {@code END} so a line cut by the kill is recognisable.
 */
public final class CrashRecoveryChild {

    static final Schema SCHEMA = new Schema(List.of(
            new Column("cycle", DatumType.INT64, false),
            new Column("writer", DatumType.INT64, false),
            new Column("seq", DatumType.INT64, false),
            new Column("j", DatumType.INT64, false)));
    static final int WRITERS = 4;

    private CrashRecoveryChild() {
    }

    static int rowsOf(long seq) {
        return 1 + (int) (seq % 3);
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        int cycle = Integer.parseInt(args[1]);
        Scheduler ticks = Schedulers.newSingle("ticks", true);
        TableStorage storage = TableStorages.durable(dir, StorageOptions.defaults(ticks));
        if (!storage.tables().contains("u1")) {
            storage.createTable("u1", SCHEMA);
        }
        storage.putCatalogEntry("cycle/" + cycle, "{\"cycle\":" + cycle + "}");
        print("CATALOG " + cycle + " END");
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < WRITERS; w++) {
            int writer = w;
            threads.add(Thread.ofPlatform().start(() -> {
                for (long seq = 0; ; seq++) {
                    List<RowDiff> rows = new ArrayList<>();
                    for (int j = 0; j < rowsOf(seq); j++) {
                        rows.add(RowDiff.insert(Row.of((long) cycle, (long) writer, seq, (long) j)));
                    }
                    long ts = storage.write("u1", rows).block();
                    print("ACK " + ts + " " + cycle + " " + writer + " " + seq + " END");
                    if (writer == 0 && seq % 40 == 39) {
                        storage.compact();
                        print("COMPACTED END");
                    }
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
    }

    private static synchronized void print(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
