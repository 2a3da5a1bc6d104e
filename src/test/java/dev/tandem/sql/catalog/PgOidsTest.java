package dev.tandem.sql.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tandem.row.DatumType;
import org.junit.jupiter.api.Test;

class PgOidsTest {

    @Test
    void userObjectsStartAtPostgresFirstNormalOid() {
        assertThat(PgOids.ofCatalogId("u0")).isEqualTo(16384);
        assertThat(PgOids.ofCatalogId("u7")).isEqualTo(16391);
        assertThatThrownBy(() -> PgOids.ofCatalogId("t3")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> PgOids.ofCatalogId("u")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void typesHavePostgresOids() {
        // PostgreSQL 15's pg_type: bool 16, int8 20, float8 701, text 25, timestamp 1114.
        assertThat(PgOids.ofType(DatumType.BOOL)).isEqualTo(16);
        assertThat(PgOids.ofType(DatumType.INT64)).isEqualTo(20);
        assertThat(PgOids.ofType(DatumType.FLOAT64)).isEqualTo(701);
        assertThat(PgOids.ofType(DatumType.STRING)).isEqualTo(25);
        assertThat(PgOids.ofType(DatumType.TIMESTAMP)).isEqualTo(1114);
    }
}
