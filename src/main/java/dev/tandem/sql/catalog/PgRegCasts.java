package dev.tandem.sql.catalog;

import static dev.tandem.sql.catalog.PgCatalogFunctions.data;

import dev.tandem.sql.SqlException;
import dev.tandem.sql.SqlState;
import java.util.Locale;
import java.util.Map;

/**
 * PostgreSQL's casts to and from the object identifier types ({@code 'name'::regclass}, {@code oid::regnamespace}...)
 * as the rewritten catalog query calls them: a name to its OID as the caller's catalog has it, an OID to its name,
 * an unknown name refused with PostgreSQL's SQLSTATE.
 */
@org.apache.calcite.linq4j.function.NonDeterministic
public final class PgRegCasts {

    private PgRegCasts() {
    }

    /** {@code 'name'::regclass}: the relation's OID; an unknown name is {@code 42P01} as in PostgreSQL. */
    public static Long regclassIn(String name) {
        if (name == null) {
            return null;
        }
        if (name.matches("\\d+")) {
            return Long.parseLong(name);
        }
        String n = name.startsWith("\"") && name.endsWith("\"") && name.length() > 1 ? name.substring(1, name.length() - 1) : name.toLowerCase(Locale.ROOT);
        Long oid = data().relationOid(n);
        if (oid == null) {
            throw new SqlException(SqlException.UNDEFINED_TABLE, "relation \"" + name + "\" does not exist");
        }
        return oid;
    }

    public static String regclassOut(Long oid) {
        return oid == null ? null : oid == 0 ? "-" : data().relationName(oid);
    }

    public static Long regtypeIn(String name) {
        if (name == null) {
            return null;
        }
        String n = name.toLowerCase(Locale.ROOT).replaceFirst("^pg_catalog\\.", "");
        for (PgTypes.PgType t : PgTypes.ALL) {
            if (t.name().equals(n) || PgTypes.formatType(t.oid(), null).equals(n)) {
                return t.oid();
            }
        }
        throw new SqlException(SqlState.UNDEFINED_OBJECT, "type \"" + name + "\" does not exist");
    }

    /** {@code 'name'::regnamespace}: the schema's OID; an unknown name is {@code 3F000} as in PostgreSQL. */
    public static Long regnamespaceIn(String name) {
        if (name == null || name.isEmpty()) {
            return null;
        }
        Long oid = PgCatalogData.NAMESPACES.get(name);
        if (oid == null) {
            throw new SqlException(SqlState.INVALID_SCHEMA_NAME, "schema \"" + name + "\" does not exist");
        }
        return oid;
    }

    /** {@code oid::regnamespace}: the schema's name, or the OID's digits when no schema has it. */
    public static String regnamespaceOut(Long oid) {
        if (oid == null) {
            return null;
        }
        return PgCatalogData.NAMESPACES.entrySet().stream().filter(e -> e.getValue().equals(oid)).map(Map.Entry::getKey).findFirst()
                .orElse(oid.toString());
    }

    public static Long regroleIn(String name) {
        if (name == null) {
            return null;
        }
        if (name.equals(PgCatalogData.OWNER)) {
            return PgCatalogData.OWNER_OID;
        }
        throw new SqlException(SqlState.UNDEFINED_OBJECT, "role \"" + name + "\" does not exist");
    }

    public static String regprocOut(Long oid) {
        return oid == null ? null : oid == 0 ? "-" : oid.toString();
    }
}
