package dev.tandem.render;

import dev.tandem.plan.AggregateFunc;
import dev.tandem.plan.DataflowDescription;
import dev.tandem.plan.Plan;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.row.Schema;
import dev.tandem.runtime.SchedulerWorkerPool;
import dev.tandem.sharing.ArrangementSharingRegistry;
import dev.tandem.storage.RowDiff;
import dev.tandem.storage.StorageOptions;
import dev.tandem.storage.TableStorage;
import dev.tandem.storage.TableStorages;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Maintenance throughput of rendered dataflows over in-memory storage without fsync: updates/s for an
 * export over a table arranged on an int64 key, a count-by-key reduce and a two-way join, and the
 * hydration time of an index over a large table; each with every given number of workers. Prints the
 * figures and writes them as JSON. Not a test: it asserts nothing.
 *
 * <p>Maintenance scenarios: the dataflow is hydrated first; then updates are written as fast as storage
 * takes them, in writes of {@value #BATCH} rows (three quarters inserts, one quarter retractions of
 * earlier inserts), and the figure is the updates divided by the time from the first write until the
 * export is sealed past the last one. Storage commits run on the same cores, so the figures include
 * their cost; the time until storage acknowledged the last write is printed alongside.
 *
 * <p>Run from the repository root (arguments, all optional: workers, default {@code 1,2}; updates per
 * maintenance scenario, default 2000000; rows of the hydration table, default 5000000; the JSON output
 * file, default {@code target/bench-results-render.json}; the scenarios to run, default
 * {@code arrange,count-by-key,join,hydration}):
 *
 * <pre>
 * source bin/jdk.sh &amp;&amp; mvn -B -o -q test-compile dependency:build-classpath \
 *     -Dmdep.outputFile=target/test-classpath.txt -Dmdep.includeScope=test \
 *   &amp;&amp; java -Xmx12g -cp target/classes:target/test-classes:$(cat target/test-classpath.txt) \
 *     dev.tandem.render.RenderBenchmark 1,2 2000000 5000000 target/bench-results-render.json
 * </pre>
 */
public final class RenderBenchmark {

    static final int BATCH = 10_000;
    private static final List<DatumType> KV = List.of(DatumType.INT64, DatumType.INT64);

    private RenderBenchmark() {
    }

    /** The figures of one scenario with one number of workers. */
    record Result(String name, int workers, long updates, double seconds, double storageSeconds, long outputs) {
        double updatesPerSecond() {
            return updates / seconds;
        }

        String json() {
            return String.format("{\"name\":\"%s\",\"workers\":%d,\"updates\":%d,\"seconds\":%.3f,\"storageSeconds\":%.3f,"
                            + "\"updatesPerSecond\":%.1f,\"updatesPerSecondPerWorker\":%.1f,\"outputRecords\":%d}",
                    name, workers, updates, seconds, storageSeconds, updatesPerSecond(), updatesPerSecond() / workers, outputs);
        }
    }

    public static void main(String[] args) throws Exception {
        int[] workers = java.util.Arrays.stream((args.length > 0 ? args[0] : "1,2").split(",")).mapToInt(Integer::parseInt).toArray();
        int updates = args.length > 1 ? Integer.parseInt(args[1]) : 2_000_000;
        int hydrationRows = args.length > 2 ? Integer.parseInt(args[2]) : 5_000_000;
        Path out = Path.of(args.length > 3 ? args[3] : "target/bench-results-render.json");
        List<String> only = args.length > 4 ? List.of(args[4].split(",")) : List.of("arrange", "count-by-key", "join", "hydration");

        List<Result> results = new ArrayList<>();
        for (int w : workers) {
            if (only.contains("arrange")) {
                results.add(arrange(w, updates));
            }
            if (only.contains("count-by-key")) {
                results.add(countByKey(w, updates));
            }
            if (only.contains("join")) {
                results.add(join(w, updates));
            }
            if (only.contains("hydration")) {
                results.add(hydration(w, hydrationRows));
            }
            System.gc();
        }

        Map<String, Object> machine = new LinkedHashMap<>();
        machine.put("cores", Runtime.getRuntime().availableProcessors());
        machine.put("jdk", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
        machine.put("os", System.getProperty("os.name") + " " + System.getProperty("os.arch"));
        machine.put("maxHeapMiB", Runtime.getRuntime().maxMemory() >> 20);
        String json = "{\"benchmark\":\"render\",\"storage\":\"in-memory, fsync off\",\"batch\":" + BATCH + ",\"machine\":{"
                + machine.entrySet().stream().map(e -> "\"" + e.getKey() + "\":\"" + e.getValue() + "\"").collect(Collectors.joining(","))
                + "},\"results\":[" + results.stream().map(Result::json).collect(Collectors.joining(",")) + "]}";
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.writeString(out, json + "\n");
        System.out.println("machine: " + machine);
        for (Result r : results) {
            System.out.printf("%-12s W=%d %,11d updates in %7.3f s: %,12.0f updates/s (%,12.0f per worker; storage acked after %.3f s; %,d output records)%n",
                    r.name(), r.workers(), r.updates(), r.seconds(), r.updatesPerSecond(), r.updatesPerSecond() / r.workers(),
                    r.storageSeconds(), r.outputs());
        }
        System.out.println("wrote " + out.toAbsolutePath());
        System.exit(0);
    }

    /** An export over a table of {@code (k, v)}, arranged on {@code k}; keys from a large domain. */
    static Result arrange(int workers, int updates) throws Exception {
        try (Bench b = new Bench(workers)) {
            b.table("t");
            return b.maintain("arrange", Plan.get("t"), List.of(0), List.of(stream("t", updates, 1L << 40, 1)));
        }
    }

    /** {@code SELECT k, count(*) FROM t GROUP BY k} over about 100 k keys (about ten rows per group). */
    static Result countByKey(int workers, int updates) throws Exception {
        try (Bench b = new Bench(workers)) {
            b.table("t");
            Plan plan = new Plan.Reduce(Plan.get("t"), List.of(0), List.of(new Plan.Aggregate(AggregateFunc.COUNT, null)));
            return b.maintain("count-by-key", plan, List.of(0), List.of(stream("t", updates, 100_000, 2)));
        }
    }

    /**
     * {@code a JOIN b ON a.k = b.k}: both tables hold 200 k rows, one per key, at {@code as_of}; then
     * updates alternate between them, on the same key domain (about one match per update).
     */
    static Result join(int workers, int updates) throws Exception {
        try (Bench b = new Bench(workers)) {
            b.table("a");
            b.table("b");
            for (String t : List.of("a", "b")) {
                List<RowDiff> rows = new ArrayList<>();
                for (long k = 0; k < 200_000; k++) {
                    rows.add(RowDiff.insert(Row.of(k, -k)));
                }
                b.storage.write(t, rows).block();
            }
            Plan plan = new Plan.Join(List.of(Plan.get("a"), Plan.get("b")),
                    List.of(List.of(new Plan.JoinColumn(0, 0), new Plan.JoinColumn(1, 0))));
            return b.maintain("join", plan, List.of(0), List.of(stream("a", updates / 2, 200_000, 3), stream("b", updates / 2, 200_000, 4)));
        }
    }

    /** An index on {@code k} created over a table of {@code rows} rows, loaded in writes of 500 k rows. */
    static Result hydration(int workers, int rows) throws Exception {
        try (Bench b = new Bench(workers)) {
            b.table("t");
            SplittableRandom rnd = new SplittableRandom(5);
            for (int done = 0; done < rows; ) {
                int n = Math.min(500_000, rows - done);
                List<RowDiff> batch = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    batch.add(RowDiff.insert(Row.of(rnd.nextLong(1L << 40), (long) (done + i))));
                }
                b.storage.write("t", batch).block();
                done += n;
            }
            System.gc();
            long asOf = b.storage.lastWriteTime();
            long start = System.nanoTime();
            Dataflow df = b.start(Plan.get("t"), List.of(0), asOf);
            while (!df.hydrated()) {
                LockSupport.parkNanos(200_000);
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            long outputs = df.exports().get(0).snapshot().records();
            return new Result("hydration", workers, rows, seconds, 0, outputs);
        }
    }

    /**
     * {@code count} updates of table {@code t} in writes of {@value #BATCH}: keys uniform below
     * {@code keys}; from the third write on, a quarter of each write retracts rows of the write two before.
     */
    static Stream stream(String t, int count, long keys, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        List<List<RowDiff>> writes = new ArrayList<>();
        List<Row> twoBack = List.of();
        List<Row> oneBack = List.of();
        long v = 0;
        for (int done = 0; done < count; ) {
            int n = Math.min(BATCH, count - done);
            List<RowDiff> batch = new ArrayList<>(n);
            List<Row> inserted = new ArrayList<>(n);
            int retract = Math.min(n / 4, twoBack.size());
            for (int i = 0; i < retract; i++) {
                batch.add(new RowDiff(twoBack.get(i), -1));
            }
            for (int i = retract; i < n; i++) {
                Row r = Row.of(rnd.nextLong(keys), v++);
                batch.add(RowDiff.insert(r));
                inserted.add(r);
            }
            writes.add(batch);
            twoBack = oneBack;
            oneBack = inserted;
            done += n;
        }
        return new Stream(t, writes);
    }

    /** The writes of one table, prepared before the clock starts. */
    record Stream(String table, List<List<RowDiff>> writes) {
    }

    /** Fresh in-memory storage (fsync off), a worker pool and a registry. */
    static final class Bench implements AutoCloseable {
        final Scheduler ticks = Schedulers.newSingle("bench-ticks", true);
        final TableStorage storage = TableStorages.inMemory(StorageOptions.defaults(ticks).withFsync(false)
                .withCompactionInterval(Duration.ofHours(1)));
        final SchedulerWorkerPool pool;
        final Map<String, Schema> schemas = new LinkedHashMap<>();
        Dataflow dataflow;

        Bench(int workers) {
            pool = new SchedulerWorkerPool("bench-maintenance", Schedulers.newBoundedElastic(workers, 100_000, "bench-maintenance"), workers,
                    (where, error) -> {
                        error.printStackTrace();
                        System.exit(1);
                    });
        }

        void table(String id) {
            schemas.put(id, Schema.ofTypes(KV));
            storage.createTable(id, schemas.get(id));
        }

        Dataflow start(Plan plan, List<Integer> key, long asOf) {
            Map<String, Schema> sources = new LinkedHashMap<>();
            plan.dependencies().forEach(d -> sources.put(d, schemas.get(d)));
            DataflowDescription desc = new DataflowDescription(sources, Map.of(), List.of(new DataflowDescription.BuildDesc("o1", plan)),
                    List.of(new DataflowDescription.IndexExport("x1", "o1", key)), asOf, null);
            desc.validate();
            dataflow = Dataflow.render("x1", desc, new Dataflow.Env(pool, storage, new ArrangementSharingRegistry(), DataflowListener.NONE,
                    System::currentTimeMillis, Dataflow.StepObserver.NONE));
            dataflow.schedule();
            return dataflow;
        }

        /** Hydrates {@code plan} at the latest write, then times the streams' writes through it. */
        Result maintain(String name, Plan plan, List<Integer> key, List<Stream> streams) {
            long asOf = Math.max(0, storage.lastWriteTime());
            Dataflow df = start(plan, key, asOf);
            while (!df.hydrated()) {
                LockSupport.parkNanos(200_000);
            }
            long updates = 0;
            int most = streams.stream().mapToInt(s -> s.writes().size()).max().orElse(0);
            long start = System.nanoTime();
            Mono<Long> last = Mono.empty();
            for (int i = 0; i < most; i++) {
                for (Stream s : streams) {
                    if (i < s.writes().size()) {
                        last = storage.write(s.table(), s.writes().get(i));
                        updates += s.writes().get(i).size();
                    }
                }
            }
            long lastTime = last.block();
            double storageSeconds = (System.nanoTime() - start) / 1e9;
            while (!df.upper().isPast(lastTime)) {
                LockSupport.parkNanos(200_000);
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            return new Result(name, pool.size(), updates, seconds, storageSeconds, df.exports().get(0).snapshot().records());
        }

        @Override
        public void close() {
            if (dataflow != null) {
                dataflow.drop();
            }
            pool.dispose();
            storage.close();
            ticks.dispose();
        }
    }
}
