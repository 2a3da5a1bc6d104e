package dev.tandem.sql.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tandem.sql.SqlException;
import java.util.List;
import org.junit.jupiter.api.Test;

class PgCatalogRewriterTest {

    private static String sql(String in) {
        return PgCatalogRewriter.rewrite(in, "alice").sql();
    }

    @Test
    void regexOperatorsBecomeFunctionCalls() {
        assertThat(sql("SELECT 1 FROM pg_class c WHERE c.relname OPERATOR(pg_catalog.~) '^(t)$' COLLATE pg_catalog.default"))
                .isEqualTo("SELECT 1 FROM pg_class c WHERE tandem_regex(c.relname, '^(t)$', FALSE)");
        assertThat(sql("SELECT 1 FROM pg_namespace n WHERE n.nspname !~ '^pg_toast'"))
                .isEqualTo("SELECT 1 FROM pg_namespace n WHERE (NOT tandem_regex(n.nspname, '^pg_toast', FALSE))");
        assertThat(sql("SELECT 1 FROM pg_class WHERE relname ~* E'a\\\\.b'"))
                .isEqualTo("SELECT 1 FROM pg_class WHERE tandem_regex(relname, 'a\\.b', TRUE)");
    }

    @Test
    void castsBecomeCastsOrCatalogLookups() {
        assertThat(sql("SELECT c.oid::pg_catalog.regclass FROM pg_class c")).isEqualTo("SELECT tandem_regclass_out(c.oid) FROM pg_class c");
        assertThat(sql("SELECT 1 FROM pg_attribute WHERE attrelid = 't'::regclass"))
                .isEqualTo("SELECT 1 FROM pg_attribute WHERE attrelid = tandem_regclass_in('t')");
        assertThat(sql("SELECT x::regtype::text FROM pg_type")).isEqualTo("SELECT tandem_text(tandem_regtype_out(x)) FROM pg_type");
        assertThat(sql("SELECT ix.indkey::varchar, 1::smallint FROM pg_index ix"))
                .isEqualTo("SELECT tandem_int2vector_out(ix.indkey), CAST(1 AS SMALLINT) FROM pg_index ix");
        assertThatThrownBy(() -> sql("SELECT x::tsvector FROM pg_class"))
                .isInstanceOf(SqlException.class).hasMessageContaining("not supported: a cast to tsvector");
    }

    @Test
    void parametersSessionFunctionsAndPrefixes() {
        PgCatalogRewriter.Rewritten r = PgCatalogRewriter.rewrite("SELECT current_user, pg_catalog.format_type(1, 2) FROM pg_class "
                + "WHERE relname LIKE $2 AND relname = $1 AND oid = $2", "alice");
        assertThat(r.sql()).isEqualTo("SELECT 'alice' AS \"current_user\", format_type(1, 2) FROM pg_class WHERE relname LIKE ? ESCAPE '\\' AND relname = ? AND oid = ?");
        assertThat(r.parameters()).containsExactly(2, 1, 2);
        assertThat(r.parameterCount()).isEqualTo(2);
        assertThat(sql("SELECT (pg_catalog.current_schemas(false))[1] FROM pg_namespace"))
                .isEqualTo("SELECT (ARRAY['public'])[CAST(1 AS INTEGER)] FROM pg_namespace");
    }

    @Test
    void readsOfAlwaysEmptyRelationsAreEmptyWithoutPlanning() {
        PgCatalogRewriter.Rewritten r = PgCatalogRewriter.rewrite("SELECT pol.polname, pol.polpermissive AS p, pg_get_expr(pol.polqual, 1) "
                + "FROM pg_catalog.pg_policy pol WHERE pol.polrelid = '16384' ORDER BY 1", "alice");
        assertThat(r.emptyColumns()).containsExactly("polname", "p", "pg_get_expr");
        // an outer join with an empty relation keeps the other side's rows; a count over none is one row
        assertThat(PgCatalogRewriter.rewrite("SELECT c.oid FROM pg_class c LEFT JOIN pg_inherits i ON i.inhrelid = c.oid", "a").empty()).isFalse();
        assertThat(PgCatalogRewriter.rewrite("SELECT count(*) FROM pg_inherits", "a").empty()).isFalse();
        assertThat(sql("SELECT a.attname, (SELECT s.seqstart FROM pg_catalog.pg_sequence s WHERE s.seqrelid = a.attrelid) FROM pg_attribute a"))
                .isEqualTo("SELECT a.attname, NULL FROM pg_attribute a");
    }

    @Test
    void driverIdiomsOverKeyColumnsBecomeUnnest() {
        assertThat(sql("SELECT a.attname FROM pg_attribute a JOIN (SELECT unnest(ix.indkey) attnum, generate_subscripts(ix.indkey, 1) ord "
                + "FROM pg_index ix WHERE ix.indisprimary) k ON a.attnum = k.attnum"))
                .contains("CROSS JOIN UNNEST(ix.indkey) WITH ORDINALITY AS k(x, n)");
        assertThat(sql("SELECT (information_schema._pg_expandarray(con.conkey)).n AS s, information_schema._pg_expandarray(con.conkey) AS keys "
                + "FROM pg_catalog.pg_constraint con WHERE true"))
                .isEqualTo("SELECT tandem_keys.n AS s, tandem_keys.x AS keys_x FROM pg_catalog.pg_constraint con CROSS JOIN "
                        + "UNNEST(con.conkey) WITH ORDINALITY AS tandem_keys(x, n) WHERE true");
    }

    @Test
    void unknownOperatorsAreRefused() {
        assertThatThrownBy(() -> sql("SELECT 1 FROM pg_class WHERE reloptions @> ARRAY['a']"))
                .isInstanceOf(SqlException.class).hasMessageContaining("not supported: the operator @>");
        assertThat(PgCatalogRewriter.selectNames("SELECT a.b, c AS \"D\", f(x), 1 + 2 FROM t")).isEqualTo(List.of("b", "D", "f", "?column?"));
    }
}
