package dev.tandem.sql.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tandem.controller.CatalogEntry;
import dev.tandem.controller.CatalogSnapshot;
import dev.tandem.row.Column;
import dev.tandem.row.DatumType;
import dev.tandem.row.Schema;
import dev.tandem.sql.SqlException;
import dev.tandem.sql.SqlResult;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Catalog reads against a snapshot: every query psql 15, pgjdbc 42.7 and SQLAlchemy 1.4 were seen to send, and their answers. */
class CatalogQueryTest {

    static CatalogSnapshot snapshot() {
        Schema t = new Schema(List.of(new Column("id", DatumType.INT64, false), new Column("name", DatumType.STRING, false),
                new Column("score", DatumType.FLOAT64, true), new Column("at", DatumType.TIMESTAMP, true), new Column("ok", DatumType.BOOL, true)));
        return new CatalogSnapshot(1, List.of(
                new CatalogEntry.Table("u0", "t", t, List.of(new CatalogEntry.Key("t_pkey", List.of("id"), true))),
                new CatalogEntry.Index("u1", "t_pkey", "t", List.of("id"), t, -1),
                new CatalogEntry.Index("u2", "t_name", "t", List.of("name"), t, -1),
                new CatalogEntry.View("u3", "v", null, new Schema(List.of(t.column(0), t.column(1))))));
    }

    static List<String[]> clientQueries() throws Exception {
        String all = new String(CatalogQueryTest.class.getResourceAsStream("/catalog/client-queries.sql").readAllBytes(), StandardCharsets.UTF_8);
        List<String[]> out = new ArrayList<>();
        for (String q : all.split("\n;;\n")) {
            if (q.isBlank()) {
                continue;
            }
            int nl = q.indexOf('\n');
            out.add(new String[] {q.substring(3, nl).trim(), q.substring(nl + 1)});
        }
        return out;
    }

    @Test
    void everyCapturedClientQueryRuns() throws Exception {
        List<String> failures = new ArrayList<>();
        for (String[] q : clientQueries()) {
            try {
                CatalogQuery cq = CatalogQuery.prepare(q[1], snapshot(), "tandem");
                List<Object> params = new ArrayList<>();
                for (int i = 0; i < cq.parameterCount(); i++) {
                    params.add(i == 0 ? "t" : "%");
                }
                SqlResult r = cq.execute(snapshot(), params);
                assertThat(r.columns()).isEqualTo(cq.columns());
            } catch (RuntimeException e) {
                failures.add(q[0] + ": " + e + "\n" + q[1].substring(0, Math.min(200, q[1].length())));
            }
        }
        assertThat(failures).as(String.join("\n\n", failures)).isEmpty();
    }

    private static List<String> answer(String sql, Object... params) {
        CatalogQuery q = CatalogQuery.prepare(sql, snapshot(), "tandem");
        return q.execute(snapshot(), List.of(params)).rows().stream().map(Arrays::toString).toList();
    }

    @Test
    void readsOfTheCatalogAreToldFromOtherStatements() {
        assertThat(CatalogQuery.reads("SELECT c.relname FROM pg_class c")).isTrue();
        assertThat(CatalogQuery.reads("select * from information_schema.tables")).isTrue();
        assertThat(CatalogQuery.reads("SELECT pg_catalog.version()")).isTrue();
        assertThat(CatalogQuery.reads("select current_schema()")).isTrue();
        assertThat(CatalogQuery.reads("SELECT name FROM pets WHERE name = 'pg_class'")).isFalse();
        assertThat(CatalogQuery.reads("INSERT INTO t SELECT * FROM pg_class")).isFalse();
        assertThat(CatalogQuery.reads("SELECT versions FROM t")).isFalse();
        assertThat(CatalogQuery.reads("SELECT pg_get_indexdef (i.oid) FROM t i")).isTrue();
        assertThat(CatalogQuery.reads("SELECT has_table_privilege('t', 'select')")).isTrue();
        assertThat(CatalogQuery.reads("SELECT has__privilege(1)")).isFalse();
        assertThat(CatalogQuery.reads("SELECT 'it''s pg_class' FROM t")).isFalse();
        assertThat(CatalogQuery.reads("SELECT 'it''s', relname FROM pg_class")).isTrue();
        assertThat(CatalogQuery.reads("SELECT x_pg_class FROM t")).isFalse();
        assertThat(CatalogQuery.reads("SELECT \"PG_CLASS\".x FROM t")).isTrue();
    }

    /**
     * The one-pass test agrees with the regular expressions it replaced (kept here as the reference) on
     * every captured client query and on generated statements of catalog words, literals and punctuation;
     * an IN list of 60,000 literals is told apart as well (the expressions took a share of the event loop
     * proportional to its length times the names they tried at each position).
     */
    @Test
    void theOnePassTestAgreesWithTheRegularExpressions() throws Exception {
        StringBuilder names = new StringBuilder("pg_catalog|information_schema|tandem_internal|pg_class|pg_namespace|pg_attribute|pg_type|pg_index|pg_settings");
        java.util.regex.Pattern words = java.util.regex.Pattern.compile("(?i)\\b(" + names + "|current_catalog|current_schema)\\b|\\b(version"
                + "|current_schemas?|current_database|format_type|pg_get_\\w+|pg_table_is_visible|pg_type_is_visible|obj_description|col_description"
                + "|has_\\w+_privilege|pg_encoding_to_char|current_setting|pg_size_pretty|pg_\\w+_size|pg_backend_pid|quote_ident|array_to_string)\\s*\\(");
        java.util.regex.Pattern literal = java.util.regex.Pattern.compile("'(?:[^']|'')*+'");
        java.util.function.Predicate<String> reference = sql -> words.matcher(literal.matcher(sql).replaceAll("''")).find();
        String all = new String(CatalogQueryTest.class.getResourceAsStream("/catalog/client-queries.sql").readAllBytes(), StandardCharsets.UTF_8);
        List<String> statements = new java.util.ArrayList<>(List.of(all.split(";\\s*\\n")));
        String[] parts = {"pg_class", "PG_Index", "x", "version", "versions", " ", "(", ")", "'", "''", "'pg_type'", ",", ".", "pg_get_viewdef",
            "has_schema_privilege", "current_schema", "pg_relation_size", "pg__size", "1", "_", "\n", "pg_settings", "information_schema", "tables"};
        java.util.Random random = new java.util.Random(7);
        for (int i = 0; i < 5000; i++) {
            StringBuilder sql = new StringBuilder("SELECT ");
            for (int k = random.nextInt(8); k >= 0; k--) {
                sql.append(parts[random.nextInt(parts.length)]);
            }
            statements.add(sql.toString());
        }
        for (String sql : statements) {
            assertThat(CatalogQuery.namesCatalog(sql)).as(sql).isEqualTo(reference.test(sql));
        }
        String inList = "SELECT id FROM points WHERE id IN (" + String.join(",", java.util.stream.IntStream.range(0, 60_000).mapToObj(Integer::toString).toList()) + ")";
        assertThat(CatalogQuery.reads(inList)).isFalse();
    }

    @Test
    void psqlDescribeReadsColumnsIndexesAndKeys() {
        assertThat(answer("SELECT c.oid, n.nspname, c.relname FROM pg_catalog.pg_class c LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
                + "WHERE c.relname OPERATOR(pg_catalog.~) '^(t)$' COLLATE pg_catalog.default AND pg_catalog.pg_table_is_visible(c.oid) ORDER BY 2, 3"))
                .containsExactly("[16384, public, t]");
        assertThat(answer("SELECT a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod), a.attnotnull FROM pg_catalog.pg_attribute a "
                + "WHERE a.attrelid = '16384' AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum"))
                .containsExactly("[id, bigint, true]", "[name, text, true]", "[score, double precision, false]",
                        "[at, timestamp without time zone, false]", "[ok, boolean, false]");
        assertThat(answer("SELECT c2.relname, i.indisprimary, pg_catalog.pg_get_indexdef(i.indexrelid, 0, true), pg_catalog.pg_get_constraintdef(con.oid, true) "
                + "FROM pg_catalog.pg_class c, pg_catalog.pg_class c2, pg_catalog.pg_index i LEFT JOIN pg_catalog.pg_constraint con ON "
                + "(conrelid = i.indrelid AND conindid = i.indexrelid AND contype IN ('p','u','x')) WHERE c.oid = '16384' AND c.oid = i.indrelid "
                + "AND i.indexrelid = c2.oid ORDER BY i.indisprimary DESC, c2.relname"))
                .containsExactly("[t_pkey, true, CREATE UNIQUE INDEX t_pkey ON public.t USING btree (id), PRIMARY KEY (id)]",
                        "[t_name, false, CREATE INDEX t_name ON public.t USING btree (name), null]");
    }

    @Test
    void informationSchemaListsTablesColumnsAndKeys() {
        assertThat(answer("SELECT table_name, table_type FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1"))
                .containsExactly("[t, BASE TABLE]", "[v, VIEW]");
        assertThat(answer("SELECT column_name, data_type, is_nullable FROM information_schema.columns WHERE table_name = $1 ORDER BY ordinal_position", "v"))
                .containsExactly("[id, bigint, NO]", "[name, text, NO]");
        assertThat(answer("SELECT k.column_name, c.constraint_type FROM information_schema.table_constraints c JOIN information_schema.key_column_usage k "
                + "ON k.constraint_name = c.constraint_name WHERE c.table_name = 't'"))
                .containsExactly("[id, PRIMARY KEY]");
        // pgjdbc escapes a name's _ and % for LIKE with a backslash, PostgreSQL's default escape
        assertThat(answer("SELECT relname FROM pg_class WHERE relname LIKE 't\\_name' OR relname LIKE $1 ORDER BY 1", "t\\_pke_")).containsExactly("[t_name]", "[t_pkey]");
        assertThat(answer("SELECT relname FROM pg_class WHERE relname LIKE 't\\_'")).isEmpty();
        assertThat(answer("SELECT 'v'::regclass, 'pg_class'::regclass::oid, 16384::regclass")).containsExactly("[16387, 1259, t]");
    }

    @Test
    void whatTheCatalogLacksIsRefusedNotAnsweredApproximately() {
        assertThatThrownBy(() -> answer("SELECT * FROM pg_catalog.pg_stat_user_tables"))
                .isInstanceOf(SqlException.class).hasMessageContaining("not supported").extracting(e -> ((SqlException) e).sqlState()).isEqualTo("0A000");
        assertThatThrownBy(() -> answer("SELECT relfoo FROM pg_class"))
                .isInstanceOf(SqlException.class).extracting(e -> ((SqlException) e).sqlState()).isEqualTo("0A000");
        assertThatThrownBy(() -> answer("SELECT relname FROM pg_class WHERE relname ~ '[[:alpha:]]'"))
                .isInstanceOf(SqlException.class).extracting(e -> ((SqlException) e).sqlState()).isEqualTo("0A000");
        assertThat(answer("SELECT relname FROM pg_class WHERE relname ~ '^t(_n.*)?$' ORDER BY 1")).containsExactly("[t]", "[t_name]");
        assertThatThrownBy(() -> answer("SELECT 'nosuch'::regclass"))
                .isInstanceOf(SqlException.class).extracting(e -> ((SqlException) e).sqlState()).isEqualTo("42P01");
    }

    @Test
    void functionsSettingsAndEmptyRelationsClientsLookUp() {
        assertThat(answer("SELECT oid, pronargs, prorettype, proargtypes FROM pg_proc WHERE proname = 'pg_get_constraintdef' ORDER BY oid"))
                .containsExactly("[1387, 1, 25, {26}]", "[2508, 2, 25, {26,16}]");
        assertThat(answer("SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public'"))
                .containsExactly("[0]");
        assertThat(answer("SELECT setting, vartype FROM pg_settings WHERE name = 'max_identifier_length'")).containsExactly("[63, integer]");
        assertThat(answer("SELECT current_setting('server_version_num'), current_setting('datestyle'), current_setting('nosuch', true)"))
                .containsExactly("[150000, ISO, MDY, null]");
        assertThatThrownBy(() -> answer("SELECT current_setting('nosuch')"))
                .isInstanceOf(SqlException.class).hasMessageContaining("unrecognized configuration parameter \"nosuch\"")
                .extracting(e -> ((SqlException) e).sqlState()).isEqualTo("42704");
        assertThat(answer("SELECT pg_size_pretty(10239), pg_size_pretty(10240), pg_size_pretty(-10240), pg_size_pretty(1073741824)"))
                .containsExactly("[10239 bytes, 10 kB, -10 kB, 1024 MB]");
        assertThat(answer("SELECT quote_ident('Mixed'), quote_ident('plain'), array_to_string(indkey, ',') FROM pg_index WHERE indexrelid = 16385"))
                .containsExactly("[\"Mixed\", plain, 1]");
        assertThat(answer("SELECT * FROM pg_matviews")).isEmpty();
        assertThat(answer("SELECT * FROM information_schema.referential_constraints")).isEmpty();
        assertThat(answer("SELECT routine_name FROM information_schema.routines WHERE routine_schema = 'public'")).isEmpty();
        assertThat(CatalogQuery.prepare("SELECT pg_backend_pid()", snapshot(), "tandem", 4242, CatalogAccess.all("tandem")).execute(snapshot(), List.of()).rows()
                .stream().map(Arrays::toString).toList()).containsExactly("[4242]");
        assertThat(CatalogQuery.prepare("SELECT pg_backend_pid()", snapshot(), "tandem", 4242, CatalogAccess.all("tandem")).columns().getFirst().name())
                .isEqualTo("pg_backend_pid");
        assertThatThrownBy(() -> answer("SELECT pg_backend_pid()"))
                .isInstanceOf(SqlException.class).extracting(e -> ((SqlException) e).sqlState()).isEqualTo("0A000");
    }

    @Test
    void aReaderSeesInTheCatalogOnlyWhatItIsGranted() {
        CatalogAccess reader = new CatalogAccess("reader", java.util.Set.of("t", "t_name")::contains, false);
        java.util.function.Function<String, List<String>> read = sql -> CatalogQuery.prepare(sql, snapshot(), "reader", 7, reader)
                .execute(snapshot(), List.of(), reader).rows().stream().map(Arrays::toString).toList();
        assertThat(read.apply("SELECT relname FROM pg_class WHERE relnamespace = 2200 ORDER BY 1")).containsExactly("[t]", "[t_name]");
        assertThat(read.apply("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'")).containsExactly("[t]");
        // the primary key's index is not granted: the key is listed, without an index
        assertThat(read.apply("SELECT conname, conindid FROM pg_constraint")).containsExactly("[t_pkey, 0]");
        assertThat(read.apply("SELECT has_table_privilege('t', 'SELECT'), has_table_privilege('t', 'INSERT, DELETE'), "
                + "has_table_privilege('reader', 16384, 'select'), has_column_privilege('t', 'id', 'SELECT'), has_table_privilege(16387, 'SELECT')"))
                .containsExactly("[true, false, true, true, null]");
        assertThatThrownBy(() -> read.apply("SELECT has_table_privilege('v', 'SELECT')"))
                .isInstanceOf(SqlException.class).extracting(e -> ((SqlException) e).sqlState()).isEqualTo("42P01");
        assertThatThrownBy(() -> read.apply("SELECT has_table_privilege('t', 'FLY')"))
                .isInstanceOf(SqlException.class).extracting(e -> ((SqlException) e).sqlState()).isEqualTo("22023");
        assertThatThrownBy(() -> read.apply("SELECT has_table_privilege('someone', 't', 'SELECT')"))
                .isInstanceOf(SqlException.class).extracting(e -> ((SqlException) e).sqlState()).isEqualTo("42704");
        assertThat(answer("SELECT has_table_privilege('t', 'INSERT'), has_table_privilege('v', 'INSERT'), has_table_privilege('t', 'UPDATE')"))
                .containsExactly("[true, false, false]");
    }

    @Test
    void anyOfAnArrayParameter() {
        // psycopg 3 (pgcli's \dt) binds a Python list as a text[] parameter
        assertThat(answer("SELECT relname FROM pg_class WHERE relkind = ANY(ARRAY['r','v']) AND relnamespace = 2200 ORDER BY 1"))
                .containsExactly("[t]", "[v]");
        assertThat(answer("SELECT relname FROM pg_class WHERE relkind = ANY($1) AND relnamespace = 2200 ORDER BY 1", "{r,p,\"\"}"))
                .containsExactly("[t]");
        assertThat(answer("SELECT relname FROM pg_class c WHERE c.relkind = ANY($1) AND relnamespace = 2200 ORDER BY 1", "{ \"v\" , i}"))
                .containsExactly("[t_name]", "[t_pkey]", "[v]");
        assertThat(answer("SELECT 'x' = ANY($1), 'x' = ANY($2), 'x' = ANY($3)", "{x,NULL}", "{y,NULL}", "{}")).containsExactly("[true, null, false]");
        assertThatThrownBy(() -> answer("SELECT relname FROM pg_class WHERE relkind <> ALL($1)", "{r}"))
                .isInstanceOf(SqlException.class).extracting(e -> ((SqlException) e).sqlState()).isEqualTo("0A000");
        assertThatThrownBy(() -> answer("SELECT relname FROM pg_class WHERE relname || 'x' = ANY($1)", "{r}"))
                .isInstanceOf(SqlException.class).extracting(e -> ((SqlException) e).sqlState()).isEqualTo("0A000");
        assertThatThrownBy(() -> answer("SELECT relname FROM pg_class WHERE relkind = ANY($1)", "{r"))
                .isInstanceOf(SqlException.class).extracting(e -> ((SqlException) e).sqlState()).isEqualTo("22P02");
    }

    @Test
    void aReadOfForeignKeysIsEmptyWhateverItsSelectList() {
        // pgcli's read of foreign keys unnests in its select list; no pg_constraint row is a foreign key
        assertThat(answer("SELECT unnest((SELECT array_agg(attname) FROM pg_attribute)) AS c, t.relname FROM pg_constraint fk "
                + "JOIN pg_class t ON t.oid = fk.conrelid WHERE fk.contype = 'f'")).isEmpty();
        assertThat(answer("SELECT conname FROM pg_constraint WHERE contype = 'f' OR contype = 'p'")).containsExactly("[t_pkey]");
        assertThat(answer("SELECT count(*) FROM pg_constraint WHERE contype = 'f'")).containsExactly("[0]");
    }
}
