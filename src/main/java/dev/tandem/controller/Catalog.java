package dev.tandem.controller;

import dev.tandem.plan.DataflowJson;
import dev.tandem.plan.PlanJson;
import dev.tandem.storage.TableStorage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The durable catalog: tables, views and indexes by name (one namespace), stored as JSON entries in
 * the storage's catalog so a restart re-creates everything, plus the allocator of user ids
 * ({@code u<n>}) and transient ids ({@code t<n>}). The controller serializes changes; lookups and
 * listings may run concurrently with them.
 */
final class Catalog {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String NEXT_ID = "meta/next_user_id";
    private static final String FAILED = "failed/";

    private final TableStorage storage;
    private final Map<String, CatalogEntry> byName = new ConcurrentSkipListMap<>();
    /** Why an index failed (it is kept, not re-created, until it is dropped), by index name. */
    private final Map<String, String> failures = new ConcurrentSkipListMap<>();
    private long nextUserId = 1;
    private long nextTransientId = 1;

    Catalog(TableStorage storage) {
        this.storage = storage;
    }

    /** Loads every stored entry; returns the indexes, which the caller re-creates. */
    List<CatalogEntry.Index> recover() {
        Map<String, String> stored = storage.catalogEntries();
        String next = stored.get(NEXT_ID);
        if (next != null) {
            nextUserId = JSON.readTree(next).get("next").asLong();
        }
        List<CatalogEntry.Index> indexes = new ArrayList<>();
        for (String kind : List.of("table/", "view/", "index/")) {
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
        return indexes;
    }

    /**
     * Loads table {@code name} from the storage catalog without writing anything: another replica over a
     * shared log defined it after this catalog was recovered. Also catches the id allocator up with the
     * stored one, so this replica never hands out an id that replica already used. Returns the table, or
     * null if the storage holds no table by that name.
     */
    CatalogEntry.Table learnTable(String name) {
        Map<String, String> stored = storage.catalogEntries();
        String json = stored.get("table/" + name);
        if (json == null || !(decode(JSON.readTree(json)) instanceof CatalogEntry.Table t)) {
            return null;
        }
        String next = stored.get(NEXT_ID);
        if (next != null) {
            nextUserId = Math.max(nextUserId, JSON.readTree(next).get("next").asLong());
        }
        byName.put(name, t);
        return t;
    }

    /** Forgets table {@code name} without writing anything: another replica dropped it from the storage. */
    void forgetTable(String name) {
        if (byName.get(name) instanceof CatalogEntry.Table && !storage.catalogEntries().containsKey("table/" + name)) {
            byName.remove(name);
        }
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

    String allocateUserId() {
        String id = "u" + nextUserId++;
        ObjectNode n = JSON.createObjectNode();
        n.put("next", nextUserId);
        storage.putCatalogEntry(NEXT_ID, n.toString());
        return id;
    }

    synchronized String allocateTransientId() {
        return "t" + nextTransientId++;
    }

    Optional<CatalogEntry> get(String name) {
        return Optional.ofNullable(byName.get(name));
    }

    CatalogEntry require(String name) {
        CatalogEntry e = byName.get(name);
        if (e == null) {
            throw ControllerException.notFound("no table, view or index named '" + name + "'");
        }
        return e;
    }

    List<CatalogEntry> all() {
        return List.copyOf(byName.values());
    }

    void put(CatalogEntry entry) {
        storage.putCatalogEntry(key(entry), encode(entry).toString());
        byName.put(entry.name(), entry);
    }

    void remove(CatalogEntry entry) {
        storage.removeCatalogEntry(key(entry));
        byName.remove(entry.name());
        if (entry instanceof CatalogEntry.Index && failures.remove(entry.name()) != null) {
            storage.removeCatalogEntry(FAILED + entry.name());
        }
    }

    /** The names of the views and indexes that read {@code name} directly. */
    List<String> dependents(String name) {
        List<String> out = new ArrayList<>();
        for (CatalogEntry e : byName.values()) {
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
            case CatalogEntry.Table t -> n.put("kind", "table");
            case CatalogEntry.View v -> {
                n.put("kind", "view");
                n.set("plan", PlanJson.write(v.plan()));
            }
            case CatalogEntry.Index i -> {
                n.put("kind", "index");
                n.put("on", i.on());
                n.set("key", JSON.valueToTree(i.key()));
                if (i.windowMillis() != CatalogEntry.Index.DEFAULT_WINDOW) {
                    n.put("window_ms", i.windowMillis());
                }
            }
        }
        return n;
    }

    private static CatalogEntry decode(JsonNode n) {
        String id = n.get("id").asString();
        String name = n.get("name").asString();
        var schema = DataflowJson.schema(n.get("schema"), "schema");
        return switch (n.get("kind").asString()) {
            case "table" -> new CatalogEntry.Table(id, name, schema);
            case "view" -> new CatalogEntry.View(id, name, PlanJson.parse(n.get("plan"), "plan"), schema);
            case "index" -> {
                List<String> key = new ArrayList<>();
                n.get("key").forEach(k -> key.add(k.asString()));
                yield new CatalogEntry.Index(id, name, n.get("on").asString(), key, schema, n.has("window_ms") ? n.get("window_ms").asLong() : CatalogEntry.Index.DEFAULT_WINDOW);
            }
            default -> throw new IllegalStateException("corrupt catalog entry " + n);
        };
    }
}
