package dev.tandem.render;

import dev.tandem.plan.DataflowDescription;
import dev.tandem.sharing.ArrangementSharingRegistry;
import dev.tandem.sharing.Publication;
import dev.tandem.sharing.SharedArrangement;
import dev.tandem.storage.PackedUpdates;
import dev.tandem.storage.TableEvent;
import dev.tandem.storage.TableStorage;
import dev.tandem.storage.TableUpdate;
import dev.tandem.time.Frontier;
import dev.tandem.trace.ReadHold;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import reactor.core.Disposable;
import reactor.core.Disposables;

/**
 * What feeds a {@link Dataflow}: its table subscriptions (source imports) and the publications of the
 * indexes it imports. Its one job is to hold what arrives until a round takes it and to say how far the
 * inputs are complete: a table's updates are buffered until a round moves those before its target into
 * the source operator's shards ({@link #drainInto}); an import is followed for its frontier, a read hold
 * at the dataflow's progress, and a drop under the dataflow (a failure). Every frontier that moves asks
 * the dataflow for a round.
 *
 * <p>Threading: table events and publications arrive on the storage's and the registry's threads. A
 * table's buffer is guarded by its own monitor, frontiers are volatile, and the rounds (one at a time,
 * see {@link DataflowRounds}) drain the buffers and move the import holds between their stages.
 */
final class DataflowInputs {

    private final Dataflow dataflow;
    private final DataflowDescription desc;
    private final int workers;
    private final Map<String, TableInput> tables = new LinkedHashMap<>();
    private final Map<String, ImportInput> imports = new LinkedHashMap<>();
    private final Disposable.Composite subscriptions = Disposables.composite();

    DataflowInputs(Dataflow dataflow, DataflowDescription desc, int workers, Set<String> tableIds, Set<String> importIds) {
        this.dataflow = dataflow;
        this.desc = desc;
        this.workers = workers;
        for (String table : tableIds) {
            tables.put(table, new TableInput());
        }
        for (String imp : importIds) {
            imports.put(imp, new ImportInput(imp));
        }
    }

    /** Subscribes to the tables from {@code as_of} and to the imports' publications. */
    void subscribe(TableStorage storage, ArrangementSharingRegistry registry) {
        for (Map.Entry<String, TableInput> t : tables.entrySet()) {
            subscriptions.add(storage.subscribe(t.getKey(), desc.asOf()).subscribe(
                    ev -> t.getValue().accept(ev), err -> dataflow.fail("input " + t.getKey() + " failed: " + err.getMessage())));
        }
        for (ImportInput imp : imports.values()) {
            subscriptions.add(registry.publications(imp.id).subscribe(imp::accept));
        }
    }

    /** Ends the subscriptions and releases the holds on the imports. */
    void close() {
        subscriptions.dispose();
        for (ImportInput imp : imports.values()) {
            imp.release();
        }
    }

    /** The inputs' common frontier; an import not yet published holds it at the minimum (deferral). */
    Frontier frontier() {
        Frontier f = Frontier.EMPTY;
        for (TableInput t : tables.values()) {
            f = f.meet(t.frontier);
        }
        for (ImportInput i : imports.values()) {
            f = f.meet(i.arrangement.get() == null ? Frontier.MIN : i.frontier);
        }
        return f;
    }

    /** Whether the dataflow has no inputs at all (only constants). */
    boolean isEmpty() {
        return tables.isEmpty() && imports.isEmpty();
    }

    boolean hasImports() {
        return !imports.isEmpty();
    }

    /** Whether any table has updates a round has not taken yet. */
    boolean tablesPending() {
        for (TableInput t : tables.values()) {
            if (t.hasPending()) {
                return true;
            }
        }
        return false;
    }

    /** Moves every table's updates before {@code upper} into its source operator; returns how many moved. */
    long drainInto(Map<String, SourceOperator> sources, long upper) {
        long moved = 0;
        for (Map.Entry<String, TableInput> t : tables.entrySet()) {
            moved += t.getValue().drainInto(sources.get(t.getKey()), upper);
        }
        return moved;
    }

    /** Moves the holds on the imports to {@code frontier}: the dataflow has read everything before it. */
    void downgradeHolds(Frontier frontier) {
        for (ImportInput imp : imports.values()) {
            ReadHold h = imp.hold;
            if (h != null) {
                h.downgrade(frontier);
            }
        }
    }

    /** The current snapshot of import {@code indexId} (published, since its operator runs only after deferral). */
    SharedArrangement.Snapshot snapshot(String indexId) {
        return imports.get(indexId).arrangement.get().snapshot();
    }

    /** Buffers a table subscription's updates until a round takes them. */
    private final class TableInput {
        private final Updates pending = new Updates();
        private volatile Frontier frontier = Frontier.MIN;

        void accept(TableEvent ev) {
            switch (ev) {
                case TableEvent.Updates u -> {
                    synchronized (this) {
                        if (u.updates() instanceof PackedUpdates p) {
                            byte[] rows = p.rowBytes();
                            pending.reserve(p.size(), p.isEmpty() ? 0 : p.rowEnd(p.size() - 1));
                            for (int i = 0; i < p.size(); i++) {
                                pending.add(rows, p.rowStart(i), p.rowEnd(i), p.time(i), p.diff(i));
                            }
                        } else {
                            for (TableUpdate x : u.updates()) {
                                pending.add(x.row(), x.time(), x.diff());
                            }
                        }
                    }
                }
                case TableEvent.Progress p -> {
                    frontier = p.upper();
                    dataflow.requestRound();
                }
            }
        }

        synchronized boolean hasPending() {
            return pending.size > 0;
        }

        /** Moves updates before {@code upper} into the source's shards, by row hash. */
        synchronized long drainInto(SourceOperator source, long upper) {
            if (workers == 1 && allBefore(upper)) {
                // the common case (a snapshot, or a tick's writes): hand the buffer over whole
                long moved = pending.size;
                source.pending[0].moveFrom(pending);
                return moved;
            }
            Updates keep = new Updates();
            long moved = 0;
            for (int i = 0; i < pending.size; i++) {
                if (pending.times[i] < upper) {
                    int w = workers == 1 ? 0 : SharedArrangement.shardOf(pending.row(i), workers);
                    source.pending[w].add(pending, i, 1);
                    moved++;
                } else {
                    keep.add(pending, i, 1);
                }
            }
            pending.clear();
            pending.addAll(keep);
            return moved;
        }

        private boolean allBefore(long upper) {
            for (int i = 0; i < pending.size; i++) {
                if (pending.times[i] >= upper) {
                    return false;
                }
            }
            return true;
        }
    }

    /** Follows an imported index's publications: its frontier, its hold and a drop under us. */
    private final class ImportInput {
        final String id;
        final AtomicReference<SharedArrangement> arrangement = new AtomicReference<>();
        volatile Frontier frontier = Frontier.MIN;
        volatile ReadHold hold;

        ImportInput(String id) {
            this.id = id;
        }

        void accept(Publication p) {
            if (p.dropped()) {
                if (dataflow.lower() < (desc.until() == null ? Long.MAX_VALUE : desc.until())) {
                    dataflow.fail("imported index " + id + " was dropped");
                }
                return;
            }
            if (!p.published()) {
                return;
            }
            if (arrangement.compareAndSet(null, p.arrangement())) {
                ReadHold h = p.arrangement().acquireHold("dataflow " + dataflow.id(), Frontier.at(desc.asOf()));
                hold = h;
                if (h.frontier().compareTo(Frontier.at(desc.asOf())) > 0) {
                    dataflow.fail("imported index " + id + " is compacted to " + h.frontier() + ", beyond as_of " + desc.asOf());
                    return;
                }
            }
            frontier = p.upper();
            dataflow.requestRound();
        }

        void release() {
            ReadHold h = hold;
            if (h != null) {
                h.release();
            }
        }
    }
}
