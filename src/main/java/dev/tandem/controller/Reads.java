package dev.tandem.controller;

import dev.tandem.expr.Mfp;
import dev.tandem.plan.DataflowDescription;
import dev.tandem.plan.Plan;
import dev.tandem.protocol.ComputeCommand;
import dev.tandem.protocol.ComputeResponse;
import dev.tandem.protocol.Finishing;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.row.Schema;
import dev.tandem.runtime.ReadPath;
import dev.tandem.time.Frontier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import reactor.core.publisher.Mono;

/**
 * The controller's reads and the starts of change streams, each running the {@link AccessPath} the
 * {@link AccessPaths} chooser picks (the one a read carries while its index runs): a lookup or scan of an
 * index is a fast-path peek of it, a transient path a slow-path dataflow ({@code t} id, {@code as_of = t},
 * {@code until = t+1}) that imports the indexes it can as shared arrangements, is peeked once, then
 * dropped; while a peek is in flight its read time is held on its inputs.
 */
final class Reads {

    private final Catalog catalog;
    private final Map<String, CatalogEntry.Index> system;
    private final IndexTracker indexes;
    private final ReadPlanner planner;
    private final AccessPaths paths;
    private final ReadPolicy policy;
    private final PeekDispatch dispatch;
    private final TransientStreams streams;
    private final Supplier<ControllerSettings> settings;
    private final LongSupplier clock;
    private final AtomicInteger pending = new AtomicInteger();

    Reads(Catalog catalog, Map<String, CatalogEntry.Index> system, IndexTracker indexes, ReadPlanner planner, AccessPaths paths,
            ReadPolicy policy, PeekDispatch dispatch, TransientStreams streams, Supplier<ControllerSettings> settings, LongSupplier clock) {
        this.catalog = catalog;
        this.system = system;
        this.indexes = indexes;
        this.planner = planner;
        this.paths = paths;
        this.policy = policy;
        this.dispatch = dispatch;
        this.streams = streams;
        this.settings = settings;
        this.clock = clock;
    }

    /** The reads in flight. */
    int pending() {
        return pending.get();
    }

    /** What a read or change stream {@code from} names: an introspection collection or a catalog object (else 404). */
    CatalogEntry readable(String name) {
        return system.containsKey(name) ? system.get(name) : catalog.require(name);
    }

    /**
     * Answers a read by its access path: a fast-path peek of an index, or a slow-path transient dataflow; each
     * admitted by the {@link ReadAdmission} in the subscriber's context (the caller's own limits) before
     * the server's limit of reads in flight.
     */
    Mono<ReadResult> read(ReadRequest req) {
        return Mono.deferContextual(context -> {
            ReadAdmission admission = ReadAdmission.of(context);
            Runnable admitted = admission.read();
            if (pending.incrementAndGet() > settings.get().maxPendingPeeks()) {
                pending.decrementAndGet();
                admitted.run();
                return Mono.error(new ControllerException(ControllerException.Reason.OVERLOADED,
                        "too many reads in flight (" + settings.get().maxPendingPeeks() + "); retry shortly"));
            }
            Mono<ReadResult> r;
            try {
                r = plan(req, admission);
            } catch (RuntimeException e) {
                r = Mono.error(e);
            }
            return r.doFinally(s -> {
                pending.decrementAndGet();
                admitted.run();
            });
        });
    }

    private Mono<ReadResult> plan(ReadRequest req, ReadAdmission admission) {
        if ((req.from() == null) == (req.plan() == null)) {
            throw ControllerException.invalid("give exactly one of 'from' and 'plan'");
        }
        if (req.timeoutMs() != null && (req.timeoutMs() <= 0 || req.timeoutMs() > Controller.MAX_TIMEOUT_MS)) {
            throw ControllerException.invalid("timeout_ms must be between 1 and " + Controller.MAX_TIMEOUT_MS + ", got " + req.timeoutMs());
        }
        Duration timeout = req.timeoutMs() != null ? Duration.ofMillis(req.timeoutMs()) : settings.get().defaultTimeout();
        boolean strict = req.strict();
        if (req.asOf() != null && req.asOf() > clock.getAsLong() + Controller.MAX_AS_OF_AHEAD_MS) {
            throw ControllerException.invalid("as_of " + req.asOf() + " is more than " + Controller.MAX_AS_OF_AHEAD_MS
                    + " ms beyond the present; a read waits for its time to come, so pick a time at most that far ahead");
        }
        // the path chosen when the read was planned, while its index runs; else chosen now, by the same rule
        AccessPath path = req.path() != null && paths.current(req.path()) ? req.path() : paths.choose(req);
        return switch (path) {
            case AccessPath.Lookup l -> fastPath(l.index(), l.keys(), req, path, strict, timeout);
            case AccessPath.IndexScan i -> fastPath(i.index(), null, req, path, strict, timeout);
            case AccessPath.Transient t -> slowPath(t, req.from() != null ? readable(req.from()).schema().names()
                    : planner.defaultNames(t.plan(), planner.typeByName(t.plan(), "plan").size()), req, strict, timeout, admission);
        };
    }

    /** The arity of the first key row, or -1 when there is none to go by. */
    static int keyArity(List<Row> keys) {
        return keys != null && !keys.isEmpty() ? keys.get(0).arity() : -1;
    }

    private Mono<ReadResult> fastPath(CatalogEntry.Index index, List<Row> lookup, ReadRequest req, AccessPath path, boolean strict,
            Duration timeout) {
        String failure = catalog.failure(index.name());
        if (failure != null) {
            throw new ControllerException(ControllerException.Reason.INDEX_FAILED, "index '" + index.name() + "' failed and is not maintained: " + failure
                    + "; drop it (and create it again, e.g. with a larger budget)");
        }
        IndexState s = indexes.get(index.id());
        if (s == null) {
            throw new ControllerException(ControllerException.Reason.NOT_RUNNING, "index '" + index.name() + "' is not running");
        }
        if (s.awaitingFirstFrontier()) {
            // An introspection collection's read time is known only once compute first reports it (its
            // logging dataflow starts at a time of its own): until then, wait for that report.
            return s.firstFrontier.asMono().timeout(timeout).onErrorMap(TimeoutException.class,
                            x -> new ControllerException(ControllerException.Reason.TIMEOUT, "'" + index.name()
                                    + "' was not reported by compute within " + timeout.toMillis() + " ms"))
                    .then(Mono.defer(() -> fastPath(index, lookup, req, path, strict, timeout)));
        }
        ReadPlanner.Shaping shape = ReadPlanner.shaping(path.mfp(), req.finishing(), index.schema());
        List<Row> keys = lookup == null ? null
                : lookup.size() == 1 ? List.copyOf(lookup) : List.copyOf(new LinkedHashSet<>(lookup));
        // No lock: a point read never waits for compaction, slow-path reads or other point reads.
        ReadPolicy.Held held = policy.holdOne(s, strict, req.asOf());
        long t = held.time();
        ComputeCommand.Peek peek = new ComputeCommand.Peek(PeekDispatch.peekId(), index.id(), t, keys, shape.mfp(), shape.finishing(),
                settings.get().maxResultRows());
        return dispatch.await(peek, timeout, strict || req.asOf() != null)
                .map(result -> toResult(result, shape.columns(), t, s.hydrated, ReadPath.FAST, path))
                .doFinally(x -> held.release().run());
    }

    private Mono<ReadResult> slowPath(AccessPath.Transient path, List<String> names, ReadRequest req, boolean strict, Duration timeout,
            ReadAdmission admission) {
        ReadPlanner.Expansion x = planner.expand(path.plan(), true, "plan");
        Schema schema = planner.resultSchema(x, names);
        ReadPlanner.Shaping shape = ReadPlanner.shaping(path.mfp(), req.finishing(), schema);
        List<IndexState> inputs = x.importedStates();
        List<Runnable> releases = new ArrayList<>();
        Runnable admitted = admission.dataflow();
        long t;
        try {
            t = policy.hold(strict, req.asOf(), inputs, List.copyOf(x.sources.keySet()), releases, time -> { });
        } catch (RuntimeException e) {
            admitted.run();
            throw e;
        }
        releases.add(admitted);
        String tid = catalog.allocateTransientId();
        Plan shaped = shape.mfp().isIdentity() ? x.plan : new Plan.MapFilterProject(x.plan, shape.mfp());
        DataflowDescription desc = x.dataflow(tid, shaped, ReadPlanner.allColumns(shape.columns().size()), t, t + 1);
        ComputeCommand.Peek peek = new ComputeCommand.Peek(PeekDispatch.peekId(), tid, t, null, Mfp.identity(), shape.finishing(),
                settings.get().maxResultRows());
        dispatch.expectOnTransient(peek, tid);
        dispatch.send(new ComputeCommand.CreateDataflow(desc));
        // The peek reaches compute before the dataflow may run, so a limit it can answer early is watched
        // from the first row on (sent after the schedule, it raced the first round, which on a busy
        // machine could produce the whole output and exceed the memory budget first).
        Mono<ComputeResponse.PeekResult> answer = dispatch.await(peek, timeout, true);
        dispatch.send(new ComputeCommand.Schedule(tid));
        boolean hydrated = inputs.stream().allMatch(s -> s.hydrated);
        return answer
                .map(result -> toResult(result, shape.columns(), t, hydrated, answeredEarly(result, t) ? ReadPath.SLOW_EARLY : ReadPath.SLOW,
                        path))
                .doFinally(sig -> {
                    dispatch.forgetTransient(tid);
                    dispatch.send(new ComputeCommand.AllowCompaction(tid, Frontier.EMPTY));
                    releases.forEach(Runnable::run);
                });
    }

    /**
     * Whether compute answered a slow-path read before its dataflow's output was complete (a limit
     * without an order, met by rows certainly in the result): such an answer is not sealed past the read time.
     */
    private static boolean answeredEarly(ComputeResponse.PeekResult result, long t) {
        return result instanceof ComputeResponse.Rows rows && !rows.info().upper().isPast(t);
    }

    private ReadResult toResult(ComputeResponse.PeekResult result, List<String> columns, long t, boolean hydrated, ReadPath path,
            AccessPath access) {
        ComputeResponse.Rows rows = (ComputeResponse.Rows) result;
        ComputeResponse.ReadInfo info = rows.info();
        return new ReadResult(columns, rows.rows(), t, info.upper(), info.since(), Math.max(0, clock.getAsLong() - t), hydrated, path, info.runtime(), access);
    }

    /**
     * Resolves a change stream of {@code name} (an index, or a table or view with an index): its keys,
     * filter and projection, checked as for a read, and its start time (an explicit {@code as_of}, at
     * or after the index's compaction frontier, or the serializable read time), held on the index until
     * the returned start is released.
     */
    ChangeStreamStart startChangeStream(String name, List<Row> keys, Mfp filterProject, Long asOf) {
        Mfp mfp = filterProject != null ? filterProject : Mfp.identity();
        CatalogEntry e = readable(name);
        if (keys != null && !(e instanceof CatalogEntry.Index) && paths.indexOn(e.name(), keyArity(keys)) == null) {
            throw ControllerException.invalid("key: watching keys needs an index, and '" + name + "' has none"
                    + (paths.indexOn(e.name(), -1) != null ? " with a key of that arity" : "") + "; create one on it first, or watch it whole");
        }
        AccessPath path = paths.choose(new ReadRequest(name, null, keys, mfp, null, null, asOf, null));
        CatalogEntry.Index index;
        List<Row> watched = null;
        switch (path) {
            case AccessPath.Transient t -> {
                return streams.start(t.plan(), e.schema().names(), name, mfp, asOf);
            }
            case AccessPath.Lookup l -> {
                index = l.index();
                watched = l.keys();
            }
            case AccessPath.IndexScan i -> index = i.index();
        }
        mfp = path.mfp();
        String failure = catalog.failure(index.name());
        if (failure != null) {
            throw new ControllerException(ControllerException.Reason.INDEX_FAILED, "index '" + index.name() + "' failed and is not maintained: " + failure);
        }
        IndexState s = indexes.get(index.id());
        if (s == null) {
            throw new ControllerException(ControllerException.Reason.NOT_RUNNING, "index '" + index.name() + "' is not running");
        }
        if (asOf != null && asOf > clock.getAsLong() + Controller.MAX_AS_OF_AHEAD_MS) {
            throw ControllerException.invalid("as_of " + asOf + " is more than " + Controller.MAX_AS_OF_AHEAD_MS + " ms beyond the present");
        }
        ReadPlanner.Shaping shape = ReadPlanner.shaping(mfp, Finishing.NONE, index.schema());
        List<Row> distinctKeys = watched != null ? List.copyOf(new LinkedHashSet<>(watched)) : null;
        List<Runnable> release = new ArrayList<>();
        long t = policy.hold(false, asOf, List.of(s), List.of(), release, time -> { });
        return new ChangeStreamStart(index.id(), index.name(), index.schema(), index.key(), distinctKeys, shape.mfp(), shape.columns(), t,
                release.get(0));
    }

    /**
     * Resolves a change stream of a query ({@code req.plan()}, a plan by names, or {@code req.from()}):
     * a collection with an index is followed through it as by {@link #startChangeStream(String, List, Mfp, Long)}; anything else through a transient dataflow the stream owns. A change stream has no order:
     * a finishing ({@code order_by}, {@code limit}, {@code offset}) is refused.
     */
    ChangeStreamStart startChangeStream(ReadRequest req) {
        if (!req.finishing().isTrivial()) {
            throw ControllerException.invalid("a change stream has no order: order_by, limit and offset do not apply"
                    + " (a top-k inside the query does)");
        }
        if (req.asOf() != null && req.asOf() > clock.getAsLong() + Controller.MAX_AS_OF_AHEAD_MS) {
            throw ControllerException.invalid("as_of " + req.asOf() + " is more than " + Controller.MAX_AS_OF_AHEAD_MS + " ms beyond the present");
        }
        if ((req.from() == null) == (req.plan() == null)) {
            throw ControllerException.invalid("give exactly one of 'from' and 'plan'");
        }
        if (req.from() != null) {
            return startChangeStream(req.from(), req.keys(), req.mfp(), req.asOf());
        }
        if (req.keys() != null) {
            throw ControllerException.invalid("key: watching keys needs 'from' naming an indexed collection");
        }
        List<DatumType> types = planner.typeByName(req.plan(), "plan");
        return streams.start(req.plan(), planner.defaultNames(req.plan(), types.size()), "(query)", req.mfp(), req.asOf());
    }
}
