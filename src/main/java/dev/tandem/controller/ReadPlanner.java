package dev.tandem.controller;

import dev.tandem.expr.ExprException;
import dev.tandem.expr.Mfp;
import dev.tandem.plan.DataflowDescription;
import dev.tandem.plan.Plan;
import dev.tandem.plan.PlanNames;
import dev.tandem.protocol.Finishing;
import dev.tandem.row.Column;
import dev.tandem.row.DatumType;
import dev.tandem.row.Schema;
import dev.tandem.storage.TableStorage;
import dev.tandem.time.Frontier;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Plans reads: the expansion of a plan by names into
 * one by ids (tables become source imports, views are inlined, indexed collections are imported as
 * shared arrangements), the typing and naming of its result, the check of a read's MFP and finishing
 * against that result, and the descriptions of the dataflows that compute it.
 *
 * <p>Thread-safe and lock-free: it only reads the catalog (itself thread-safe), the tracked indexes and
 * the storage's frontiers; what it reads may change right after, which the read policy's time choice
 * and holds account for.
 */
final class ReadPlanner {

    private final Catalog catalog;
    private final IndexTracker indexes;
    private final TableStorage storage;
    private final AccessPaths paths;

    ReadPlanner(Catalog catalog, IndexTracker indexes, TableStorage storage, AccessPaths paths) {
        this.catalog = catalog;
        this.indexes = indexes;
        this.storage = storage;
        this.paths = paths;
    }

    // ------------------------------------------------------------------ result types and names

    /** Types a plan whose {@code get}s are by name. */
    List<DatumType> typeByName(Plan plan, String path) {
        try {
            Plan byId = plan.resolveNames(name -> catalog.get(name).isPresent() ? name : null, path);
            return byId.types(name -> catalog.get(name).map(e -> e.schema().types()).orElse(null), path);
        } catch (ExprException e) {
            throw ControllerException.invalid(e.getMessage());
        }
    }

    /** Names for a plan's {@code arity} columns: the collections' column names it passes through, else {@code c<i>}. */
    List<String> defaultNames(Plan plan, int arity) {
        List<String> names = new ArrayList<>(PlanNames.of(plan,
                name -> catalog.get(name).map(e -> e.schema().columns().stream().map(Column::name).toList()).orElse(null)));
        while (names.size() < arity) {
            names.add("c" + names.size());
        }
        return names;
    }

    /**
     * The schema of the result of {@code byName}, a plan by names, as a read of it names its columns
     * (after the collections' columns, {@code c<i>} where there is no name; repeats suffixed by position).
     */
    Schema resultSchema(Plan byName) {
        List<DatumType> types = typeByName(byName, "plan");
        List<String> names = defaultNames(byName, types.size());
        List<Column> cols = new ArrayList<>();
        for (int i = 0; i < types.size(); i++) {
            cols.add(new Column(names.get(i), types.get(i), true));
        }
        return dedupe(cols);
    }

    /** The schema of an expanded plan's result: its types, named by {@code names} ({@code c<i>} past their end), deduplicated. */
    Schema resultSchema(Expansion x, List<String> names) {
        Map<String, List<DatumType>> byId = new HashMap<>();
        x.sources.forEach((id, s) -> byId.put(id, s.types()));
        x.imports.forEach((id, i) -> byId.put(id, i.schema().types()));
        List<DatumType> types;
        try {
            types = x.plan.types(byId::get, "plan");
        } catch (ExprException e) {
            throw ControllerException.invalid(e.getMessage());
        }
        List<Column> cols = new ArrayList<>();
        for (int i = 0; i < types.size(); i++) {
            cols.add(new Column(i < names.size() ? names.get(i) : "c" + i, types.get(i), true));
        }
        return dedupe(cols);
    }

    static Schema dedupe(List<Column> cols) {
        List<Column> out = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < cols.size(); i++) {
            Column c = cols.get(i);
            String name = seen.add(c.name()) ? c.name() : c.name() + "_" + i;
            seen.add(name);
            out.add(new Column(name, c.type(), true));
        }
        return new Schema(out);
    }

    // ------------------------------------------------------------------ shaping

    /** The MFP and finishing of a read, with the names of its output columns. */
    record Shaping(Mfp mfp, Finishing finishing, List<String> columns) {
    }

    /**
     * The MFP and finishing of a request, checked against the target's schema: the MFP's expressions and
     * columns, the orderings' columns among the output's.
     */
    static Shaping shaping(Mfp mfp, Finishing finishing, Schema schema) {
        List<DatumType> out;
        try {
            out = mfp.outputTypes(schema.types(), "");
        } catch (ExprException e) {
            throw ControllerException.invalid(e.getMessage());
        }
        List<String> columns = schema.names();
        if (mfp.project() != null) {
            String[] named = new String[mfp.project().size()];
            for (int i = 0; i < named.length; i++) {
                int c = mfp.project().get(i);
                named[i] = c < schema.arity() ? schema.column(c).name() : "c" + c;
            }
            columns = List.of(named);
        }
        for (int i = 0; i < finishing.orderBy().size(); i++) {
            int c = finishing.orderBy().get(i).col();
            if (c < 0 || c >= out.size()) {
                throw ControllerException.invalid("order_by[" + i + "].col: column " + c + " does not exist; there are " + out.size());
            }
        }
        return new Shaping(mfp, finishing, columns);
    }

    // ------------------------------------------------------------------ expansion and dataflows

    /**
     * Rewrites a plan by names into one by ids: tables become source imports; views are inlined; with
     * {@code useIndexes}, a collection that has an index is imported through it instead (a shared
     * arrangement), which is how slow-path queries read maintenance's indexes.
     */
    Expansion expand(Plan byName, boolean useIndexes, String path) {
        Expansion x = new Expansion(useIndexes);
        x.plan = x.expand(byName, path);
        return x;
    }

    /**
     * The plan a transient dataflow of {@code byName} computes, as EXPLAIN shows it: views inlined, each
     * collection with a running index read through it, every {@code get} by the name of the table or index
     * it reads.
     */
    Plan explained(Plan byName) {
        Expansion x = expand(byName, true, "plan");
        return x.plan.substitute((g, at) -> g.id() != null && x.namesById.containsKey(g.id()) ? Plan.getByName(x.namesById.get(g.id())) : g, "plan");
    }

    /** A plan expanded into ids, with what it imports and every catalog name it reads. */
    final class Expansion {
        private final boolean useIndexes;
        /** The name of each table and index the plan reads, by id. */
        private final Map<String, String> namesById = new HashMap<>();
        Plan plan;
        final Map<String, Schema> sources = new LinkedHashMap<>();
        final Map<String, DataflowDescription.IndexImport> imports = new LinkedHashMap<>();
        /** Every catalog name the plan reads, directly or through views and indexes. */
        final Set<String> names = new HashSet<>();

        private Expansion(boolean useIndexes) {
            this.useIndexes = useIndexes;
        }

        private Plan expand(Plan plan, String path) {
            return plan.substitute((g, at) -> {
                if (g.id() != null) {
                    throw ControllerException.invalid(at + ": refer to collections by name ({\"op\":\"get\",\"name\":...}), not by id");
                }
                CatalogEntry e = catalog.get(g.name()).orElseThrow(() -> ControllerException.notFound(at + ": no table, view or index named '" + g.name() + "'"));
                names.add(e.name());
                if (e instanceof CatalogEntry.Index i) {
                    return importIndex(i);
                }
                if (useIndexes) {
                    CatalogEntry.Index i = paths.indexOn(e.name(), -1);
                    if (i != null) {
                        return importIndex(i);
                    }
                }
                return switch (e) {
                    case CatalogEntry.Table t -> {
                        sources.put(t.id(), t.schema());
                        namesById.put(t.id(), t.name());
                        yield Plan.get(t.id());
                    }
                    case CatalogEntry.View v -> expand(v.plan(), at);
                    case CatalogEntry.Index i -> throw new IllegalStateException();
                };
            }, path);
        }

        private Plan importIndex(CatalogEntry.Index i) {
            if (!indexes.running(i.id())) {
                throw new ControllerException(ControllerException.Reason.NOT_RUNNING, "index '" + i.name() + "' is not running");
            }
            names.add(i.name());
            names.add(i.on());
            namesById.put(i.id(), i.name());
            List<Integer> key = new ArrayList<>();
            for (String k : i.key()) {
                key.add(i.schema().indexOf(k));
            }
            imports.put(i.id(), new DataflowDescription.IndexImport(i.on(), key, i.schema()));
            return Plan.get(i.id());
        }

        /** The tracked states of the indexes it imports. */
        List<IndexState> importedStates() {
            return imports.keySet().stream().map(indexes::get).toList();
        }

        /** A time at which every input is readable (for a new index: the freshest sealed time). */
        long readableTime() {
            long t = Long.MIN_VALUE;
            long sealed = Long.MAX_VALUE;
            for (String table : sources.keySet()) {
                t = Math.max(t, storage.since(table).time());
                Frontier u = storage.upper(table);
                sealed = Math.min(sealed, u.isEmpty() ? Long.MAX_VALUE : u.time() - 1);
            }
            if (sealed == Long.MAX_VALUE) {
                sealed = Math.max(storage.lastWriteTime(), 0);
            }
            return Math.max(t, sealed);
        }

        /**
         * A dataflow computing {@code output} over this expansion's inputs into index {@code id} keyed by
         * {@code key}, from {@code asOf} ({@code until} null: maintained indefinitely).
         */
        DataflowDescription dataflow(String id, Plan output, List<Integer> key, long asOf, Long until) {
            return new DataflowDescription(sources, imports, List.of(new DataflowDescription.BuildDesc("o_" + id, output)),
                    List.of(new DataflowDescription.IndexExport(id, "o_" + id, key)), asOf, until);
        }
    }

    /** The columns {@code 0 .. arity-1}: the key of a transient dataflow's output, which is keyed by every column. */
    static List<Integer> allColumns(int arity) {
        List<Integer> key = new ArrayList<>();
        for (int i = 0; i < arity; i++) {
            key.add(i);
        }
        return key;
    }
}
