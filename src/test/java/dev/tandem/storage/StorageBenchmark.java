package dev.tandem.storage;

import dev.tandem.row.Row;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Acknowledged durable updates per second of the durable storage with fsync on: (a) 64 concurrent
 * writers of 1-row writes (group commit), (b) 1000-row writes from 1 and from 8 concurrent writers.
 * Prints the figures and writes them as JSON. Not a test: it asserts nothing.
 *
 * <p>Run from the repository root (arguments, all optional: seconds per scenario, default 10; the JSON
 * output file, default {@code target/bench-results-storage.json}; the data directory, default a fresh
 * directory under {@code target/}):
 *
 * <pre>
 * source bin/jdk.sh &amp;&amp; mvn -B -o -q test-compile dependency:build-classpath \
 *     -Dmdep.outputFile=target/test-classpath.txt -Dmdep.includeScope=test \
 *   &amp;&amp; java -cp target/classes:target/test-classes:$(cat target/test-classpath.txt) \
 *     dev.tandem.storage.StorageBenchmark 10 target/bench-results-storage.json
 * </pre>
 */
public final class StorageBenchmark {

    private StorageBenchmark() {
    }

    /** The result of one scenario. */
    record Result(String name, int writers, int rowsPerWrite, long writes, long updates, double seconds, long fsyncs) {
        double updatesPerSecond() {
            return updates / seconds;
        }

        double writesPerSecond() {
            return writes / seconds;
        }

        String json() {
            return String.format("{\"name\":\"%s\",\"writers\":%d,\"rowsPerWrite\":%d,\"writes\":%d,\"updates\":%d,"
                            + "\"seconds\":%.3f,\"writesPerSecond\":%.1f,\"updatesPerSecond\":%.1f,\"fsyncs\":%d,\"writesPerFsync\":%.2f}",
                    name, writers, rowsPerWrite, writes, updates, seconds, writesPerSecond(), updatesPerSecond(), fsyncs,
                    fsyncs == 0 ? 0.0 : (double) writes / fsyncs);
        }
    }

    public static void main(String[] args) throws Exception {
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        Path out = Path.of(args.length > 1 ? args[1] : "target/bench-results-storage.json");
        Path root = args.length > 2 ? Path.of(args[2]) : Files.createDirectories(Path.of("target")).resolve("bench-storage-data");
        Duration run = Duration.ofSeconds(seconds);
        Duration warmup = Duration.ofSeconds(Math.max(1, seconds / 5));

        List<Result> results = new ArrayList<>();
        results.add(scenario("single-row-64-writers", root.resolve("a"), 64, 1, warmup, run));
        results.add(scenario("batch-1000-1-writer", root.resolve("b1"), 1, 1000, warmup, run));
        results.add(scenario("batch-1000-8-writers", root.resolve("b8"), 8, 1000, warmup, run));

        Map<String, Object> machine = new LinkedHashMap<>();
        machine.put("cores", Runtime.getRuntime().availableProcessors());
        machine.put("jdk", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
        machine.put("os", System.getProperty("os.name") + " " + System.getProperty("os.arch"));
        String json = "{\"benchmark\":\"storage\",\"fsync\":true,\"machine\":{"
                + machine.entrySet().stream().map(e -> "\"" + e.getKey() + "\":\"" + e.getValue() + "\"").collect(Collectors.joining(","))
                + "},\"results\":[" + results.stream().map(Result::json).collect(Collectors.joining(",")) + "]}";
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.writeString(out, json + "\n");
        System.out.println("machine: " + machine + ", fsync on");
        for (Result r : results) {
            System.out.printf("%-24s writers=%-3d rows/write=%-5d %,12.0f writes/s %,12.0f updates/s  (%,d writes, %,d fsyncs, %.1f writes/fsync)%n",
                    r.name(), r.writers(), r.rowsPerWrite(), r.writesPerSecond(), r.updatesPerSecond(), r.writes(), r.fsyncs(),
                    r.fsyncs() == 0 ? 0.0 : (double) r.writes() / r.fsyncs());
        }
        System.out.println("wrote " + out.toAbsolutePath());
        System.exit(0);
    }

    private static Result scenario(String name, Path dir, int writers, int rowsPerWrite, Duration warmup, Duration run) throws Exception {
        delete(dir);
        Scheduler ticks = Schedulers.newSingle("bench-ticks", true);
        StorageOptions options = StorageOptions.defaults(ticks).withCompactionInterval(Duration.ofHours(1));
        try (TableStorage storage = TableStorages.durable(dir, options)) {
            storage.createTable("u1", StorageTesting.KV);
            List<List<RowDiff>> pool = new ArrayList<>();
            long key = 0;
            for (int i = 0; i < 64; i++) {
                List<RowDiff> batch = new ArrayList<>(rowsPerWrite);
                for (int j = 0; j < rowsPerWrite; j++) {
                    Row row = StorageTesting.kv(key++, "value-" + key);
                    batch.add(RowDiff.insert(row));
                }
                pool.add(List.copyOf(batch));
            }
            LongAdder writes = new LongAdder();
            AtomicBoolean stop = new AtomicBoolean();
            CountDownLatch done = new CountDownLatch(writers);
            for (int w = 0; w < writers; w++) {
                int writer = w;
                Thread.ofPlatform().daemon().start(() -> {
                    int i = writer;
                    while (!stop.get()) {
                        storage.write("u1", pool.get(i++ & 63)).block();
                        writes.increment();
                    }
                    done.countDown();
                });
            }
            Thread.sleep(warmup.toMillis());
            long writes0 = writes.sum();
            long syncs0 = storage.stats().syncs();
            long t0 = System.nanoTime();
            Thread.sleep(run.toMillis());
            long writes1 = writes.sum();
            long t1 = System.nanoTime();
            long syncs1 = storage.stats().syncs();
            stop.set(true);
            done.await();
            long n = writes1 - writes0;
            return new Result(name, writers, rowsPerWrite, n, n * rowsPerWrite, (t1 - t0) / 1e9, syncs1 - syncs0);
        } finally {
            ticks.dispose();
            delete(dir);
        }
    }

    private static void delete(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
