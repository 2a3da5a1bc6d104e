package dev.tandem.sql.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.row.Column;
import dev.tandem.runtime.Introspection;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Each introspection collection is a {@code tandem_internal} relation of the same name (without its
 * {@code tandem_} prefix) with the same columns and types, and the relations are in {@code pg_class}'s
 * list under their own namespace: the catalog's copy of the collections' schemas cannot drift.
 */
class TandemInternalRelationsTest {

    @Test
    void everyIntrospectionCollectionIsARelationWithItsColumns() {
        for (Introspection.Collection c : Introspection.ALL) {
            String name = c.name().substring("tandem_".length());
            CatalogRelations.Relation r = CatalogRelations.ALL.get(PgCatalogData.TANDEM_INTERNAL + "." + name);
            assertThat(r).as(c.name()).isNotNull();
            assertThat(CatalogRelations.INTROSPECTION_VIEWS.get(name).collection()).isEqualTo(c.name());
            List<String> expected = c.schema().columns().stream().map(TandemInternalRelationsTest::pg).toList();
            assertThat(r.columns().stream().map(x -> x.name() + " " + x.type()).toList()).as(c.name()).isEqualTo(expected);
            assertThat(r.namespace()).isEqualTo(PgOids.TANDEM_INTERNAL_NAMESPACE);
            CatalogRelations.IntrospectionView v = CatalogRelations.INTROSPECTION_VIEWS.get(name);
            assertThat(r.columns().stream().map(CatalogRelations.Col::name)).as(c.name() + "'s grant column").contains(v.about());
        }
        assertThat(CatalogRelations.INTROSPECTION_VIEWS).hasSize(Introspection.ALL.size());
    }

    private static String pg(Column c) {
        return c.name() + " " + switch (c.type()) {
            case INT64 -> "int8";
            case STRING -> "text";
            case BOOL -> "bool";
            case FLOAT64 -> "float8";
            default -> throw new AssertionError("an introspection column of type " + c.type() + ": map it in CatalogRelations");
        };
    }
}
