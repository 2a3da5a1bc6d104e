package dev.tandem.render;

import dev.tandem.plan.DataflowDescription;
import dev.tandem.row.DatumType;
import dev.tandem.row.Schema;
import dev.tandem.sharing.ArrangementSharingRegistry;
import dev.tandem.sharing.SharedArrangement;
import dev.tandem.time.Frontier;
import dev.tandem.trace.ReadHold;
import dev.tandem.trace.Spine;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A {@link Dataflow}'s exports as the {@link ArrangementSharingRegistry} sees them. Its one job is the
 * exports' life in the registry: publish each export's arrangement (its shards and error shards, with
 * the publisher's compaction hold at {@code as_of}), seal them as rounds complete (telling the
 * {@link DataflowListener} each new frontier), move the publisher's hold as the controller allows
 * compaction, and drop them with the dataflow.
 *
 * <p>Threading: {@link #publish}, {@link #allowCompaction} and {@link #drop} run on the thread that drives
 * the dataflow (the runtime's command thread), one after another; {@link #seal} runs at the end of a round
 * (one at a time). The list of published arrangements is guarded by its own monitor, so
 * {@link #published()} may be read from any thread.
 */
final class DataflowPublication {

    private final DataflowDescription desc;
    private final ArrangementSharingRegistry registry;
    private final DataflowListener listener;
    private final List<ExportOperator> exports;
    private final Spine[][] errSpines;
    private final Map<String, ReadHold> publisherHolds = new HashMap<>();
    private final List<SharedArrangement> published = new ArrayList<>();

    DataflowPublication(DataflowDescription desc, ArrangementSharingRegistry registry, DataflowListener listener,
            List<ExportOperator> exports, Spine[][] errSpines) {
        this.desc = desc;
        this.registry = registry;
        this.listener = listener;
        this.exports = exports;
        this.errSpines = errSpines;
    }

    /** Publishes every export at {@code as_of}, with a standing hold for the reading runtime when {@code shareWithReader}. */
    void publish(boolean shareWithReader) {
        for (int n = 0; n < exports.size(); n++) {
            ExportOperator e = exports.get(n);
            List<Spine> oks = List.of(e.spines);
            SharedArrangement arr = new SharedArrangement(e.exportId, desc.indexExports().stream()
                    .filter(x -> x.id().equals(e.exportId)).findFirst().map(x -> exportSchema(x)).orElseThrow(),
                    intList(e.key), oks, List.of(errSpines[n]));
            publisherHolds.put(e.exportId, arr.acquireHold("compaction policy of " + e.exportId, Frontier.at(desc.asOf())));
            synchronized (published) {
                published.add(arr);
            }
            registry.publish(arr, Frontier.at(desc.asOf()), shareWithReader);
        }
    }

    private Schema exportSchema(DataflowDescription.IndexExport x) {
        return Schema.ofTypes(typesOfObject(x.object()));
    }

    private List<DatumType> typesOfObject(String object) {
        Map<String, List<DatumType>> known = new HashMap<>(desc.importTypes());
        for (DataflowDescription.BuildDesc b : desc.objectsToBuild()) {
            known.put(b.id(), b.plan().types(known::get, ""));
            if (b.id().equals(object)) {
                return known.get(object);
            }
        }
        throw new IllegalStateException("no object " + object);
    }

    private static List<Integer> intList(int[] a) {
        List<Integer> l = new ArrayList<>(a.length);
        for (int x : a) {
            l.add(x);
        }
        return l;
    }

    /** The published arrangements (empty until published). */
    List<SharedArrangement> published() {
        synchronized (published) {
            return List.copyOf(published);
        }
    }

    /** Moves the publisher's hold on export {@code exportId}; the empty frontier moves it to {@code lower}. */
    void allowCompaction(String exportId, Frontier frontier, long lower) {
        ReadHold h = publisherHolds.get(exportId);
        if (h != null) {
            h.downgrade(frontier.isEmpty() ? Frontier.at(lower) : frontier);
        }
    }

    /** Seals every export at {@code upper} and tells the listener. */
    void seal(Frontier upper) {
        for (ExportOperator e : exports) {
            registry.seal(e.exportId, upper);
            listener.frontier(e.exportId, upper);
        }
    }

    /** Releases the publisher's holds and drops the exports from the registry. */
    void drop() {
        publisherHolds.values().forEach(ReadHold::release);
        for (ExportOperator e : exports) {
            registry.drop(e.exportId);
        }
    }
}
