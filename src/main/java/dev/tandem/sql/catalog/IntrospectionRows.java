package dev.tandem.sql.catalog;

import static dev.tandem.sql.catalog.PgCatalogData.DATABASE;
import static dev.tandem.sql.catalog.PgCatalogData.OWNER_OID;
import static dev.tandem.sql.catalog.PgCatalogData.TANDEM_INTERNAL;
import static dev.tandem.sql.catalog.PgCatalogData.row;

import dev.tandem.controller.CatalogEntry;
import dev.tandem.controller.IndexStatus;
import dev.tandem.sql.catalog.CatalogRelations.IntrospectionView;
import dev.tandem.sql.catalog.CatalogRelations.Relation;
import dev.tandem.sql.catalog.PgCatalogData.Rel;
import java.util.ArrayList;
import java.util.List;

/**
 * The rows of the relations about the running server: {@code pg_stat_activity}'s client backends, and
 * {@code tandem_internal}'s index statuses and introspection collections, each row shown only to a caller that may
 * read the object it is about.
 */
final class IntrospectionRows {

    private IntrospectionRows() {
    }

    /** {@code pg_stat_activity}: the client backends, a query hidden from a caller that may not see it. */
    static List<Object[]> statActivity(PgCatalogData d) {
        List<Object[]> out = new ArrayList<>();
        for (Backend b : d.access.backends().get()) {
            boolean hidden = b.query() == null;
            out.add(row((long) PgOids.DATABASE, DATABASE, (long) b.pid(), null, OWNER_OID, b.user(), b.application(), b.address(), null,
                    b.port() < 0 ? null : (long) b.port(), timestamptz(b.backendStartMillis()), null,
                    hidden || b.queryStartMillis() == 0 ? null : timestamptz(b.queryStartMillis()), null, null, null,
                    hidden ? null : b.state(), null, null, null, hidden ? "<insufficient privilege>" : b.query(), "client backend"));
        }
        return out;
    }

    /** {@code tandem_internal.indexes}: the statuses of the indexes the caller sees. */
    static List<Object[]> indexes(PgCatalogData d) {
        List<Object[]> out = new ArrayList<>();
        for (IndexStatus s : d.access.introspected().indexes()) {
            Rel r = d.relByName.get(s.name());
            if (r == null || !r.entry().id().equals(s.id())) {
                continue; // not granted, or dropped and created again since the snapshot
            }
            var upper = s.writeFrontier();
            var since = s.since();
            out.add(row(r.oid(), s.id(), s.name(), s.on(), List.copyOf(s.key()), s.state(), s.hydrated(), s.error(), s.dataError(),
                    upper.isEmpty() ? null : upper.time(), since.isEmpty() ? null : since.time(), s.records(), d.bytes(s.id()), s.asOf(),
                    s.windowMillis()));
        }
        return out;
    }

    /** A {@code tandem_internal} relation over an introspection collection: the rows about objects the caller sees. */
    static List<Object[]> collection(PgCatalogData d, Relation relation) {
        List<Object[]> out = new ArrayList<>();
        IntrospectionView v = CatalogRelations.INTROSPECTION_VIEWS.get(relation.name());
        if (v == null || !relation.schema().equals(TANDEM_INTERNAL)) {
            throw new IllegalStateException("no rows for " + relation.name());
        }
        int about = -1;
        for (int i = 0; i < relation.columns().size(); i++) {
            if (relation.columns().get(i).name().equals(v.about())) {
                about = i;
            }
        }
        for (Object[] r : d.access.introspected().rows(v.collection())) {
            Object o = r[about];
            String name = o == null ? null : v.byId() ? nameOfId(d, o.toString()) : o.toString();
            if (name != null && d.access.mayAccess().test(name)) {
                out.add(row(r));
            }
        }
        return out;
    }

    /** The name of the object with catalog id {@code id}: a table, view or index, or an introspection collection (null: none). */
    private static String nameOfId(PgCatalogData d, String id) {
        for (CatalogEntry e : d.snapshot.entries()) {
            if (e.id().equals(id)) {
                return e.name();
            }
        }
        for (IndexStatus s : d.access.introspected().system()) {
            if (s.id().equals(id)) {
                return s.name();
            }
        }
        return null;
    }

    /** An instant as PostgreSQL prints a {@code timestamptz} in UTC ({@code 2026-12-05 04:55:45.123+00}). */
    private static String timestamptz(long epochMillis) {
        String t = java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS")
                .format(java.time.Instant.ofEpochMilli(epochMillis).atOffset(java.time.ZoneOffset.UTC));
        return t + "+00";
    }
}
