package dev.tandem.multiplex;

import static org.awaitility.Awaitility.await;

import dev.tandem.expr.Mfp;
import dev.tandem.plan.DataflowDescription;
import dev.tandem.plan.Plan;
import dev.tandem.protocol.ComputeCommand;
import dev.tandem.protocol.ComputeParameters;
import dev.tandem.protocol.ComputeResponse;
import dev.tandem.protocol.Finishing;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.row.Schema;
import dev.tandem.runtime.FatalErrorHandler;
import dev.tandem.sharing.ArrangementSharingRegistry;
import dev.tandem.storage.RowDiff;
import dev.tandem.storage.StorageOptions;
import dev.tandem.storage.TableStorage;
import dev.tandem.storage.TableStorages;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/** A compute replica (solo or two runtimes) over in-memory storage, with its responses recorded. */
final class ComputeTesting implements AutoCloseable {

    static final Schema KV = Schema.ofTypes(List.of(DatumType.INT64, DatumType.INT64));

    final Scheduler ticks = Schedulers.newSingle("test-ticks");
    final TestClock clock = new TestClock();
    final TableStorage storage = TableStorages.inMemory(StorageOptions.defaults(ticks).withClock(clock).withTickInterval(Duration.ofMillis(5)));
    final ArrangementSharingRegistry registry = new ArrangementSharingRegistry();
    final List<Throwable> fatal = new CopyOnWriteArrayList<>();
    final List<ComputeResponse> responses = new CopyOnWriteArrayList<>();
    final Multiplexer mux;

    ComputeTesting(boolean twoRuntimes) {
        FatalErrorHandler record = (where, error) -> fatal.add(error);
        mux = Multiplexer.start(twoRuntimes, 2, 1, storage, registry, record, clock, dev.tandem.runtime.RuntimeObserver.NONE);
        mux.responses().subscribe(responses::add);
        mux.send(new ComputeCommand.Hello("test"));
        mux.send(new ComputeCommand.CreateInstance(Map.of(), ComputeParameters.DEFAULTS));
        mux.send(new ComputeCommand.InitializationComplete());
    }

    /**
     * The wall clock in milliseconds, which a test can freeze: while frozen, timestamps and uppers stop
     * following real time, so "not yet sealed" does not depend on how fast the machine is.
     */
    static final class TestClock implements java.util.function.LongSupplier {
        private long offset;
        private long frozenAt = -1;

        @Override
        public synchronized long getAsLong() {
            return frozenAt >= 0 ? frozenAt : System.currentTimeMillis() - offset;
        }

        synchronized void freeze() {
            if (frozenAt < 0) {
                frozenAt = System.currentTimeMillis() - offset;
            }
        }

        /** Resumes from the frozen value, so the clock never jumps over the time it was frozen. */
        synchronized void resume() {
            if (frozenAt >= 0) {
                offset = System.currentTimeMillis() - frozenAt;
                frozenAt = -1;
            }
        }
    }

    long write(String table, Row... rows) {
        return storage.write(table, java.util.Arrays.stream(rows).map(r -> new RowDiff(r, 1)).toList()).block();
    }

    static DataflowDescription index(String table, String indexId, long asOf) {
        return new DataflowDescription(Map.of(table, KV), Map.of(),
                List.of(new DataflowDescription.BuildDesc("o_" + indexId, Plan.get(table))),
                List.of(new DataflowDescription.IndexExport(indexId, "o_" + indexId, List.of(0))), asOf, null);
    }

    UUID peek(String target, long t, List<Row> keys) {
        UUID uuid = UUID.randomUUID();
        mux.send(new ComputeCommand.Peek(uuid, target, t, keys, Mfp.identity(), Finishing.NONE, null));
        return uuid;
    }

    ComputeResponse.PeekResult awaitPeek(UUID uuid) {
        ComputeResponse r = awaitResponse(x -> x instanceof ComputeResponse.PeekResponse p && p.uuid().equals(uuid));
        return ((ComputeResponse.PeekResponse) r).result();
    }

    ComputeResponse awaitResponse(Predicate<ComputeResponse> match) {
        await().atMost(Duration.ofSeconds(20)).until(() -> !fatal.isEmpty() || responses.stream().anyMatch(match));
        if (!fatal.isEmpty()) {
            throw new AssertionError("fatal error on a runtime thread", fatal.get(0));
        }
        return responses.stream().filter(match).findFirst().orElseThrow();
    }

    long count(Predicate<ComputeResponse> match) {
        return responses.stream().filter(match).count();
    }

    @Override
    public void close() {
        mux.close();
        storage.close();
        ticks.dispose();
    }
}
