package dev.tandem.sql.catalog;

import dev.tandem.controller.IndexStatus;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * What a catalog read may show its caller: the tables, views and indexes it is granted (the others are
 * left out of every catalog relation, as if they did not exist) and whether it may write rows, which
 * {@code has_table_privilege} and {@code has_column_privilege} answer from.
 *
 * @param user the session's user, the one role whose privileges the functions answer
 * @param backends the server's wire-protocol sessions as the caller may see them, for {@code pg_stat_activity}
 * @param introspected Tandem's own introspection read for this query ({@code tandem_internal} and the size
 *        functions answer from it), before the grant filter is applied
 * @param timeZone the session's {@code TimeZone}, as {@code current_setting} and {@code pg_settings} show it
 */
public record CatalogAccess(String user, Predicate<String> mayAccess, boolean mayWrite, Supplier<List<Backend>> backends,
        Introspected introspected, String timeZone) {

    /**
     * Tandem's introspection as a catalog query sees it: the status of every user index, the introspection
     * collections themselves ({@code system}), and the rows of those read, by their name
     * ({@code tandem_arrangement_sizes}…), each row as its values.
     */
    public record Introspected(List<IndexStatus> indexes, List<IndexStatus> system, Map<String, List<Object[]>> collections) {
        public static final Introspected NONE = new Introspected(List.of(), List.of(), Map.of());

        /** The rows of collection {@code name} (none when it was not read). */
        public List<Object[]> rows(String name) {
            return collections.getOrDefault(name, List.of());
        }
    }

    public CatalogAccess {
        introspected = introspected == null ? Introspected.NONE : introspected;
        timeZone = timeZone == null ? "UTC" : timeZone;
    }

    public CatalogAccess(String user, Predicate<String> mayAccess, boolean mayWrite, Supplier<List<Backend>> backends, Introspected introspected) {
        this(user, mayAccess, mayWrite, backends, introspected, null);
    }

    /** This access showing {@code timeZone} as the session's {@code TimeZone}. */
    public CatalogAccess withTimeZone(String timeZone) {
        return new CatalogAccess(user, mayAccess, mayWrite, backends, introspected, timeZone);
    }

    public CatalogAccess(String user, Predicate<String> mayAccess, boolean mayWrite, Supplier<List<Backend>> backends) {
        this(user, mayAccess, mayWrite, backends, Introspected.NONE);
    }

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
        return new CatalogAccess(user, mayAccess, mayWrite, backends, introspected, timeZone);
    }

    /** This access answering {@code tandem_internal} and the size functions from {@code introspected}. */
    public CatalogAccess withIntrospected(Introspected introspected) {
        return new CatalogAccess(user, mayAccess, mayWrite, backends, introspected, timeZone);
    }
}
