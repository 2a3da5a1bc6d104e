package dev.tandem.pgwire;

import dev.tandem.pgwire.SltCorpusRunner.Outcome;
import dev.tandem.pgwire.SltCorpusRunner.Result;
import dev.tandem.pgwire.SltState.FileOutcome;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Tandem's records against PostgreSQL's, matched by file and line over the files both state directories hold: of the
 * records PostgreSQL passes, how many Tandem passes, refuses (by SQLSTATE), answers wrong or ends in an error; and
 * every wrong answer of Tandem's, PostgreSQL's passing or not.
 */
final class SltComparison {

    /** A Tandem record that did not pass, with PostgreSQL's outcome of the same record (null where PostgreSQL passed it). */
    record Pair(Result tandem, Result postgres) {
    }

    final List<String> bothFiles = new ArrayList<>();
    final List<String> onlyTandem = new ArrayList<>();
    final List<String> onlyPostgres = new ArrayList<>();
    /** Files both ran whose records differ in number (another limit, or another corpus): left out, with why. */
    final Map<String, String> notComparable = new TreeMap<>();
    int postgresPassed;
    int tandemPassed;
    int refused;
    int wrong;
    int error;
    final Map<String, Integer> refusedBySqlState = new TreeMap<>();
    /** Records PostgreSQL does not pass and Tandem does. */
    int passedWherePostgresDoesNot;
    final List<Pair> wrongWherePostgresPasses = new ArrayList<>();
    final List<Pair> errorWherePostgresPasses = new ArrayList<>();
    final List<Pair> wrongWherePostgresDoesNot = new ArrayList<>();
    /** Tandem's wrong answers in files PostgreSQL has not run (or not comparably): wrong answers all the same. */
    final List<Result> wrongUncompared = new ArrayList<>();
    /** Failures of Tandem's runtime found when a file's server closed (line 0: not a record). */
    final List<Result> runtimeFailures = new ArrayList<>();
    final Map<String, Integer> tandemCommits;
    final Map<String, Integer> postgresCommits;

    private SltComparison(SltState.Contents tandem, SltState.Contents postgres) {
        tandemCommits = SltReport.commits(tandem.files().values());
        postgresCommits = SltReport.commits(postgres.files().values());
        for (FileOutcome t : tandem.files().values()) {
            t.notPassed().stream().filter(r -> r.line() == 0).forEach(runtimeFailures::add);
            FileOutcome p = postgres.files().get(t.file());
            if (p == null) {
                onlyTandem.add(t.file());
                wrongUncompared(t);
                continue;
            }
            String why = t.records() != p.records() || t.counts().get(Outcome.SKIPPED) != p.counts().get(Outcome.SKIPPED)
                    ? "Tandem ran " + t.records() + " records (" + t.counts().get(Outcome.SKIPPED) + " skipped), PostgreSQL "
                            + p.records() + " (" + p.counts().get(Outcome.SKIPPED) + " skipped)"
                    : t.limit() != p.limit() ? "limits " + t.limit() + " and " + p.limit() : null;
            if (why != null) {
                notComparable.put(t.file(), why);
                wrongUncompared(t);
                continue;
            }
            bothFiles.add(t.file());
            compare(t, p);
        }
        postgres.files().keySet().stream().filter(f -> !tandem.files().containsKey(f)).forEach(onlyPostgres::add);
    }

    /** The comparison of the state directories' contents. */
    static SltComparison of(SltState.Contents tandem, SltState.Contents postgres) {
        return new SltComparison(tandem, postgres);
    }

    private void wrongUncompared(FileOutcome t) {
        t.notPassed().stream().filter(r -> r.outcome() == Outcome.WRONG).forEach(wrongUncompared::add);
    }

    private void compare(FileOutcome t, FileOutcome p) {
        Map<Integer, Result> pg = new HashMap<>();
        p.notPassed().forEach(r -> pg.put(r.line(), r));
        Map<Integer, Result> td = new HashMap<>();
        t.notPassed().forEach(r -> td.put(r.line(), r));
        int pgPassedHere = p.counts().get(Outcome.PASSED);
        postgresPassed += pgPassedHere;
        int failedOfPgPassed = 0;
        for (Result r : t.notPassed()) {
            if (r.line() == 0) {
                continue;
            }
            Result other = pg.get(r.line());
            if (other != null) {
                if (r.outcome() == Outcome.WRONG) {
                    wrongWherePostgresDoesNot.add(new Pair(r, other));
                }
                continue;
            }
            // not among PostgreSQL's records that did not pass, and not skipped (both skip the same records): PostgreSQL passed it
            failedOfPgPassed++;
            switch (r.outcome()) {
                case REFUSED -> {
                    refused++;
                    refusedBySqlState.merge(r.sqlState(), 1, Integer::sum);
                }
                case WRONG -> {
                    wrong++;
                    wrongWherePostgresPasses.add(new Pair(r, null));
                }
                default -> {
                    error++;
                    errorWherePostgresPasses.add(new Pair(r, null));
                }
            }
        }
        tandemPassed += pgPassedHere - failedOfPgPassed;
        passedWherePostgresDoesNot += (int) p.notPassed().stream().filter(r -> r.line() != 0 && !td.containsKey(r.line())).count();
    }

    /** The share of PostgreSQL's passed records that Tandem passes, in percent (100 where PostgreSQL passed none). */
    double percent() {
        return postgresPassed == 0 ? 100.0 : 100.0 * tandemPassed / postgresPassed;
    }

    ObjectNode json() {
        ObjectNode n = SltState.JSON.createObjectNode();
        ObjectNode files = n.putObject("files");
        files.put("compared", bothFiles.size());
        bothFiles.forEach(files.putArray("comparedFiles")::add);
        onlyTandem.forEach(files.putArray("onlyTandem")::add);
        onlyPostgres.forEach(files.putArray("onlyPostgres")::add);
        ObjectNode nc = files.putObject("notComparable");
        notComparable.forEach(nc::put);
        ObjectNode commits = n.putObject("commits");
        tandemCommits.forEach(commits.putObject("tandem")::put);
        postgresCommits.forEach(commits.putObject("postgres")::put);
        n.put("postgresPassed", postgresPassed);
        ObjectNode t = n.putObject("tandemOnPostgresPassed");
        t.put("passed", tandemPassed).put("percent", Math.round(percent() * 1000) / 1000.0).put("refused", refused)
                .put("wrong", wrong).put("error", error);
        refusedBySqlState.forEach(t.putObject("refusedBySqlState")::put);
        n.put("tandemPassedWherePostgresDoesNot", passedWherePostgresDoesNot);
        pairs(n.putArray("wrongWherePostgresPasses"), wrongWherePostgresPasses);
        pairs(n.putArray("errorWherePostgresPasses"), errorWherePostgresPasses);
        pairs(n.putArray("wrongWherePostgresDoesNotPass"), wrongWherePostgresDoesNot);
        ArrayNode uncompared = n.putArray("wrongInFilesNotCompared");
        wrongUncompared.forEach(r -> uncompared.add(SltState.resultJson(r)));
        ArrayNode runtime = n.putArray("tandemRuntimeFailures");
        runtimeFailures.forEach(r -> runtime.add(SltState.resultJson(r)));
        return n;
    }

    private static void pairs(ArrayNode into, List<Pair> pairs) {
        for (Pair p : pairs) {
            ObjectNode o = SltState.resultJson(p.tandem());
            if (p.postgres() != null) {
                o.put("postgresOutcome", p.postgres().outcome().name().toLowerCase(Locale.ROOT)).put("postgresDetail", p.postgres().detail());
            }
            into.add(o);
        }
    }

    void print(PrintStream out) {
        out.printf(Locale.ROOT, "files compared: %d (only Tandem: %d, only PostgreSQL: %d, not comparable: %d)%n", bothFiles.size(),
                onlyTandem.size(), onlyPostgres.size(), notComparable.size());
        out.printf(Locale.ROOT, "records PostgreSQL passes: %d%n", postgresPassed);
        out.printf(Locale.ROOT, "  Tandem passes   %9d  %.3f %%%n", tandemPassed, percent());
        out.printf(Locale.ROOT, "  Tandem refuses  %9d  %s%n", refused, refusedBySqlState);
        out.printf(Locale.ROOT, "  Tandem wrong    %9d%n", wrong);
        out.printf(Locale.ROOT, "  Tandem error    %9d%n", error);
        out.printf(Locale.ROOT, "records PostgreSQL does not pass and Tandem does: %d%n", passedWherePostgresDoesNot);
        out.printf(Locale.ROOT, "Tandem wrong where PostgreSQL does not pass: %d; in files not compared: %d; runtime failures: %d%n",
                wrongWherePostgresDoesNot.size(), wrongUncompared.size(), runtimeFailures.size());
        List<Pair> listed = new ArrayList<>(wrongWherePostgresPasses);
        listed.addAll(wrongWherePostgresDoesNot);
        wrongUncompared.forEach(r -> listed.add(new Pair(r, null)));
        for (Pair p : listed.subList(0, Math.min(20, listed.size()))) {
            out.println("  wrong " + p.tandem().file() + ":" + p.tandem().line() + " " + p.tandem().detail()
                    + (p.postgres() == null ? "" : " (PostgreSQL: " + p.postgres().outcome().name().toLowerCase(Locale.ROOT) + " " + p.postgres().detail() + ")"));
        }
        out.println("commits: Tandem " + tandemCommits + ", PostgreSQL runs " + postgresCommits);
    }
}
