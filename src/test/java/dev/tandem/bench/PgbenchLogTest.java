package dev.tandem.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link Pgbench#readLog}: pgbench's per-transaction log into a window's latencies, with the slots never started. */
class PgbenchLogTest {

    /** A second, in microseconds since the epoch, as pgbench's {@code time_epoch time_us} pair counts. */
    private static final long T0 = 1_796_297_874_000_000L;

    /** A log line of a transaction scheduled at {@code scheduled} that took {@code micros} from then (lag included). */
    private static String line(int client, int n, long scheduled, long micros, long lag) {
        long end = scheduled + micros;
        return client + " " + n + " " + micros + " 0 " + end / 1_000_000 + " " + end % 1_000_000 + " " + lag;
    }

    @Test
    void theWarmUpIsCutByScheduledStartAndLatencyRunsFromTheSchedule(@TempDir Path dir) throws Exception {
        List<String> lines = new ArrayList<>();
        // one thread at 100/s for 4 s: a slot every 10 ms; the first second is the warm-up
        for (int i = 0; i < 400; i++) {
            long scheduled = T0 + i * 10_000L;
            // scheduled in the warm-up but ending in the window: not counted
            long micros = i == 95 ? 200_000 : 1_000;
            lines.add(line(i % 4, i, scheduled, micros, 0));
        }
        // a transaction late by 50 ms (its lag) counts 51 ms, not the 1 ms it ran
        lines.set(200, line(0, 200, T0 + 2_000_000, 51_000, 50_000));
        Files.write(dir.resolve("run-1.4242"), lines);

        LatencySummary s = Pgbench.readLog(dir.resolve("run-1"), T0 + 1_000_000, 3, 100.0, 1, 4);

        assertThat(s.count()).isEqualTo(300);
        assertThat(s.incomplete()).isZero();
        assertThat(s.maxMs()).isEqualTo(51.0, org.assertj.core.api.Assertions.within(0.1));
        assertThat(s.p50Ms()).isEqualTo(1.0, org.assertj.core.api.Assertions.within(0.01));
        assertThat(Files.list(dir)).as("the log files are deleted once read").isEmpty();
    }

    @Test
    void slotsABackloggedSystemNeverStartedAreIncompleteAtTheirAge(@TempDir Path dir) throws Exception {
        // two threads at 50/s each (-R 100 -j 2) for 4 s; thread 1 kept up, thread 2 fell behind, each
        // transaction starting 20 ms later than the one before: its last, due at 1.98 s, started at 3.96 s,
        // when the 99 slots due since had not started (nor ever did), aged up to about 2 s at its end
        List<String> keptUp = new ArrayList<>();
        List<String> behind = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            long scheduled = T0 + i * 20_000L;
            keptUp.add(line(0, i, scheduled, 1_000, 0));
            if (i < 100) {
                behind.add(line(1, i, scheduled, 1_000 + i * 20_000L, i * 20_000L));
            }
        }
        Files.write(dir.resolve("run-2.77"), keptUp);
        Files.write(dir.resolve("run-2.77.1"), behind);
        Files.writeString(dir.resolve("run-2.out"), "tps = 1.0 (without initial connection time)\n");

        LatencySummary s = Pgbench.readLog(dir.resolve("run-2"), T0, 4, 100.0, 2, 4);

        assertThat(s.incomplete()).isBetween(98L, 99L);
        assertThat(s.count()).isEqualTo(200 + 100 + s.incomplete());
        assertThat(s.maxMs()).as("the last started waited 1.98 s; the oldest slot never started is as old at the end").isBetween(1_950.0, 2_010.0);
        assertThat(Files.exists(dir.resolve("run-2.out"))).as("pgbench's output is not a log file").isTrue();
    }

    @Test
    void aClosedLoopHasNoSchedule(@TempDir Path dir) throws Exception {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            String[] f = line(0, i, T0 + i * 10_000L, 2_000, 0).split(" ");
            lines.add(String.join(" ", List.of(f).subList(0, 6)));
        }
        lines.add("0 50 failed 0 " + (T0 + 600_000) / 1_000_000 + " " + (T0 + 600_000) % 1_000_000);
        Files.write(dir.resolve("run-3.9"), lines);

        LatencySummary s = Pgbench.readLog(dir.resolve("run-3"), T0, 4, null, 2, 4);

        assertThat(s.count()).isEqualTo(50);
        assertThat(s.incomplete()).isZero();
        assertThat(s.errors()).isEqualTo(1);
    }
}
