package dev.tandem.runtime;

import dev.tandem.plan.DataflowDescription;
import dev.tandem.render.Dataflow;
import dev.tandem.runtime.ComputeRuntime.FailedDataflow;
import dev.tandem.sharing.ArrangementSharingRegistry;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The dataflows a runtime hosts, by export id: which exports are bounded (built for one read, with an
 * {@code until}), which dataflows still wait for a {@code Schedule} of each export, which exports are
 * live, and which maintained dataflows failed. Changed on the command thread, except that bounded
 * exports are noted as their commands arrive; read from any thread.
 */
final class HostedDataflows {

    private final ArrangementSharingRegistry registry;
    private final Map<String, Dataflow> byExport = new ConcurrentHashMap<>();
    /** Exports of bounded dataflows sent here and not yet dropped. */
    private final Set<String> bounded = ConcurrentHashMap.newKeySet();
    private final Map<Dataflow, Set<String>> unscheduled = new HashMap<>();
    // concurrent: close() takes its keys from another thread while the command thread may still change it
    private final Map<Dataflow, Set<String>> live = new ConcurrentHashMap<>();
    /** Maintained dataflows that failed, by id, until the controller drops their exports. */
    private final Map<String, FailedDataflow> failed = new ConcurrentHashMap<>();

    /** The dataflows of a runtime that publishes their exports on {@code registry}, and unpublishes them when dropped. */
    HostedDataflows(ArrangementSharingRegistry registry) {
        this.registry = registry;
    }

    /** Notes the exports of {@code desc} as bounded if it is (as its command arrives, before it queues). */
    void noteBounded(DataflowDescription desc) {
        if (desc.until() != null) {
            desc.indexExports().forEach(e -> bounded.add(e.id()));
        }
    }

    /** Forgets the bounded exports of {@code desc}, refused, that no hosted dataflow exports. */
    void forgetRefused(DataflowDescription desc) {
        if (desc.until() != null) {
            desc.indexExports().stream().filter(x -> !byExport.containsKey(x.id())).forEach(x -> bounded.remove(x.id()));
        }
    }

    boolean isBounded(String id) {
        return bounded.contains(id);
    }

    /** The dataflow exporting {@code id}, or null. */
    Dataflow get(String id) {
        return byExport.get(id);
    }

    boolean exports(String id) {
        return byExport.containsKey(id);
    }

    /** The hosted dataflows by export id, as of now. */
    Map<String, Dataflow> byExport() {
        return Map.copyOf(byExport);
    }

    /** Hosts {@code df}; with {@code awaitSchedule}, its computation starts once each of its exports is scheduled. */
    void host(Dataflow df, boolean awaitSchedule) {
        Set<String> exports = new HashSet<>(df.exportIds());
        if (awaitSchedule) {
            unscheduled.put(df, new HashSet<>(exports));
        }
        live.put(df, exports);
        for (String e : exports) {
            byExport.put(e, df);
        }
    }

    /** Schedules export {@code id}: its dataflow starts when this was the last of its exports to wait. */
    void schedule(String id) {
        Dataflow df = byExport.get(id);
        if (df == null) {
            return;
        }
        Set<String> pending = unscheduled.get(df);
        if (pending != null && pending.remove(id) && pending.isEmpty()) {
            unscheduled.remove(df);
            df.schedule();
        }
    }

    /** Drops export {@code id} of {@code df} and unpublishes it; the dataflow stops with its last export. */
    void drop(String id, Dataflow df) {
        byExport.remove(id);
        registry.drop(id);
        Set<String> exports = live.get(df);
        exports.remove(id);
        if (exports.isEmpty()) {
            live.remove(df);
            unscheduled.remove(df);
            df.drop();
        }
    }

    /** Forgets that export {@code id} is bounded (the controller dropped it, hosted here or not). */
    void forgetBounded(String id) {
        bounded.remove(id);
    }

    /** Notes that {@code df} failed with {@code message}, unless it is a bounded one (its read fails instead). */
    void failed(Dataflow df, String message) {
        if (df.exportIds().stream().noneMatch(bounded::contains)) {
            failed.put(df.id(), new FailedDataflow(df.id(), df.asOf(), message));
        }
    }

    /** Forgets the failure of dataflow {@code id} (the controller dropped it). */
    void forgetFailure(String id) {
        failed.remove(id);
    }

    Collection<FailedDataflow> failures() {
        return List.copyOf(failed.values());
    }

    /** Stops every hosted dataflow (the runtime is closing). */
    void dropAll() {
        for (Dataflow df : new ArrayList<>(live.keySet())) {
            df.drop();
        }
    }
}
