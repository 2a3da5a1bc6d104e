package dev.tandem.sql.catalog;

import dev.tandem.controller.CatalogEntry;
import dev.tandem.controller.CatalogSnapshot;
import dev.tandem.row.Schema;
import dev.tandem.sql.catalog.CatalogRelations.Relation;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The rows of {@code pg_catalog}'s and {@code information_schema}'s relations for one catalog snapshot:
 * Tandem's tables, views and indexes with their columns and keys, the catalog's own relations, and
 * the types, namespaces, access methods, database and role PostgreSQL clients look up.
 *
 * <p>It holds the snapshot's objects the caller sees, by OID and by name, and answers the small relations
 * (namespaces, access methods, the database, the role, the settings) itself; the relations are defined by
 * {@link CatalogRelations} and the types by {@link PgTypes}, and the other rows are built by
 * {@link RelationRows}, {@link InformationSchemaRows} and {@link IntrospectionRows}.
 */
final class PgCatalogData {

    /** The one database's name, as {@code current_database()} and {@code pg_database} give it. */
    static final String DATABASE = "tandem";
    /** The one role owning every object, as {@code pg_get_userbyid} and {@code pg_roles} give it. */
    static final String OWNER = "tandem";
    /** The schema of Tandem's own introspection, beside {@code pg_catalog}. */
    static final String TANDEM_INTERNAL = "tandem_internal";
    static final long OWNER_OID = 10;
    static final long HEAP_AM = 2;
    static final long BTREE_AM = 403;
    static final long DEFAULT_COLLATION = 100;
    /** The schemas by name, with their OIDs, in the order {@code pg_namespace} lists them. */
    static final Map<String, Long> NAMESPACES = namespaces();

    /** A Tandem relation (table, view or index) as PostgreSQL shows it. */
    record Rel(long oid, String name, String kind, CatalogEntry entry) {
    }

    /** A key of a table, with its constraint OID and the index serving it (0 when none). */
    record KeyRow(long oid, CatalogEntry.Table table, CatalogEntry.Key key, long index) {
    }

    /** A CHECK constraint of a table, with its OID. */
    record CheckRow(long oid, CatalogEntry.Table table, CatalogEntry.Check check) {
    }

    final CatalogSnapshot snapshot;
    final CatalogAccess access;
    /** Tandem's relations by OID. */
    final Map<Long, Rel> rels = new LinkedHashMap<>();
    final Map<String, Rel> relByName = new HashMap<>();
    final List<KeyRow> keys = new ArrayList<>();
    final Map<Long, KeyRow> keyByOid = new HashMap<>();
    final List<CheckRow> checks = new ArrayList<>();
    final Map<Long, CheckRow> checkByOid = new HashMap<>();

    PgCatalogData(CatalogSnapshot snapshot) {
        this(snapshot, CatalogAccess.all(OWNER));
    }

    /** The catalog as {@code access} shows it: an object it is not granted is in no relation. */
    PgCatalogData(CatalogSnapshot snapshot, CatalogAccess access) {
        this.snapshot = snapshot;
        this.access = access;
        List<CatalogEntry> entries = snapshot.entries().stream().filter(e -> access.mayAccess().test(e.name())).toList();
        for (CatalogEntry e : entries) {
            String kind = switch (e) {
                case CatalogEntry.Table t -> "r";
                case CatalogEntry.View v -> "v";
                case CatalogEntry.Index i -> "i";
            };
            Rel r = new Rel(PgOids.ofCatalogId(e.id()), e.name(), kind, e);
            rels.put(r.oid(), r);
            relByName.put(r.name(), r);
        }
        for (CatalogEntry e : entries) {
            if (e instanceof CatalogEntry.Table t) {
                for (int k = 0; k < t.keys().size(); k++) {
                    CatalogEntry.Key key = t.keys().get(k);
                    Rel index = relByName.get(key.name());
                    long indexOid = index != null && index.entry() instanceof CatalogEntry.Index i && i.on().equals(t.name())
                            && i.key().equals(key.columns()) ? index.oid() : 0;
                    KeyRow row = new KeyRow(PgOids.ofKey(t.id(), k), t, key, indexOid);
                    keys.add(row);
                    keyByOid.put(row.oid(), row);
                }
                for (int k = 0; k < t.checks().size(); k++) {
                    CheckRow row = new CheckRow(PgOids.ofCheck(t.id(), k), t, t.checks().get(k));
                    checks.add(row);
                    checkByOid.put(row.oid(), row);
                }
            }
        }
    }

    /** The OID of the relation called {@code name} (Tandem's, or the catalog's own with or without its schema), or null. */
    Long relationOid(String name) {
        String n = name.startsWith("public.") ? name.substring("public.".length()) : name;
        Rel r = relByName.get(n);
        if (r != null && !name.startsWith("pg_catalog.")) {
            return r.oid();
        }
        Relation c = CatalogRelations.ALL.get(n.contains(".") ? n : "pg_catalog." + n);
        return c == null ? null : c.oid();
    }

    /** The name {@code regclass} shows for {@code oid}: qualified when not on the search path. */
    String relationName(long oid) {
        Rel r = rels.get(oid);
        if (r != null) {
            return PgCatalogFunctions.quoteIdent(r.name());
        }
        for (Relation c : CatalogRelations.ALL.values()) {
            if (c.oid() == oid) {
                return c.schema().equals("pg_catalog") ? c.name() : c.schema() + "." + c.name();
            }
        }
        return Long.toString(oid);
    }

    /** Whether a relation with {@code oid} exists and is found by an unqualified name (in public or pg_catalog). */
    boolean visible(long oid) {
        if (rels.containsKey(oid)) {
            return true;
        }
        for (Relation c : CatalogRelations.ALL.values()) {
            if (c.oid() == oid) {
                return c.schema().equals("pg_catalog");
            }
        }
        return false;
    }

    /** The columns of the collection an index or a key is on: the table's or view's. */
    Schema schemaOf(String relation) {
        Rel r = relByName.get(relation);
        return r == null ? null : r.entry().schema();
    }

    /** The rows of {@code relation} ({@code schema.name}), each as Calcite reads them (Long, Double, String, Boolean or List). */
    List<Object[]> rows(Relation relation) {
        return switch (relation.schema() + "." + relation.name()) {
            case "pg_catalog.pg_namespace" -> NAMESPACES.entrySet().stream().map(e -> row(e.getValue(), e.getKey(), OWNER_OID, null)).toList();
            case "pg_catalog.pg_class" -> RelationRows.pgClass(this);
            case "pg_catalog.pg_attribute" -> RelationRows.pgAttribute(this);
            case "pg_catalog.pg_type" -> PgTypes.rows();
            case "pg_catalog.pg_index" -> RelationRows.pgIndex(this);
            case "pg_catalog.pg_constraint" -> RelationRows.pgConstraint(this);
            case "pg_catalog.pg_attrdef" -> RelationRows.pgAttrdef(this);
            case "pg_catalog.pg_tables" -> RelationRows.pgTables(this);
            case "pg_catalog.pg_views" -> RelationRows.pgViews(this);
            case "pg_catalog.pg_indexes" -> RelationRows.pgIndexes(this);
            case "pg_catalog.pg_proc" -> PgProc.rows();
            case "pg_catalog.pg_stat_activity" -> IntrospectionRows.statActivity(this);
            case "pg_catalog.pg_matviews", "pg_catalog.pg_auth_members", "pg_catalog.pg_description", "pg_catalog.pg_collation",
                    "pg_catalog.pg_enum", "pg_catalog.pg_inherits", "pg_catalog.pg_sequence", "information_schema.referential_constraints",
                    "information_schema.routines" -> List.of();
            case "pg_catalog.pg_am" -> List.of(row(HEAP_AM, "heap", "heap_tableam_handler", "t"), row(BTREE_AM, "btree", "bthandler", "i"));
            case "pg_catalog.pg_database" -> List.<Object[]>of(row(PgOids.DATABASE, DATABASE, OWNER_OID, 6L, "c", false, true, -1L, 0L, 1L, 1663L,
                    "C", "C", null, null, null));
            case "pg_catalog.pg_roles" -> List.<Object[]>of(row(OWNER, true, true, true, true, true, false, -1L, "********", null, true, null,
                    OWNER_OID));
            case "pg_catalog.pg_user" -> List.<Object[]>of(row(OWNER, OWNER_OID, true, true, false, true, "********", null, null));
            case "pg_catalog.pg_settings" -> PgSettings.ALL.stream().map(s -> row(s.name(), s.name().equals("TimeZone") ? access.timeZone() : s.value(), s.unit(), s.category(), s.description(),
                    null, s.context(), s.type(), s.context().equals("internal") ? "default" : "session", null, null, null, s.value(), s.value(),
                    null, null, false)).toList();
            case "information_schema.schemata" -> InformationSchemaRows.schemata();
            case "information_schema.tables" -> InformationSchemaRows.tables(this);
            case "information_schema.columns" -> InformationSchemaRows.columns(this);
            case "information_schema.table_constraints" -> InformationSchemaRows.tableConstraints(this);
            case "information_schema.key_column_usage" -> InformationSchemaRows.keyColumnUsage(this);
            case "information_schema.views" -> InformationSchemaRows.views(this);
            case "tandem_internal.indexes" -> IntrospectionRows.indexes(this);
            default -> IntrospectionRows.collection(this, relation);
        };
    }

    /**
     * The bytes of the arrangements exported under catalog id {@code id}, summed over workers, as the
     * introspection collection {@code tandem_arrangement_sizes} reports them (0: none).
     */
    long bytes(String id) {
        long sum = 0;
        for (Object[] r : access.introspected().rows("tandem_arrangement_sizes")) {
            if (id.equals(r[0]) && r[4] instanceof Number n) {
                sum += n.longValue();
            }
        }
        return sum;
    }

    private static Map<String, Long> namespaces() {
        Map<String, Long> out = new LinkedHashMap<>();
        out.put("pg_catalog", (long) PgOids.PG_CATALOG_NAMESPACE);
        out.put("public", (long) PgOids.PUBLIC_NAMESPACE);
        out.put("information_schema", (long) PgOids.INFORMATION_SCHEMA_NAMESPACE);
        out.put(TANDEM_INTERNAL, (long) PgOids.TANDEM_INTERNAL_NAMESPACE);
        return java.util.Collections.unmodifiableMap(out);
    }

    /** A row as Calcite reads it: the values, an Integer widened to a Long. */
    static Object[] row(Object... values) {
        Object[] r = Arrays.copyOf(values, values.length);
        for (int i = 0; i < r.length; i++) {
            if (r[i] instanceof Integer n) {
                r[i] = n.longValue();
            }
        }
        return r;
    }
}
