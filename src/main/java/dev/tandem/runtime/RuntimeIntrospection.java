package dev.tandem.runtime;

import dev.tandem.render.Dataflow;
import dev.tandem.sharing.ArrangementSharingRegistry;
import dev.tandem.time.Frontier;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Supplier;
import reactor.core.Disposable;

/**
 * A runtime's introspection: maintenance (or solo) logs its own state into the introspection collections
 * ({@link IntrospectionLogger}), sampling with it the sources of rows that others add; the interactive
 * runtime logs nothing and follows maintenance's published copies, reporting their frontiers as it sees
 * them (the multiplexer passes only the owner's reports).
 */
final class RuntimeIntrospection {

    private final Role role;
    private final ArrangementSharingRegistry registry;
    private final BiConsumer<String, Frontier> report;
    private final Map<String, Supplier<List<List<Object>>>> sources = new ConcurrentHashMap<>();
    private final List<Disposable> mirrors = new ArrayList<>();
    private volatile IntrospectionLogger logging;

    /** The introspection of a runtime of {@code role}, whose mirrors' frontiers go to {@code report}. */
    RuntimeIntrospection(Role role, ArrangementSharingRegistry registry, BiConsumer<String, Frontier> report) {
        this.role = role;
        this.registry = registry;
        this.report = report;
    }

    /** Adds a source of rows for the collection {@code id}, sampled with the logging. */
    void addSource(String id, Supplier<List<List<Object>>> rows) {
        sources.put(id, rows);
    }

    /** The sources added with {@link #addSource}, by collection id. */
    Map<String, Supplier<List<List<Object>>>> sources() {
        return sources;
    }

    /**
     * Installs introspection, once (on the command thread): the interactive runtime's mirrors, or the
     * logging {@code logger} makes, lowered to {@code nice}, whose dataflows {@code host} takes before it starts.
     */
    void install(Supplier<IntrospectionLogger> logger, int nice, Consumer<Dataflow> host) {
        if (logging != null || !mirrors.isEmpty()) {
            return;
        }
        if (role == Role.INTERACTIVE) {
            for (Introspection.Collection c : Introspection.ALL) {
                mirrors.add(registry.publications(c.id()).subscribe(p -> {
                    if (p.published()) {
                        report.accept(c.id(), p.upper());
                    }
                }));
            }
            return;
        }
        // Built at normal priority: the command thread may be lowered, and the logging's threads (its
        // timer, worker and storage) would inherit that for life. Its sampler and worker then lower
        // themselves to the workers' nice value: logging is maintenance work.
        IntrospectionLogger l = ThreadNice.atNormalPriority(logger);
        logging = l;
        l.setNice(nice);
        l.dataflows().forEach(host);
        l.start();
    }

    /** Logs one step of one operator shard, if logging runs. */
    void step(String dataflow, String operator, int worker, long nanos) {
        IntrospectionLogger l = logging;
        if (l != null) {
            l.step(dataflow, operator, worker, nanos);
        }
    }

    void close() {
        mirrors.forEach(Disposable::dispose);
        if (logging != null) {
            logging.close();
        }
    }
}
