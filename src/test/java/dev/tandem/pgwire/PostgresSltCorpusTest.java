package dev.tandem.pgwire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.pgwire.SltCorpusRunner.Outcome;
import dev.tandem.pgwire.SltCorpusRunner.Result;
import dev.tandem.pgwire.SltState.FileOutcome;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * {@link SltCorpusRunner} against a real PostgreSQL 15 ({@code POSTGRES_ORACLE_ADDRESS}, as for
 * {@link PostgresDifferentialTest}): tiny sqllogictest files run each in a database of their own, dropped after, their
 * records classified as against Tandem, and the two runs compared.
 */
class PostgresSltCorpusTest {

    @Test
    void tinyFilesRunInDatabasesOfTheirOwnAndCompareWithTandem(@TempDir Path dir) throws IOException, SQLException {
        String address = System.getenv("POSTGRES_ORACLE_ADDRESS");
        if (address == null || address.isBlank()) {
            Assertions.assertFalse("true".equalsIgnoreCase(System.getenv("CI")),
                    "POSTGRES_ORACLE_ADDRESS is not set on CI: .ci/run starts a PostgreSQL for PostgresSltCorpusTest");
            System.err.println("!!! PostgresSltCorpusTest SKIPPED: POSTGRES_ORACLE_ADDRESS is not set (bin/dev test and .ci/run start a PostgreSQL)");
        }
        Assumptions.assumeTrue(address != null && !address.isBlank(), "POSTGRES_ORACLE_ADDRESS is not set");
        String url = "jdbc:postgresql://" + address + "/postgres?user=postgres&sslmode=disable";
        String a = SltCorpusStateTest.write(dir, "a.test", SltCorpusStateTest.FILE_A);
        String b = SltCorpusStateTest.write(dir, "b.test", SltCorpusStateTest.FILE_B);
        SltCorpusRunner runner = new SltCorpusRunner(20, 0);
        Path pgState = dir.resolve("postgres");
        List<String> databases = new ArrayList<>();
        SltState.Contents pg;
        // what a killed run leaves: the database of the file it was running, named for a process that is gone
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS slt_2147483646_1");
            s.execute("CREATE DATABASE slt_2147483646_1");
        }
        try (SltTarget target = new SltTarget.Postgres(url); Connection admin = DriverManager.getConnection(url)) {
            pg = runner.run(List.of(a, b), target, pgState, "c1", 1, (o, c) -> databases.addAll(databases(admin)));
            assertThat(databases(admin)).as("databases left behind").isEmpty();
            try (Statement s = admin.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_database WHERE datname = 'slt_2147483646_1'")) {
                assertThat(rs.next() && rs.getInt(1) == 0).as("a killed run's database is dropped").isTrue();
            }
            String own = SltCorpusStateTest.write(dir, "own.test", "query I nosort\nSELECT CASE WHEN current_database() LIKE 'slt\\_"
                    + ProcessHandle.current().pid() + "\\_%' THEN 1 ELSE 0 END\n----\n1\n");
            FileOutcome o = runner.runFile(own, target, "c1");
            assertThat(o.counts().get(Outcome.PASSED)).as("the file ran in a database of its own: " + o.notPassed()).isEqualTo(1);
            assertThat(databases(admin)).as("databases left behind").isEmpty();
        }
        assertThat(databases).as("no file's database is left once the file ends").isEmpty();
        FileOutcome fa = pg.files().get(a);
        assertThat(fa.target()).isEqualTo("postgres");
        assertThat(fa.records()).isEqualTo(5);
        assertThat(fa.counts().get(Outcome.PASSED)).isEqualTo(3);
        assertThat(fa.counts().get(Outcome.SKIPPED)).isEqualTo(1);
        assertThat(fa.notPassed()).extracting(Result::line, Result::outcome).containsExactly(Tuple.tuple(12, Outcome.WRONG));
        FileOutcome fb = pg.files().get(b);
        assertThat(fb.counts().get(Outcome.PASSED)).as("the statement the corpus expects to fail").isEqualTo(2);
        assertThat(fb.notPassed()).extracting(Result::line, Result::outcome, Result::sqlState)
                .containsExactly(Tuple.tuple(7, Outcome.REFUSED, "42703"));

        Path tandemState = dir.resolve("tandem");
        try (SltTarget target = new SltTarget.Tandem(dir)) {
            runner.run(List.of(a, b), target, tandemState, "c1", 1, (o, c) -> { });
        }
        Path out = dir.resolve("compare.json");
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        assertThat(SltCorpusRunner.compare(tandemState, pgState, out, new PrintStream(printed, true, StandardCharsets.UTF_8))).isZero();
        System.out.print(printed.toString(StandardCharsets.UTF_8));
        JsonNode c = SltState.JSON.readTree(out.toFile());
        assertThat(c.get("files").get("compared").asInt()).isEqualTo(2);
        assertThat(c.get("postgresPassed").asInt()).isEqualTo(5);
        assertThat(c.get("tandemOnPostgresPassed").get("passed").asInt()).isEqualTo(5);
        assertThat(c.get("wrongWherePostgresDoesNotPass")).singleElement().satisfies(r -> {
            assertThat(r.get("line").asInt()).isEqualTo(12);
            assertThat(r.get("postgresOutcome").asString()).isEqualTo("wrong");
        });
    }

    /** The databases this process created for files and has not dropped. */
    private static List<String> databases(Connection admin) {
        List<String> names = new ArrayList<>();
        try (Statement s = admin.createStatement();
                ResultSet rs = s.executeQuery("SELECT datname FROM pg_database WHERE datname LIKE 'slt\\_" + ProcessHandle.current().pid() + "\\_%'")) {
            while (rs.next()) {
                names.add(rs.getString(1));
            }
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
        return names;
    }
}
