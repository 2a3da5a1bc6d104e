package dev.tandem.stream;

import dev.tandem.controller.ChangeStreamStart;
import dev.tandem.expr.Mfp;
import dev.tandem.multiplex.Multiplexer;
import dev.tandem.plan.DataflowDescription;
import dev.tandem.plan.Plan;
import dev.tandem.protocol.ComputeCommand;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.row.Schema;
import dev.tandem.runtime.FatalErrorHandler;
import dev.tandem.runtime.RuntimeObserver;
import dev.tandem.runtime.SharedFate;
import dev.tandem.sharing.ArrangementSharingRegistry;
import dev.tandem.storage.RowDiff;
import dev.tandem.storage.StorageOptions;
import dev.tandem.storage.TableStorage;
import dev.tandem.storage.TableStorages;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import reactor.blockhound.BlockHound;
import reactor.core.scheduler.Schedulers;

/**
 * A child JVM for {@link StreamBlockHoundTest}: installs BlockHound, then streams changes of an index
 * to 20 subscriptions (all keys, some keys, upsert) through two runtimes while 200 writes arrive, and
 * prints {@code streams=N caught_up=M blocking=K}; then, as a control, one more subscriber parks in its
 * {@code onNext}, which runs on the interactive threads, and BlockHound must catch it.
 */
public final class StreamBlockHoundChild {

    public static void main(String[] args) throws Exception {
        AtomicInteger blocking = new AtomicInteger();
        BlockHound.Builder builder = BlockHound.builder();
        java.util.ServiceLoader.load(reactor.blockhound.integration.BlockHoundIntegration.class).forEach(builder::with);
        builder.blockingMethodCallback(m -> {
            // Printed before counted: the main thread halts the JVM as soon as it sees the count rise.
            System.out.println("BLOCKING " + m + " on " + Thread.currentThread().getName());
            blocking.incrementAndGet();
            throw new Error("blocking call " + m);
        }).install();
        FatalErrorHandler report = (where, error) -> System.out.println("FATAL on " + where + ": " + error);
        SharedFate.install(report);
        Schema kv = Schema.ofTypes(List.of(DatumType.INT64, DatumType.INT64));
        TableStorage storage = TableStorages.inMemory(StorageOptions.defaults(Schedulers.newSingle("child-ticks")));
        ArrangementSharingRegistry registry = new ArrangementSharingRegistry();
        Multiplexer mux = Multiplexer.start(true, 2, 2, storage, registry, report, System::currentTimeMillis, RuntimeObserver.NONE);
        ChangeStreams streams = new ChangeStreams(registry, Schedulers.fromExecutor(mux.reader()::execute), new ChangeStreamLimits(100, 100, 100_000, 0));
        storage.createTable("u1", kv);
        List<RowDiff> rows = new ArrayList<>();
        for (long k = 0; k < 1000; k++) {
            rows.add(new RowDiff(Row.of(k, k), 1));
        }
        long t = storage.write("u1", rows).block();
        mux.send(new ComputeCommand.CreateDataflow(new DataflowDescription(Map.of("u1", kv), Map.of(),
                List.of(new DataflowDescription.BuildDesc("o2", Plan.get("u1"))), List.of(new DataflowDescription.IndexExport("u2", "o2", List.of(0))), t, null)));
        mux.send(new ComputeCommand.Schedule("u2"));
        int n = 20;
        AtomicLong messages = new AtomicLong();
        long[] lastProgress = new long[n];
        for (int i = 0; i < n; i++) {
            List<Row> keys = i % 3 == 1 ? List.of(Row.of((long) i), Row.of((long) i + 500)) : null;
            Envelope envelope = i % 5 == 4 ? Envelope.UPSERT : Envelope.DIFFS;
            ChangeStreamStart start = new ChangeStreamStart("u2", "u2", kv, List.of("c0"), keys, Mfp.identity(), List.of("c0", "c1"), t, () -> { });
            int at = i;
            streams.subscribe(new ChangeStreamRequest(start, true, envelope, "child")).messages().subscribe(m -> {
                messages.incrementAndGet();
                if (m instanceof ChangeMessage.Progress p) {
                    lastProgress[at] = p.frontier();
                }
            }, e -> System.out.println("ENDED " + at + ": " + e));
        }
        long last = t;
        for (int w = 0; w < 200; w++) {
            long k = w % 1000;
            last = storage.write("u1", List.of(new RowDiff(Row.of(k, k), -1), new RowDiff(Row.of(k, k + 1), 1))).block();
            storage.write("u1", List.of(new RowDiff(Row.of(k, k + 1), -1), new RowDiff(Row.of(k, k), 1))).block();
        }
        long deadline = System.nanoTime() + 60_000_000_000L;
        int caughtUp = 0;
        while (System.nanoTime() < deadline) {
            caughtUp = 0;
            for (long p : lastProgress) {
                if (p > last) {
                    caughtUp++;
                }
            }
            if (caughtUp == n) {
                break;
            }
            Thread.onSpinWait();
        }
        System.out.println("streams=" + n + " caught_up=" + caughtUp + " blocking=" + blocking.get() + " messages_positive=" + (messages.get() > n));
        // The control: a subscriber that parks in onNext, on the interactive threads.
        int before = blocking.get();
        ChangeStreamStart start = new ChangeStreamStart("u2", "u2", kv, List.of("c0"), null, Mfp.identity(), List.of("c0", "c1"), last, () -> { });
        streams.subscribe(new ChangeStreamRequest(start, true, Envelope.DIFFS, "control")).messages()
                .subscribe(m -> java.util.concurrent.locks.LockSupport.parkNanos(1_000_000), e -> { });
        deadline = System.nanoTime() + 30_000_000_000L;
        while (System.nanoTime() < deadline && blocking.get() == before) {
            Thread.onSpinWait();
        }
        System.out.println("control_caught=" + (blocking.get() > before));
        System.out.flush();
        Runtime.getRuntime().halt(0);
    }
}
