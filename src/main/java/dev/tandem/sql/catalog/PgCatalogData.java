package dev.tandem.sql.catalog;

import dev.tandem.controller.CatalogEntry;
import dev.tandem.controller.CatalogSnapshot;
import dev.tandem.controller.DeclaredType;
import dev.tandem.row.Column;
import dev.tandem.row.DatumType;
import dev.tandem.row.Schema;
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

    /** A column of a catalog relation: its name and PostgreSQL type name. */
    record Col(String name, String type) {
    }

    /** A catalog relation: its schema, name, OID, kind ({@code 'r'} or {@code 'v'}) and columns. */
    record Relation(String schema, String name, long oid, String kind, List<Col> columns) {
        long namespace() {
            return switch (schema) {
                case "pg_catalog" -> PgOids.PG_CATALOG_NAMESPACE;
                case TANDEM_INTERNAL -> PgOids.TANDEM_INTERNAL_NAMESPACE;
                default -> PgOids.INFORMATION_SCHEMA_NAMESPACE;
            };
        }
    }

    /** A PostgreSQL type Tandem lists in {@code pg_type}. */
    record PgType(long oid, String name, int len, boolean byval, String category, boolean preferred, long array, long elem,
            String input, String align, long collation) {
    }

    /** A Tandem relation (table, view or index) as PostgreSQL shows it. */
    record Rel(long oid, String name, String kind, CatalogEntry entry) {
    }

    /** A key of a table, with its constraint OID and the index serving it (0 when none). */
    /** A CHECK constraint of a table, with its OID. */
    record CheckRow(long oid, CatalogEntry.Table table, CatalogEntry.Check check) {
    }

    record KeyRow(long oid, CatalogEntry.Table table, CatalogEntry.Key key, long index) {
    }

    static final List<PgType> TYPES;
    static final Map<Long, PgType> TYPE_BY_OID = new HashMap<>();

    static {
        List<PgType> base = List.of(
                new PgType(16, "bool", 1, true, "B", true, 1000, 0, "boolin", "c", 0),
                new PgType(17, "bytea", -1, false, "U", false, 1001, 0, "byteain", "i", 0),
                new PgType(18, "char", 1, true, "Z", false, 1002, 0, "charin", "c", 0),
                new PgType(19, "name", 64, false, "S", false, 1003, 18, "namein", "c", 950),
                new PgType(20, "int8", 8, true, "N", false, 1016, 0, "int8in", "d", 0),
                new PgType(21, "int2", 2, true, "N", false, 1005, 0, "int2in", "s", 0),
                new PgType(22, "int2vector", -1, false, "A", false, 1006, 21, "int2vectorin", "i", 0),
                new PgType(23, "int4", 4, true, "N", false, 1007, 0, "int4in", "i", 0),
                new PgType(24, "regproc", 4, true, "N", false, 1008, 0, "regprocin", "i", 0),
                new PgType(25, "text", -1, false, "S", true, 1009, 0, "textin", "i", DEFAULT_COLLATION),
                new PgType(26, "oid", 4, true, "N", true, 1028, 0, "oidin", "i", 0),
                new PgType(30, "oidvector", -1, false, "A", false, 1013, 26, "oidvectorin", "i", 0),
                new PgType(114, "json", -1, false, "U", false, 199, 0, "json_in", "i", 0),
                new PgType(194, "pg_node_tree", -1, false, "Z", false, 0, 0, "pg_node_tree_in", "i", DEFAULT_COLLATION),
                new PgType(700, "float4", 4, true, "N", false, 1021, 0, "float4in", "i", 0),
                new PgType(701, "float8", 8, true, "N", true, 1022, 0, "float8in", "d", 0),
                new PgType(1033, "aclitem", 12, false, "U", false, 1034, 0, "aclitemin", "i", 0),
                new PgType(1042, "bpchar", -1, false, "S", false, 1014, 0, "bpcharin", "i", DEFAULT_COLLATION),
                new PgType(1043, "varchar", -1, false, "S", false, 1015, 0, "varcharin", "i", DEFAULT_COLLATION),
                new PgType(1082, "date", 4, true, "D", false, 1182, 0, "date_in", "i", 0),
                new PgType(1083, "time", 8, true, "D", false, 1183, 0, "time_in", "d", 0),
                new PgType(1114, "timestamp", 8, true, "D", false, 1115, 0, "timestamp_in", "d", 0),
                new PgType(1184, "timestamptz", 8, true, "D", true, 1185, 0, "timestamptz_in", "d", 0),
                new PgType(1700, "numeric", -1, false, "N", false, 1231, 0, "numeric_in", "i", 0),
                new PgType(1186, "interval", 16, false, "T", true, 1187, 0, "interval_in", "d", 0),
                new PgType(2950, "uuid", 16, false, "U", false, 2951, 0, "uuid_in", "c", 0),
                new PgType(3802, "jsonb", -1, false, "U", false, 3807, 0, "jsonb_in", "i", 0),
                new PgType(2205, "regclass", 4, true, "N", false, 2210, 0, "regclassin", "i", 0));
        List<PgType> all = new ArrayList<>(base);
        for (PgType t : base) {
            if (t.array() != 0) {
                all.add(new PgType(t.array(), "_" + t.name(), -1, false, "A", false, 0, t.oid(), "array_in", t.align().equals("d") ? "d" : "i",
                        t.collation()));
            }
        }
        TYPES = List.copyOf(all);
        for (PgType t : TYPES) {
            TYPE_BY_OID.put(t.oid(), t);
        }
    }

    static final Map<String, Long> TYPE_OID_BY_NAME = new HashMap<>();

    static {
        for (PgType t : TYPES) {
            TYPE_OID_BY_NAME.put(t.name(), t.oid());
        }
        TYPE_OID_BY_NAME.put("int2[]", 1005L);
        TYPE_OID_BY_NAME.put("oid[]", 1028L);
        TYPE_OID_BY_NAME.put("text[]", 1009L);
        TYPE_OID_BY_NAME.put("aclitem[]", 1034L);
        TYPE_OID_BY_NAME.put("char[]", 1002L);
    }

    /** An instant as PostgreSQL prints a {@code timestamptz} in UTC ({@code 2026-12-05 04:55:45.123+00}). */
    static String timestamptz(long epochMillis) {
        String t = java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS")
                .format(java.time.Instant.ofEpochMilli(epochMillis).atOffset(java.time.ZoneOffset.UTC));
        return t + "+00";
    }

    private static List<Col> cols(String spec) {
        List<Col> out = new ArrayList<>();
        for (String c : spec.trim().split("\\s*,\\s*")) {
            String[] p = c.trim().split("\\s+");
            out.add(new Col(p[0], p[1]));
        }
        return List.copyOf(out);
    }

    /** The {@code tandem_internal} relations over introspection collections, by name. */
    static final Map<String, IntrospectionView> INTROSPECTION_VIEWS = new LinkedHashMap<>();

    /** The catalog's relations, by schema-qualified name ({@code pg_catalog.pg_class}). */
    static final Map<String, Relation> RELATIONS = new LinkedHashMap<>();

    private static void relation(String schema, String name, long oid, String kind, String spec) {
        RELATIONS.put(schema + "." + name, new Relation(schema, name, oid, kind, cols(spec)));
    }

    static {
        relation("pg_catalog", "pg_namespace", 2615, "r", "oid oid, nspname name, nspowner oid, nspacl aclitem[]");
        relation("pg_catalog", "pg_class", 1259, "r", "oid oid, relname name, relnamespace oid, reltype oid, reloftype oid, relowner oid, "
                + "relam oid, relfilenode oid, reltablespace oid, relpages int4, reltuples float4, relallvisible int4, reltoastrelid oid, "
                + "relhasindex bool, relisshared bool, relpersistence char, relkind char, relnatts int2, relchecks int2, relhasrules bool, "
                + "relhastriggers bool, relhassubclass bool, relrowsecurity bool, relforcerowsecurity bool, relispopulated bool, "
                + "relreplident char, relispartition bool, relrewrite oid, relfrozenxid int8, relminmxid int8, relacl aclitem[], "
                + "reloptions text[], relpartbound pg_node_tree");
        relation("pg_catalog", "pg_attribute", 1249, "r", "attrelid oid, attname name, atttypid oid, attstattarget int4, attlen int2, "
                + "attnum int2, attndims int4, attcacheoff int4, atttypmod int4, attbyval bool, attalign char, attstorage char, "
                + "attcompression char, attnotnull bool, atthasdef bool, atthasmissing bool, attidentity char, attgenerated char, "
                + "attisdropped bool, attislocal bool, attinhcount int4, attcollation oid, attacl aclitem[], attoptions text[], "
                + "attfdwoptions text[], attmissingval text");
        relation("pg_catalog", "pg_type", 1247, "r", "oid oid, typname name, typnamespace oid, typowner oid, typlen int2, typbyval bool, "
                + "typtype char, typcategory char, typispreferred bool, typisdefined bool, typdelim char, typrelid oid, typsubscript regproc, "
                + "typelem oid, typarray oid, typinput regproc, typoutput regproc, typreceive regproc, typsend regproc, typmodin regproc, "
                + "typmodout regproc, typanalyze regproc, typalign char, typstorage char, typnotnull bool, typbasetype oid, typtypmod int4, "
                + "typndims int4, typcollation oid, typdefaultbin pg_node_tree, typdefault text, typacl aclitem[]");
        relation("pg_catalog", "pg_index", 2610, "r", "indexrelid oid, indrelid oid, indnatts int2, indnkeyatts int2, indisunique bool, "
                + "indnullsnotdistinct bool, indisprimary bool, indisexclusion bool, indimmediate bool, indisclustered bool, indisvalid bool, "
                + "indcheckxmin bool, indisready bool, indislive bool, indisreplident bool, indkey int2vector, indcollation oidvector, "
                + "indclass oidvector, indoption int2vector, indexprs pg_node_tree, indpred pg_node_tree");
        relation("pg_catalog", "pg_constraint", 2606, "r", "oid oid, conname name, connamespace oid, contype char, condeferrable bool, "
                + "condeferred bool, convalidated bool, conrelid oid, contypid oid, conindid oid, conparentid oid, confrelid oid, "
                + "confupdtype char, confdeltype char, confmatchtype char, conislocal bool, coninhcount int4, connoinherit bool, "
                + "conkey int2[], confkey int2[], conpfeqop oid[], conppeqop oid[], conffeqop oid[], confdelsetcols int2[], conexclop oid[], "
                + "conbin pg_node_tree");
        relation("pg_catalog", "pg_attrdef", 2604, "r", "oid oid, adrelid oid, adnum int2, adbin pg_node_tree");
        relation("pg_catalog", "pg_description", 2609, "r", "objoid oid, classoid oid, objsubid int4, description text");
        relation("pg_catalog", "pg_collation", 3456, "r", "oid oid, collname name, collnamespace oid, collowner oid, collprovider char, "
                + "collisdeterministic bool, collencoding int4, collcollate text, collctype text");
        relation("pg_catalog", "pg_enum", 3501, "r", "oid oid, enumtypid oid, enumsortorder float4, enumlabel name");
        relation("pg_catalog", "pg_inherits", 2611, "r", "inhrelid oid, inhparent oid, inhseqno int4, inhdetachpending bool");
        relation("pg_catalog", "pg_sequence", 2224, "r", "seqrelid oid, seqtypid oid, seqstart int8, seqincrement int8, seqmax int8, "
                + "seqmin int8, seqcache int8, seqcycle bool");
        relation("pg_catalog", "pg_am", 2601, "r", "oid oid, amname name, amhandler regproc, amtype char");
        relation("pg_catalog", "pg_database", 1262, "r", "oid oid, datname name, datdba oid, encoding int4, datlocprovider char, "
                + "datistemplate bool, datallowconn bool, datconnlimit int4, datfrozenxid int8, datminmxid int8, dattablespace oid, "
                + "datcollate text, datctype text, daticulocale text, datcollversion text, datacl aclitem[]");
        relation("pg_catalog", "pg_roles", 12001, "v", "rolname name, rolsuper bool, rolinherit bool, rolcreaterole bool, rolcreatedb bool, "
                + "rolcanlogin bool, rolreplication bool, rolconnlimit int4, rolpassword text, rolvaliduntil timestamptz, rolbypassrls bool, "
                + "rolconfig text[], oid oid");
        relation("pg_catalog", "pg_user", 12002, "v", "usename name, usesysid oid, usecreatedb bool, usesuper bool, userepl bool, "
                + "usebypassrls bool, passwd text, valuntil timestamptz, useconfig text[]");
        relation("pg_catalog", "pg_settings", 12003, "v", "name text, setting text, unit text, category text, short_desc text, "
                + "extra_desc text, context text, vartype text, source text, min_val text, max_val text, enumvals text[], boot_val text, "
                + "reset_val text, sourcefile text, sourceline int4, pending_restart bool");
        relation("pg_catalog", "pg_tables", 12004, "v", "schemaname name, tablename name, tableowner name, tablespace name, "
                + "hasindexes bool, hasrules bool, hastriggers bool, rowsecurity bool");
        relation("pg_catalog", "pg_views", 12005, "v", "schemaname name, viewname name, viewowner name, definition text");
        relation("pg_catalog", "pg_indexes", 12006, "v", "schemaname name, tablename name, indexname name, tablespace name, indexdef text");
        relation("pg_catalog", "pg_matviews", 12007, "v", "schemaname name, matviewname name, matviewowner name, tablespace name, "
                + "hasindexes bool, ispopulated bool, definition text");
        relation("pg_catalog", "pg_proc", 1255, "r", PgProc.COLUMNS);
        relation("pg_catalog", "pg_auth_members", 1261, "r", "roleid oid, member oid, grantor oid, admin_option bool");
        relation("pg_catalog", "pg_stat_activity", 12008, "v", "datid oid, datname name, pid int4, leader_pid int4, usesysid oid, "
                + "usename name, application_name text, client_addr text, client_hostname text, client_port int4, "
                + "backend_start timestamptz, xact_start timestamptz, query_start timestamptz, state_change timestamptz, "
                + "wait_event_type text, wait_event text, state text, backend_xid text, backend_xmin text, query_id int8, query text, "
                + "backend_type text");
        relation("information_schema", "schemata", 13001, "v", "catalog_name information_schema.sql_identifier, "
                + "schema_name information_schema.sql_identifier, schema_owner information_schema.sql_identifier, "
                + "default_character_set_catalog information_schema.sql_identifier, default_character_set_schema information_schema.sql_identifier, "
                + "default_character_set_name information_schema.sql_identifier, sql_path information_schema.character_data");
        relation("information_schema", "tables", 13002, "v", "table_catalog information_schema.sql_identifier, "
                + "table_schema information_schema.sql_identifier, table_name information_schema.sql_identifier, "
                + "table_type information_schema.character_data, self_referencing_column_name information_schema.sql_identifier, "
                + "reference_generation information_schema.character_data, user_defined_type_catalog information_schema.sql_identifier, "
                + "user_defined_type_schema information_schema.sql_identifier, user_defined_type_name information_schema.sql_identifier, "
                + "is_insertable_into information_schema.yes_or_no, is_typed information_schema.yes_or_no, "
                + "commit_action information_schema.character_data");
        relation("information_schema", "columns", 13003, "v", "table_catalog information_schema.sql_identifier, "
                + "table_schema information_schema.sql_identifier, table_name information_schema.sql_identifier, "
                + "column_name information_schema.sql_identifier, ordinal_position information_schema.cardinal_number, "
                + "column_default information_schema.character_data, is_nullable information_schema.yes_or_no, "
                + "data_type information_schema.character_data, character_maximum_length information_schema.cardinal_number, "
                + "character_octet_length information_schema.cardinal_number, numeric_precision information_schema.cardinal_number, "
                + "numeric_precision_radix information_schema.cardinal_number, numeric_scale information_schema.cardinal_number, "
                + "datetime_precision information_schema.cardinal_number, interval_type information_schema.character_data, "
                + "interval_precision information_schema.cardinal_number, udt_catalog information_schema.sql_identifier, "
                + "udt_schema information_schema.sql_identifier, udt_name information_schema.sql_identifier, "
                + "is_identity information_schema.yes_or_no, is_generated information_schema.character_data, "
                + "generation_expression information_schema.character_data, is_updatable information_schema.yes_or_no");
        relation("information_schema", "table_constraints", 13004, "v", "constraint_catalog information_schema.sql_identifier, "
                + "constraint_schema information_schema.sql_identifier, constraint_name information_schema.sql_identifier, "
                + "table_catalog information_schema.sql_identifier, table_schema information_schema.sql_identifier, "
                + "table_name information_schema.sql_identifier, constraint_type information_schema.character_data, "
                + "is_deferrable information_schema.yes_or_no, initially_deferred information_schema.yes_or_no, "
                + "enforced information_schema.yes_or_no, nulls_distinct information_schema.yes_or_no");
        relation("information_schema", "key_column_usage", 13005, "v", "constraint_catalog information_schema.sql_identifier, "
                + "constraint_schema information_schema.sql_identifier, constraint_name information_schema.sql_identifier, "
                + "table_catalog information_schema.sql_identifier, table_schema information_schema.sql_identifier, "
                + "table_name information_schema.sql_identifier, column_name information_schema.sql_identifier, "
                + "ordinal_position information_schema.cardinal_number, position_in_unique_constraint information_schema.cardinal_number");
        relation("information_schema", "views", 13006, "v", "table_catalog information_schema.sql_identifier, "
                + "table_schema information_schema.sql_identifier, table_name information_schema.sql_identifier, "
                + "view_definition information_schema.character_data, check_option information_schema.character_data, "
                + "is_updatable information_schema.yes_or_no, is_insertable_into information_schema.yes_or_no, "
                + "is_trigger_updatable information_schema.yes_or_no, is_trigger_deletable information_schema.yes_or_no, "
                + "is_trigger_insertable_into information_schema.yes_or_no");
        relation("information_schema", "referential_constraints", 13007, "v", "constraint_catalog information_schema.sql_identifier, "
                + "constraint_schema information_schema.sql_identifier, constraint_name information_schema.sql_identifier, "
                + "unique_constraint_catalog information_schema.sql_identifier, unique_constraint_schema information_schema.sql_identifier, "
                + "unique_constraint_name information_schema.sql_identifier, match_option information_schema.character_data, "
                + "update_rule information_schema.character_data, delete_rule information_schema.character_data");
        relation("information_schema", "routines", 13008, "v", "specific_catalog information_schema.sql_identifier, "
                + "specific_schema information_schema.sql_identifier, specific_name information_schema.sql_identifier, "
                + "routine_catalog information_schema.sql_identifier, routine_schema information_schema.sql_identifier, "
                + "routine_name information_schema.sql_identifier, routine_type information_schema.character_data, "
                + "data_type information_schema.character_data, type_udt_name information_schema.sql_identifier, "
                + "routine_body information_schema.character_data, routine_definition information_schema.character_data, "
                + "external_language information_schema.character_data, is_deterministic information_schema.yes_or_no, "
                + "security_type information_schema.character_data");
        // Tandem's own introspection: the index statuses, and each introspection collection as the REST API serves it
        relation(TANDEM_INTERNAL, "indexes", 13101, "v", "oid oid, id text, name text, on_relation text, key text[], state text, "
                + "hydrated bool, error text, data_error text, write_frontier int8, since int8, records int8, bytes int8, as_of int8, "
                + "compaction_window_ms int8");
        introspection("dataflows", 13102, "tandem_dataflows", "id", true,
                "id text, name text, worker int8, as_of int8, hydrated bool, hydration_ms int8, error text");
        introspection("frontiers", 13103, "tandem_frontiers", "collection_id", true, "collection_id text, write_frontier int8, since int8");
        introspection("arrangement_sizes", 13104, "tandem_arrangement_sizes", "collection_id", true,
                "collection_id text, worker int8, records int8, batches int8, bytes int8");
        introspection("operator_elapsed", 13105, "tandem_operator_elapsed", "dataflow", true,
                "dataflow text, operator text, worker int8, elapsed_ns int8, invocations int8");
        introspection("read_holds", 13106, "tandem_read_holds", "collection_id", true, "collection_id text, holder text, frontier int8");
        introspection("hydration_progress", 13107, "tandem_hydration_progress", "dataflow", true,
                "dataflow text, records_processed int8, records_total int8");
        introspection("subscriptions", 13108, "tandem_subscriptions", "index", false,
                "id int8, index text, subscriber text, delivered int8, lag_ms int8, buffered int8, messages int8, bytes int8");
        introspection("sources", 13109, "tandem_sources", "name", false, "name text, topic text, envelope text, partitions int8, "
                + "offsets text, end_offsets text, lag int8, records int8, errors int8, state text, detail text, ingesting bool, decoded int8");
        introspection("source_errors", 13110, "tandem_source_errors", "source", false,
                "source text, partition int8, offset int8, error text, value text");
        introspection("storage_errors", 13111, "tandem_storage_errors", "table", false,
                "table text, row text, multiplicity int8, log_offset int8, error text");
        introspection("pg_sources", 13112, "tandem_pg_sources", "name", false, "name text, publication text, slot text, tables text, "
                + "state text, detail text, lsn text, rows_copied int8, transactions int8, lag_seconds float8, bytes_behind int8, "
                + "table_errors text");
    }

    /**
     * A {@code tandem_internal} relation over introspection collection {@code collection}, whose rows a
     * caller sees when it may read the object column {@code about} names (by its catalog id when {@code byId}):
     * a row about no catalog object (a transient dataflow of a one-off read) is shown to no one.
     */
    record IntrospectionView(String collection, String about, boolean byId) {
    }

    private static void introspection(String name, long oid, String collection, String about, boolean byId, String spec) {
        relation(TANDEM_INTERNAL, name, oid, "v", spec);
        INTROSPECTION_VIEWS.put(name, new IntrospectionView(collection, about, byId));
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
        Relation c = RELATIONS.get(n.contains(".") ? n : "pg_catalog." + n);
        return c == null ? null : c.oid();
    }

    /** The name {@code regclass} shows for {@code oid}: qualified when not on the search path. */
    String relationName(long oid) {
        Rel r = rels.get(oid);
        if (r != null) {
            return PgCatalogFunctions.quoteIdent(r.name());
        }
        for (Relation c : RELATIONS.values()) {
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
        for (Relation c : RELATIONS.values()) {
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

    // ------------------------------------------------------------------ rows

    /** The rows of {@code relation} ({@code schema.name}), each as Calcite reads them (Long, Double, String, Boolean or List). */
    List<Object[]> rows(Relation relation) {
        List<Object[]> out = new ArrayList<>();
        switch (relation.schema() + "." + relation.name()) {
            case "pg_catalog.pg_namespace" -> NAMESPACES.forEach((name, oid) -> out.add(row(oid, name, OWNER_OID, null)));
            case "pg_catalog.pg_class" -> {
                for (Relation c : RELATIONS.values()) {
                    out.add(classRow(c.oid(), c.name(), c.namespace(), c.kind(), c.columns().size(), false, c.kind().equals("r") ? HEAP_AM : 0));
                }
                for (Rel r : rels.values()) {
                    boolean hasIndex = rels.values().stream().anyMatch(x -> x.entry() instanceof CatalogEntry.Index i && i.on().equals(r.name()));
                    long am = switch (r.kind()) {
                        case "r" -> HEAP_AM;
                        case "i" -> BTREE_AM;
                        default -> 0;
                    };
                    int natts = r.entry() instanceof CatalogEntry.Index i ? i.key().size() : r.entry().schema().columns().size();
                    out.add(classRow(r.oid(), r.name(), PgOids.PUBLIC_NAMESPACE, r.kind(), natts, hasIndex, am));
                }
            }
            case "pg_catalog.pg_attribute" -> {
                for (Relation c : RELATIONS.values()) {
                    for (int k = 0; k < c.columns().size(); k++) {
                        Col col = c.columns().get(k);
                        long type = TYPE_OID_BY_NAME.getOrDefault(col.type().startsWith("information_schema.") ? "varchar" : col.type(), 25L);
                        out.add(attributeRow(c.oid(), col.name(), type, k + 1, false));
                    }
                }
                for (Rel r : rels.values()) {
                    if (r.entry() instanceof CatalogEntry.Index i) {
                        for (int k = 0; k < i.key().size(); k++) {
                            Column c = i.schema().column(i.schema().indexOf(i.key().get(k)));
                            // an index's attributes are never NOT NULL, as in PostgreSQL (the table's columns are)
                            out.add(attributeRow(r.oid(), c.name(), PgOids.ofType(c.type()), k + 1, false));
                        }
                    } else {
                        List<Column> columns = r.entry().schema().columns();
                        for (int k = 0; k < columns.size(); k++) {
                            Column c = columns.get(k);
                            DeclaredType d = declared(r.entry(), k);
                            Object[] row = d == null ? attributeRow(r.oid(), c.name(), PgOids.ofType(c.type()), k + 1, !c.nullable())
                                    : attributeRow(r.oid(), c.name(), d.oid(), d.typmod(), k + 1, !c.nullable());
                            row[ATTHASDEF] = PgDefaults.text(r.entry(), k) != null;
                            out.add(row);
                        }
                    }
                }
            }
            case "pg_catalog.pg_type" -> {
                for (PgType t : TYPES) {
                    String output = t.input().endsWith("in") ? t.input().substring(0, t.input().length() - 2) + "out"
                            : t.input().replace("_in", "_out");
                    String recv = t.input().endsWith("in") ? t.input().substring(0, t.input().length() - 2) + "recv"
                            : t.input().replace("_in", "_recv");
                    String send = t.input().endsWith("in") ? t.input().substring(0, t.input().length() - 2) + "send"
                            : t.input().replace("_in", "_send");
                    out.add(row(t.oid(), t.name(), PgOids.PG_CATALOG_NAMESPACE, OWNER_OID, (long) t.len(), t.byval(), "b", t.category(),
                            t.preferred(), true, ",", 0L, t.category().equals("A") ? "array_subscript_handler" : "-", t.elem(), t.array(),
                            t.input(), output, recv, send, "-", "-", "-", t.align(), t.len() == -1 ? "x" : "p", false, 0L, -1L, 0L,
                            t.collation(), null, null, null));
                }
            }
            case "pg_catalog.pg_index" -> {
                for (Rel r : rels.values()) {
                    if (r.entry() instanceof CatalogEntry.Index i) {
                        Rel on = relByName.get(i.on());
                        KeyRow key = keys.stream().filter(k -> k.index() == r.oid()).findFirst().orElse(null);
                        boolean primary = key != null && key.key().primary();
                        boolean unique = key != null;
                        List<Long> attnums = new ArrayList<>();
                        List<Long> collations = new ArrayList<>();
                        List<Long> zeros = new ArrayList<>();
                        for (String k : i.key()) {
                            int pos = i.schema().indexOf(k);
                            attnums.add((long) pos + 1);
                            collations.add(i.schema().column(pos).type() == DatumType.STRING ? DEFAULT_COLLATION : 0L);
                            zeros.add(0L);
                        }
                        out.add(row(r.oid(), on == null ? 0L : on.oid(), (long) i.key().size(), (long) i.key().size(), unique, false, primary,
                                false, true, false, true, false, true, true, false, attnums, collations, zeros, zeros, null, null));
                    }
                }
            }
            case "pg_catalog.pg_constraint" -> {
                for (KeyRow k : keys) {
                    Schema s = k.table().schema();
                    List<Long> attnums = k.key().columns().stream().map(c -> (long) s.indexOf(c) + 1).toList();
                    out.add(row(k.oid(), k.key().name(), PgOids.PUBLIC_NAMESPACE, k.key().primary() ? "p" : "u", false, false, true,
                            PgOids.ofCatalogId(k.table().id()), 0L, k.index(), 0L, 0L, " ", " ", " ", true, 0L, true, attnums, null, null,
                            null, null, null, null, null));
                }
                for (CheckRow c : checks) {
                    out.add(row(c.oid(), c.check().name(), PgOids.PUBLIC_NAMESPACE, "c", false, false, true,
                            PgOids.ofCatalogId(c.table().id()), 0L, 0L, 0L, 0L, " ", " ", " ", true, 0L, false, columnsRead(c), null, null,
                            null, null, null, null, c.check().text()));
                }
            }
            case "pg_catalog.pg_proc" -> out.addAll(PgProc.rows());
            case "pg_catalog.pg_stat_activity" -> {
                for (Backend b : access.backends().get()) {
                    boolean hidden = b.query() == null;
                    out.add(row((long) PgOids.DATABASE, DATABASE, (long) b.pid(), null, OWNER_OID, b.user(), b.application(), b.address(), null,
                            b.port() < 0 ? null : (long) b.port(), timestamptz(b.backendStartMillis()), null,
                            hidden || b.queryStartMillis() == 0 ? null : timestamptz(b.queryStartMillis()), null, null, null,
                            hidden ? null : b.state(), null, null, null, hidden ? "<insufficient privilege>" : b.query(), "client backend"));
                }
            }
            case "pg_catalog.pg_matviews", "pg_catalog.pg_auth_members", "information_schema.referential_constraints", "information_schema.routines" -> {
            }
            case "pg_catalog.pg_attrdef" -> {
                for (Rel r : rels.values()) {
                    if (r.entry() instanceof CatalogEntry.Table t) {
                        for (int k = 0; k < t.schema().arity(); k++) {
                            String text = PgDefaults.text(t, k);
                            if (text != null) {
                                out.add(row(PgOids.ofDefault(t.id(), k + 1), r.oid(), (long) (k + 1), text));
                            }
                        }
                    }
                }
            }
            case "pg_catalog.pg_description", "pg_catalog.pg_collation", "pg_catalog.pg_enum",
                    "pg_catalog.pg_inherits", "pg_catalog.pg_sequence" -> {
            }
            case "pg_catalog.pg_am" -> {
                out.add(row(HEAP_AM, "heap", "heap_tableam_handler", "t"));
                out.add(row(BTREE_AM, "btree", "bthandler", "i"));
            }
            case "pg_catalog.pg_database" -> out.add(row(PgOids.DATABASE, DATABASE, OWNER_OID, 6L, "c", false, true, -1L, 0L, 1L, 1663L, "C", "C",
                    null, null, null));
            case "pg_catalog.pg_roles" -> out.add(row(OWNER, true, true, true, true, true, false, -1L, "********", null, true, null, OWNER_OID));
            case "pg_catalog.pg_user" -> out.add(row(OWNER, OWNER_OID, true, true, false, true, "********", null, null));
            case "pg_catalog.pg_settings" -> {
                for (PgSettings.Setting s : PgSettings.ALL) {
                    out.add(row(s.name(), s.value(), s.unit(), s.category(), s.description(), null, s.context(), s.type(),
                            s.context().equals("internal") ? "default" : "session", null, null, null, s.value(), s.value(), null, null, false));
                }
            }
            case "pg_catalog.pg_tables" -> {
                for (Relation c : RELATIONS.values()) {
                    if (c.kind().equals("r")) {
                        out.add(row(c.schema(), c.name(), OWNER, null, false, false, false, false));
                    }
                }
                for (Rel r : rels.values()) {
                    if (r.kind().equals("r")) {
                        boolean hasIndex = rels.values().stream().anyMatch(x -> x.entry() instanceof CatalogEntry.Index i && i.on().equals(r.name()));
                        out.add(row("public", r.name(), OWNER, null, hasIndex, false, false, false));
                    }
                }
            }
            case "pg_catalog.pg_views" -> {
                for (Relation c : RELATIONS.values()) {
                    if (c.kind().equals("v")) {
                        out.add(row(c.schema(), c.name(), OWNER, null));
                    }
                }
                for (Rel r : rels.values()) {
                    if (r.kind().equals("v")) {
                        out.add(row("public", r.name(), OWNER, null));
                    }
                }
            }
            case "pg_catalog.pg_indexes" -> {
                for (Rel r : rels.values()) {
                    if (r.entry() instanceof CatalogEntry.Index i) {
                        out.add(row("public", i.on(), r.name(), null, PgCatalogFunctions.indexDef(this, r.oid())));
                    }
                }
            }
            case "information_schema.schemata" -> {
                for (String s : List.of("information_schema", "pg_catalog", "public", TANDEM_INTERNAL)) {
                    out.add(row(DATABASE, s, OWNER, null, null, null, null));
                }
            }
            case "information_schema.tables" -> {
                for (Relation c : RELATIONS.values()) {
                    out.add(tablesRow(c.schema(), c.name(), c.kind()));
                }
                for (Rel r : rels.values()) {
                    if (!r.kind().equals("i")) {
                        out.add(tablesRow("public", r.name(), r.kind()));
                    }
                }
            }
            case "information_schema.columns" -> {
                for (Relation c : RELATIONS.values()) {
                    for (int k = 0; k < c.columns().size(); k++) {
                        Col col = c.columns().get(k);
                        String type = col.type().startsWith("information_schema.") ? "varchar" : col.type();
                        out.add(columnsRow(c.schema(), c.name(), col.name(), k + 1, true, TYPE_OID_BY_NAME.getOrDefault(type, 25L)));
                    }
                }
                for (Rel r : rels.values()) {
                    if (!r.kind().equals("i")) {
                        List<Column> columns = r.entry().schema().columns();
                        for (int k = 0; k < columns.size(); k++) {
                            Column c = columns.get(k);
                            DeclaredType d = declared(r.entry(), k);
                            Object[] row = d == null ? columnsRow("public", r.name(), c.name(), k + 1, c.nullable(), PgOids.ofType(c.type()))
                                    : columnsRow("public", r.name(), c.name(), k + 1, c.nullable(), d.oid(), d.typmod());
                            row[COLUMN_DEFAULT] = PgDefaults.text(r.entry(), k);
                            out.add(row);
                        }
                    }
                }
            }
            case "information_schema.table_constraints" -> {
                for (KeyRow k : keys) {
                    out.add(row(DATABASE, "public", k.key().name(), DATABASE, "public", k.table().name(),
                            k.key().primary() ? "PRIMARY KEY" : "UNIQUE", "NO", "NO", "YES", k.key().primary() ? null : "YES"));
                }
                for (CheckRow c : checks) {
                    out.add(row(DATABASE, "public", c.check().name(), DATABASE, "public", c.table().name(), "CHECK", "NO", "NO", "YES", null));
                }
            }
            case "information_schema.key_column_usage" -> {
                for (KeyRow k : keys) {
                    for (int c = 0; c < k.key().columns().size(); c++) {
                        out.add(row(DATABASE, "public", k.key().name(), DATABASE, "public", k.table().name(), k.key().columns().get(c),
                                (long) c + 1, null));
                    }
                }
            }
            case "information_schema.views" -> {
                for (Rel r : rels.values()) {
                    if (r.kind().equals("v")) {
                        out.add(row(DATABASE, "public", r.name(), null, "NONE", "NO", "NO", "NO", "NO", "NO"));
                    }
                }
            }
            case "tandem_internal.indexes" -> {
                for (dev.tandem.controller.IndexStatus s : access.introspected().indexes()) {
                    Rel r = relByName.get(s.name());
                    if (r == null || !r.entry().id().equals(s.id())) {
                        continue; // not granted, or dropped and created again since the snapshot
                    }
                    var upper = s.writeFrontier();
                    var since = s.since();
                    out.add(row(r.oid(), s.id(), s.name(), s.on(), List.copyOf(s.key()), s.state(), s.hydrated(), s.error(), s.dataError(),
                            upper.isEmpty() ? null : upper.time(), since.isEmpty() ? null : since.time(), s.records(), bytes(s.id()), s.asOf(),
                            s.windowMillis()));
                }
            }
            default -> {
                IntrospectionView v = INTROSPECTION_VIEWS.get(relation.name());
                if (v == null || !relation.schema().equals(TANDEM_INTERNAL)) {
                    throw new IllegalStateException("no rows for " + relation.name());
                }
                int about = -1;
                for (int i = 0; i < relation.columns().size(); i++) {
                    if (relation.columns().get(i).name().equals(v.about())) {
                        about = i;
                    }
                }
                for (Object[] r : access.introspected().rows(v.collection())) {
                    Object o = r[about];
                    String name = o == null ? null : v.byId() ? nameOfId(o.toString()) : o.toString();
                    if (name != null && access.mayAccess().test(name)) {
                        out.add(row(r));
                    }
                }
            }
        }
        return out;
    }

    /** The name of the object with catalog id {@code id}: a table, view or index, or an introspection collection (null: none). */
    private String nameOfId(String id) {
        for (CatalogEntry e : snapshot.entries()) {
            if (e.id().equals(id)) {
                return e.name();
            }
        }
        for (dev.tandem.controller.IndexStatus s : access.introspected().system()) {
            if (s.id().equals(id)) {
                return s.name();
            }
        }
        return null;
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

    private static Object[] row(Object... values) {
        Object[] r = Arrays.copyOf(values, values.length);
        for (int i = 0; i < r.length; i++) {
            if (r[i] instanceof Integer n) {
                r[i] = n.longValue();
            }
        }
        return r;
    }

    private static Object[] classRow(long oid, String name, long namespace, String kind, int natts, boolean hasIndex, long am) {
        return row(oid, name, namespace, 0L, 0L, OWNER_OID, am, kind.equals("v") ? 0L : oid, 0L, 0L, kind.equals("i") ? 0.0 : -1.0, 0L, 0L,
                hasIndex, false, "p", kind, (long) natts, 0L, false, false, false, false, false, true, kind.equals("r") ? "d" : "n", false, 0L,
                0L, 0L, null, null, null);
    }

    /**
     * The declared type of column {@code c} of {@code entry}, or null: a table's column declared {@code integer},
     * {@code varchar(n)}, {@code numeric(p, s)}, a view's column its query types {@code integer} or {@code smallint}.
     */
    private static DeclaredType declared(CatalogEntry entry, int c) {
        return switch (entry) {
            case CatalogEntry.Table t -> t.declaredType(c);
            case CatalogEntry.View v -> v.declaredType(c);
            default -> null;
        };
    }

    /** Where {@code pg_attribute.atthasdef} is in its row. */
    private static final int ATTHASDEF = 14;
    /** Where {@code information_schema.columns.column_default} is in its row. */
    private static final int COLUMN_DEFAULT = 5;

    /** The column numbers (1-based, ascending) a check's condition reads, as {@code pg_constraint.conkey} lists them. */
    private static List<Long> columnsRead(CheckRow c) {
        return c.check().columns().stream().map(i -> (long) i + 1).toList();
    }

    private static Object[] attributeRow(long rel, String name, long type, int num, boolean notNull) {
        return attributeRow(rel, name, type, -1L, num, notNull);
    }

    private static Object[] attributeRow(long rel, String name, long type, long typmod, int num, boolean notNull) {
        PgType t = TYPE_BY_OID.get(type);
        long len = t == null ? -1 : t.len();
        boolean byval = t != null && t.byval();
        String align = t == null ? "i" : t.align();
        long collation = t == null ? 0 : t.collation();
        return row(rel, name, type, -1L, len, (long) num, 0L, -1L, typmod, byval, align, len == -1 ? "x" : "p", "", notNull, false, false, "", "",
                false, true, 0L, collation, null, null, null, null);
    }

    private static Object[] tablesRow(String schema, String name, String kind) {
        return row(DATABASE, schema, name, kind.equals("v") ? "VIEW" : "BASE TABLE", null, null, null, null, null, kind.equals("v") ? "NO" : "YES",
                "NO", null);
    }

    private static Object[] columnsRow(String schema, String table, String column, int position, boolean nullable, long type) {
        return columnsRow(schema, table, column, position, nullable, type, -1L);
    }

    private static Object[] columnsRow(String schema, String table, String column, int position, boolean nullable, long type, long typmod) {
        String dataType = switch ((int) type) {
            case 16 -> "boolean";
            case 20 -> "bigint";
            case 21 -> "smallint";
            case 23 -> "integer";
            case 25 -> "text";
            case 26 -> "oid";
            case 19 -> "name";
            case 18 -> "\"char\"";
            case 700 -> "real";
            case 701 -> "double precision";
            case 1043 -> "character varying";
            case 1700 -> "numeric";
            case 1114 -> "timestamp without time zone";
            case 1184 -> "timestamp with time zone";
            case 3802 -> "jsonb";
            case 17 -> "bytea";
            default -> TYPE_BY_OID.containsKey(type) && TYPE_BY_OID.get(type).category().equals("A") ? "ARRAY" : "USER-DEFINED";
        };
        Long precision = switch ((int) type) {
            case 20 -> 64L;
            case 21 -> 16L;
            case 23 -> 32L;
            case 700 -> 24L;
            case 701 -> 53L;
            default -> null;
        };
        Long radix = precision == null ? null : 2L;
        Long scale = type == 20 || type == 21 || type == 23 ? 0L : null;
        if (type == 1700 && typmod >= 4) {
            precision = (typmod - 4) >> 16;
            scale = (typmod - 4) & 0xffff;
            radix = 10L;
        } else if (type == 1700) {
            radix = 10L;
        }
        Long datetime = type == 1114 || type == 1184 ? 6L : null;
        Long length = type == 1043 && typmod >= 4 ? typmod - 4 : null;
        Long octets = length != null ? Long.valueOf(4 * length) : type == 25 || type == 1043 ? Long.valueOf(1073741824L) : null;
        PgType t = TYPE_BY_OID.get(type);
        return row(DATABASE, schema, table, column, (long) position, null, nullable ? "YES" : "NO", dataType, length, octets, precision, radix, scale,
                datetime, null, null, DATABASE, "pg_catalog", t == null ? null : t.name(), "NO", "NEVER", null, schema.equals("public") ? "YES" : "NO");
    }
}
