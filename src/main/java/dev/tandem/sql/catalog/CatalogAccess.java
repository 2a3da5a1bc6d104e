package dev.tandem.sql.catalog;

import java.util.function.Predicate;

/**
 * What a catalog read may show its caller: the tables, views and indexes it is granted (the others are
 * left out of every catalog relation, as if they did not exist) and whether it may write rows, which
 * {@code has_table_privilege} and {@code has_column_privilege} answer from.
 *
 * @param user the session's user, the one role whose privileges the functions answer
 */
public record CatalogAccess(String user, Predicate<String> mayAccess, boolean mayWrite) {

    /** A caller granted every object, reading and writing (a server without security). */
    public static CatalogAccess all(String user) {
        return new CatalogAccess(user, name -> true, true);
    }
}
