package dev.tandem.pgwire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.sql.SqlTesting;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real clients read Tandem's {@code pg_catalog} and {@code information_schema}: psql's {@code \d t},
 * {@code \d+ t}, {@code \dt}, {@code \di}, {@code \dv}, {@code \dm} and {@code \x} (compared line by line with PostgreSQL 15's output for the
 * same statements when {@code POSTGRES_ORACLE_ADDRESS} names one), pgjdbc's DatabaseMetaData, and
 * SQLAlchemy's inspector over psycopg2. A missing psql or Python package skips its test, loudly.
 */
class PgCatalogClientsTest {

    /** Statements Tandem and PostgreSQL both take, making the same objects. */
    static final String DDL = """
            CREATE TABLE t (id bigint PRIMARY KEY, name text NOT NULL, score double precision, at timestamp, ok boolean);
            CREATE INDEX t_name ON t (name);
            CREATE VIEW v AS SELECT id, name FROM t;
            """;

    @TempDir
    Path dir;

    @Test
    void psqlDescribesTablesIndexesAndViewsAsPostgresDoes() throws Exception {
        String psql = PgWireTesting.requirePsql("PgCatalogClientsTest.psql");
        Path script = dir.resolve("describe.sql");
        Files.writeString(script, "\\d t\n\\dt\n\\di\n\\dv\n\\d nosuch\n\\d t_name\n\\d v\n\\d\n\\d+ t\n\\d+ t_name\n\\dm\n\\x\n\\d t\n"
                + "INSERT INTO t VALUES (1, 'a', 1.5, NULL, true);\nSELECT id, name, ok FROM t;\n\\x\n");
        // one database and one role, both "tandem": what PostgreSQL lists there differs by design
        Path own = dir.resolve("own.sql");
        Files.writeString(own, "\\dn\n\\l\n\\du\n");
        String tandem;
        String tandemOwn;
        try (SqlTesting.Stack stack = SqlTesting.stack(Files.createDirectory(dir.resolve("data")));
                PgWireServer server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0)) {
            try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/tandem", "tandem", "");
                    Statement s = c.createStatement()) {
                for (String ddl : DDL.strip().split(";\n")) {
                    s.execute(ddl);
                }
            }
            tandem = psql(psql, "127.0.0.1", server.port(), "tandem", "tandem", script);
            tandemOwn = psql(psql, "127.0.0.1", server.port(), "tandem", "tandem", own);
        }
        assertThat(tandemOwn).as(tandemOwn)
                .contains("List of schemas\nName|Owner\npublic|tandem\ntandem_internal|tandem\n(2 rows)")
                .contains("Name|Owner|Encoding|Collate|Ctype|ICU Locale|Locale Provider|Access privileges\ntandem|tandem|UTF8|C|C||libc|\n(1 row)")
                .contains("List of roles\nRole name|Attributes|Member of\ntandem|Superuser, Create role, Create DB, Bypass RLS|{}");
        assertThat(tandem).as(tandem)
                .contains("""
                        Table "public.t"
                        Column|Type|Collation|Nullable|Default
                        id|bigint||not null|
                        name|text||not null|
                        score|double precision|||
                        at|timestamp without time zone|||
                        ok|boolean|||
                        Indexes:
                            "t_pkey" PRIMARY KEY, btree (id)
                            "t_name" btree (name)
                        """)
                .contains("Schema|Name|Type|Owner\npublic|t|table|tandem\n(1 row)")
                .contains("Schema|Name|Type|Owner|Table\npublic|t_name|index|tandem|t\npublic|t_pkey|index|tandem|t\n(2 rows)")
                .contains("Schema|Name|Type|Owner\npublic|v|view|tandem\n(1 row)")
                .contains("Did not find any relation named \"nosuch\".")
                .contains("Index \"public.t_name\"\nColumn|Type|Key?|Definition\nname|text|yes|name\nbtree, for table \"public.t\"")
                .contains("View \"public.v\"\nColumn|Type|Collation|Nullable|Default\nid|bigint|||\nname|text|||");

        String address = System.getenv("POSTGRES_ORACLE_ADDRESS");
        if (address == null || address.isBlank()) {
            System.err.println("!!! PgCatalogClientsTest: psql's output not compared with PostgreSQL's: POSTGRES_ORACLE_ADDRESS is not set");
            return;
        }
        String host = address.substring(0, address.lastIndexOf(':'));
        int port = Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
        String db = "catalog_" + Long.toHexString(System.nanoTime());
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://" + address + "/postgres", "postgres", "");
                Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + db);
        }
        try {
            try (Connection c = DriverManager.getConnection("jdbc:postgresql://" + address + "/" + db, "postgres", "");
                    Statement s = c.createStatement()) {
                for (String ddl : DDL.strip().split(";\n")) {
                    s.execute(ddl);
                }
            }
            // the one intended difference: every object's owner is Tandem's one role, "tandem"
            String postgres = psql(psql, host, port, db, "postgres", script).replace("|postgres", "|tandem");
            assertThat(tandem.lines().toList()).as("psql's output from Tandem and from PostgreSQL 15").isEqualTo(postgres.lines().toList());
        } finally {
            try (Connection c = DriverManager.getConnection("jdbc:postgresql://" + address + "/postgres", "postgres", "");
                    Statement s = c.createStatement()) {
                s.execute("DROP DATABASE " + db);
            }
        }
    }

    /** psql's {@code \d} of a table with unique indexes made after its rows, and of such an index, as PostgreSQL 15 shows them. */
    @Test
    void psqlDescribesUniqueIndexesAsPostgresDoes() throws Exception {
        String psql = PgWireTesting.psql();
        Assumptions.assumeTrue(psql != null, "psql is not installed");
        String ddl = """
                CREATE TABLE u (id bigint, code text);
                INSERT INTO u VALUES (1, 'a'), (2, NULL), (3, NULL);
                CREATE UNIQUE INDEX u_code ON u (code);
                CREATE UNIQUE INDEX ON u (id, code);
                CREATE INDEX u_id ON u (id)
                """;
        Path script = dir.resolve("unique.sql");
        Files.writeString(script, "\\d u\n\\di\n\\d u_code\n\\d+ u_id_code_idx\n");
        String tandem;
        try (SqlTesting.Stack stack = SqlTesting.stack(Files.createDirectory(dir.resolve("data")));
                PgWireServer server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0)) {
            try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/tandem", "tandem", "");
                    Statement s = c.createStatement()) {
                for (String statement : ddl.strip().split(";\n")) {
                    s.execute(statement);
                }
            }
            tandem = psql(psql, "127.0.0.1", server.port(), "tandem", "tandem", script);
        }
        assertThat(tandem).as(tandem).contains("""
                Indexes:
                    "u_code" UNIQUE, btree (code)
                    "u_id" btree (id)
                    "u_id_code_idx" UNIQUE, btree (id, code)
                """);
        String address = System.getenv("POSTGRES_ORACLE_ADDRESS");
        if (address == null || address.isBlank()) {
            System.err.println("!!! PgCatalogClientsTest: psql's output not compared with PostgreSQL's: POSTGRES_ORACLE_ADDRESS is not set");
            return;
        }
        String host = address.substring(0, address.lastIndexOf(':'));
        int port = Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
        String db = "unique_" + Long.toHexString(System.nanoTime());
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://" + address + "/postgres", "postgres", "");
                Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + db);
        }
        try {
            try (Connection c = DriverManager.getConnection("jdbc:postgresql://" + address + "/" + db, "postgres", "");
                    Statement s = c.createStatement()) {
                for (String statement : ddl.strip().split(";\n")) {
                    s.execute(statement);
                }
            }
            String postgres = psql(psql, host, port, db, "postgres", script).replace("|postgres", "|tandem");
            assertThat(tandem.lines().toList()).as("psql's output from Tandem and from PostgreSQL 15").isEqualTo(postgres.lines().toList());
        } finally {
            try (Connection c = DriverManager.getConnection("jdbc:postgresql://" + address + "/postgres", "postgres", "");
                    Statement s = c.createStatement()) {
                s.execute("DROP DATABASE " + db);
            }
        }
    }

    private static String psql(String psql, String host, int port, String db, String user, Path script) throws Exception {
        Process p = new ProcessBuilder(psql, "-h", host, "-p", Integer.toString(port), "-U", user, "-d", db, "-X", "-A", "-f", script.toString())
                .redirectErrorStream(true)
                .start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("psql finished").isTrue();
        return out.replaceAll("psql:[^\\n]*\\.sql:\\d+: ", "");
    }

    @Test
    void jdbcDatabaseMetaDataDescribesTablesColumnsKeysAndIndexes() throws Exception {
        try (SqlTesting.Stack stack = SqlTesting.stack(Files.createDirectory(dir.resolve("data")));
                PgWireServer server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0);
                Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/tandem", "tandem", "")) {
            try (Statement s = c.createStatement()) {
                for (String ddl : DDL.strip().split(";\n")) {
                    s.execute(ddl);
                }
            }
            DatabaseMetaData md = c.getMetaData();
            assertThat(rows(md.getTables(null, "public", "%", new String[] {"TABLE", "VIEW"}), "TABLE_SCHEM", "TABLE_NAME", "TABLE_TYPE"))
                    .containsExactly("public|t|TABLE", "public|v|VIEW");
            // Tandem's introspection views are listed too, in their own schema (pgjdbc calls only pg_* schemas system ones)
            assertThat(rows(md.getTables(null, null, "%", new String[] {"TABLE", "VIEW"}), "TABLE_SCHEM", "TABLE_NAME", "TABLE_TYPE"))
                    .startsWith("public|t|TABLE", "public|v|VIEW").contains("tandem_internal|indexes|VIEW")
                    .allMatch(r -> r.startsWith("public|") || r.startsWith("tandem_internal|"));
            assertThat(rows(md.getTables(null, "public", "t", null), "TABLE_NAME")).containsExactly("t");
            assertThat(rows(md.getColumns(null, null, "t", "%"), "COLUMN_NAME", "DATA_TYPE", "TYPE_NAME", "NULLABLE", "ORDINAL_POSITION",
                    "IS_NULLABLE"))
                    .containsExactly("id|-5|int8|0|1|NO", "name|12|text|0|2|NO", "score|8|float8|1|3|YES", "at|93|timestamp|1|4|YES",
                            "ok|-7|bool|1|5|YES");
            assertThat(rows(md.getColumns(null, null, "v", "n%"), "TABLE_NAME", "COLUMN_NAME")).containsExactly("v|name");
            assertThat(rows(md.getPrimaryKeys(null, null, "t"), "TABLE_NAME", "COLUMN_NAME", "KEY_SEQ", "PK_NAME"))
                    .containsExactly("t|id|1|t_pkey");
            assertThat(rows(md.getIndexInfo(null, null, "t", false, false), "INDEX_NAME", "NON_UNIQUE", "ORDINAL_POSITION", "COLUMN_NAME",
                    "ASC_OR_DESC"))
                    .containsExactly("t_pkey|f|1|id|A", "t_name|t|1|name|A");
            assertThat(rows(md.getIndexInfo(null, null, "t", true, false), "INDEX_NAME")).containsExactly("t_pkey");
            assertThat(rows(md.getSchemas(), "TABLE_SCHEM")).containsExactly("information_schema", "pg_catalog", "public", "tandem_internal");
            assertThat(rows(md.getTypeInfo(), "TYPE_NAME")).contains("int8", "text", "float8", "bool", "timestamp");
            // a result's metadata asks the catalog which table and column each field comes from
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT name FROM t")) {
                assertThat(rs.getMetaData().getColumnTypeName(1)).isEqualTo("text");
            }
        }
    }

    private static List<String> rows(ResultSet rs, String... columns) throws Exception {
        List<String> out = new ArrayList<>();
        try (rs) {
            while (rs.next()) {
                List<String> values = new ArrayList<>();
                for (String c : columns) {
                    values.add(rs.getString(c));
                }
                out.add(String.join("|", values));
            }
        }
        return out;
    }

    @Test
    void sqlalchemyInspectorReflectsTablesColumnsAndKeys() throws Exception {
        String python = Files.isExecutable(Path.of("/usr/bin/python3")) ? "/usr/bin/python3" : "python3";
        Process check = new ProcessBuilder(python, "-c", "import psycopg2, sqlalchemy").redirectErrorStream(true).start();
        boolean present = check.waitFor(60, TimeUnit.SECONDS) && check.exitValue() == 0;
        if (!present) {
            org.junit.jupiter.api.Assertions.assertFalse("true".equalsIgnoreCase(System.getenv("CI")),
                    "python3-psycopg2 or python3-sqlalchemy is missing on CI: .ci/run installs them");
            System.err.println("!!! PgCatalogClientsTest.sqlalchemy SKIPPED: python3 with psycopg2 and sqlalchemy is missing "
                    + "(apt-get install python3-psycopg2 python3-sqlalchemy)");
        }
        Assumptions.assumeTrue(present, "python3-psycopg2 and python3-sqlalchemy are not installed");
        Path script = dir.resolve("reflect.py");
        Files.writeString(script, """
                import sys
                from sqlalchemy import create_engine, inspect
                engine = create_engine("postgresql+psycopg2://tandem@127.0.0.1:%s/tandem" % sys.argv[1])
                i = inspect(engine)
                print("tables", i.get_table_names())
                print("views", i.get_view_names())
                for c in i.get_columns("t"):
                    print("column", c["name"], c["type"], c["nullable"])
                pk = i.get_pk_constraint("t")
                print("pk", pk["name"], pk["constrained_columns"])
                print("indexes", [(x["name"], x["column_names"], x["unique"]) for x in i.get_indexes("t")])
                print("has", i.has_table("t"), i.has_table("nosuch"))
                """);
        try (SqlTesting.Stack stack = SqlTesting.stack(Files.createDirectory(dir.resolve("data")));
                PgWireServer server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0)) {
            try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/tandem", "tandem", "");
                    Statement s = c.createStatement()) {
                for (String ddl : DDL.strip().split(";\n")) {
                    s.execute(ddl);
                }
            }
            Process p = new ProcessBuilder(python, script.toString(), Integer.toString(server.port())).redirectErrorStream(true).start();
            p.getOutputStream().close();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("python finished").isTrue();
            assertThat(out).as(out)
                    .contains("tables ['t']")
                    .contains("views ['v']")
                    .contains("column id BIGINT False\ncolumn name TEXT False\ncolumn score DOUBLE_PRECISION True\n"
                            + "column at TIMESTAMP True\ncolumn ok BOOLEAN True")
                    .contains("pk t_pkey ['id']")
                    .contains("indexes [('t_name', ['name'], False)]")
                    .contains("has True False");
            assertThat(p.exitValue()).as(out).isZero();
        }
    }

    /** /usr/bin/python3 with psycopg2 and SQLAlchemy, or null (loudly skipped; an error on CI, whose .ci/run installs them). */
    private static String pythonWithSqlalchemy(String test) throws Exception {
        String python = Files.isExecutable(Path.of("/usr/bin/python3")) ? "/usr/bin/python3" : "python3";
        Process check = new ProcessBuilder(python, "-c", "import psycopg2, sqlalchemy").redirectErrorStream(true).start();
        boolean present = check.waitFor(60, TimeUnit.SECONDS) && check.exitValue() == 0;
        if (!present) {
            org.junit.jupiter.api.Assertions.assertFalse("true".equalsIgnoreCase(System.getenv("CI")),
                    "python3-psycopg2 or python3-sqlalchemy is missing on CI: .ci/run installs them");
            System.err.println("!!! PgCatalogClientsTest." + test + " SKIPPED: python3 with psycopg2 and sqlalchemy is missing "
                    + "(apt-get install python3-psycopg2 python3-sqlalchemy)");
        }
        Assumptions.assumeTrue(present, "python3-psycopg2 and python3-sqlalchemy are not installed");
        return python;
    }

    @Test
    void sqlalchemyCoreCreatesTablesReflectsThemAndSelects() throws Exception {
        String python = pythonWithSqlalchemy("sqlalchemyCore");
        Path script = dir.resolve("core.py");
        Files.writeString(script, """
                import sys
                from sqlalchemy import (create_engine, MetaData, Table, Column, BigInteger, Text, Float, Boolean, Index,
                                        inspect, select, insert)
                url = "postgresql+psycopg2://tandem@127.0.0.1:%s/tandem" % sys.argv[1]
                engine = create_engine(url)
                # Tandem applies each catalog change on its own, outside a transaction block
                ddl = create_engine(url, isolation_level="AUTOCOMMIT")
                metadata = MetaData()
                pets = Table("pets", metadata,
                             Column("id", BigInteger, primary_key=True, autoincrement=False),
                             Column("name", Text, nullable=False),
                             Column("weight", Float),
                             Column("indoor", Boolean))
                Index("pets_by_name", pets.c.name)
                metadata.create_all(ddl)
                metadata.create_all(ddl)
                i = inspect(engine)
                print("tables", i.get_table_names())
                for c in i.get_columns("pets"):
                    print("column", c["name"], c["type"], c["nullable"])
                print("pk", i.get_pk_constraint("pets")["constrained_columns"])
                print("indexes", [(x["name"], x["column_names"]) for x in i.get_indexes("pets")])
                reflected = Table("pets", MetaData(), autoload_with=engine)
                print("reflected", [c.name for c in reflected.columns])
                with engine.begin() as conn:
                    conn.execute(insert(pets), [{"id": 1, "name": "rex", "weight": 12.5, "indoor": False},
                                                {"id": 2, "name": "tom", "weight": 4.0, "indoor": True}])
                with engine.connect() as conn:
                    rows = conn.execute(select(reflected.c.name, reflected.c.weight).where(reflected.c.indoor == True)
                                        .order_by(reflected.c.id)).fetchall()
                    print("rows", [tuple(r) for r in rows])
                """);
        try (SqlTesting.Stack stack = SqlTesting.stack(Files.createDirectory(dir.resolve("data")));
                PgWireServer server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0)) {
            Process p = new ProcessBuilder(python, script.toString(), Integer.toString(server.port())).redirectErrorStream(true).start();
            p.getOutputStream().close();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("python finished").isTrue();
            assertThat(out).as(out)
                    .contains("tables ['pets']")
                    .contains("column id BIGINT False\ncolumn name TEXT False\ncolumn weight DOUBLE_PRECISION True\ncolumn indoor BOOLEAN True")
                    .contains("pk ['id']")
                    .contains("indexes [('pets_by_name', ['name'])]")
                    .contains("reflected ['id', 'name', 'weight', 'indoor']")
                    .contains("rows [('tom', 4.0)]");
            assertThat(p.exitValue()).as(out).isZero();
        }
    }
}
