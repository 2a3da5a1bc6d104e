package dev.tandem.sql.catalog;

import static dev.tandem.sql.catalog.PgCatalogFunctions.data;

import java.util.List;

/**
 * PostgreSQL's size functions as catalog queries call them ({@code pg_size_pretty}, {@code pg_relation_size},
 * {@code pg_indexes_size}, {@code pg_total_relation_size}): a relation's size is the bytes of the arrangements Tandem
 * keeps for it, as introspection reports them for the query's snapshot.
 */
@org.apache.calcite.linq4j.function.NonDeterministic
public final class PgSizeFunctions {

    private PgSizeFunctions() {
    }

    /**
     * {@code pg_size_pretty(bigint)}: bytes below 10240 as bytes, else halved-and-rounded steps of 1024
     * into kB, MB, GB, TB and PB, each unit taken while the value stays below 20480 of it.
     */
    public static String sizePretty(Long size) {
        if (size == null) {
            return null;
        }
        long limit = 10 * 1024;
        long limit2 = limit * 2 - 1;
        if (Math.abs(size) < limit) {
            return size + " bytes";
        }
        // one extra bit is kept for the rounding (a division, rounding toward zero, as PostgreSQL's)
        long v = size / (1L << 9);
        for (String unit : List.of("kB", "MB", "GB", "TB")) {
            if (Math.abs(v) < limit2) {
                return halfRounded(v) + " " + unit;
            }
            v /= 1L << 10;
        }
        return halfRounded(v) + " PB";
    }

    /**
     * {@code pg_relation_size(regclass)} and {@code pg_table_size}: the bytes of the arrangements Tandem
     * keeps under the relation's own id (an index's; a table's or view's own arrangement where it has one,
     * else 0), summed over workers. A name that is no relation the caller sees is {@code 42P01}, an OID
     * that is none is NULL, as in PostgreSQL.
     */
    public static Long relationSize(String relation) {
        Long oid = relationOid(relation);
        if (oid == null) {
            return null;
        }
        PgCatalogData d = data();
        PgCatalogData.Rel r = d.rels.get(oid);
        if (r != null) {
            return d.bytes(r.entry().id());
        }
        // a relation of the catalog itself, computed per query, keeps nothing; another OID is none
        return CatalogRelations.ALL.values().stream().anyMatch(c -> c.oid() == oid) ? 0L : null;
    }

    /** {@code pg_relation_size(regclass, fork)}: the main fork's size; the other forks are empty. */
    public static Long relationSize(String relation, String fork) {
        Long main = relationSize(relation);
        return main == null || fork == null ? null : fork.equals("main") ? main : 0L;
    }

    /** {@code pg_indexes_size(regclass)}: the bytes of the indexes on the relation the caller sees (0 for an index). */
    public static Long indexesSize(String relation) {
        Long own = relationSize(relation);
        if (own == null) {
            return null;
        }
        PgCatalogData d = data();
        PgCatalogData.Rel r = d.rels.get(relationOid(relation));
        long sum = 0;
        for (PgCatalogData.Rel x : d.rels.values()) {
            if (r != null && x.entry() instanceof dev.tandem.controller.CatalogEntry.Index i && i.on().equals(r.name())) {
                sum += d.bytes(i.id());
            }
        }
        return sum;
    }

    /** {@code pg_total_relation_size(regclass)}: the relation's own size and its indexes'. */
    public static Long totalRelationSize(String relation) {
        Long own = relationSize(relation);
        return own == null ? null : own + indexesSize(relation);
    }

    /**
     * The OID an argument of type {@code regclass} gives: an OID (Calcite passes it as its digits), or a name
     * read as {@code 'name'::regclass} reads it (unknown: 42P01).
     */
    private static Long relationOid(String relation) {
        if (relation == null) {
            return null;
        }
        return PgRegCasts.regclassIn(relation); // an OID's digits are the OID, as regclass reads them
    }

    private static long halfRounded(long x) {
        return (x + (x < 0 ? -1 : 1)) / 2;
    }
}
