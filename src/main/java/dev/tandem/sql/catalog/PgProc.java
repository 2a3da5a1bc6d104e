package dev.tandem.sql.catalog;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * {@code pg_proc}: the functions a catalog query may call, each signature with PostgreSQL 15's OID,
 * argument and result types, so a client looking a function up finds what it can call. No function of
 * a user's: Tandem has none ({@code information_schema.routines} is empty).
 */
final class PgProc {

    static final String COLUMNS = "oid oid, proname name, pronamespace oid, proowner oid, prolang oid, procost float4, prorows float4, "
            + "provariadic oid, prosupport regproc, prokind char, prosecdef bool, proleakproof bool, proisstrict bool, proretset bool, "
            + "provolatile char, proparallel char, pronargs int2, pronargdefaults int2, prorettype oid, proargtypes oidvector, "
            + "proallargtypes oid[], proargmodes char[], proargnames text[], proargdefaults pg_node_tree, protrftypes oid[], prosrc text, "
            + "probin text, prosqlbody pg_node_tree, proconfig text[], proacl aclitem[]";

    /** Each signature: OID, name, result type, argument types (space-separated), volatility, strictness, internal name. */
    private static final String[] SIGNATURES = {
        "2176 array_length 23 2277,23 i t array_length",
        "2091 array_lower 23 2277,23 i t array_lower",
        "395 array_to_string 25 2277,25 s t array_to_text",
        "2092 array_upper 23 2277,23 i t array_upper",
        "1216 col_description 25 26,23 s t -",
        "861 current_database 19 - s t current_database",
        "2077 current_setting 25 25 s t show_config_by_name",
        "3294 current_setting 25 25,16 s t show_config_by_name_missing_ok",
        "1081 format_type 25 26,23 s f format_type",
        "1069 generate_series 20 20,20 i t generate_series_int8",
        "3012 has_column_privilege 16 19,25,25,25 s t has_column_privilege_name_name_name",
        "3013 has_column_privilege 16 19,25,21,25 s t has_column_privilege_name_name_attnum",
        "3014 has_column_privilege 16 19,26,25,25 s t has_column_privilege_name_id_name",
        "3015 has_column_privilege 16 19,26,21,25 s t has_column_privilege_name_id_attnum",
        "3016 has_column_privilege 16 26,25,25,25 s t has_column_privilege_id_name_name",
        "3017 has_column_privilege 16 26,25,21,25 s t has_column_privilege_id_name_attnum",
        "3018 has_column_privilege 16 26,26,25,25 s t has_column_privilege_id_id_name",
        "3019 has_column_privilege 16 26,26,21,25 s t has_column_privilege_id_id_attnum",
        "3020 has_column_privilege 16 25,25,25 s t has_column_privilege_name_name",
        "3021 has_column_privilege 16 25,21,25 s t has_column_privilege_name_attnum",
        "3022 has_column_privilege 16 26,25,25 s t has_column_privilege_id_name",
        "3023 has_column_privilege 16 26,21,25 s t has_column_privilege_id_attnum",
        "2250 has_database_privilege 16 19,25,25 s t has_database_privilege_name_name",
        "2251 has_database_privilege 16 19,26,25 s t has_database_privilege_name_id",
        "2252 has_database_privilege 16 26,25,25 s t has_database_privilege_id_name",
        "2253 has_database_privilege 16 26,26,25 s t has_database_privilege_id_id",
        "2254 has_database_privilege 16 25,25 s t has_database_privilege_name",
        "2255 has_database_privilege 16 26,25 s t has_database_privilege_id",
        "2268 has_schema_privilege 16 19,25,25 s t has_schema_privilege_name_name",
        "2269 has_schema_privilege 16 19,26,25 s t has_schema_privilege_name_id",
        "2270 has_schema_privilege 16 26,25,25 s t has_schema_privilege_id_name",
        "2271 has_schema_privilege 16 26,26,25 s t has_schema_privilege_id_id",
        "2272 has_schema_privilege 16 25,25 s t has_schema_privilege_name",
        "2273 has_schema_privilege 16 26,25 s t has_schema_privilege_id",
        "1922 has_table_privilege 16 19,25,25 s t has_table_privilege_name_name",
        "1923 has_table_privilege 16 19,26,25 s t has_table_privilege_name_id",
        "1924 has_table_privilege 16 26,25,25 s t has_table_privilege_id_name",
        "1925 has_table_privilege 16 26,26,25 s t has_table_privilege_id_id",
        "1926 has_table_privilege 16 25,25 s t has_table_privilege_name",
        "1927 has_table_privilege 16 26,25 s t has_table_privilege_id",
        "1215 obj_description 25 26,19 s t -",
        "1348 obj_description 25 26 s t -",
        "2026 pg_backend_pid 23 - s t pg_backend_pid",
        "1597 pg_encoding_to_char 19 23 s t PG_encoding_to_char",
        "1387 pg_get_constraintdef 25 26 s t pg_get_constraintdef",
        "2508 pg_get_constraintdef 25 26,16 s t pg_get_constraintdef_ext",
        "1716 pg_get_expr 25 194,26 s t pg_get_expr",
        "2509 pg_get_expr 25 194,26,16 s t pg_get_expr_ext",
        "1643 pg_get_indexdef 25 26 s t pg_get_indexdef",
        "2507 pg_get_indexdef 25 26,23,16 s t pg_get_indexdef_ext",
        "1665 pg_get_serial_sequence 25 25,25 s t pg_get_serial_sequence",
        "1642 pg_get_userbyid 19 26 s t pg_get_userbyid",
        "1641 pg_get_viewdef 25 26 s t pg_get_viewdef",
        "2506 pg_get_viewdef 25 26,16 s t pg_get_viewdef_ext",
        "2705 pg_has_role 16 19,19,25 s t pg_has_role_name_name",
        "2706 pg_has_role 16 19,26,25 s t pg_has_role_name_id",
        "2707 pg_has_role 16 26,19,25 s t pg_has_role_id_name",
        "2708 pg_has_role 16 26,26,25 s t pg_has_role_id_id",
        "2709 pg_has_role 16 19,25 s t pg_has_role_name",
        "2710 pg_has_role 16 26,25 s t pg_has_role_id",
        "2288 pg_size_pretty 25 20 i t pg_size_pretty",
        "2079 pg_table_is_visible 16 26 s t pg_table_is_visible",
        "2080 pg_type_is_visible 16 26 s t pg_type_is_visible",
        "1282 quote_ident 25 25 i t quote_ident",
        "1993 shobj_description 25 26,19 s t -",
        "89 version 25 - s t pgsql_version"};

    private static final long INTERNAL_LANGUAGE = 12;
    private static final long SQL_LANGUAGE = 14;

    private PgProc() {
    }

    static List<Object[]> rows() {
        List<Object[]> out = new ArrayList<>();
        for (String signature : SIGNATURES) {
            String[] f = signature.split(" ");
            List<Long> args = f[3].equals("-") ? List.of() : Arrays.stream(f[3].split(",")).map(Long::valueOf).toList();
            // the description functions are SQL functions in PostgreSQL; the others are internal
            boolean sql = f[6].equals("-");
            out.add(new Object[] {Long.valueOf(f[0]), f[1], (long) PgOids.PG_CATALOG_NAMESPACE, PgCatalogData.OWNER_OID,
                sql ? SQL_LANGUAGE : INTERNAL_LANGUAGE, f[1].equals("generate_series") ? 1.0 : sql ? 100.0 : 1.0,
                f[1].equals("generate_series") ? 1000.0 : 0.0, 0L, "-", "f", false, false, f[5].equals("t"), f[1].equals("generate_series"),
                f[4], "s", (long) args.size(), 0L, Long.valueOf(f[2]), args, null, null, null, null, null, sql ? "" : f[6], null, null, null,
                null});
        }
        return out;
    }
}
