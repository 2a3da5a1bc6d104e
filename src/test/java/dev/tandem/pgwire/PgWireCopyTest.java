package dev.tandem.pgwire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.copy.CopyManager;
import org.postgresql.core.BaseConnection;

/**
 * {@code COPY ... FROM STDIN} over the CopyIn sub-protocol: pgjdbc's CopyManager and psql's {@code \copy}
 * load rows in text and CSV format as one write; a bad row or a CopyFail writes nothing.
 */
class PgWireCopyTest extends TrustedPgWireServer {

    @TempDir
    Path scratch;

    @Test
    void copyManagerLoadsTextAndCsv() throws Exception {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE ct (id bigint PRIMARY KEY, name text, qty bigint DEFAULT 7, ok boolean)");
            CopyManager copy = new CopyManager(c.unwrap(BaseConnection.class));
            long n = copy.copyIn("COPY ct FROM STDIN", new StringReader("1\tink\t2\tt\n2\t\\N\t\\N\tf\n3\ttab\\there\t4\ttrue\n"));
            assertThat(n).isEqualTo(3);
            n = copy.copyIn("COPY ct (id, name) FROM STDIN WITH (FORMAT csv, HEADER)",
                    new StringReader("id,name\n4,\"a, \"\"quoted\"\"\nline\"\n5,\n6,\"\"\n"));
            assertThat(n).isEqualTo(3);
            assertThat(rows(s, "SELECT id, name, qty, ok FROM ct ORDER BY id", "|")).containsExactly(
                    "1|ink|2|t", "2|null|null|f", "3|tab\there|4|t", "4|a, \"quoted\"\nline|7|null", "5|null|7|null", "6||7|null");

            // a bad row refuses the whole COPY, naming its line
            assertThatThrownBy(() -> copy.copyIn("COPY ct FROM STDIN", new StringReader("7\tx\t1\tt\n8\ty\tnot a number\tt\n")))
                    .isInstanceOfSatisfying(SQLException.class, e -> {
                        assertThat(e.getSQLState()).isEqualTo("22P02");
                        assertThat(e.getMessage()).contains("line 2");
                    });
            assertThatThrownBy(() -> copy.copyIn("COPY ct FROM STDIN", new StringReader("1\tdup\t1\tt\n")))
                    .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("23505"));
            assertThatThrownBy(() -> copy.copyIn("COPY nope FROM STDIN", new StringReader("")))
                    .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("42P01"));
            assertThat(rows(s, "SELECT count(*) FROM ct", "|")).containsExactly("6");

            // inside a block, the COPY is one of the block's writes
            c.setAutoCommit(false);
            assertThat(copy.copyIn("COPY ct (id) FROM STDIN", new StringReader("9\n10\n"))).isEqualTo(2);
            assertThat(rows(s, "SELECT count(*) FROM ct", "|")).containsExactly("8");
            c.rollback();
            c.setAutoCommit(true);
            assertThat(rows(s, "SELECT count(*) FROM ct", "|")).containsExactly("6");
        }
    }

    @Test
    void copyManagerCopiesOutTextAndCsv() throws Exception {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE co (id bigint, name text, price double precision)");
            s.execute("INSERT INTO co VALUES (1, 'ink', 1.5), (2, NULL, NULL), (3, 'a,\"b\"', 2), (4, '', 0.25), (5, 'tab\there', -1)");
            CopyManager copy = new CopyManager(c.unwrap(BaseConnection.class));
            java.io.StringWriter text = new java.io.StringWriter();
            assertThat(copy.copyOut("COPY (SELECT id, name, price FROM co ORDER BY id) TO STDOUT", text)).isEqualTo(5);
            assertThat(text.toString()).isEqualTo("1\tink\t1.5\n2\t\\N\t\\N\n3\ta,\"b\"\t2\n4\t\t0.25\n5\ttab\\there\t-1\n");
            java.io.StringWriter csv = new java.io.StringWriter();
            assertThat(copy.copyOut("COPY (SELECT id, name FROM co ORDER BY id) TO STDOUT WITH (FORMAT csv, HEADER)", csv)).isEqualTo(5);
            assertThat(csv.toString()).isEqualTo("id,name\n1,ink\n2,\n3,\"a,\"\"b\"\"\"\n4,\"\"\n5,tab\there\n");
            java.io.StringWriter table = new java.io.StringWriter();
            assertThat(copy.copyOut("COPY co TO STDOUT", table)).isEqualTo(5);
            assertThat(table.toString().lines().sorted().toList()).hasSize(5).contains("1\tink\t1.5");
            // what COPY TO writes, COPY FROM reads back
            s.execute("CREATE TABLE co2 (id bigint, name text, price double precision)");
            assertThat(copy.copyIn("COPY co2 FROM STDIN WITH (FORMAT csv, HEADER)",
                    new StringReader("id,name,price\n" + csv.toString().lines().skip(1).map(l -> l + ",1").collect(java.util.stream.Collectors.joining("\n")))))
                    .isEqualTo(5);
            assertThat(rows(s, "SELECT id, name FROM co2 ORDER BY id", "|")).containsExactly("1|ink", "2|null", "3|a,\"b\"", "4|", "5|tab\there");
        }
    }

    /**
     * The same COPY data loaded into Tandem and into PostgreSQL ({@code POSTGRES_ORACLE_ADDRESS}) leaves the
     * same rows, and both write it back alike with COPY TO in text and CSV.
     */
    @Test
    void copyAnswersAsPostgresDoes() throws Exception {
        String address = System.getenv("POSTGRES_ORACLE_ADDRESS");
        Assumptions.assumeTrue(address != null && !address.isBlank(), "POSTGRES_ORACLE_ADDRESS is not set");
        String schema = "copy_" + Long.toHexString(System.nanoTime());
        String text = "1\tink\t1.5\tt\t2024-01-02 03:04:05\n2\t\\N\t\\N\t\\N\t\\N\n3\ta\\tb\\\\c\t-0.25\tf\t2024-02-29 23:59:59.5\n";
        String csv = "id,name,price,ok,ts\n4,\"x,\"\"y\"\"\",10,true,2020-01-01 00:00:00\n5,,,,\n6,\"\",0,false,1999-12-31 23:59:59\n";
        try (Connection pg = java.sql.DriverManager.getConnection("jdbc:postgresql://" + address + "/postgres?user=postgres&sslmode=disable");
                Connection c = connect()) {
            try (Statement p = pg.createStatement()) {
                p.execute("CREATE SCHEMA " + schema);
                p.execute("SET search_path TO " + schema);
            }
            List<List<String>> answers = new ArrayList<>();
            for (Connection to : List.of(c, pg)) {
                try (Statement s = to.createStatement()) {
                    s.execute("CREATE TABLE cd (id bigint, name text, price double precision, ok boolean, ts timestamp)");
                    CopyManager copy = new CopyManager(to.unwrap(BaseConnection.class));
                    copy.copyIn("COPY cd FROM STDIN", new StringReader(text));
                    copy.copyIn("COPY cd FROM STDIN WITH (FORMAT csv, HEADER)", new StringReader(csv));
                    List<String> answer = new ArrayList<>(rows(s, "SELECT id, name, price, ok, ts FROM cd ORDER BY id", "|"));
                    java.io.StringWriter out = new java.io.StringWriter();
                    copy.copyOut("COPY (SELECT id, name, price, ok, ts FROM cd ORDER BY id) TO STDOUT", out);
                    answer.add(out.toString());
                    out = new java.io.StringWriter();
                    copy.copyOut("COPY (SELECT id, name, ok, ts FROM cd ORDER BY id) TO STDOUT WITH (FORMAT csv, HEADER)", out);
                    answer.add(out.toString());
                    answers.add(answer);
                }
            }
            try (Statement p = pg.createStatement()) {
                p.execute("DROP SCHEMA " + schema + " CASCADE");
            }
            assertThat(answers.get(0)).isEqualTo(answers.get(1));
        }
    }

    @Test
    void psqlCopiesAFile() throws Exception {
        String psql = PgWireTesting.requirePsql("PgWireCopyTest");
        Path csv = scratch.resolve("rows.csv");
        StringBuilder b = new StringBuilder("id,v\n");
        for (int i = 0; i < 5000; i++) {
            b.append(i).append(",v").append(i).append('\n');
        }
        Files.writeString(csv, b.toString());
        Path text = scratch.resolve("rows.txt");
        Files.writeString(text, "9000\tnine\n9001\t\\N\n");
        Path script = scratch.resolve("copy.sql");
        Files.writeString(script, "CREATE TABLE pc (id bigint NOT NULL, v text);\n"
                + "\\copy pc FROM '" + csv + "' WITH (FORMAT csv, HEADER)\n"
                + "\\copy pc FROM '" + text + "'\n"
                + "SELECT count(*), count(v), max(id) FROM pc;\n"
                + "\\copy (SELECT id, v FROM pc WHERE id >= 4999 ORDER BY id) TO '" + scratch.resolve("out.csv") + "' WITH (FORMAT csv)\n");
        Process p = new ProcessBuilder(psql, "-h", "127.0.0.1", "-p", Integer.toString(server.port()), "-U", "someone", "-d", "tandem",
                "-X", "-A", "-t", "-f", script.toString())
                .redirectErrorStream(true)
                .start();
        p.getOutputStream().close();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("psql finished").isTrue();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(out).as(out).contains("COPY 5000\nCOPY 2\n5002|5001|9001\nCOPY 3\n");
        assertThat(Files.readString(scratch.resolve("out.csv"))).isEqualTo("4999,v4999\n9000,nine\n9001,\n");
        assertThat(p.exitValue()).isZero();
    }
}
