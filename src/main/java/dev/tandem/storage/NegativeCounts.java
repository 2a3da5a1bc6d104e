package dev.tandem.storage;

import dev.tandem.row.Row;
import dev.tandem.trace.Cursor;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Finds, after recovery, the rows whose count in the log is negative: data written before deletes were
 * checked against the table's counts (today a write that would make a count negative is refused). Such
 * a row must not make every read of its table fail: it is reported with the table, the row, its count
 * and the log offset of the write that made the count negative. The local log's storage then brings it
 * back to zero with a durable compensating insert ({@code LogTableStorage}), so views over the table
 * read as if the bad deletes had been refused; reads at earlier times, and the Kafka-backed storage
 * (where every replica would compensate), skip the row instead.
 *
 * <p>A count only goes negative at a write that deletes the row, so during replay this notes, per
 * table, the time and log offset of each write that deletes anything; afterwards it scans only the
 * tables that had such a write. Threading: used by recovery alone, before the commit thread starts.
 */
final class NegativeCounts {

    static final String ERROR = "negative multiplicity (written before deletes were checked against the table's counts); reads skip the row";

    /** One row of negative count: its table, the row, the count and the offset of the record that made it negative. */
    record Found(String table, Row row, long multiplicity, long logOffset) {
        StorageError error(String why) {
            return new StorageError(table, row.toString(), multiplicity, logOffset, why);
        }
    }

    private static final System.Logger LOG = System.getLogger(NegativeCounts.class.getName());

    /** Per table with deleting writes: their times and log offsets, in log order. */
    private final Map<String, long[][]> deletingWrites = new HashMap<>();
    private final Map<String, Integer> counts = new HashMap<>();

    /** Notes {@code record}, replayed from {@code offset}. */
    void replayed(LogRecord record, long offset) {
        switch (record) {
            case LogRecord.CreateTable c -> forget(c.id());
            case LogRecord.DropTable d -> forget(d.id());
            case LogRecord.WriteTables w -> w.parts().forEach(part -> replayed(part, offset));
            case LogRecord.Write w -> {
                if (w.updates().stream().anyMatch(u -> u.diff() < 0)) {
                    long[][] at = deletingWrites.computeIfAbsent(w.id(), k -> new long[][] {new long[8], new long[8]});
                    int n = counts.getOrDefault(w.id(), 0);
                    if (n == at[0].length) {
                        at[0] = Arrays.copyOf(at[0], 2 * n);
                        at[1] = Arrays.copyOf(at[1], 2 * n);
                    }
                    at[0][n] = w.time();
                    at[1][n] = offset;
                    counts.put(w.id(), n + 1);
                }
            }
            default -> {
            }
        }
    }

    private void forget(String table) {
        deletingWrites.remove(table);
        counts.remove(table);
    }

    /** The rows of {@code tables} (recovered and flushed) with a negative count, each logged as a warning. */
    List<Found> find(Map<String, StoredTable> tables) {
        List<Found> out = new ArrayList<>();
        for (String id : deletingWrites.keySet().stream().sorted().toList()) {
            StoredTable t = tables.get(id);
            if (t == null) {
                continue;
            }
            Cursor c = t.history().cursor();
            while (c.keyValid()) {
                // a table arranged by a key holds its rows as the values
                Map<Row, List<long[]>> byRow = new TreeMap<>();
                Row key = c.key();
                boolean keyed = t.keyed();
                c.forEachUpdate((val, time, diff) -> byRow.computeIfAbsent(keyed ? val : key, r -> new ArrayList<>()).add(new long[] {time, diff}));
                for (Map.Entry<Row, List<long[]>> r : byRow.entrySet()) {
                    List<long[]> updates = r.getValue();
                    long sum = updates.stream().mapToLong(u -> u[1]).sum();
                    if (sum < 0) {
                        Found e = new Found(id, r.getKey(), sum, offsetWhereNegative(id, updates));
                        LOG.log(System.Logger.Level.WARNING, "table {0}: row {1} has multiplicity {2} in the log (from the record at offset {3})"
                                + " - written before deletes were checked; it is listed in tandem_storage_errors",
                                id, e.row(), Long.toString(sum), Long.toString(e.logOffset()));
                        out.add(e);
                    }
                }
                c.stepKey();
            }
        }
        return List.copyOf(out);
    }

    /** The log offset of the first write after which the row's running count (in time order) is negative. */
    private long offsetWhereNegative(String table, List<long[]> updates) {
        updates.sort((a, b) -> Long.compare(a[0], b[0]));
        long running = 0;
        long time = -1;
        for (int i = 0; i < updates.size(); i++) {
            running += updates.get(i)[1];
            boolean lastAtThisTime = i + 1 == updates.size() || updates.get(i + 1)[0] != updates.get(i)[0];
            if (lastAtThisTime && running < 0) {
                time = updates.get(i)[0];
                break;
            }
        }
        long[][] at = deletingWrites.get(table);
        int n = counts.get(table);
        for (int i = 0; i < n; i++) {
            if (at[0][i] == time) {
                return at[1][i];
            }
        }
        return -1;
    }
}
