package dev.tandem.sql.catalog;

import static dev.tandem.sql.catalog.PgCatalogData.TANDEM_INTERNAL;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The relations of {@code pg_catalog}, {@code information_schema} and {@code tandem_internal} Tandem serves: each one's
 * schema, name, OID, kind and columns with their PostgreSQL types, and the introspection collection each
 * {@code tandem_internal} relation over one shows.
 */
final class CatalogRelations {

    private CatalogRelations() {
    }

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

    /**
     * A {@code tandem_internal} relation over introspection collection {@code collection}, whose rows a
     * caller sees when it may read the object column {@code about} names (by its catalog id when {@code byId}):
     * a row about no catalog object (a transient dataflow of a one-off read) is shown to no one.
     */
    record IntrospectionView(String collection, String about, boolean byId) {
    }

    /** The {@code tandem_internal} relations over introspection collections, by name. */
    static final Map<String, IntrospectionView> INTROSPECTION_VIEWS = new LinkedHashMap<>();

    /** The catalog's relations, by schema-qualified name ({@code pg_catalog.pg_class}). */
    static final Map<String, Relation> ALL = new LinkedHashMap<>();

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

    private static void relation(String schema, String name, long oid, String kind, String spec) {
        ALL.put(schema + "." + name, new Relation(schema, name, oid, kind, cols(spec)));
    }

    private static void introspection(String name, long oid, String collection, String about, boolean byId, String spec) {
        relation(TANDEM_INTERNAL, name, oid, "v", spec);
        INTROSPECTION_VIEWS.put(name, new IntrospectionView(collection, about, byId));
    }

    private static List<Col> cols(String spec) {
        List<Col> out = new ArrayList<>();
        for (String c : spec.trim().split("\\s*,\\s*")) {
            String[] p = c.trim().split("\\s+");
            out.add(new Col(p[0], p[1]));
        }
        return List.copyOf(out);
    }
}
