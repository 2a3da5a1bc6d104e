package dev.tandem.controller;

import dev.tandem.plan.DataflowJson;
import dev.tandem.plan.PlanJson;
import dev.tandem.row.RowJson;
import dev.tandem.storage.CatalogSwap;
import dev.tandem.storage.TableStorage;
import dev.tandem.storage.WriteRefusal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.Consumer;
import java.util.function.Function;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The durable catalog: tables, views and indexes by name (one namespace), stored as JSON entries in
 * the storage's catalog so a restart re-creates everything, plus the allocator of user ids
 * ({@code u<n>}) and transient ids ({@code t<n>}). The controller serializes changes; lookups and
 * listings may run concurrently with them.
 *
 * <p>Every definition and drop is one guarded storage change ({@link TableStorage#changeCatalog}) that
 * also advances the stored id allocator ({@value #NEXT_ID}; ids are never reused, a drop takes one too),
 * guarded by the allocator's value when this catalog last matched the stored one. So the allocator is
 * also the catalog's version: over a shared log, a change made from a catalog that another replica's
 * change has since moved is refused where it lands in the log ({@link Moved}); the controller then
 * {@link #learn learns} the stored catalog and checks the change again.
 */
final class Catalog {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String NEXT_ID = "meta/next_user_id";
    private static final String FAILED = "failed/";
    private static final List<String> KINDS = List.of("table/", "view/", "index/");

    private final TableStorage storage;
    private final Map<String, CatalogEntry> byName = new ConcurrentSkipListMap<>();
    /**
     * Entries stored by another replica that this one does not serve yet (a table whose storage table has
     * not arrived, a view or index over something not served), by name: their names are taken.
     */
    private final Map<String, CatalogEntry> pending = new ConcurrentSkipListMap<>();
    /** Why an index failed (it is kept, not re-created, until it is dropped), by index name. */
    private final Map<String, String> failures = new ConcurrentSkipListMap<>();
    private long nextUserId = 1;
    /** The stored allocator entry as of this catalog (null: none stored yet): what the next change expects. */
    private String version;
    private long nextTransientId = 1;
    /** What {@link #all} answers: the served entries and the number of changes that made them, replaced whole after each change. */
    private volatile CatalogSnapshot snapshot = new CatalogSnapshot(0, List.of());

    /** A guarded change was refused: another replica changed the catalog first. Learn it and check again. */
    static final class Moved extends RuntimeException {
        Moved(WriteRefusal cause) {
            super(cause.getMessage(), cause, false, false);
        }
    }

    Catalog(TableStorage storage) {
        this.storage = storage;
    }

    /** Loads every stored entry; returns the indexes, which the caller re-creates. */
    List<CatalogEntry.Index> recover() {
        Map<String, String> stored = storage.catalogEntries();
        version = stored.get(NEXT_ID);
        if (version != null) {
            nextUserId = JSON.readTree(version).get("next").asLong();
        }
        List<CatalogEntry.Index> indexes = new ArrayList<>();
        for (String kind : KINDS) {
            for (Map.Entry<String, String> e : stored.entrySet()) {
                if (e.getKey().startsWith(kind)) {
                    CatalogEntry entry = decode(JSON.readTree(e.getValue()));
                    byName.put(entry.name(), entry);
                    if (entry instanceof CatalogEntry.Index i) {
                        indexes.add(i);
                    }
                }
            }
        }
        for (Map.Entry<String, String> e : stored.entrySet()) {
            if (e.getKey().startsWith(FAILED)) {
                failures.put(e.getKey().substring(FAILED.length()), JSON.readTree(e.getValue()).get("error").asString());
            }
        }
        publish();
        return indexes;
    }

    /**
     * Brings this catalog up to the stored one without writing anything (over a shared log, other replicas
     * define and drop too): entries gone from the storage, or stored again under another id, are forgotten
     * (indexes first, then views, then tables), each handed to {@code stop}; stored entries not served here
     * are served once what they need is (a table once {@code storedTables} holds its id, a view once the
     * names it reads are served, an index once what it indexes is), each handed to {@code start} in that
     * order (an index stored as failed is kept as failed, not started). The rest wait in {@link #pending}.
     */
    void learn(Map<String, String> stored, Set<String> storedTables, Consumer<CatalogEntry> stop, Consumer<CatalogEntry> start) {
        Map<String, CatalogEntry> want = new LinkedHashMap<>();
        for (String kind : KINDS) {
            stored.forEach((key, json) -> {
                if (key.startsWith(kind)) {
                    CatalogEntry e = decode(JSON.readTree(json));
                    want.put(e.name(), e);
                }
            });
        }
        for (Class<?> kind : List.of(CatalogEntry.Index.class, CatalogEntry.View.class, CatalogEntry.Table.class)) {
            for (CatalogEntry e : List.copyOf(byName.values())) {
                CatalogEntry w = want.get(e.name());
                if (kind.isInstance(e) && (w == null || !w.id().equals(e.id()))) {
                    byName.remove(e.name());
                    failures.remove(e.name());
                    publish();
                    stop.accept(e);
                }
            }
        }
        want.values().removeIf(e -> byName.containsKey(e.name()));
        boolean progress = true;
        while (progress) {
            progress = false;
            for (CatalogEntry e : List.copyOf(want.values())) {
                boolean ready = switch (e) {
                    case CatalogEntry.Table t -> storedTables.contains(t.id());
                    case CatalogEntry.View v -> byName.keySet().containsAll(v.plan().namesRead());
                    case CatalogEntry.Index i -> byName.containsKey(i.on()) && !want.containsKey(i.on());
                };
                if (ready) {
                    want.remove(e.name());
                    String failed = stored.get(FAILED + e.name());
                    if (failed != null) {
                        failures.put(e.name(), JSON.readTree(failed).get("error").asString());
                    }
                    byName.put(e.name(), e);
                    publish();
                    if (failed == null) {
                        start.accept(e);
                    }
                    progress = true;
                }
            }
        }
        pending.clear();
        pending.putAll(want);
        String next = stored.get(NEXT_ID);
        if (next != null) {
            nextUserId = Math.max(nextUserId, JSON.readTree(next).get("next").asLong());
        }
        version = next;
    }

    /**
     * Stores {@code make}'s entry, made with a fresh user id, in one guarded change; the caller serves it
     * (see {@link #serve}). Throws {@link Moved} if the stored catalog has moved since this one matched it.
     */
    <E extends CatalogEntry> E define(Function<String, E> make) {
        return define(make, storage::changeCatalog);
    }

    /**
     * Like {@link #define(Function)}, the guarded change made by {@code store} (with the storage change that
     * goes with it in one log record, such as a table's key added with its unique index).
     */
    <E extends CatalogEntry> E define(Function<String, E> make, Consumer<CatalogSwap> store) {
        E entry = make.apply("u" + nextUserId);
        change(Map.of(key(entry), encode(entry).toString()), List.of(), 1, store);
        return entry;
    }

    /**
     * Stores a table and its primary key's index (made with the next two user ids) in one guarded
     * change, so neither is stored without the other; the caller serves them.
     */
    List<CatalogEntry> defineKeyed(Function<String, CatalogEntry.Table> table, Function<String, CatalogEntry.Index> index) {
        CatalogEntry.Table t = table.apply("u" + nextUserId);
        CatalogEntry.Index i = index.apply("u" + (nextUserId + 1));
        change(Map.of(key(t), encode(t).toString(), key(i), encode(i).toString()), List.of(), 2, storage::changeCatalog);
        return List.of(t, i);
    }

    /** Serves {@code entry}, which {@link #define} stored. */
    void serve(CatalogEntry entry) {
        byName.put(entry.name(), entry);
        publish();
    }

    /**
     * Removes {@code entry} (and its failure mark) in one guarded change, and stops serving it. Throws
     * {@link Moved} if the stored catalog has moved since this one matched it.
     */
    void remove(CatalogEntry entry) {
        remove(List.of(entry));
    }

    /** Removes {@code entries} (a table and its key's index) together, as {@link #remove(CatalogEntry)} removes one. */
    void remove(List<CatalogEntry> entries) {
        remove(entries, storage::changeCatalog);
    }

    /** Like {@link #remove(List)}, the guarded change made by {@code store} (with the storage change that goes with it). */
    void remove(List<CatalogEntry> entries, Consumer<CatalogSwap> store) {
        List<String> keys = new ArrayList<>();
        for (CatalogEntry e : entries) {
            keys.add(key(e));
            keys.add(FAILED + e.name());
        }
        change(Map.of(), keys, 1, store);
        for (CatalogEntry e : entries) {
            byName.remove(e.name());
        }
        publish();
        for (CatalogEntry e : entries) {
            failures.remove(e.name());
        }
    }

    /**
     * Makes a guarded change, through {@code store}, that also advances the allocator by {@code ids}; on
     * success this catalog matches the stored one again.
     */
    private void change(Map<String, String> puts, List<String> removes, int ids, Consumer<CatalogSwap> store) {
        ObjectNode n = JSON.createObjectNode();
        n.put("next", nextUserId + ids);
        String next = n.toString();
        Map<String, String> all = new HashMap<>(puts);
        all.put(NEXT_ID, next);
        try {
            store.accept(new CatalogSwap(NEXT_ID, version, all, removes));
        } catch (WriteRefusal e) {
            if (e.reason() != WriteRefusal.Reason.GUARD_MOVED) {
                throw e;
            }
            throw new Moved(e);
        }
        nextUserId += ids;
        version = next;
    }

    /** Records, durably, that index {@code i} failed: it is not re-created after a restart. */
    void markFailed(CatalogEntry.Index i, String error) {
        ObjectNode n = JSON.createObjectNode();
        n.put("id", i.id());
        n.put("error", error);
        storage.putCatalogEntry(FAILED + i.name(), n.toString());
        failures.put(i.name(), error);
    }

    /** Why the index named {@code name} failed, or null. */
    String failure(String name) {
        return failures.get(name);
    }

    synchronized String allocateTransientId() {
        return "t" + nextTransientId++;
    }

    Optional<CatalogEntry> get(String name) {
        return Optional.ofNullable(byName.get(name));
    }

    /** Whether {@code name} is taken: served here, or stored by another replica and not served yet. */
    boolean taken(String name) {
        return byName.containsKey(name) || pending.containsKey(name);
    }

    CatalogEntry require(String name) {
        CatalogEntry e = byName.get(name);
        if (e == null) {
            throw ControllerException.notFound("no table, view or index named '" + name + "'");
        }
        return e;
    }

    List<CatalogEntry> all() {
        return snapshot.entries();
    }

    /** The served entries with the catalog's version, as one consistent pair. */
    CatalogSnapshot snapshot() {
        return snapshot;
    }

    /** Makes the served entries as they are now what {@link #all} and {@link #snapshot} answer, under the next version. */
    private synchronized void publish() {
        snapshot = new CatalogSnapshot(snapshot.version() + 1, List.copyOf(byName.values()));
    }

    /** The names of the views and indexes that read {@code name} directly. */
    List<String> dependents(String name) {
        List<String> out = new ArrayList<>();
        List<CatalogEntry> entries = new ArrayList<>(byName.values());
        entries.addAll(pending.values());
        for (CatalogEntry e : entries) {
            if (e instanceof CatalogEntry.View v && v.plan().namesRead().contains(name)) {
                out.add(v.name());
            } else if (e instanceof CatalogEntry.Index i && i.on().equals(name)) {
                out.add(i.name());
            }
        }
        return out;
    }

    private static String key(CatalogEntry e) {
        return switch (e) {
            case CatalogEntry.Table t -> "table/" + t.name();
            case CatalogEntry.View v -> "view/" + v.name();
            case CatalogEntry.Index i -> "index/" + i.name();
        };
    }

    private static ObjectNode encode(CatalogEntry e) {
        ObjectNode n = JSON.createObjectNode();
        n.put("id", e.id());
        n.put("name", e.name());
        n.set("schema", DataflowJson.writeSchema(e.schema()));
        switch (e) {
            case CatalogEntry.Table t -> {
                n.put("kind", "table");
                if (!t.keys().isEmpty()) {
                    var keys = n.putArray("keys");
                    for (CatalogEntry.Key k : t.keys()) {
                        ObjectNode kn = keys.addObject();
                        kn.put("name", k.name());
                        kn.set("columns", JSON.valueToTree(k.columns()));
                        kn.put("primary", k.primary());
                    }
                }
                if (!t.defaults().isEmpty()) {
                    ObjectNode defaults = n.putObject("defaults");
                    new java.util.TreeMap<>(t.defaults()).forEach((column, value) -> {
                        if (value instanceof CatalogEntry.WriteTimeDefault w) {
                            defaults.putObject(column).put("at_write", w.name().toLowerCase(java.util.Locale.ROOT));
                        } else {
                            defaults.set(column, RowJson.json(value));
                        }
                    });
                }
                if (!t.checks().isEmpty()) {
                    var checks = n.putArray("checks");
                    for (CatalogEntry.Check c : t.checks()) {
                        ObjectNode cn = checks.addObject();
                        cn.put("name", c.name());
                        cn.put("text", c.text());
                        cn.set("expr", dev.tandem.expr.ExprJson.write(c.expr()));
                    }
                }
                if (!t.declared().isEmpty()) {
                    ObjectNode declared = n.putObject("declared");
                    new java.util.TreeMap<>(t.declared()).forEach((column, type) -> declared.put(column, type.sqlName()));
                }
            }
            case CatalogEntry.View v -> {
                n.put("kind", "view");
                n.set("plan", PlanJson.write(v.plan()));
                if (!v.declared().isEmpty()) {
                    ObjectNode declared = n.putObject("declared");
                    new java.util.TreeMap<>(v.declared()).forEach((column, type) -> declared.put(column, type.sqlName()));
                }
            }
            case CatalogEntry.Index i -> {
                n.put("kind", "index");
                n.put("on", i.on());
                n.set("key", JSON.valueToTree(i.key()));
                if (i.windowMillis() != CatalogEntry.Index.DEFAULT_WINDOW) {
                    n.put("window_ms", i.windowMillis());
                }
                if (i.unique()) {
                    n.put("unique", true);
                }
            }
        }
        return n;
    }

    /** An entry's declared column types, by column name. */
    private static Map<String, DeclaredType> declared(JsonNode n) {
        Map<String, DeclaredType> declared = new java.util.HashMap<>();
        if (n.has("declared")) {
            for (var d : n.get("declared").properties()) {
                declared.put(d.getKey(), DeclaredType.parse(d.getValue().asString()));
            }
        }
        return declared;
    }

    private static CatalogEntry decode(JsonNode n) {
        String id = n.get("id").asString();
        String name = n.get("name").asString();
        var schema = DataflowJson.schema(n.get("schema"), "schema");
        return switch (n.get("kind").asString()) {
            case "table" -> {
                List<CatalogEntry.Key> keys = new ArrayList<>();
                if (n.has("keys")) {
                    for (JsonNode k : n.get("keys")) {
                        List<String> cols = new ArrayList<>();
                        k.get("columns").forEach(c -> cols.add(c.asString()));
                        keys.add(new CatalogEntry.Key(k.get("name").asString(), cols, k.get("primary").asBoolean()));
                    }
                }
                Map<String, Object> defaults = new java.util.HashMap<>();
                if (n.has("defaults")) {
                    for (var d : n.get("defaults").properties()) {
                        defaults.put(d.getKey(), d.getValue().isObject() && d.getValue().has("at_write")
                                ? CatalogEntry.WriteTimeDefault.valueOf(d.getValue().get("at_write").asString().toUpperCase(java.util.Locale.ROOT))
                                : RowJson.datum(d.getValue(), schema.column(schema.indexOf(d.getKey())).type()));
                    }
                }
                Map<String, DeclaredType> declared = declared(n);
                List<CatalogEntry.Check> checks = new ArrayList<>();
                if (n.has("checks")) {
                    for (JsonNode c : n.get("checks")) {
                        checks.add(new CatalogEntry.Check(c.get("name").asString(), c.get("text").asString(),
                                dev.tandem.expr.ExprJson.parse(c.get("expr"), "checks.expr")));
                    }
                }
                yield new CatalogEntry.Table(id, name, schema, keys, defaults, declared, checks);
            }
            case "view" -> new CatalogEntry.View(id, name, PlanJson.parse(n.get("plan"), "plan"), schema, declared(n));
            case "index" -> {
                List<String> key = new ArrayList<>();
                n.get("key").forEach(k -> key.add(k.asString()));
                yield new CatalogEntry.Index(id, name, n.get("on").asString(), key, schema, n.has("window_ms") ? n.get("window_ms").asLong() : CatalogEntry.Index.DEFAULT_WINDOW,
                        n.has("unique") && n.get("unique").asBoolean());
            }
            default -> throw new IllegalStateException("corrupt catalog entry " + n);
        };
    }
}
