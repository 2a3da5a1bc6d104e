package dev.tandem.plan;

import static dev.tandem.expr.ExprException.child;
import static dev.tandem.expr.ExprException.index;

import dev.tandem.row.DatumType;
import dev.tandem.row.Schema;
import dev.tandem.time.Frontier;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

/**
 * What a dataflow reads, builds and exports: source imports (table id → schema), index imports (index
 * id → the collection it indexes, key and schema), objects to build in order (id + plan), index
 * exports (export id, object id, key columns), the time {@code asOf} from which it is correct and an
 * optional {@code until} (exclusive; null: forever). JSON codec: {@link DataflowJson}.
 *
 * <p>A plan reads source imports, index imports (the rows of the indexed collection) and objects built
 * before it, by id.
 */
public record DataflowDescription(
        Map<String, Schema> sourceImports,
        Map<String, IndexImport> indexImports,
        List<BuildDesc> objectsToBuild,
        List<IndexExport> indexExports,
        long asOf,
        Long until) {

    public DataflowDescription {
        sourceImports = Collections.unmodifiableMap(new LinkedHashMap<>(sourceImports));
        indexImports = Collections.unmodifiableMap(new LinkedHashMap<>(indexImports));
        objectsToBuild = List.copyOf(objectsToBuild);
        indexExports = List.copyOf(indexExports);
    }

    /** An imported index {@code on} collection {@code on}, arranged by {@code key} columns, with rows of {@code schema}. */
    public record IndexImport(String on, List<Integer> key, Schema schema) {
        public IndexImport {
            Objects.requireNonNull(on, "on");
            key = List.copyOf(key);
            Objects.requireNonNull(schema, "schema");
        }
    }

    /** An object to build: collection {@code id} defined by {@code plan}. */
    public record BuildDesc(String id, Plan plan) {
        public BuildDesc {
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(plan, "plan");
        }
    }

    /** An exported index {@code id} of object {@code object}, arranged by {@code key} columns. */
    public record IndexExport(String id, String object, List<Integer> key) {
        public IndexExport {
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(object, "object");
            key = List.copyOf(key);
        }
    }

    /** The column types of every import, by id. */
    public Map<String, List<DatumType>> importTypes() {
        Map<String, List<DatumType>> out = new LinkedHashMap<>();
        sourceImports.forEach((id, s) -> out.put(id, s.types()));
        indexImports.forEach((id, ix) -> out.put(id, ix.schema().types()));
        return out;
    }

    /**
     * Checks everything that needs no runtime state — distinct ids, known ids, no cycles, objects built
     * before use, key columns in range, every plan well-typed, {@code until > asOf} — and returns the
     * column types of every object by id. Throws {@link PlanException} with the JSON path of the first
     * error.
     */
    public Map<String, List<DatumType>> validate() {
        Map<String, String> owner = new HashMap<>();
        sourceImports.keySet().forEach(id -> owner.put(id, child("source_imports", id)));
        for (Map.Entry<String, IndexImport> e : indexImports.entrySet()) {
            String at = child("index_imports", e.getKey());
            if (owner.putIfAbsent(e.getKey(), at) != null) {
                throw new PlanException(at, "duplicate id '" + e.getKey() + "', also " + owner.get(e.getKey()));
            }
            PlanTyper.columns(e.getValue().key(), e.getValue().schema().arity(), child(at, "key"));
        }
        Map<String, Integer> objectIndex = new HashMap<>();
        for (int i = 0; i < objectsToBuild.size(); i++) {
            String id = objectsToBuild.get(i).id();
            String at = child(index("objects_to_build", i), "id");
            if (owner.putIfAbsent(id, at) != null) {
                throw new PlanException(at, "duplicate id '" + id + "', also " + owner.get(id));
            }
            objectIndex.put(id, i);
        }
        checkOrder(objectIndex);
        Map<String, List<DatumType>> types = new HashMap<>(importTypes());
        Map<String, List<DatumType>> objectTypes = new LinkedHashMap<>();
        for (int i = 0; i < objectsToBuild.size(); i++) {
            BuildDesc b = objectsToBuild.get(i);
            List<DatumType> t = b.plan().types(types::get, child(index("objects_to_build", i), "plan"));
            types.put(b.id(), t);
            objectTypes.put(b.id(), t);
        }
        Set<String> exportIds = new HashSet<>();
        for (int i = 0; i < indexExports.size(); i++) {
            IndexExport x = indexExports.get(i);
            String at = index("index_exports", i);
            if (owner.containsKey(x.id())) {
                throw new PlanException(child(at, "id"), "export id '" + x.id() + "' is already used by " + owner.get(x.id()));
            }
            if (!exportIds.add(x.id())) {
                throw new PlanException(child(at, "id"), "duplicate export id '" + x.id() + "'");
            }
            List<DatumType> t = objectTypes.get(x.object());
            if (t == null) {
                throw new PlanException(child(at, "object"), "unknown object '" + x.object() + "'; an export indexes one of objects_to_build");
            }
            PlanTyper.columns(x.key(), t.size(), child(at, "key"));
        }
        if (until != null && until <= asOf) {
            throw new PlanException("until", "until " + until + " must be greater than as_of " + asOf);
        }
        return objectTypes;
    }

    /** Rejects cycles among objects and uses of an object before it is built. */
    private void checkOrder(Map<String, Integer> objectIndex) {
        int[] state = new int[objectsToBuild.size()];
        for (int i = 0; i < objectsToBuild.size(); i++) {
            List<String> cycle = findCycle(i, objectIndex, state, new ArrayList<>());
            if (cycle != null) {
                int at = objectIndex.get(cycle.get(0));
                throw new PlanException(child(index("objects_to_build", at), "plan"), "cycle among objects: " + String.join(" -> ", cycle));
            }
        }
        for (int i = 0; i < objectsToBuild.size(); i++) {
            for (String dep : objectsToBuild.get(i).plan().dependencies()) {
                Integer j = objectIndex.get(dep);
                if (j != null && j >= i) {
                    throw new PlanException(child(index("objects_to_build", i), "plan"),
                            "object '" + dep + "' is used before it is built (objects_to_build[" + j + "])");
                }
            }
        }
    }

    private List<String> findCycle(int i, Map<String, Integer> objectIndex, int[] state, List<String> stack) {
        if (state[i] == 2) {
            return null;
        }
        String id = objectsToBuild.get(i).id();
        if (state[i] == 1) {
            List<String> cycle = new ArrayList<>(stack.subList(stack.indexOf(id), stack.size()));
            cycle.add(id);
            return cycle;
        }
        state[i] = 1;
        stack.add(id);
        for (String dep : objectsToBuild.get(i).plan().dependencies()) {
            Integer j = objectIndex.get(dep);
            if (j != null) {
                List<String> c = findCycle(j, objectIndex, state, stack);
                if (c != null) {
                    return c;
                }
            }
        }
        stack.remove(stack.size() - 1);
        state[i] = 2;
        return null;
    }

    /**
     * Checks the imports against runtime state: each must exist ({@code sinceOf} returns null when it
     * does not), not be dropped (empty since) and have {@code since <= asOf}. Throws {@link PlanException}.
     */
    public void validateSince(Function<String, Frontier> sinceOf) {
        List<String> paths = new ArrayList<>();
        List<String> ids = new ArrayList<>();
        sourceImports.keySet().forEach(id -> {
            ids.add(id);
            paths.add(child("source_imports", id));
        });
        indexImports.keySet().forEach(id -> {
            ids.add(id);
            paths.add(child("index_imports", id));
        });
        for (int i = 0; i < ids.size(); i++) {
            Frontier since = sinceOf.apply(ids.get(i));
            if (since == null) {
                throw new PlanException(paths.get(i), "unknown collection '" + ids.get(i) + "'");
            }
            if (since.isEmpty()) {
                throw new PlanException(paths.get(i), "collection '" + ids.get(i) + "' has been dropped");
            }
            if (!since.lessEqual(asOf)) {
                throw new PlanException(paths.get(i), "as_of " + asOf + " is before the since " + since + " of '" + ids.get(i) + "'");
            }
        }
    }
}
