package dev.tandem.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tandem.expr.Mfp;
import dev.tandem.protocol.ComputeCommand;
import dev.tandem.protocol.ComputeParameters;
import dev.tandem.protocol.ComputeResponse;
import dev.tandem.protocol.Finishing;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.row.Schema;
import dev.tandem.sharing.ArrangementSharingRegistry;
import dev.tandem.sharing.SharedArrangement;
import dev.tandem.storage.StorageOptions;
import dev.tandem.storage.TableStorage;
import dev.tandem.storage.TableStorages;
import dev.tandem.time.Frontier;
import dev.tandem.trace.Spine;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * A peek of many literal keys is answered on the interactive runtime's bulk lane, so the point reads
 * sent after it are answered on the fast lane while it still waits: here the bulk lane runs nothing
 * until the test lets it.
 */
class BulkLaneTest {

    @Test
    void aPeekOfManyKeysNeverHoldsUpThePointReadsSentAfterIt() {
        HeldExecutor bulk = new HeldExecutor();
        RuntimeResources.SchedulerFactory schedulers = new RuntimeResources.SchedulerFactory() {
            @Override
            public Scheduler newSingle(String name) {
                return RuntimeResources.SchedulerFactory.REACTOR.newSingle(name);
            }

            @Override
            public Scheduler newParallel(String name, int threads) {
                return name.endsWith("-bulk") ? Schedulers.fromExecutor(bulk) : RuntimeResources.SchedulerFactory.REACTOR.newParallel(name, threads);
            }

            @Override
            public Scheduler newBoundedElastic(String name, int threads) {
                return RuntimeResources.SchedulerFactory.REACTOR.newBoundedElastic(name, threads);
            }
        };
        Scheduler ticks = Schedulers.newSingle("bulk-ticks");
        TableStorage storage = TableStorages.inMemory(StorageOptions.defaults(ticks));
        ArrangementSharingRegistry registry = new ArrangementSharingRegistry();
        ComputeRuntime interactive = ComputeRuntime.builder().role(Role.INTERACTIVE).storage(storage).registry(registry)
                .fatalErrorHandler((where, t) -> { }).resources(RuntimeResources.of(System::currentTimeMillis).withSchedulers(schedulers)).build();
        Map<UUID, ComputeResponse.PeekResult> answers = new ConcurrentHashMap<>();
        Disposable subscribed = interactive.responses().subscribe(r -> {
            if (r instanceof ComputeResponse.PeekResponse p) {
                answers.put(p.uuid(), p.result());
            }
        });
        try {
            interactive.send(new ComputeCommand.CreateInstance(Map.of(), ComputeParameters.DEFAULTS));
            Spine oks = new Spine("t", Frontier.at(0));
            Spine errs = new Spine("t errs", Frontier.at(0));
            // held at the read time, so the spines stay readable there once their upper passes it
            oks.acquireHold("test", Frontier.at(4));
            errs.acquireHold("test", Frontier.at(4));
            oks.advanceUpper(Frontier.at(5));
            errs.advanceUpper(Frontier.at(5));
            registry.publish(new SharedArrangement("t", Schema.ofTypes(List.of(DatumType.INT64)), List.of(0), List.of(oks), List.of(errs)),
                    Frontier.at(5), false);

            List<Row> many = new ArrayList<>();
            for (long k = 0; k <= RuntimeLanes.BULK_KEYS; k++) {
                many.add(Row.of(k));
            }
            UUID bulky = peek(interactive, many);
            await().atMost(Duration.ofSeconds(20)).until(() -> bulk.queued() == 1);

            List<UUID> points = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                points.add(peek(interactive, List.of(Row.of((long) i))));
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> answers.keySet().containsAll(points));
            assertThat(points).allSatisfy(p -> assertThat(answers.get(p)).isInstanceOf(ComputeResponse.Rows.class));
            assertThat(answers).as("the bulky peek, still queued on its own lane").doesNotContainKey(bulky);
            assertThat(bulk.queued()).isEqualTo(1);

            bulk.release();
            await().atMost(Duration.ofSeconds(20)).until(() -> answers.containsKey(bulky));
            assertThat(answers.get(bulky)).isInstanceOf(ComputeResponse.Rows.class);
        } finally {
            subscribed.dispose();
            bulk.release();
            interactive.close();
            storage.close();
            ticks.dispose();
        }
    }

    private static UUID peek(ComputeRuntime runtime, List<Row> keys) {
        UUID uuid = UUID.randomUUID();
        runtime.send(new ComputeCommand.Peek(uuid, "t", 4, keys, Mfp.identity(), Finishing.NONE, null));
        return uuid;
    }

    /** Queues what it is given until {@link #release}, and from then on runs it at once on the caller. */
    private static final class HeldExecutor implements Executor {
        private final ConcurrentLinkedQueue<Runnable> queue = new ConcurrentLinkedQueue<>();
        private volatile boolean released;

        @Override
        public void execute(Runnable task) {
            if (released) {
                task.run();
            } else {
                queue.add(task);
            }
        }

        int queued() {
            return queue.size();
        }

        void release() {
            released = true;
            for (Runnable r; (r = queue.poll()) != null; ) {
                r.run();
            }
        }
    }
}
