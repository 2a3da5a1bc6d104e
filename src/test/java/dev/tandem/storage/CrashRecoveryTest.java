package dev.tandem.storage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.row.Row;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * A child JVM writes with fsync on and is killed with SIGKILL at random points, twelve times over one
 * data directory; after each kill every acknowledged write is present at its acknowledged timestamp,
 * every visible write is complete (no partial write), timestamps keep increasing across restarts, and
 * the catalog keeps every acknowledged entry. The kill is SIGKILL through the child's
 * {@link ProcessHandle} (what {@link Process#destroyForcibly()} sends, minus closing our end of its
 * pipes), so acknowledgements already printed are still read.
 */
class CrashRecoveryTest {

    private static final int CYCLES = 12;

    /** A write of the child, identified by its cycle, writer thread and sequence number. */
    record WriteId(long cycle, long writer, long seq) {
    }

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void everyAcknowledgedWriteSurvivesSigkill() throws Exception {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        Path data = Files.createDirectories(dir.resolve("data"));
        Map<WriteId, Long> acked = new HashMap<>();
        Set<String> ackedCatalog = new HashSet<>();
        long maxAckedBefore = -1;
        for (int cycle = 0; cycle < CYCLES; cycle++) {
            int killAfter = 1 + random.nextInt(cycle % 3 == 0 ? 10 : 250);
            Path stderr = dir.resolve("child-" + cycle + ".err");
            Process child = new ProcessBuilder(ProcessHandle.current().info().command().orElseThrow(),
                    "-XX:TieredStopAtLevel=1", "-Xshare:auto", "-cp", System.getProperty("java.class.path"),
                    CrashRecoveryChild.class.getName(), data.toString(), Integer.toString(cycle))
                    .redirectError(stderr.toFile())
                    .start();
            long maxThisCycle = -1;
            int acks = 0;
            try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = out.readLine()) != null) {
                    if (!line.endsWith(" END")) {
                        continue;
                    }
                    String[] f = line.split(" ");
                    switch (f[0]) {
                        case "CATALOG" -> ackedCatalog.add("cycle/" + f[1]);
                        case "ACK" -> {
                            long ts = Long.parseLong(f[1]);
                            assertThat(ts).as("seed %d: timestamps increase across restarts", seed).isGreaterThan(maxAckedBefore);
                            acked.put(new WriteId(Long.parseLong(f[2]), Long.parseLong(f[3]), Long.parseLong(f[4])), ts);
                            maxThisCycle = Math.max(maxThisCycle, ts);
                            if (++acks == killAfter) {
                                child.toHandle().destroyForcibly();
                            }
                        }
                        default -> { }
                    }
                }
            }
            child.waitFor();
            assertThat(acks).as("seed %d, cycle %d: the child acknowledged writes before it died; stderr: %s",
                    seed, cycle, Files.readString(stderr)).isGreaterThanOrEqualTo(killAfter);
            maxAckedBefore = Math.max(maxAckedBefore, maxThisCycle);
            verify(data, acked, ackedCatalog, maxAckedBefore, seed, cycle);
        }
    }

    private static void verify(Path data, Map<WriteId, Long> acked, Set<String> ackedCatalog, long maxAcked, long seed, int cycle) {
        VirtualTimeScheduler time = VirtualTimeScheduler.create();
        try (TableStorage storage = TableStorages.durable(data, StorageOptions.defaults(time))) {
            String context = "seed " + seed + ", after kill " + cycle;
            assertThat(storage.tables()).as(context).containsExactly("u1");
            assertThat(storage.schema("u1")).isEqualTo(CrashRecoveryChild.SCHEMA);
            assertThat(storage.catalogEntries().keySet()).as(context).containsAll(ackedCatalog);
            long last = storage.lastWriteTime();
            assertThat(last).as(context).isGreaterThanOrEqualTo(maxAcked);
            List<TableEvent> events = StorageTesting.read(storage, "u1", 0, last);
            Map<WriteId, List<TableUpdate>> visible = new HashMap<>();
            for (TableUpdate u : StorageTesting.updatesOf(events)) {
                Row r = u.row();
                visible.computeIfAbsent(new WriteId((Long) r.get(0), (Long) r.get(1), (Long) r.get(2)), k -> new ArrayList<>()).add(u);
            }
            for (Map.Entry<WriteId, List<TableUpdate>> e : visible.entrySet()) {
                List<TableUpdate> rows = e.getValue();
                assertThat(rows).as("%s: write %s is complete, once, at one time", context, e.getKey())
                        .hasSize(CrashRecoveryChild.rowsOf(e.getKey().seq()))
                        .allSatisfy(u -> {
                            assertThat(u.diff()).isEqualTo(1);
                            assertThat(u.time()).isEqualTo(rows.getFirst().time());
                        });
                assertThat(rows.stream().map(u -> (Long) u.row().get(3)).sorted().toList())
                        .isEqualTo(java.util.stream.LongStream.range(0, rows.size()).boxed().toList());
            }
            for (Map.Entry<WriteId, Long> e : acked.entrySet()) {
                assertThat(visible).as("%s: acknowledged write %s", context, e.getKey()).containsKey(e.getKey());
                assertThat(visible.get(e.getKey()).getFirst().time()).as("%s: the timestamp of %s", context, e.getKey()).isEqualTo(e.getValue());
            }
        } finally {
            time.dispose();
        }
    }
}
