package dev.tandem.pgwire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tandem.pgwire.SltCorpusRunner.Counts;
import dev.tandem.pgwire.SltCorpusRunner.Outcome;
import dev.tandem.pgwire.SltCorpusRunner.Result;
import dev.tandem.pgwire.SltState.FileOutcome;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * {@link SltCorpusRunner}'s state directories on tiny sqllogictest files: a resumed run skips the files already
 * recorded, reruns a file whose line a kill cut short, and reports over everything recorded; and
 * {@link SltComparison} matches Tandem's records with PostgreSQL's by file and line.
 */
class SltCorpusStateTest {

    static final String FILE_A = """
            statement ok
            CREATE TABLE t1(a INTEGER, b INTEGER)

            statement ok
            INSERT INTO t1 VALUES(1, 2)

            query I nosort
            SELECT a FROM t1
            ----
            1

            # the corpus expects 4: a wrong answer
            query I nosort
            SELECT a + b FROM t1
            ----
            4

            skipif postgresql
            query I nosort
            SELECT 1
            ----
            1
            """;

    static final String FILE_B = """
            statement ok
            CREATE TABLE t2(x INTEGER)

            statement error
            SELECT * FROM no_such_table

            query I nosort
            SELECT no_such_column FROM t2
            ----
            """;

    @Test
    void aResumedRunSkipsRecordedFilesRerunsATornOneAndReportsThemAll(@TempDir Path dir) throws IOException {
        String a = write(dir, "a.test", FILE_A);
        String b = write(dir, "b.test", FILE_B);
        Path state = dir.resolve("state");
        List<String> ran = new ArrayList<>();
        SltCorpusRunner runner = new SltCorpusRunner(20, 0);

        SltState.Contents first = runWith(runner, dir, List.of(a, b), state, "c1", 1, ran);
        assertThat(ran).containsExactly(a, b);
        FileOutcome fa = first.files().get(a);
        assertThat(fa.records()).isEqualTo(5);
        assertThat(counts(fa.counts())).isEqualTo(Map.of("passed", 3, "wrong", 1, "skipped", 1));
        assertThat(fa.notPassed()).extracting(Result::line, Result::outcome).containsExactly(org.assertj.core.groups.Tuple.tuple(12, Outcome.WRONG));
        FileOutcome fb = first.files().get(b);
        assertThat(counts(fb.counts())).isEqualTo(Map.of("passed", 2, "refused", 1));
        assertThat(fb.counts().refusedBySqlState()).isEqualTo(Map.of("42703", 1));
        assertThat(fb.notPassed()).singleElement().satisfies(r -> {
            assertThat(r.line()).isEqualTo(7);
            assertThat(r.sqlState()).isEqualTo("42703");
        });
        assertThat(fa.commit()).isEqualTo("c1");
        assertThat(fa.target()).isEqualTo("tandem");

        // a kill while b's line was being written: half of it, no line end
        Path file = state.resolve(SltState.FILE_NAME);
        List<String> lines = Files.readAllLines(file);
        assertThat(lines).hasSize(2);
        Files.writeString(file, lines.get(0) + "\n" + lines.get(1).substring(0, lines.get(1).length() / 2));
        SltState.Contents torn = SltState.read(state);
        assertThat(torn.files()).containsOnlyKeys(a);
        assertThat(torn.unreadableLines()).isEqualTo(1);

        ran.clear();
        SltState.Contents resumed = runWith(runner, dir, List.of(a, b), state, "c2", 2, ran);
        assertThat(ran).containsExactly(b);
        assertThat(resumed.files()).containsOnlyKeys(a, b);
        assertThat(resumed.unreadableLines()).isZero();
        assertThat(resumed.files().get(a).commit()).isEqualTo("c1");
        assertThat(resumed.files().get(b).commit()).isEqualTo("c2");
        assertThat(Files.readAllLines(file)).hasSize(2).first().isEqualTo(lines.get(0));

        ran.clear();
        runWith(runner, dir, List.of(a, b), state, "c3", 2, ran);
        assertThat(ran).isEmpty();

        JsonNode report = SltReport.json(SltState.read(state), 1);
        assertThat(report.get("files").asInt()).isEqualTo(2);
        assertThat(report.get("commits").get("c1").asInt()).isEqualTo(1);
        assertThat(report.get("commits").get("c2").asInt()).isEqualTo(1);
        assertThat(report.get("total").get("passed").asInt()).isEqualTo(5);
        assertThat(report.get("total").get("wrong").asInt()).isEqualTo(1);
        assertThat(report.get("total").get("refused").asInt()).isEqualTo(1);
        assertThat(report.get("total").get("skipped").asInt()).isEqualTo(1);
        assertThat(report.get("notPassedTotal").asInt()).isEqualTo(2);
        assertThat(report.get("notPassed")).hasSize(1);

        // a directory holding another limit's (or target's) files is not mixed with this run's
        assertThatThrownBy(() -> runWith(new SltCorpusRunner(20, 1), dir, List.of(a), state, "c1", 1, ran))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--limit 0");
    }

    private static SltState.Contents runWith(SltCorpusRunner runner, Path scratch, List<String> files, Path state, String commit,
            int jobs, List<String> ran) throws IOException {
        try (SltTarget target = new SltTarget.Tandem(scratch)) {
            return runner.run(files, target, state, commit, jobs, (o, c) -> ran.add(o.file()));
        } catch (java.sql.SQLException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void theComparisonMatchesRecordsByFileAndLine(@TempDir Path dir) throws IOException {
        Path td = dir.resolve("tandem");
        Path pg = dir.resolve("postgres");
        // x: both ran it; line 10 PostgreSQL refuses and Tandem passes; 20 both answer wrong; 30, 40, 50 and 60 PostgreSQL
        // passes, Tandem refuses 30, answers 40 wrong, ends 50 in an error and passes 60; 70 both skip
        SltState.open(pg).append(outcome("x", "postgres", 7, List.of(r("x", 10, Outcome.REFUSED, "42601"), r("x", 20, Outcome.WRONG, ""))));
        SltState.open(td).append(outcome("x", "tandem", 7, List.of(r("x", 20, Outcome.WRONG, ""), r("x", 30, Outcome.REFUSED, "0A000"),
                r("x", 40, Outcome.WRONG, ""), r("x", 50, Outcome.ERROR, "57014"))));
        // y: Tandem only, one wrong answer; z: PostgreSQL only; w: both, but another number of records; v: both, a runtime failure
        SltState.open(td).append(outcome("y", "tandem", 2, List.of(r("y", 5, Outcome.WRONG, ""))));
        SltState.open(pg).append(outcome("z", "postgres", 2, List.of()));
        SltState.open(td).append(outcome("w", "tandem", 3, List.of(r("w", 5, Outcome.WRONG, ""))));
        SltState.open(pg).append(outcome("w", "postgres", 4, List.of()));
        SltState.open(td).append(outcome("v", "tandem", 2, List.of(r("v", 0, Outcome.ERROR, ""))));
        SltState.open(pg).append(outcome("v", "postgres", 2, List.of()));
        Files.writeString(td.resolve(SltState.FILE_NAME), "{\"file\": \"torn", java.nio.file.StandardOpenOption.APPEND);

        Path out = dir.resolve("compare.json");
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        assertThat(SltCorpusRunner.compare(td, pg, out, new PrintStream(printed, true, StandardCharsets.UTF_8))).isZero();
        JsonNode c = SltState.JSON.readTree(out.toFile());
        assertThat(c.get("files").get("compared").asInt()).isEqualTo(2);
        assertThat(c.get("files").get("onlyTandem").toString()).isEqualTo("[\"y\"]");
        assertThat(c.get("files").get("onlyPostgres").toString()).isEqualTo("[\"z\"]");
        assertThat(c.get("files").get("notComparable").has("w")).isTrue();
        // PostgreSQL passes x's 30, 40, 50 and 60 and v's one record not skipped; Tandem passes x's 60 and v's record
        assertThat(c.get("postgresPassed").asInt()).isEqualTo(4 + 1);
        JsonNode t = c.get("tandemOnPostgresPassed");
        assertThat(t.get("passed").asInt()).isEqualTo(1 + 1);
        assertThat(t.get("percent").asDouble()).isEqualTo(40.0);
        assertThat(t.get("refused").asInt()).isEqualTo(1);
        assertThat(t.get("refusedBySqlState").get("0A000").asInt()).isEqualTo(1);
        assertThat(t.get("wrong").asInt()).isEqualTo(1);
        assertThat(t.get("error").asInt()).isEqualTo(1);
        assertThat(c.get("tandemPassedWherePostgresDoesNot").asInt()).isEqualTo(1);
        assertThat(lines(c.get("wrongWherePostgresPasses"))).containsExactly("x:40");
        assertThat(lines(c.get("errorWherePostgresPasses"))).containsExactly("x:50");
        assertThat(lines(c.get("wrongWherePostgresDoesNotPass"))).containsExactly("x:20");
        assertThat(c.get("wrongWherePostgresDoesNotPass").get(0).get("postgresOutcome").asString()).isEqualTo("wrong");
        assertThat(lines(c.get("wrongInFilesNotCompared"))).containsExactlyInAnyOrder("y:5", "w:5");
        assertThat(lines(c.get("tandemRuntimeFailures"))).containsExactly("v:0");
        assertThat(printed.toString(StandardCharsets.UTF_8)).contains("records PostgreSQL passes: 5", "Tandem passes           2  40.000 %");

        // the directories the wrong way round are refused, not compared
        assertThat(SltCorpusRunner.compare(pg, td, out, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8))).isEqualTo(2);
    }

    private static List<String> lines(JsonNode results) {
        List<String> out = new ArrayList<>();
        results.forEach(r -> out.add(r.get("file").asString() + ":" + r.get("line").asInt()));
        return out;
    }

    private static Result r(String file, int line, Outcome outcome, String state) {
        return new Result(file, line, outcome, state, "SELECT " + line, outcome + " at " + line);
    }

    /** A file of {@code records} records, one of them skipped, the rest passed but for {@code notPassed}. */
    private static FileOutcome outcome(String file, String target, int records, List<Result> notPassed) {
        Counts counts = new Counts();
        notPassed.forEach(counts::add);
        notPassed.stream().filter(x -> x.outcome() == Outcome.REFUSED).forEach(x -> counts.refusedBySqlState.merge(x.sqlState(), 1, Integer::sum));
        int failed = (int) notPassed.stream().filter(x -> x.line() != 0).count();
        counts.byOutcome.put(Outcome.SKIPPED, 1);
        counts.byOutcome.put(Outcome.PASSED, records - 1 - failed);
        return new FileOutcome(file, target, "c-" + target, 0, 10, 0.5, "2026-12-06T13:00:00Z", records, counts, notPassed);
    }

    private static Map<String, Integer> counts(Counts c) {
        Map<String, Integer> m = new java.util.TreeMap<>();
        for (Outcome o : Outcome.values()) {
            if (c.get(o) != 0) {
                m.put(o.name().toLowerCase(java.util.Locale.ROOT), c.get(o));
            }
        }
        return m;
    }

    static String write(Path dir, String name, String text) throws IOException {
        Path p = dir.resolve(name);
        Files.writeString(p, text);
        return p.toString();
    }
}
