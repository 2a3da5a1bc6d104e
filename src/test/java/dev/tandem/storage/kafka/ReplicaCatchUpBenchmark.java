package dev.tandem.storage.kafka;

import dev.tandem.row.Column;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.row.Schema;
import dev.tandem.storage.RowDiff;
import dev.tandem.storage.StorageOptions;
import dev.tandem.storage.TableStorage;
import dev.tandem.storage.TableStorages;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Write throughput of the Kafka storage backend and the catch-up time of a replica that starts after
 * the writes: one replica writes {@code rows} rows in writes of {@code rowsPerWrite} rows (8 writes in
 * flight) over an embedded KRaft broker in this JVM, then a second replica opens and applies the whole
 * log (the storage's catch-up, before any index hydrates). Prints the figures and writes them as JSON.
 * Not a test: it asserts nothing.
 *
 * <p>Run from the repository root (arguments, all optional: rows, default 1000000; rows per write,
 * default 1000; the JSON output file, default {@code target/bench-results-catchup.json}):
 *
 * <pre>
 * source bin/jdk.sh &amp;&amp; mvn -B -o -q test-compile dependency:build-classpath \
 *     -Dmdep.outputFile=target/test-classpath.txt -Dmdep.includeScope=test \
 *   &amp;&amp; java -Xmx2g -cp target/classes:target/test-classes:$(cat target/test-classpath.txt) \
 *     dev.tandem.storage.kafka.ReplicaCatchUpBenchmark 1000000 1000 target/bench-results-catchup.json
 * </pre>
 */
public final class ReplicaCatchUpBenchmark {

    private ReplicaCatchUpBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int rows = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        int perWrite = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
        Path out = Path.of(args.length > 2 ? args[2] : "target/bench-results-catchup.json");
        KafkaTesting.quietLogs();
        Schema schema = new Schema(List.of(new Column("k", DatumType.INT64, false), new Column("v", DatumType.INT64, true)));
        EmbeddedKafkaKraftBroker broker = new EmbeddedKafkaKraftBroker(1, 1);
        broker.afterPropertiesSet();
        Scheduler timer = Schedulers.newParallel("bench-timer", 1);
        try {
            StorageOptions options = StorageOptions.defaults(timer).withFsync(false);
            String servers = broker.getBrokersAsString();
            double writeSeconds;
            long lastTime;
            try (TableStorage writer = TableStorages.replicated(KafkaSharedLog.open(servers, "bench-log", (short) 1, Duration.ofSeconds(60)), options)) {
                writer.createTable("t", schema);
                int writes = (rows + perWrite - 1) / perWrite;
                long start = System.nanoTime();
                Flux.range(0, writes).flatMap(w -> {
                    List<RowDiff> batch = new ArrayList<>(perWrite);
                    for (int i = w * perWrite; i < Math.min(rows, (w + 1) * perWrite); i++) {
                        batch.add(RowDiff.insert(Row.of((long) i, (long) i * 7)));
                    }
                    return writer.write("t", batch);
                }, 8).blockLast(Duration.ofMinutes(30));
                writeSeconds = (System.nanoTime() - start) / 1e9;
                lastTime = writer.lastWriteTime();
            }
            long start = System.nanoTime();
            double catchUpSeconds;
            try (TableStorage late = TableStorages.replicated(KafkaSharedLog.open(servers, "bench-log", (short) 1, Duration.ofSeconds(60)), options)) {
                catchUpSeconds = (System.nanoTime() - start) / 1e9;
                if (late.lastWriteTime() != lastTime) {
                    throw new IllegalStateException("the late replica caught up to " + late.lastWriteTime() + ", not " + lastTime);
                }
            }
            String json = String.format("{\"rows\":%d,\"rowsPerWrite\":%d,\"writeSeconds\":%.3f,\"rowsWrittenPerSecond\":%.0f,"
                            + "\"catchUpSeconds\":%.3f,\"catchUpSecondsPerMillionRows\":%.3f,\"cores\":%d}",
                    rows, perWrite, writeSeconds, rows / writeSeconds, catchUpSeconds, catchUpSeconds * 1e6 / rows,
                    Runtime.getRuntime().availableProcessors());
            System.out.println(json);
            Files.createDirectories(out.toAbsolutePath().getParent());
            Files.writeString(out, json + "\n");
        } finally {
            timer.dispose();
            broker.destroy();
        }
    }
}
