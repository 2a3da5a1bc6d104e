package dev.tandem.pgwire;

import dev.tandem.pgwire.SltState.FileOutcome;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Pattern;

/**
 * Runs SQLite's sqllogictest files (the public-domain corpus, shipped as resources of
 * {@code net.hydromatic:sql-logic-test}) against Tandem over the wire protocol, or against a PostgreSQL, through
 * pgjdbc, and classifies every record: the corpus's expected results are the oracle.
 *
 * <ul>
 * <li><b>passed</b>: a statement that succeeded (or failed, where {@code statement error} expects it), a query
 * whose values (or their md5, for hashed results) equal the expected ones;
 * <li><b>refused</b>: a record the corpus expects to succeed that the system answered with a SQLSTATE other than an
 * internal error (0A000 "not supported", or a syntax, semantic or data error the corpus cannot predict because
 * it was written for SQLite), and every later record of a file once one of its statements was refused (its
 * tables no longer hold what the corpus assumes, so a difference is no longer a wrong answer);
 * <li><b>wrong</b>: a query whose result differs, or a {@code statement error} that succeeded;
 * <li><b>error</b>: an internal error (XX000), a dropped connection, or a record past its time bound.
 * </ul>
 * Records marked {@code skipif postgresql}, or {@code onlyif} another engine, are skipped, as PostgreSQL's
 * runs of the corpus do. Each file runs in a fresh database of its own ({@link SltTarget}); a run with a state
 * directory ({@link SltState}) records each file as it ends and goes on where an earlier run stopped, and
 * {@link SltComparison} sets a Tandem run against a PostgreSQL run of the same files.
 */
public final class SltCorpusRunner {

    /** How a record ended. */
    public enum Outcome { PASSED, REFUSED, WRONG, ERROR, SKIPPED }

    /**
     * One record's outcome, with what explains it: the SQLSTATE of a refusal or an error ({@value #AFTER_REFUSAL} for a
     * difference after a refused statement), and a message or the first difference. Line 0 is no record: the server's
     * runtime failed when the file's server closed.
     */
    public record Result(String file, int line, Outcome outcome, String sqlState, String sql, String detail) {
    }

    /** The counts of one file (or of a whole run). */
    public static final class Counts {
        final Map<Outcome, Integer> byOutcome = new EnumMap<>(Outcome.class);
        /** Refusals by SQLSTATE, to say exactly what was refused. */
        final Map<String, Integer> refusedBySqlState = new TreeMap<>();

        void add(Result r) {
            byOutcome.merge(r.outcome(), 1, Integer::sum);
        }

        void addAll(Counts other) {
            other.byOutcome.forEach((k, v) -> byOutcome.merge(k, v, Integer::sum));
            other.refusedBySqlState.forEach((k, v) -> refusedBySqlState.merge(k, v, Integer::sum));
        }

        public int get(Outcome o) {
            return byOutcome.getOrDefault(o, 0);
        }

        public Map<String, Integer> refusedBySqlState() {
            return refusedBySqlState;
        }

        @Override
        public String toString() {
            return "passed=" + get(Outcome.PASSED) + " refused=" + get(Outcome.REFUSED) + " wrong=" + get(Outcome.WRONG)
                    + " error=" + get(Outcome.ERROR) + " skipped=" + get(Outcome.SKIPPED);
        }
    }

    /** The SQLSTATE a refusal is counted under when it is a difference after a refused statement of its file. */
    static final String AFTER_REFUSAL = "after-refusal";

    private static final String RESOURCE_ROOT = "test/";

    private final int timeoutSeconds;
    private final int recordLimit;
    private final List<Result> notPassed = Collections.synchronizedList(new ArrayList<>());

    /**
     * @param timeoutSeconds the time bound of one record (the driver cancels it past that)
     * @param recordLimit at most this many queries of each file, and the statements before them (0: all)
     */
    public SltCorpusRunner(int timeoutSeconds, int recordLimit) {
        this.timeoutSeconds = timeoutSeconds;
        this.recordLimit = recordLimit;
    }

    /** Every record this runner ran that did not pass and was not skipped. */
    public List<Result> notPassed() {
        return notPassed;
    }

    /** The corpus's files (resource paths such as {@code test/random/expr/slt_good_0.test}) whose path matches {@code regex}, sorted. */
    public static List<String> corpusFiles(String regex) {
        URL marker = SltCorpusRunner.class.getClassLoader().getResource(RESOURCE_ROOT + "select1.test");
        if (marker == null) {
            throw new IllegalStateException("the sqllogictest corpus (net.hydromatic:sql-logic-test) is not on the class path");
        }
        Pattern p = Pattern.compile(regex);
        List<String> files = new ArrayList<>();
        try {
            JarFile jar = ((JarURLConnection) marker.openConnection()).getJarFile();
            for (JarEntry e : Collections.list(jar.entries())) {
                String name = e.getName();
                if (name.startsWith(RESOURCE_ROOT) && name.endsWith(".test") && p.matcher(name).find()) {
                    files.add(name);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Collections.sort(files);
        return files;
    }

    /** A corpus file's lines, or those of the file on disk {@code file} names. */
    static List<String> lines(String file) throws IOException {
        if (Files.isRegularFile(Path.of(file))) {
            return Files.readAllLines(Path.of(file));
        }
        try (InputStream in = SltCorpusRunner.class.getClassLoader().getResourceAsStream(file)) {
            if (in == null) {
                throw new IllegalArgumentException("no corpus file " + file);
            }
            return new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)).lines().toList();
        }
    }

    /** Runs one file against a fresh in-process Tandem whose stack lives in a new directory under {@code scratch}. */
    public Counts runFile(String file, Path scratch) throws IOException {
        return runFile(file, new SltTarget.Tandem(scratch), "unknown").counts();
    }

    /**
     * Runs one file in a fresh database of {@code target}. A failure found when the database is dropped (the server's
     * runtime failed) is one more result, an error at line 0.
     */
    FileOutcome runFile(String file, SltTarget target, String commit) throws IOException {
        List<String> lines = lines(file);
        long started = System.nanoTime();
        SltTarget.Database db;
        try {
            db = target.open();
        } catch (SQLException e) {
            throw new IOException(target.name() + " did not create a database for " + file + ": " + e.getSQLState() + " " + e.getMessage(), e);
        }
        SltFileRun run;
        String failure;
        try {
            run = new SltFileRun(file, lines, db.url(), timeoutSeconds, recordLimit).run();
        } finally {
            failure = db.close();
        }
        Counts counts = run.counts();
        List<Result> results = new ArrayList<>(run.notPassed());
        if (failure != null) {
            Result r = new Result(file, 0, Outcome.ERROR, "", "", failure);
            results.add(r);
            counts.add(r);
        }
        notPassed.addAll(results);
        return new FileOutcome(file, target.name(), commit, recordLimit, timeoutSeconds, (System.nanoTime() - started) / 1e9,
                Instant.now().toString(), run.records(), counts, results);
    }

    /**
     * Runs those of {@code files} that the state directory {@code stateDir} does not hold yet, {@code jobs} at a time,
     * appending each to it as it ends and handing it, with the directory's contents so far, to {@code onFile}; the directory's
     * contents at the end. A file that could not run (its database not created) is not recorded: it is named in the
     * exception thrown at the end, and a later run retries it. A directory holding another target's or another limit's
     * files is refused.
     */
    SltState.Contents run(List<String> files, SltTarget target, Path stateDir, String commit, int jobs,
            BiConsumer<FileOutcome, SltState.Contents> onFile)
            throws IOException {
        SltState state = SltState.open(stateDir);
        SltState.Contents before = SltState.read(stateDir);
        for (FileOutcome f : before.files().values()) {
            if (!f.target().equals(target.name()) || f.limit() != recordLimit) {
                throw new IllegalArgumentException(stateDir + " holds " + f.file() + " run against " + f.target() + " with --limit " + f.limit()
                        + "; this run is against " + target.name() + " with --limit " + recordLimit + ": use another directory");
            }
        }
        Map<String, FileOutcome> done = new TreeMap<>(before.files());
        List<String> todo = files.stream().filter(f -> !done.containsKey(f)).toList();
        List<String> failed = Collections.synchronizedList(new ArrayList<>());
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, jobs), Thread.ofPlatform().name("slt-", 0).daemon().factory());
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (String file : todo) {
                futures.add(pool.submit(() -> {
                    try {
                        FileOutcome o = runFile(file, target, commit);
                        synchronized (done) {
                            state.append(o);
                            done.put(file, o);
                            onFile.accept(o, new SltState.Contents(done, before.unreadableLines()));
                        }
                    } catch (IOException | RuntimeException e) {
                        failed.add(file + ": " + e);
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        } finally {
            pool.shutdownNow();
        }
        if (!failed.isEmpty()) {
            throw new IOException(failed.size() + " files did not run (not recorded; a run with the same directory retries them): " + failed);
        }
        return SltState.read(stateDir);
    }

    /** The commit checked out where the run started ({@code +dirty} with uncommitted changes), or {@code unknown}. */
    static String commit() {
        String head = git("rev-parse", "HEAD");
        if (head == null || head.isBlank()) {
            return "unknown";
        }
        String status = git("status", "--porcelain", "--untracked-files=no");
        return head.strip() + (status != null && !status.isBlank() ? "+dirty" : "");
    }

    private static String git(String... args) {
        try {
            List<String> command = new ArrayList<>(List.of("git"));
            command.addAll(List.of(args));
            Process p = new ProcessBuilder(command).redirectErrorStream(false).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0 ? out : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    private static final String USAGE = """
            usage: bin/dev slt [--files REGEX|PATH] [--limit QUERIES_PER_FILE] [--timeout SECONDS] [--out FILE]
                               [--resume DIR] [--target tandem|postgres] [--pg-url JDBC_URL] [--jobs N]
                   bin/dev slt --report-only --resume DIR [--out FILE]
                   bin/dev slt --compare TANDEM_DIR POSTGRES_DIR [--out FILE]""";

    /**
     * {@code bin/dev slt}: runs the corpus files whose path matches REGEX (all by default), or the file PATH, at most N
     * queries of each (and the statements before them), against Tandem or a PostgreSQL; with {@code --resume DIR}
     * (or {@code --state DIR}) each finished file is recorded in DIR and files DIR already holds are not run again. It
     * prints counts per group of files and in total over all of DIR; the JSON report goes to FILE ({@code target/slt.json}).
     * {@code --report-only} reports DIR without running; {@code --compare} compares a Tandem DIR with a PostgreSQL DIR
     * ({@code target/slt-compare.json}).
     */
    public static void main(String[] args) throws IOException, SQLException {
        String files = ".";
        int limit = 0;
        int timeout = 10;
        int jobs = 1;
        Path out = null;
        Path stateDir = null;
        boolean reportOnly = false;
        String targetName = "tandem";
        String pgUrl = null;
        Path[] compare = null;
        try {
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--files" -> files = args[++i];
                    case "--limit" -> limit = Integer.parseInt(args[++i]);
                    case "--timeout" -> timeout = Integer.parseInt(args[++i]);
                    case "--jobs" -> jobs = Integer.parseInt(args[++i]);
                    case "--out" -> out = Path.of(args[++i]);
                    case "--resume", "--state" -> stateDir = Path.of(args[++i]);
                    case "--report-only" -> reportOnly = true;
                    case "--target" -> targetName = args[++i];
                    case "--pg-url" -> pgUrl = args[++i];
                    case "--compare" -> compare = new Path[] {Path.of(args[++i]), Path.of(args[++i])};
                    default -> throw new IllegalArgumentException(args[i]);
                }
            }
            if (!targetName.equals("tandem") && !targetName.equals("postgres") || reportOnly && stateDir == null) {
                throw new IllegalArgumentException(targetName);
            }
        } catch (IllegalArgumentException | ArrayIndexOutOfBoundsException e) {
            System.err.println(USAGE);
            System.exit(2);
            return;
        }
        if (compare != null) {
            System.exit(compare(compare[0], compare[1], out == null ? Path.of("target/slt-compare.json") : out, System.out));
            return;
        }
        out = out == null ? Path.of("target/slt.json") : out;
        if (reportOnly) {
            SltState.Contents contents = SltState.read(stateDir);
            SltState.writeJson(out, SltReport.json(contents, 20000));
            SltReport.print(contents, System.out);
            System.out.println("report: " + out);
            System.exit(0);
            return;
        }
        // the server's per-statement logging (the audit log among it) would drown the counts
        java.util.logging.Logger.getLogger("").setLevel(java.util.logging.Level.WARNING);
        for (var h : java.util.logging.Logger.getLogger("").getHandlers()) {
            h.setLevel(java.util.logging.Level.WARNING);
        }
        if (targetName.equals("postgres") && pgUrl == null) {
            String address = System.getenv("POSTGRES_ORACLE_ADDRESS");
            if (address == null || address.isBlank()) {
                System.err.println("--target postgres needs --pg-url jdbc:postgresql://HOST:PORT/postgres?user=... (or POSTGRES_ORACLE_ADDRESS)");
                System.exit(2);
                return;
            }
            pgUrl = "jdbc:postgresql://" + address + "/postgres?user=postgres&sslmode=disable";
        }
        Path scratch = Files.createTempDirectory("tandem-slt");
        boolean temporaryState = stateDir == null;
        Path dir = temporaryState ? Files.createTempDirectory("tandem-slt-state") : stateDir;
        List<String> selected = Files.isRegularFile(Path.of(files)) ? List.of(files) : corpusFiles(files);
        long started = System.nanoTime();
        SltCorpusRunner runner = new SltCorpusRunner(timeout, limit);
        Path report = out;
        int status = 0;
        int[] ran = {0};
        SltState.Contents contents;
        try (SltTarget target = targetName.equals("tandem") ? new SltTarget.Tandem(scratch) : new SltTarget.Postgres(pgUrl)) {
            contents = runner.run(selected, target, dir, commit(), jobs, (last, c) -> {
                ran[0]++;
                System.out.printf(java.util.Locale.ROOT, "%s: %s (%.1f s)%n", last.file(), last.counts(), last.seconds());
                SltState.writeJson(report, SltReport.json(c, 20000));
            });
        } catch (IOException | IllegalArgumentException e) {
            System.err.println(e.getMessage());
            contents = SltState.read(dir);
            status = 1;
        }
        SltState.writeJson(out, SltReport.json(contents, 20000));
        SltTarget.Tandem.deleteTree(scratch);
        if (temporaryState) {
            SltTarget.Tandem.deleteTree(dir);
        }
        System.out.printf(java.util.Locale.ROOT, "%d files selected, %d run now in %.0f s; the report covers %d files%s:%n", selected.size(),
                ran[0], (System.nanoTime() - started) / 1e9, contents.files().size(), temporaryState ? "" : " (all of " + dir + ")");
        SltReport.print(contents, System.out);
        System.out.println("report: " + out);
        System.exit(status);
    }

    /** Compares the Tandem run in {@code tandemDir} with the PostgreSQL run in {@code postgresDir}; the process's exit status. */
    static int compare(Path tandemDir, Path postgresDir, Path out, PrintStream print) throws IOException {
        SltState.Contents tandem = SltState.read(tandemDir);
        SltState.Contents postgres = SltState.read(postgresDir);
        if (tandem.files().values().stream().anyMatch(f -> !f.target().equals("tandem"))
                || postgres.files().values().stream().anyMatch(f -> !f.target().equals("postgres"))) {
            System.err.println("--compare TANDEM_DIR POSTGRES_DIR: " + tandemDir + " must hold Tandem's runs and " + postgresDir + " PostgreSQL's");
            return 2;
        }
        SltComparison c = SltComparison.of(tandem, postgres);
        SltState.writeJson(out, c.json());
        c.print(print);
        print.println("comparison: " + out);
        return 0;
    }
}
