package dev.tandem.sql.catalog;

import dev.tandem.row.DatumType;

/**
 * The object identifiers Tandem shows PostgreSQL clients, in one place so that {@code pg_catalog}'s
 * relations, the functions that take an OID ({@code pg_get_indexdef}, {@code format_type},
 * {@code ::regclass}) and the wire protocol's row descriptions agree.
 *
 * <p>A user object's OID follows from its catalog id ({@code u<N>}, allocated once and kept across
 * restarts and replicas): {@code 16384 + N}, PostgreSQL's first OID for user objects plus the id's number,
 * so it is stable too. Namespaces and types have PostgreSQL's own OIDs.
 */
public final class PgOids {
    /** PostgreSQL's first OID for objects that are not built in. */
    public static final int FIRST_USER_OID = 16384;

    public static final int PG_CATALOG_NAMESPACE = 11;
    public static final int PUBLIC_NAMESPACE = 2200;
    /** {@code information_schema} (PostgreSQL gives it a build-dependent OID; this one is Tandem's). */
    public static final int INFORMATION_SCHEMA_NAMESPACE = 13000;
    /** Tandem's own introspection schema, {@code tandem_internal}. */
    public static final int TANDEM_INTERNAL_NAMESPACE = 13100;

    public static final int BOOL = 16;
    public static final int NAME = 19;
    public static final int INT8 = 20;
    public static final int INT2 = 21;
    public static final int INT4 = 23;
    public static final int TEXT = 25;
    public static final int OID = 26;
    public static final int FLOAT4 = 700;
    public static final int FLOAT8 = 701;
    public static final int VARCHAR = 1043;
    public static final int TIMESTAMP = 1114;
    public static final int TIMESTAMPTZ = 1184;
    public static final int DATE = 1082;
    public static final int INTERVAL = 1186;
    public static final int TIME = 1083;
    public static final int UUID = 2950;
    public static final int JSONB = 3802;
    public static final int BYTEA = 17;
    public static final int NUMERIC = 1700;

    /** The database's OID ({@code pg_database.oid} of the one database, {@code tandem}). */
    public static final int DATABASE = 16383;

    private PgOids() {
    }

    /** The OID of the user object (table, view or index) with catalog id {@code id}, e.g. {@code u7} → 16391. */
    public static int ofCatalogId(String id) {
        if (id.length() < 2 || id.charAt(0) != 'u') {
            throw new IllegalArgumentException("not a user object's catalog id: " + id);
        }
        return Math.addExact(FIRST_USER_OID, Integer.parseInt(id, 1, id.length(), 10));
    }

    /**
     * The OID of the {@code k}th key (primary or unique constraint) of the table with catalog id
     * {@code tableId}: above every user object's OID, 64 per table, so stable as the table's is.
     */
    public static int ofKey(String tableId, int k) {
        if (k < 0 || k >= 64) {
            throw new IllegalArgumentException("a table has at most 64 keys: " + k);
        }
        return Math.addExact(FIRST_KEY_OID, Math.multiplyExact(ofCatalogId(tableId) - FIRST_USER_OID, 64) + k);
    }

    /**
     * The OID of the default ({@code pg_attrdef.oid}) of column {@code attnum} (1-based, at most 1,600 as in
     * PostgreSQL) of the table with catalog id {@code tableId}.
     */
    public static long ofDefault(String tableId, int attnum) {
        if (attnum < 1 || attnum > 1600) {
            throw new IllegalArgumentException("a column number is from 1 to 1600: " + attnum);
        }
        return FIRST_DEFAULT_OID + (long) (ofCatalogId(tableId) - FIRST_USER_OID) * 1600 + attnum;
    }

    /**
     * The OID of the {@code k}th CHECK constraint (at most 64) of the table with catalog id {@code tableId}.
     */
    public static long ofCheck(String tableId, int k) {
        if (k < 0 || k >= 64) {
            throw new IllegalArgumentException("a table has at most 64 check constraints: " + k);
        }
        return FIRST_CHECK_OID + (long) (ofCatalogId(tableId) - FIRST_USER_OID) * 64 + k;
    }

    /** The first OID of a CHECK constraint ({@link #ofCheck}). */
    public static final long FIRST_CHECK_OID = (1L << 30) + (1L << 29);

    /** The first OID of a column's default ({@link #ofDefault}). */
    public static final long FIRST_DEFAULT_OID = 1L << 29;

    /** The first OID of a key's constraint ({@link #ofKey}). */
    public static final int FIRST_KEY_OID = 1 << 30;

    /** The PostgreSQL type a column of {@code type} is shown as. */
    public static int ofType(DatumType type) {
        return switch (type) {
            case BOOL -> BOOL;
            case INT64 -> INT8;
            case FLOAT64 -> FLOAT8;
            case STRING -> TEXT;
            case TIMESTAMP -> TIMESTAMP;
            case NUMERIC -> NUMERIC;
            case DATE -> DATE;
            case TIMESTAMPTZ -> TIMESTAMPTZ;
            case UUID -> UUID;
            case INTERVAL -> INTERVAL;
            case JSONB -> JSONB;
            case BYTEA -> BYTEA;
            case TIME -> TIME;
            case BOOL_ARRAY -> 1000;
            case INT64_ARRAY -> 1016;
            case FLOAT64_ARRAY -> 1022;
            case STRING_ARRAY -> 1009;
            case TIMESTAMP_ARRAY -> 1115;
            case NUMERIC_ARRAY -> 1231;
            case DATE_ARRAY -> 1182;
            case TIMESTAMPTZ_ARRAY -> 1185;
            case UUID_ARRAY -> 2951;
        };
    }

    /** The datum type of the array type {@code oid} ({@code int8[]}, {@code int4[]}, {@code text[]}...), or null when it is none Tandem has. */
    public static DatumType arrayType(int oid) {
        return switch (oid) {
            case 1000 -> DatumType.BOOL_ARRAY;
            case 1016, 1007, 1005 -> DatumType.INT64_ARRAY;
            case 1022, 1021 -> DatumType.FLOAT64_ARRAY;
            case 1009, 1015 -> DatumType.STRING_ARRAY;
            case 1115 -> DatumType.TIMESTAMP_ARRAY;
            case 1231 -> DatumType.NUMERIC_ARRAY;
            case 1182 -> DatumType.DATE_ARRAY;
            case 1185 -> DatumType.TIMESTAMPTZ_ARRAY;
            case 2951 -> DatumType.UUID_ARRAY;
            default -> null;
        };
    }
}
