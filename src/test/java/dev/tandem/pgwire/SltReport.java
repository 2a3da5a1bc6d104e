package dev.tandem.pgwire;

import dev.tandem.pgwire.SltCorpusRunner.Counts;
import dev.tandem.pgwire.SltCorpusRunner.Outcome;
import dev.tandem.pgwire.SltCorpusRunner.Result;
import dev.tandem.pgwire.SltState.FileOutcome;
import java.io.PrintStream;
import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** The report of a state directory's files: counts per file, per group of files and in total, and what did not pass. */
final class SltReport {

    private SltReport() {
    }

    /** The files' total counts. */
    static Counts total(Collection<FileOutcome> files) {
        Counts total = new Counts();
        files.forEach(f -> total.addAll(f.counts()));
        return total;
    }

    /** How many of the files each commit ran (a commit with {@code +dirty} had uncommitted changes). */
    static Map<String, Integer> commits(Collection<FileOutcome> files) {
        Map<String, Integer> commits = new TreeMap<>();
        files.forEach(f -> commits.merge(f.commit(), 1, Integer::sum));
        return commits;
    }

    /** The corpus's directory a file belongs to, its sizes dropped: {@code index/between}, {@code random/expr}, {@code evidence}, {@code select}. */
    static String group(String file) {
        String path = file.startsWith("test/") ? file.substring("test/".length()) : file;
        int slash = path.lastIndexOf('/');
        if (slash < 0) {
            return path.startsWith("select") ? "select" : "other";
        }
        return path.substring(0, slash).replaceAll("/\\d+$", "");
    }

    /** The JSON report: targets, commits, limits, counts in total and per file, and at most {@code maxRecords} records that did not pass. */
    static ObjectNode json(SltState.Contents contents, int maxRecords) {
        Collection<FileOutcome> files = contents.files().values();
        ObjectNode n = SltState.JSON.createObjectNode();
        ArrayNode targets = n.putArray("targets");
        new TreeSet<>(files.stream().map(FileOutcome::target).toList()).forEach(targets::add);
        ObjectNode commits = n.putObject("commits");
        commits(files).forEach(commits::put);
        ArrayNode limits = n.putArray("limits");
        new TreeSet<>(files.stream().map(FileOutcome::limit).toList()).forEach(limits::add);
        n.put("files", files.size()).put("unreadableLines", contents.unreadableLines())
                .put("seconds", Math.round(files.stream().mapToDouble(FileOutcome::seconds).sum()));
        n.set("total", SltState.countsJson(total(files)));
        ObjectNode groups = n.putObject("groups");
        groups(files).forEach((g, c) -> groups.set(g, SltState.countsJson(c)));
        ObjectNode perFile = n.putObject("perFile");
        files.forEach(f -> perFile.set(f.file(), SltState.countsJson(f.counts())));
        ArrayNode notPassed = n.putArray("notPassed");
        int listed = 0;
        for (FileOutcome f : files) {
            for (Result r : f.notPassed()) {
                if (listed++ < maxRecords) {
                    notPassed.add(SltState.resultJson(r));
                }
            }
        }
        n.put("notPassedListed", Math.min(listed, maxRecords)).put("notPassedTotal", listed);
        return n;
    }

    private static Map<String, Counts> groups(Collection<FileOutcome> files) {
        Map<String, Counts> groups = new TreeMap<>();
        files.forEach(f -> groups.computeIfAbsent(group(f.file()), g -> new Counts()).addAll(f.counts()));
        return groups;
    }

    /** The counts per group and in total, the refusals by SQLSTATE, and the commits, as a table. */
    static void print(SltState.Contents contents, PrintStream out) {
        Collection<FileOutcome> files = contents.files().values();
        String format = "%-22s %6s %9s %8s %6s %6s %8s%n";
        out.printf(format, "group", "files", "passed", "refused", "wrong", "error", "skipped");
        Map<String, Integer> fileCounts = new TreeMap<>();
        files.forEach(f -> fileCounts.merge(group(f.file()), 1, Integer::sum));
        groups(files).forEach((g, c) -> out.printf(format, g, fileCounts.get(g), c.get(Outcome.PASSED), c.get(Outcome.REFUSED),
                c.get(Outcome.WRONG), c.get(Outcome.ERROR), c.get(Outcome.SKIPPED)));
        Counts total = total(files);
        out.printf(format, "total", files.size(), total.get(Outcome.PASSED), total.get(Outcome.REFUSED), total.get(Outcome.WRONG),
                total.get(Outcome.ERROR), total.get(Outcome.SKIPPED));
        out.println("refused by SQLSTATE: " + total.refusedBySqlState());
        out.println("targets: " + new TreeSet<>(files.stream().map(FileOutcome::target).toList()) + "; commits (files each): "
                + commits(files) + (contents.unreadableLines() > 0 ? "; unreadable state lines: " + contents.unreadableLines() : ""));
    }
}
