package dev.tandem.pgwire;

import dev.tandem.pgwire.SltCorpusRunner.Counts;
import dev.tandem.pgwire.SltCorpusRunner.Outcome;
import dev.tandem.pgwire.SltCorpusRunner.Result;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One sqllogictest file's records run in order on one connection to one database (reopened if it drops), each
 * classified as {@link SltCorpusRunner} describes.
 */
final class SltFileRun {

    private static final Pattern HASHED = Pattern.compile("(\\d+) values hashing to ([0-9a-f]{32})");

    private final String file;
    private final List<String> lines;
    private final String url;
    private final int timeoutSeconds;
    private final int recordLimit;
    private final Counts counts = new Counts();
    private final List<Result> notPassed = new ArrayList<>();
    private int records;
    private Connection connection;
    private int pos;
    /** The index of the first line of the record {@link #nextRecord} returned last. */
    private int recordStart;
    /** Set once a statement the corpus expects to succeed was refused: later differences are not wrong answers. */
    private String tainted;

    /**
     * @param url the JDBC URL of the database the file's records run in
     * @param recordLimit at most this many queries, and the statements before them (0: all)
     */
    SltFileRun(String file, List<String> lines, String url, int timeoutSeconds, int recordLimit) {
        this.file = file;
        this.lines = lines;
        this.url = url;
        this.timeoutSeconds = timeoutSeconds;
        this.recordLimit = recordLimit;
    }

    Counts counts() {
        return counts;
    }

    /** The records that did not pass and were not skipped, in order. */
    List<Result> notPassed() {
        return notPassed;
    }

    /** How many statements and queries were met, the skipped ones among them. */
    int records() {
        return records;
    }

    SltFileRun run() {
        try {
            int queries = 0;
            while (pos < lines.size() && (recordLimit <= 0 || queries < recordLimit)) {
                List<String> rec = nextRecord();
                int start = recordStart;
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
                if (!head.startsWith("statement ") && !head.startsWith("query ")) {
                    continue;
                }
                if (head.startsWith("query ")) {
                    queries++;
                }
                records++;
                Result r;
                if (skip) {
                    r = new Result(file, start + 1, Outcome.SKIPPED, "", String.join("\n", sqlOf(body)), "");
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
        return this;
    }

    /** The lines of the next record (comments dropped), advancing past it and the blank lines after it. */
    private List<String> nextRecord() {
        List<String> rec = new ArrayList<>();
        while (pos < lines.size() && lines.get(pos).isBlank()) {
            pos++;
        }
        recordStart = pos;
        while (pos < lines.size() && !lines.get(pos).isBlank()) {
            String l = lines.get(pos++);
            if (!l.startsWith("#")) {
                rec.add(l);
            }
        }
        return rec;
    }

    private static List<String> sqlOf(List<String> body) {
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
            return expectError ? differs(line, sql, "succeeded; the corpus expects an error") : passed(line, sql);
        } catch (SQLException e) {
            if (isError(e)) {
                return error(line, sql, e);
            }
            if (expectError) {
                return passed(line, sql);
            }
            String upper = sql.stripLeading().toUpperCase(Locale.ROOT);
            if (!upper.startsWith("CREATE INDEX") && !upper.startsWith("CREATE UNIQUE INDEX") && !upper.startsWith("DROP INDEX")) {
                tainted = "line " + line + " refused: " + e.getSQLState() + " " + e.getMessage();
            }
            return refused(line, sql, e);
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
            return isError(e) ? error(line, sql, e) : refused(line, sql, e);
        }
        List<String> values = new ArrayList<>();
        switch (sort) {
            case "rowsort" -> {
                rows.sort(SltFileRun::compareRows);
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
            return got.equals(expected.get(0).trim()) ? passed(line, sql)
                    : differs(line, sql, "answered " + got + ", expected " + expected.get(0).trim() + " (first values " + abbreviate(values) + ")");
        }
        List<String> wantValues = expected.stream().map(String::trim).toList();
        if (wantValues.size() != values.size() && types.length() > 1) {
            // some files write a row's values on one line, separated by spaces
            wantValues = wantValues.stream().flatMap(v -> Arrays.stream(v.split(" "))).toList();
        }
        return wantValues.equals(values) ? passed(line, sql)
                : differs(line, sql, "answered " + abbreviate(values) + ", expected " + abbreviate(wantValues));
    }

    private Result passed(int line, String sql) {
        return new Result(file, line, Outcome.PASSED, "", sql, "");
    }

    private Result differs(int line, String sql, String detail) {
        if (tainted != null) {
            counts.refusedBySqlState.merge(SltCorpusRunner.AFTER_REFUSAL, 1, Integer::sum);
            return new Result(file, line, Outcome.REFUSED, SltCorpusRunner.AFTER_REFUSAL, sql, "after a refusal (" + tainted + "): " + detail);
        }
        return new Result(file, line, Outcome.WRONG, "", sql, detail);
    }

    /** An internal error, a dropped connection, a cancelled (timed-out) statement, or no SQLSTATE at all. */
    private static boolean isError(SQLException e) {
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        return state.equals("XX000") || state.startsWith("08") || state.equals("57014") || state.isEmpty();
    }

    private Result error(int line, String sql, SQLException e) {
        closeQuietly();
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        return new Result(file, line, Outcome.ERROR, state, sql, state + " " + e.getMessage());
    }

    private Result refused(int line, String sql, SQLException e) {
        counts.refusedBySqlState.merge(e.getSQLState(), 1, Integer::sum);
        return new Result(file, line, Outcome.REFUSED, e.getSQLState(), sql, e.getSQLState() + " " + e.getMessage());
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
                    return value.equals("t") || value.equals("true") ? "1" : "0";
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

    private static String abbreviate(List<String> values) {
        return values.size() <= 12 ? values.toString() : values.subList(0, 12) + "... (" + values.size() + " values)";
    }
}
