package dev.tandem.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;

/**
 * A small sqllogictest runner. A file is records separated by blank lines:
 * <pre>
 * statement ok
 * CREATE TABLE t (a bigint)
 *
 * statement error 42P01
 * SELECT * FROM nope
 *
 * query rowsort            (or nosort: the order is the answer's)
 * SELECT a FROM t
 * ----
 * 1
 * NULL
 * </pre>
 * Lines starting with {@code #} are comments. A result line is a row's values in PostgreSQL's text
 * format separated by single spaces, {@code NULL} for NULL and {@code (empty)} for the empty string.
 * A {@code statement error} record may follow the SQLSTATE with a text the message must contain.
 */
final class SltRunner {

    /** One record of a file and where it starts. */
    record Record(String kind, String arg, String sql, List<String> expected, int line) {
    }

    static List<Record> parse(String text) {
        List<Record> out = new ArrayList<>();
        String[] lines = text.split("\n", -1);
        int i = 0;
        while (i < lines.length) {
            String l = lines[i].strip();
            if (l.isEmpty() || l.startsWith("#")) {
                i++;
                continue;
            }
            int start = i + 1;
            String[] head = l.split("\\s+", 2);
            String kind = head[0] + (head[0].equals("statement") && head.length > 1 ? " " + head[1].split("\\s+")[0] : "");
            String arg = head.length > 1 ? head[1] : "";
            if (head[0].equals("statement")) {
                arg = arg.startsWith("error") ? arg.substring(5).strip() : "";
            }
            i++;
            StringBuilder sql = new StringBuilder();
            while (i < lines.length && !lines[i].isBlank() && !lines[i].strip().equals("----")) {
                sql.append(lines[i]).append('\n');
                i++;
            }
            List<String> expected = new ArrayList<>();
            if (i < lines.length && lines[i].strip().equals("----")) {
                i++;
                while (i < lines.length && !lines[i].isBlank()) {
                    expected.add(lines[i].strip());
                    i++;
                }
            }
            out.add(new Record(kind, arg, sql.toString().strip(), expected, start));
        }
        return out;
    }

    /** A row as a result line. */
    static String line(Object[] row) {
        List<String> parts = new ArrayList<>();
        for (Object v : row) {
            String s = v == null ? "NULL" : SqlTypes.text(v);
            parts.add(s.isEmpty() ? "(empty)" : s);
        }
        return String.join(" ", parts);
    }

    /**
     * Runs the records in order; {@code exec} runs one statement and returns its rows or throws. Returns
     * the failures, each naming the file and line, and counts the records run in {@code counter[0]}.
     */
    static List<String> run(String file, List<Record> records, BiFunction<String, Integer, List<Object[]>> exec, int[] counter) {
        List<String> failures = new ArrayList<>();
        for (Record r : records) {
            counter[0]++;
            String where = file + ":" + r.line() + ": ";
            try {
                List<Object[]> rows = exec.apply(r.sql(), r.line());
                switch (r.kind()) {
                    case "statement ok" -> {
                    }
                    case "statement error" -> failures.add(where + "expected error " + r.arg() + ", statement succeeded");
                    case "query" -> {
                        List<String> got = new ArrayList<>();
                        for (Object[] row : rows) {
                            got.add(line(row));
                        }
                        List<String> want = new ArrayList<>(r.expected());
                        if (!r.arg().contains("nosort")) {
                            got.sort(null);
                            want.sort(null);
                        }
                        if (!got.equals(want)) {
                            failures.add(where + "\n  " + r.sql() + "\n  expected " + want + "\n  got      " + got);
                        }
                    }
                    default -> failures.add(where + "unknown record kind '" + r.kind() + "'");
                }
            } catch (SqlException e) {
                if (r.kind().equals("statement error")) {
                    String[] parts = r.arg().split("\\s+", 2);
                    if (!e.sqlState().equals(parts[0])) {
                        failures.add(where + "expected SQLSTATE " + parts[0] + ", got " + e.sqlState() + ": " + e.getMessage());
                    } else if (parts.length > 1 && !e.getMessage().contains(parts[1])) {
                        failures.add(where + "expected a message containing '" + parts[1] + "', got: " + e.getMessage());
                    }
                } else {
                    failures.add(where + "\n  " + r.sql() + "\n  failed: " + e.sqlState() + " " + e.getMessage());
                }
            } catch (RuntimeException e) {
                failures.add(where + "\n  " + r.sql() + "\n  failed: " + e);
            }
        }
        return failures;
    }
}
