package dev.tandem.sql.catalog;

import static dev.tandem.sql.catalog.PgCatalogData.BTREE_AM;
import static dev.tandem.sql.catalog.PgCatalogData.DEFAULT_COLLATION;
import static dev.tandem.sql.catalog.PgCatalogData.HEAP_AM;
import static dev.tandem.sql.catalog.PgCatalogData.OWNER;
import static dev.tandem.sql.catalog.PgCatalogData.OWNER_OID;
import static dev.tandem.sql.catalog.PgCatalogData.row;

import dev.tandem.controller.CatalogEntry;
import dev.tandem.controller.DeclaredType;
import dev.tandem.row.Column;
import dev.tandem.row.DatumType;
import dev.tandem.row.Schema;
import dev.tandem.sql.catalog.CatalogRelations.Col;
import dev.tandem.sql.catalog.CatalogRelations.Relation;
import dev.tandem.sql.catalog.PgCatalogData.CheckRow;
import dev.tandem.sql.catalog.PgCatalogData.KeyRow;
import dev.tandem.sql.catalog.PgCatalogData.Rel;
import dev.tandem.sql.catalog.PgTypes.PgType;
import java.util.ArrayList;
import java.util.List;

/**
 * The rows of {@code pg_catalog}'s relations about relations: {@code pg_class}, {@code pg_attribute}, {@code pg_index},
 * {@code pg_constraint}, {@code pg_attrdef} and the views {@code pg_tables}, {@code pg_views} and {@code pg_indexes},
 * listing the catalog's own relations and the Tandem tables, views, indexes, keys and checks a caller sees.
 */
final class RelationRows {

    private RelationRows() {
    }

    /** {@code pg_class}: the catalog's relations, then Tandem's. */
    static List<Object[]> pgClass(PgCatalogData d) {
        List<Object[]> out = new ArrayList<>();
        for (Relation c : CatalogRelations.ALL.values()) {
            out.add(classRow(c.oid(), c.name(), c.namespace(), c.kind(), c.columns().size(), false, c.kind().equals("r") ? HEAP_AM : 0));
        }
        for (Rel r : d.rels.values()) {
            boolean hasIndex = d.rels.values().stream().anyMatch(x -> x.entry() instanceof CatalogEntry.Index i && i.on().equals(r.name()));
            long am = switch (r.kind()) {
                case "r" -> HEAP_AM;
                case "i" -> BTREE_AM;
                default -> 0;
            };
            int natts = r.entry() instanceof CatalogEntry.Index i ? i.key().size() : r.entry().schema().columns().size();
            out.add(classRow(r.oid(), r.name(), PgOids.PUBLIC_NAMESPACE, r.kind(), natts, hasIndex, am));
        }
        return out;
    }

    /** {@code pg_attribute}: every relation's columns (an index's, its key columns). */
    static List<Object[]> pgAttribute(PgCatalogData d) {
        List<Object[]> out = new ArrayList<>();
        for (Relation c : CatalogRelations.ALL.values()) {
            for (int k = 0; k < c.columns().size(); k++) {
                Col col = c.columns().get(k);
                long type = PgTypes.OID_BY_NAME.getOrDefault(col.type().startsWith("information_schema.") ? "varchar" : col.type(), 25L);
                out.add(attributeRow(c.oid(), col.name(), type, k + 1, false));
            }
        }
        for (Rel r : d.rels.values()) {
            if (r.entry() instanceof CatalogEntry.Index i) {
                for (int k = 0; k < i.key().size(); k++) {
                    Column c = i.schema().column(i.schema().indexOf(i.key().get(k)));
                    // an index's attributes are never NOT NULL, as in PostgreSQL (the table's columns are)
                    out.add(attributeRow(r.oid(), c.name(), PgOids.ofType(c.type()), k + 1, false));
                }
            } else {
                List<Column> columns = r.entry().schema().columns();
                for (int k = 0; k < columns.size(); k++) {
                    Column c = columns.get(k);
                    DeclaredType declared = PgTypes.declared(r.entry(), k);
                    Object[] row = declared == null ? attributeRow(r.oid(), c.name(), PgOids.ofType(c.type()), k + 1, !c.nullable())
                            : attributeRow(r.oid(), c.name(), declared.oid(), declared.typmod(), k + 1, !c.nullable());
                    row[ATTHASDEF] = PgDefaults.text(r.entry(), k) != null;
                    // a table's array column declared with its brackets has one dimension, as PostgreSQL records it (a view's none)
                    row[ATTNDIMS] = r.entry() instanceof CatalogEntry.Table && c.type().isArray() ? 1L : 0L;
                    out.add(row);
                }
            }
        }
        return out;
    }

    /** {@code pg_index}: Tandem's indexes, unique when a key is served by one or it was created unique. */
    static List<Object[]> pgIndex(PgCatalogData d) {
        List<Object[]> out = new ArrayList<>();
        for (Rel r : d.rels.values()) {
            if (r.entry() instanceof CatalogEntry.Index i) {
                Rel on = d.relByName.get(i.on());
                KeyRow key = d.keys.stream().filter(k -> k.index() == r.oid()).findFirst().orElse(null);
                boolean primary = key != null && key.key().primary();
                boolean unique = key != null || i.unique();
                List<Long> attnums = new ArrayList<>();
                List<Long> collations = new ArrayList<>();
                List<Long> zeros = new ArrayList<>();
                for (String k : i.key()) {
                    int pos = i.schema().indexOf(k);
                    attnums.add((long) pos + 1);
                    collations.add(i.schema().column(pos).type() == DatumType.STRING ? DEFAULT_COLLATION : 0L);
                    zeros.add(0L);
                }
                out.add(row(r.oid(), on == null ? 0L : on.oid(), (long) i.key().size(), (long) i.key().size(), unique, false, primary,
                        false, true, false, true, false, true, true, false, attnums, collations, zeros, zeros, null, null));
            }
        }
        return out;
    }

    /** {@code pg_constraint}: the tables' keys, then their checks. */
    static List<Object[]> pgConstraint(PgCatalogData d) {
        List<Object[]> out = new ArrayList<>();
        for (KeyRow k : d.keys) {
            Schema s = k.table().schema();
            List<Long> attnums = k.key().columns().stream().map(c -> (long) s.indexOf(c) + 1).toList();
            out.add(row(k.oid(), k.key().name(), PgOids.PUBLIC_NAMESPACE, k.key().primary() ? "p" : "u", false, false, true,
                    PgOids.ofCatalogId(k.table().id()), 0L, k.index(), 0L, 0L, " ", " ", " ", true, 0L, true, attnums, null, null,
                    null, null, null, null, null));
        }
        for (CheckRow c : d.checks) {
            out.add(row(c.oid(), c.check().name(), PgOids.PUBLIC_NAMESPACE, "c", false, false, true,
                    PgOids.ofCatalogId(c.table().id()), 0L, 0L, 0L, 0L, " ", " ", " ", true, 0L, false, columnsRead(c), null, null,
                    null, null, null, null, c.check().text()));
        }
        return out;
    }

    /** {@code pg_attrdef}: the tables' column defaults, as their SQL text. */
    static List<Object[]> pgAttrdef(PgCatalogData d) {
        List<Object[]> out = new ArrayList<>();
        for (Rel r : d.rels.values()) {
            if (r.entry() instanceof CatalogEntry.Table t) {
                for (int k = 0; k < t.schema().arity(); k++) {
                    String text = PgDefaults.text(t, k);
                    if (text != null) {
                        out.add(row(PgOids.ofDefault(t.id(), k + 1), r.oid(), (long) (k + 1), text));
                    }
                }
            }
        }
        return out;
    }

    /** {@code pg_tables}: the catalog's tables, then Tandem's. */
    static List<Object[]> pgTables(PgCatalogData d) {
        List<Object[]> out = new ArrayList<>();
        for (Relation c : CatalogRelations.ALL.values()) {
            if (c.kind().equals("r")) {
                out.add(row(c.schema(), c.name(), OWNER, null, false, false, false, false));
            }
        }
        for (Rel r : d.rels.values()) {
            if (r.kind().equals("r")) {
                boolean hasIndex = d.rels.values().stream().anyMatch(x -> x.entry() instanceof CatalogEntry.Index i && i.on().equals(r.name()));
                out.add(row("public", r.name(), OWNER, null, hasIndex, false, false, false));
            }
        }
        return out;
    }

    /** {@code pg_views}: the catalog's views, then Tandem's. */
    static List<Object[]> pgViews(PgCatalogData d) {
        List<Object[]> out = new ArrayList<>();
        for (Relation c : CatalogRelations.ALL.values()) {
            if (c.kind().equals("v")) {
                out.add(row(c.schema(), c.name(), OWNER, null));
            }
        }
        for (Rel r : d.rels.values()) {
            if (r.kind().equals("v")) {
                out.add(row("public", r.name(), OWNER, null));
            }
        }
        return out;
    }

    /** {@code pg_indexes}: Tandem's indexes with their definitions. */
    static List<Object[]> pgIndexes(PgCatalogData d) {
        List<Object[]> out = new ArrayList<>();
        for (Rel r : d.rels.values()) {
            if (r.entry() instanceof CatalogEntry.Index i) {
                out.add(row("public", i.on(), r.name(), null, PgCatalogFunctions.indexDef(d, r.oid())));
            }
        }
        return out;
    }

    /** Where {@code pg_attribute.atthasdef} is in its row. */
    private static final int ATTHASDEF = 14;
    /** Where {@code pg_attribute.attndims} is in its row. */
    private static final int ATTNDIMS = 6;

    /** The column numbers (1-based, ascending) a check's condition reads, as {@code pg_constraint.conkey} lists them. */
    private static List<Long> columnsRead(CheckRow c) {
        return c.check().columns().stream().map(i -> (long) i + 1).toList();
    }

    private static Object[] classRow(long oid, String name, long namespace, String kind, int natts, boolean hasIndex, long am) {
        return row(oid, name, namespace, 0L, 0L, OWNER_OID, am, kind.equals("v") ? 0L : oid, 0L, 0L, kind.equals("i") ? 0.0 : -1.0, 0L, 0L,
                hasIndex, false, "p", kind, (long) natts, 0L, false, false, false, false, false, true, kind.equals("r") ? "d" : "n", false, 0L,
                0L, 0L, null, null, null);
    }

    private static Object[] attributeRow(long rel, String name, long type, int num, boolean notNull) {
        return attributeRow(rel, name, type, -1L, num, notNull);
    }

    private static Object[] attributeRow(long rel, String name, long type, long typmod, int num, boolean notNull) {
        PgType t = PgTypes.BY_OID.get(type);
        long len = t == null ? -1 : t.len();
        boolean byval = t != null && t.byval();
        String align = t == null ? "i" : t.align();
        long collation = t == null ? 0 : t.collation();
        return row(rel, name, type, -1L, len, (long) num, 0L, -1L, typmod, byval, align, len == -1 ? "x" : "p", "", notNull, false, false, "", "",
                false, true, 0L, collation, null, null, null, null);
    }
}
