package dev.tandem.sql.catalog;

import dev.tandem.sql.SqlException;
import dev.tandem.sql.SqlState;
import java.util.Locale;

/**
 * {@code has_table_privilege} and {@code has_column_privilege} answered from the caller's grants: it may
 * {@code SELECT} what it is granted (a reader), {@code INSERT} into and {@code DELETE} from a granted
 * table when it is a writer, and nothing else ({@code UPDATE}, {@code TRUNCATE}, {@code REFERENCES},
 * {@code TRIGGER} and grant options are no privilege Tandem gives). An object it is not granted does not
 * exist for it, as in the catalog's relations.
 */
final class PgPrivileges {

    private PgPrivileges() {
    }

    /** Whether the caller has any of the comma-separated {@code privileges} on {@code table} (an OID or a name). */
    static Boolean onTable(PgCatalogData data, Object table, String privileges) {
        if (table == null || privileges == null) {
            return null;
        }
        String kind;
        if (table instanceof Number n) {
            PgCatalogData.Rel r = data.rels.get(n.longValue());
            if (r != null) {
                kind = r.kind();
            } else if (PgCatalogData.RELATIONS.values().stream().anyMatch(c -> c.oid() == n.longValue())) {
                kind = "system";
            } else {
                // PostgreSQL answers NULL for an OID no relation has
                return null;
            }
        } else {
            String name = table.toString();
            String n = name.startsWith("\"") && name.endsWith("\"") && name.length() > 1 ? name.substring(1, name.length() - 1)
                    : name.toLowerCase(Locale.ROOT);
            Long oid = data.relationOid(n);
            if (oid == null) {
                throw new SqlException(SqlException.UNDEFINED_TABLE, "relation \"" + name + "\" does not exist");
            }
            PgCatalogData.Rel r = data.rels.get(oid);
            kind = r == null ? "system" : r.kind();
        }
        boolean any = false;
        for (String p : privileges.split(",")) {
            String privilege = p.trim().toUpperCase(Locale.ROOT);
            boolean has = switch (privilege) {
                case "SELECT" -> true;
                case "INSERT", "DELETE" -> kind.equals("r") && data.access.mayWrite();
                case "UPDATE", "TRUNCATE", "REFERENCES", "TRIGGER", "SELECT WITH GRANT OPTION", "INSERT WITH GRANT OPTION",
                        "DELETE WITH GRANT OPTION", "UPDATE WITH GRANT OPTION", "TRUNCATE WITH GRANT OPTION",
                        "REFERENCES WITH GRANT OPTION", "TRIGGER WITH GRANT OPTION" -> false;
                default -> throw new SqlException(SqlException.INVALID_PARAMETER, "unrecognized privilege type: \"" + p.trim() + "\"");
            };
            any |= has;
        }
        return any;
    }

    /** The privileges answered are the session's own: another role's are refused as PostgreSQL refuses an unknown role. */
    static void checkUser(PgCatalogData data, Object user) {
        if (user instanceof Number n) {
            if (n.longValue() != PgCatalogData.OWNER_OID) {
                throw new SqlException(SqlState.UNDEFINED_OBJECT, "role with OID " + n + " does not exist");
            }
        } else if (user != null && !user.toString().equals(data.access.user()) && !user.toString().equals(PgCatalogData.OWNER)) {
            throw new SqlException(SqlState.UNDEFINED_OBJECT, "role \"" + user + "\" does not exist");
        }
    }
}
