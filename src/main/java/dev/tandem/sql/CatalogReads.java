package dev.tandem.sql;

import dev.tandem.controller.CatalogEntry;
import dev.tandem.controller.Controller;
import dev.tandem.controller.ControllerException;
import dev.tandem.controller.ReadRequest;
import dev.tandem.sql.catalog.CatalogQuery;
import java.util.List;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * Reads of {@code pg_catalog}, {@code information_schema} and {@code tandem_internal} ({@link CatalogQuery}),
 * prepared and answered by Calcite's own engine against the catalog as it is now, on the heavy planning
 * lane, with the introspection they read (index statuses, introspection collections) read first.
 */
final class CatalogReads {

    private final Controller controller;
    private final Scheduler heavyPlanning;

    CatalogReads(Controller controller, Scheduler heavyPlanning) {
        this.controller = controller;
        this.heavyPlanning = heavyPlanning;
    }

    /**
     * Prepares a read of {@code pg_catalog} or {@code information_schema} ({@link CatalogQuery#reads})
     * against the catalog as it is now, on the heavy planning lane: Calcite's own engine answers it.
     */
    Mono<CatalogQuery> prepareCatalog(String sql, String user, int pid, dev.tandem.sql.catalog.CatalogAccess access) {
        return Mono.fromCallable(() -> CatalogQuery.prepare(sql, controller.catalogSnapshot(), user, pid, access)).subscribeOn(heavyPlanning);
    }

    /** Runs a prepared catalog read against what {@code access} shows of the catalog as it is now, on the heavy planning lane. */
    Mono<SqlResult> executeCatalog(CatalogQuery query, List<Object> params, dev.tandem.sql.catalog.CatalogAccess access) {
        return introspected(query, access)
                .flatMap(a -> Mono.fromCallable(() -> query.execute(controller.catalogSnapshot(), params, a)).subscribeOn(heavyPlanning));
    }

    /** How long a catalog query waits for each introspection collection it reads to be readable. */
    private static final long INTROSPECTION_READ_TIMEOUT_MS = 5_000;

    /**
     * {@code access} with what the catalog query reads of Tandem's introspection ({@code tandem_internal},
     * the size functions): the statuses of the indexes, and the introspection collections it names, each read
     * as a plain serializable read (bounded by {@link #INTROSPECTION_READ_TIMEOUT_MS}).
     */
    private Mono<dev.tandem.sql.catalog.CatalogAccess> introspected(CatalogQuery query, dev.tandem.sql.catalog.CatalogAccess access) {
        java.util.Set<String> reads = query.introspectionReads();
        boolean statuses = query.readsIndexStatuses();
        if (reads.isEmpty() && !statuses) {
            return Mono.just(access);
        }
        return reactor.core.publisher.Flux.fromIterable(reads)
                .concatMap(name -> controller.readIntrospection(name,
                                new ReadRequest(name, null, null, null, null, null, null, INTROSPECTION_READ_TIMEOUT_MS))
                        .map(r -> java.util.Map.entry(name, r.rows().stream().map(dev.tandem.row.Row::unpack).toList())))
                .collectMap(java.util.Map.Entry::getKey, java.util.Map.Entry::getValue)
                // the statuses of every index are built on the planning lane, not on the thread that answered the last read
                .publishOn(heavyPlanning)
                .map(rows -> {
                    List<dev.tandem.controller.IndexStatus> indexes = new java.util.ArrayList<>();
                    if (statuses) {
                        for (CatalogEntry e : controller.catalogSnapshot().entries()) {
                            if (e instanceof CatalogEntry.Index && access.mayAccess().test(e.name())) {
                                try {
                                    indexes.add(controller.indexStatus(e.name()));
                                } catch (ControllerException gone) {
                                    // dropped since the snapshot: not listed, as a moment later
                                }
                            }
                        }
                    }
                    return access.withIntrospected(new dev.tandem.sql.catalog.CatalogAccess.Introspected(indexes, controller.introspection(),
                            java.util.Map.copyOf(rows)));
                });
    }
}
