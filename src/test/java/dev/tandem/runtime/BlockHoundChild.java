package dev.tandem.runtime;

import dev.tandem.expr.Mfp;
import dev.tandem.multiplex.Multiplexer;
import dev.tandem.plan.DataflowDescription;
import dev.tandem.plan.Plan;
import dev.tandem.protocol.ComputeCommand;
import dev.tandem.protocol.ComputeResponse;
import dev.tandem.protocol.Finishing;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.row.Schema;
import dev.tandem.sharing.ArrangementSharingRegistry;
import dev.tandem.storage.RowDiff;
import dev.tandem.storage.StorageOptions;
import dev.tandem.storage.TableStorage;
import dev.tandem.storage.TableStorages;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.blockhound.BlockHound;
import reactor.core.scheduler.Schedulers;

/**
 * A child JVM for {@link BlockHoundTest}: installs BlockHound, then drives a workload of fast-path and
 * slow-path peeks through two runtimes and prints {@code answered=N blocking=M}. With {@code control}
 * it also makes one deliberately blocking call on the interactive runtime's threads, which BlockHound
 * must catch (proving the check is live).
 */
public final class BlockHoundChild {

    public static void main(String[] args) throws Exception {
        AtomicInteger blocking = new AtomicInteger();
        BlockHound.Builder builder = BlockHound.builder();
        // Reactor's integration marks its non-blocking scheduler threads, the interactive runtime's among them.
        java.util.ServiceLoader.load(reactor.blockhound.integration.BlockHoundIntegration.class).forEach(builder::with);
        builder.blockingMethodCallback(m -> {
            // Printed before counted: the main thread may halt the JVM as soon as it sees the count rise.
            System.out.println("BLOCKING " + m + " on " + Thread.currentThread().getName());
            blocking.incrementAndGet();
            throw new Error("blocking call " + m);
        }).install();
        FatalErrorHandler report = (where, error) -> System.out.println("FATAL on " + where + ": " + error);
        SharedFate.install(report);
        Schema kv = Schema.ofTypes(List.of(DatumType.INT64, DatumType.INT64));
        TableStorage storage = TableStorages.inMemory(StorageOptions.defaults(Schedulers.newSingle("child-ticks")));
        Multiplexer mux = Multiplexer.start(true, 2, 2, storage, new ArrangementSharingRegistry(), report, System::currentTimeMillis,
                RuntimeObserver.NONE);
        Map<UUID, ComputeResponse.PeekResult> answers = new ConcurrentHashMap<>();
        CountDownLatch all = new CountDownLatch(2000);
        mux.responses().subscribe(r -> {
            if (r instanceof ComputeResponse.PeekResponse p && answers.put(p.uuid(), p.result()) == null) {
                all.countDown();
            }
        });
        storage.createTable("u1", kv);
        List<RowDiff> rows = new ArrayList<>();
        for (long k = 0; k < 1000; k++) {
            rows.add(new RowDiff(Row.of(k, k * 10), 1));
        }
        long t = storage.write("u1", rows).block();
        mux.send(new ComputeCommand.CreateDataflow(new DataflowDescription(Map.of("u1", kv), Map.of(),
                List.of(new DataflowDescription.BuildDesc("o2", Plan.get("u1"))), List.of(new DataflowDescription.IndexExport("u2", "o2", List.of(0))), t, null)));
        mux.send(new ComputeCommand.Schedule("u2"));
        if (args.length > 0 && args[0].equals("control")) {
            // Parking is what every blocking lock, queue or future wait comes down to.
            mux.reader().execute(() -> java.util.concurrent.locks.LockSupport.parkNanos(1_000_000));
        }
        for (int i = 0; i < 2000; i++) {
            UUID uuid = UUID.randomUUID();
            if (i % 50 == 49) {
                // A slow-path query: a transient dataflow importing the index as an arrangement.
                String tid = "t" + i;
                DataflowDescription.IndexImport imp = new DataflowDescription.IndexImport("u1", List.of(0), kv);
                mux.send(new ComputeCommand.CreateDataflow(new DataflowDescription(Map.of(), Map.of("u2", imp),
                        List.of(new DataflowDescription.BuildDesc("o" + tid, Plan.get("u2"))),
                        List.of(new DataflowDescription.IndexExport(tid, "o" + tid, List.of(0))), t, t + 1)));
                mux.send(new ComputeCommand.Schedule(tid));
                mux.send(new ComputeCommand.Peek(uuid, tid, t, List.of(Row.of((long) i % 1000)), Mfp.identity(), Finishing.NONE, null));
            } else {
                mux.send(new ComputeCommand.Peek(uuid, "u2", t, List.of(Row.of((long) i % 1000)), Mfp.identity(), Finishing.NONE, null));
            }
        }
        boolean done = all.await(60, TimeUnit.SECONDS);
        long rowsAnswers = answers.values().stream().filter(r -> r instanceof ComputeResponse.Rows rr && rr.rows().size() == 1).count();
        System.out.println("answered=" + answers.size() + " rows=" + rowsAnswers + " blocking=" + blocking.get() + " complete=" + done);
        System.out.flush();
        Runtime.getRuntime().halt(0);
    }
}
