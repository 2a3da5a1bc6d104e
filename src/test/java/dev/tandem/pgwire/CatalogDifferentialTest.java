package dev.tandem.pgwire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.sql.SqlTesting;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tandem's catalog against PostgreSQL 15's ({@code POSTGRES_ORACLE_ADDRESS}) for the same tables, views
 * and indexes, created in both by the same statements (of the types Tandem keeps as declared: bigint,
 * text, double precision, timestamp, boolean): the rows of {@code information_schema.columns},
 * {@code pg_indexes}, {@code pg_index} and {@code pg_attribute} for the user's relations agree, row by row.
 */
class CatalogDifferentialTest {

    static final String DDL = """
            CREATE TABLE t (id bigint PRIMARY KEY, name text NOT NULL, score double precision, at timestamp, ok boolean);
            CREATE INDEX t_name ON t (name);
            CREATE INDEX t_score_name ON t (score, name);
            CREATE TABLE pairs (a bigint NOT NULL, b bigint NOT NULL, label text, PRIMARY KEY (a, b));
            CREATE VIEW v AS SELECT id, name FROM t
            """;

    /** The catalog reads compared, by what they show. */
    static final Map<String, String> READS = new LinkedHashMap<>();

    static {
        READS.put("information_schema.columns", "SELECT table_schema, table_name, column_name, ordinal_position, column_default, is_nullable, "
                + "data_type, character_maximum_length, character_octet_length, numeric_precision, numeric_precision_radix, numeric_scale, "
                + "datetime_precision, udt_catalog IS NOT NULL, udt_schema, udt_name, is_identity, is_generated "
                + "FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, ordinal_position");
        READS.put("pg_indexes", "SELECT schemaname, tablename, indexname, tablespace, indexdef FROM pg_catalog.pg_indexes "
                + "WHERE schemaname = 'public' ORDER BY indexname");
        READS.put("pg_index", "SELECT c.relname, t.relname, i.indnatts, i.indnkeyatts, i.indisunique, i.indisprimary, i.indisexclusion, "
                + "i.indimmediate, i.indisvalid, i.indkey::text, i.indoption::text FROM pg_catalog.pg_index i "
                + "JOIN pg_catalog.pg_class c ON c.oid = i.indexrelid JOIN pg_catalog.pg_class t ON t.oid = i.indrelid "
                + "JOIN pg_catalog.pg_namespace n ON n.oid = t.relnamespace WHERE n.nspname = 'public' ORDER BY 1");
        READS.put("pg_attribute", "SELECT c.relname, a.attname, a.atttypid, a.attlen, a.attnum, a.attndims, a.atttypmod, a.attbyval, "
                + "a.attalign, a.attstorage, a.attnotnull, a.atthasdef, a.attidentity, a.attgenerated, a.attisdropped, a.attcollation "
                + "FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid = a.attrelid "
                + "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND a.attnum > 0 ORDER BY 1, a.attnum");
    }

    @TempDir
    Path dir;

    @Test
    void catalogRowsAgreeWithPostgresForTheSameObjects() throws Exception {
        String address = System.getenv("POSTGRES_ORACLE_ADDRESS");
        if (address == null || address.isBlank()) {
            org.junit.jupiter.api.Assertions.assertFalse("true".equalsIgnoreCase(System.getenv("CI")), "no PostgreSQL oracle on CI");
            System.err.println("!!! CatalogDifferentialTest SKIPPED: POSTGRES_ORACLE_ADDRESS is not set (source bin/test-postgres.sh; test_postgres_start)");
        }
        Assumptions.assumeTrue(address != null && !address.isBlank(), "no PostgreSQL oracle");
        String db = "catalog_diff_" + Long.toHexString(System.nanoTime());
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://" + address + "/postgres", "postgres", "");
                Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + db);
        }
        try {
            Map<String, List<String>> postgres;
            try (Connection c = DriverManager.getConnection("jdbc:postgresql://" + address + "/" + db, "postgres", "")) {
                postgres = read(c);
            }
            Map<String, List<String>> tandem;
            try (SqlTesting.Stack stack = SqlTesting.stack(dir);
                    PgWireServer server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0);
                    Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/tandem", "tandem", "")) {
                tandem = read(c);
            }
            for (String what : READS.keySet()) {
                assertThat(tandem.get(what)).as(what + ": Tandem's rows against PostgreSQL 15's").isEqualTo(postgres.get(what));
            }
        } finally {
            try (Connection c = DriverManager.getConnection("jdbc:postgresql://" + address + "/postgres", "postgres", "");
                    Statement s = c.createStatement()) {
                s.execute("DROP DATABASE " + db);
            }
        }
    }

    private static Map<String, List<String>> read(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            for (String ddl : DDL.strip().split(";\n")) {
                s.execute(ddl);
            }
        }
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (Map.Entry<String, String> r : READS.entrySet()) {
            List<String> rows = new ArrayList<>();
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(r.getValue())) {
                ResultSetMetaData md = rs.getMetaData();
                while (rs.next()) {
                    List<String> row = new ArrayList<>();
                    for (int i = 1; i <= md.getColumnCount(); i++) {
                        row.add(rs.getString(i));
                    }
                    rows.add(String.join("|", row));
                }
            }
            out.put(r.getKey(), rows);
        }
        return out;
    }
}
