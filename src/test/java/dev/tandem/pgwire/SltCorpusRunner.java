package dev.tandem.pgwire;

import dev.tandem.sql.SqlTesting;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.net.JarURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs SQLite's sqllogictest files (the public-domain corpus, shipped as resources of
 * {@code net.hydromatic:sql-logic-test}) against Tandem over the wire protocol, through pgjdbc, and
 * classifies every record: the corpus's expected results are the oracle.
 *
 * <ul>
 * <li><b>passed</b>: a statement that succeeded (or failed, where {@code statement error} expects it), a query
 * whose values (or their md5, for hashed results) equal the expected ones;
 * <li><b>refused</b>: a record the corpus expects to succeed that Tandem answered with a SQLSTATE other than an
 * internal error (0A000 "not supported", or a syntax, semantic or data error the corpus cannot predict because
 * it was written for SQLite), and every later record of a file once one of its statements was refused (its
 * tables no longer hold what the corpus assumes, so a difference is no longer a wrong answer);
 * <li><b>wrong</b>: a query whose result differs, or a {@code statement error} that succeeded;
 * <li><b>error</b>: an internal error (XX000), a dropped connection, or a record past its time bound.
 * </ul>
 * Records marked {@code skipif postgresql}, or {@code onlyif} another engine, are skipped, as PostgreSQL's
 * runs of the corpus do.
 */
public final class SltCorpusRunner {

    /** How a record ended. */
    public enum Outcome { PASSED, REFUSED, WRONG, ERROR, SKIPPED }

    /** One record's outcome, with what explains it (a SQLSTATE and message, or the first difference). */
    public record Result(String file, int line, Outcome outcome, String sql, String detail) {
    }

    /** The counts of one file (or of a whole run). */
    public static final class Counts {
        final Map<Outcome, Integer> byOutcome = new java.util.EnumMap<>(Outcome.class);
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

    private static final String RESOURCE_ROOT = "test/";
    private static final Pattern HASHED = Pattern.compile("(\\d+) values hashing to ([0-9a-f]{32})");

    private final int timeoutSeconds;
    private final int recordLimit;
    private final List<Result> notPassed = new ArrayList<>();

    /**
     * @param timeoutSeconds the time bound of one record (the driver cancels it past that)
     * @param recordLimit at most this many queries of each file, and the statements before them (0: all)
     */
    public SltCorpusRunner(int timeoutSeconds, int recordLimit) {
        this.timeoutSeconds = timeoutSeconds;
        this.recordLimit = recordLimit;
    }

    /** Every record that did not pass or was skipped, in order. */
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

    /**
     * Runs one corpus file (or, where {@code file} names a file on disk, that file) against a fresh server: its own
     * stack in a new directory under {@code scratch}. A failure of the server's runtime found when the stack closes
     * is the file's last record, an error.
     */
    public Counts runFile(String file, Path scratch) throws IOException {
        Path dir = Files.createTempDirectory(scratch, "slt");
        List<String> lines;
        if (Files.isRegularFile(Path.of(file))) {
            lines = Files.readAllLines(Path.of(file));
        } else {
            try (InputStream in = SltCorpusRunner.class.getClassLoader().getResourceAsStream(file)) {
                if (in == null) {
                    throw new IllegalArgumentException("no corpus file " + file);
                }
                lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)).lines().toList();
            }
        }
        SqlTesting.Stack stack = SqlTesting.stack(dir);
        Counts counts;
        Result runtimeFailure = null;
        try (PgWireServer server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0)) {
            counts = new FileRun(file, lines, "jdbc:postgresql://127.0.0.1:" + server.port() + "/tandem?user=slt&sslmode=disable").run();
        } finally {
            try {
                stack.close();
            } catch (RuntimeException | AssertionError e) {
                runtimeFailure = new Result(file, lines.size(), Outcome.ERROR, "",
                        "the server's runtime failed: " + e + (e.getCause() == null ? "" : ", caused by " + e.getCause()));
            }
            deleteTree(dir);
        }
        if (runtimeFailure != null) {
            notPassed.add(runtimeFailure);
            counts.add(runtimeFailure);
        }
        return counts;
    }

    private static void deleteTree(Path dir) throws IOException {
        try (var walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** One file's records, run in order on one connection (reopened if it drops). */
    private final class FileRun {
        private final String file;
        private final List<String> lines;
        private final String url;
        private final Counts counts = new Counts();
        private Connection connection;
        private int pos;
        /** Set once a statement the corpus expects to succeed was refused: later differences are not wrong answers. */
        private String tainted;

        FileRun(String file, List<String> lines, String url) {
            this.file = file;
            this.lines = lines;
            this.url = url;
        }

        Counts run() {
            try {
                int records = 0;
                while (pos < lines.size() && (recordLimit <= 0 || records < recordLimit)) {
                    int start = pos;
                    List<String> rec = nextRecord();
                    if (rec.isEmpty()) {
                        continue;
                    }
                    boolean skip = false;
                    int i = 0;
                    while (i < rec.size() && (rec.get(i).startsWith("skipif ") || rec.get(i).startsWith("onlyif "))) {
                        String[] w = rec.get(i).split("\\s+");
                        String engine = w.length > 1 ? w[1] : "";
                        if (rec.get(i).startsWith("skipif ") ? engine.equals("postgresql") : !engine.equals("postgresql")) {
                            skip = true;
                        }
                        i++;
                    }
                    if (i >= rec.size()) {
                        continue;
                    }
                    String head = rec.get(i);
                    List<String> body = rec.subList(i + 1, rec.size());
                    if (head.equals("halt")) {
                        if (skip) {
                            continue;
                        }
                        break;
                    }
                    if (head.startsWith("hash-threshold")) {
                        continue;
                    }
                    if (!head.startsWith("statement ") && !head.startsWith("query ")) {
                        continue;
                    }
                    if (head.startsWith("query ")) {
                        records++;
                    }
                    Result r;
                    if (skip) {
                        r = new Result(file, start + 1, Outcome.SKIPPED, String.join("\n", sqlOf(body)), "");
                    } else if (head.startsWith("statement ")) {
                        r = statement(start + 1, head, body);
                    } else {
                        r = query(start + 1, head, body);
                    }
                    counts.add(r);
                    if (r.outcome() != Outcome.PASSED && r.outcome() != Outcome.SKIPPED) {
                        notPassed.add(r);
                    }
                }
            } finally {
                closeQuietly();
            }
            return counts;
        }

        /** The lines of the next record (comments dropped), advancing past it and the blank lines after it. */
        private List<String> nextRecord() {
            List<String> rec = new ArrayList<>();
            while (pos < lines.size() && lines.get(pos).isBlank()) {
                pos++;
            }
            while (pos < lines.size() && !lines.get(pos).isBlank()) {
                String l = lines.get(pos++);
                if (!l.startsWith("#")) {
                    rec.add(l);
                }
            }
            return rec;
        }

        private List<String> sqlOf(List<String> body) {
            int sep = body.indexOf("----");
            return sep < 0 ? body : body.subList(0, sep);
        }

        private Result statement(int line, String head, List<String> body) {
            String sql = String.join("\n", body);
            boolean expectError = head.startsWith("statement error");
            try {
                Statement s = connection().createStatement();
                s.setQueryTimeout(timeoutSeconds);
                s.execute(sql);
                s.close();
                return expectError ? differs(line, sql, "succeeded; the corpus expects an error") : new Result(file, line, Outcome.PASSED, sql, "");
            } catch (SQLException e) {
                Result failure = failure(line, sql, e);
                if (failure.outcome() == Outcome.ERROR) {
                    return failure;
                }
                if (expectError) {
                    counts.refusedBySqlState.merge(e.getSQLState(), -1, Integer::sum); // an expected error, not a refusal
                    counts.refusedBySqlState.remove(e.getSQLState(), 0);
                    return new Result(file, line, Outcome.PASSED, sql, "");
                }
                String upper = sql.stripLeading().toUpperCase(Locale.ROOT);
                if (!upper.startsWith("CREATE INDEX") && !upper.startsWith("CREATE UNIQUE INDEX") && !upper.startsWith("DROP INDEX")) {
                    tainted = "line " + line + " refused: " + failure.detail();
                }
                return failure;
            }
        }

        private Result query(int line, String head, List<String> body) {
            String[] w = head.split("\\s+");
            String types = w.length > 1 ? w[1] : "";
            String sort = w.length > 2 ? w[2] : "nosort";
            int sep = body.indexOf("----");
            List<String> sqlLines = sep < 0 ? body : body.subList(0, sep);
            List<String> expected = sep < 0 ? List.of() : body.subList(sep + 1, body.size());
            String sql = String.join("\n", sqlLines);
            List<List<String>> rows = new ArrayList<>();
            try {
                Statement s = connection().createStatement();
                s.setQueryTimeout(timeoutSeconds);
                try (ResultSet rs = s.executeQuery(sql)) {
                    int n = rs.getMetaData().getColumnCount();
                    if (n != types.length()) {
                        return differs(line, sql, "answered " + n + " columns, the corpus expects " + types.length());
                    }
                    while (rs.next()) {
                        List<String> row = new ArrayList<>(n);
                        for (int c = 1; c <= n; c++) {
                            row.add(format(rs.getString(c), types.charAt(c - 1)));
                        }
                        rows.add(row);
                    }
                }
                s.close();
            } catch (SQLException e) {
                return failure(line, sql, e);
            }
            List<String> values = new ArrayList<>();
            switch (sort) {
                case "rowsort" -> {
                    rows.sort(SltCorpusRunner::compareRows);
                    rows.forEach(values::addAll);
                }
                case "valuesort" -> {
                    rows.forEach(values::addAll);
                    Collections.sort(values);
                }
                default -> rows.forEach(values::addAll);
            }
            Matcher hashed = expected.size() == 1 ? HASHED.matcher(expected.get(0).trim()) : null;
            if (hashed != null && hashed.matches()) {
                String got = values.size() + " values hashing to " + md5(values);
                return got.equals(expected.get(0).trim()) ? new Result(file, line, Outcome.PASSED, sql, "")
                        : differs(line, sql, "answered " + got + ", expected " + expected.get(0).trim() + firstValues(values));
            }
            List<String> wantValues = expected.stream().map(String::trim).toList();
            if (wantValues.size() != values.size() && types.length() > 1) {
                // some files write a row's values on one line, separated by spaces
                wantValues = wantValues.stream().flatMap(v -> java.util.Arrays.stream(v.split(" "))).toList();
            }
            return wantValues.equals(values) ? new Result(file, line, Outcome.PASSED, sql, "")
                    : differs(line, sql, "answered " + abbreviate(values) + ", expected " + abbreviate(wantValues));
        }

        private Result differs(int line, String sql, String detail) {
            if (tainted != null) {
                counts.refusedBySqlState.merge("after-refusal", 1, Integer::sum);
                return new Result(file, line, Outcome.REFUSED, sql, "after a refusal (" + tainted + "): " + detail);
            }
            return new Result(file, line, Outcome.WRONG, sql, detail);
        }

        private Result failure(int line, String sql, SQLException e) {
            String state = e.getSQLState() == null ? "" : e.getSQLState();
            if (state.equals("XX000") || state.startsWith("08") || state.equals("57014") || state.isEmpty()) {
                closeQuietly();
                return new Result(file, line, Outcome.ERROR, sql, state + " " + e.getMessage());
            }
            counts.refusedBySqlState.merge(state, 1, Integer::sum);
            return new Result(file, line, Outcome.REFUSED, sql, state + " " + e.getMessage());
        }

        private Connection connection() throws SQLException {
            if (connection == null || connection.isClosed()) {
                connection = DriverManager.getConnection(url);
            }
            return connection;
        }

        private void closeQuietly() {
            if (connection != null) {
                try {
                    connection.close();
                } catch (SQLException ignored) {
                    // the connection was already gone
                }
                connection = null;
            }
        }
    }

    /** A value as the corpus prints it for a column of type {@code I} (integer), {@code R} (real, 3 decimals) or {@code T} (text). */
    static String format(String value, char type) {
        if (value == null) {
            return "NULL";
        }
        switch (type) {
            case 'I' -> {
                try {
                    return new BigDecimal(value.trim()).toBigInteger().toString();
                } catch (NumberFormatException e) {
                    return value.equals("t") || value.equals("true") ? "1" : value.equals("f") || value.equals("false") ? "0" : "0";
                }
            }
            case 'R' -> {
                try {
                    return String.format(Locale.ROOT, "%.3f", new BigDecimal(value.trim()).doubleValue());
                } catch (NumberFormatException e) {
                    return "0.000";
                }
            }
            default -> {
                if (value.isEmpty()) {
                    return "(empty)";
                }
                StringBuilder b = new StringBuilder(value.length());
                for (char ch : value.toCharArray()) {
                    b.append(ch < ' ' || ch > '~' ? '@' : ch);
                }
                return b.toString();
            }
        }
    }

    private static int compareRows(List<String> a, List<String> b) {
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
            int c = a.get(i).compareTo(b.get(i));
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(a.size(), b.size());
    }

    static String md5(List<String> values) {
        try {
            MessageDigest md = MessageDigest.getInstance("MD5");
            for (String v : values) {
                md.update(v.getBytes(StandardCharsets.UTF_8));
                md.update((byte) '\n');
            }
            return HexFormat.of().formatHex(md.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String firstValues(List<String> values) {
        return " (first values " + abbreviate(values) + ")";
    }

    private static String abbreviate(List<String> values) {
        return values.size() <= 12 ? values.toString() : values.subList(0, 12) + "... (" + values.size() + " values)";
    }

    /** The run's JSON: per-file and total counts, and the records that did not pass (at most {@code maxRecords}). */
    static String json(Map<String, Counts> perFile, Counts total, List<Result> notPassed, int maxRecords) {
        StringBuilder b = new StringBuilder("{\n  \"total\": ").append(countsJson(total)).append(",\n  \"files\": {");
        String sep = "\n";
        for (var e : perFile.entrySet()) {
            b.append(sep).append("    ").append(quote(e.getKey())).append(": ").append(countsJson(e.getValue()));
            sep = ",\n";
        }
        b.append("\n  },\n  \"notPassed\": [");
        sep = "\n";
        for (Result r : notPassed.subList(0, Math.min(maxRecords, notPassed.size()))) {
            b.append(sep).append("    {\"file\": ").append(quote(r.file())).append(", \"line\": ").append(r.line())
                    .append(", \"outcome\": ").append(quote(r.outcome().name().toLowerCase(Locale.ROOT)))
                    .append(", \"sql\": ").append(quote(r.sql())).append(", \"detail\": ").append(quote(r.detail())).append('}');
            sep = ",\n";
        }
        return b.append("\n  ]\n}\n").toString();
    }

    private static String countsJson(Counts c) {
        StringBuilder b = new StringBuilder("{");
        String sep = "";
        for (Outcome o : Outcome.values()) {
            b.append(sep).append(quote(o.name().toLowerCase(Locale.ROOT))).append(": ").append(c.get(o));
            sep = ", ";
        }
        b.append(", \"refusedBySqlState\": {");
        sep = "";
        for (var e : c.refusedBySqlState.entrySet()) {
            b.append(sep).append(quote(e.getKey())).append(": ").append(e.getValue());
            sep = ", ";
        }
        return b.append("}}").toString();
    }

    private static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char ch : s.toCharArray()) {
            switch (ch) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (ch < ' ') {
                        b.append(String.format("\\u%04x", (int) ch));
                    } else {
                        b.append(ch);
                    }
                }
            }
        }
        return b.append('"').toString();
    }

    /**
     * {@code bin/dev slt [--files REGEX|PATH] [--limit N] [--timeout SECONDS] [--out FILE]}: runs the corpus files whose
     * path matches REGEX (all by default), or the file PATH, at most N queries of each (and the statements before them), and prints per-file and total counts; the JSON
     * report goes to FILE ({@code target/slt.json}).
     */
    public static void main(String[] args) throws IOException {
        String files = ".";
        int limit = 0;
        int timeout = 10;
        Path out = Path.of("target/slt.json");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--files" -> files = args[++i];
                case "--limit" -> limit = Integer.parseInt(args[++i]);
                case "--timeout" -> timeout = Integer.parseInt(args[++i]);
                case "--out" -> out = Path.of(args[++i]);
                default -> {
                    System.err.println("usage: bin/dev slt [--files REGEX|PATH] [--limit QUERIES_PER_FILE] [--timeout SECONDS] [--out FILE]");
                    System.exit(2);
                }
            }
        }
        // the server's per-statement logging (the audit log among it) would drown the counts
        java.util.logging.Logger.getLogger("").setLevel(java.util.logging.Level.WARNING);
        for (var h : java.util.logging.Logger.getLogger("").getHandlers()) {
            h.setLevel(java.util.logging.Level.WARNING);
        }
        SltCorpusRunner runner = new SltCorpusRunner(timeout, limit);
        Map<String, Counts> perFile = new LinkedHashMap<>();
        Counts total = new Counts();
        Path scratch = Files.createTempDirectory("tandem-slt");
        long started = System.nanoTime();
        List<String> selected = Files.isRegularFile(Path.of(files)) ? List.of(files) : corpusFiles(files);
        for (String f : selected) {
            Counts c = runner.runFile(f, scratch);
            perFile.put(f, c);
            total.addAll(c);
            System.out.println(f + ": " + c);
            Files.createDirectories(out.toAbsolutePath().getParent());
            Files.writeString(out, json(perFile, total, runner.notPassed(), 20000));
        }
        deleteTree(scratch);
        System.out.printf(Locale.ROOT, "%d files in %.0f s; total: %s%nrefused by SQLSTATE: %s%nreport: %s%n", selected.size(),
                (System.nanoTime() - started) / 1e9, total, total.refusedBySqlState(), out);
        System.exit(0);
    }
}
