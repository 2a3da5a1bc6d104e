package dev.tandem.sql.catalog;

import java.util.List;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * What a catalog read may show its caller: the tables, views and indexes it is granted (the others are
 * left out of every catalog relation, as if they did not exist) and whether it may write rows, which
 * {@code has_table_privilege} and {@code has_column_privilege} answer from.
 *
 * @param user the session's user, the one role whose privileges the functions answer
 * @param backends the server's wire-protocol sessions as the caller may see them, for {@code pg_stat_activity}
 */
public record CatalogAccess(String user, Predicate<String> mayAccess, boolean mayWrite, Supplier<List<Backend>> backends) {

    /** Access without sessions to list. */
    public CatalogAccess(String user, Predicate<String> mayAccess, boolean mayWrite) {
        this(user, mayAccess, mayWrite, List::of);
    }

    /** A caller granted every object, reading and writing (a server without security). */
    public static CatalogAccess all(String user) {
        return new CatalogAccess(user, name -> true, true);
    }

    /** This access listing {@code backends} in {@code pg_stat_activity}. */
    public CatalogAccess withBackends(Supplier<List<Backend>> backends) {
        return new CatalogAccess(user, mayAccess, mayWrite, backends);
    }
}
