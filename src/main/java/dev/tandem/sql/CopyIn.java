package dev.tandem.sql;

import dev.tandem.controller.CatalogEntry;
import dev.tandem.controller.Controller;
import dev.tandem.row.Column;
import dev.tandem.row.Row;
import dev.tandem.storage.RowDiff;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * {@code COPY t [(columns)] FROM STDIN [WITH (FORMAT text | csv [, HEADER [true | false]])]} (also the
 * older {@code CSV [HEADER]}): the client's data, held up to {@link #MAX_BYTES}, parsed at its end in
 * PostgreSQL's text format (tab-separated, {@code \N} for NULL, backslash escapes, an optional {@code \.}
 * line ending it) or CSV (comma-separated, double quotes, an unquoted empty field NULL), each field read
 * as its column's type reads a quoted literal; columns not listed take their defaults. All rows are one
 * write; a bad row refuses the whole COPY, naming its line.
 */
final class CopyIn implements SqlCopyIn {

    /** The most bytes one COPY may send (they and their rows are held in memory until it ends). */
    static final int MAX_BYTES = 64 << 20;

    private final Controller controller;
    private final SqlSession session;
    private final Sequences sequences;
    private final CatalogEntry.Table table;
    private final int[] targets;
    private final boolean csv;
    private final boolean header;
    private final ByteArrayOutputStream data = new ByteArrayOutputStream();
    private final Scheduler parsing;

    private CopyIn(Controller controller, Scheduler parsing, SqlSession session, Sequences sequences, CatalogEntry.Table table, int[] targets,
            boolean csv, boolean header) {
        this.controller = controller;
        this.parsing = parsing;
        this.session = session;
        this.sequences = sequences;
        this.table = table;
        this.targets = targets;
        this.csv = csv;
        this.header = header;
    }

    /** Whether {@code sql} is a {@code COPY ... FROM STDIN}. */
    static boolean is(String sql) {
        SqlLexer lex = new SqlLexer(sql);
        if (!lex.accept("copy") || lex.peek().isPunct("(")) {
            return false;
        }
        for (SqlLexer.Token t : lex.tokens()) {
            if (t.is("from")) {
                return true;
            }
            if (t.is("to")) {
                return false;
            }
        }
        return false;
    }

    /**
     * Starts a {@code COPY ... FROM STDIN}: the table and options checked, before any data comes; its
     * rows are parsed on {@code parsing} (not the connection's thread).
     */
    static CopyIn start(Controller controller, Scheduler parsing, String sql, SqlSession session, Sequences sequences) {
        SqlLexer lex = new SqlLexer(sql);
        lex.expect("copy");
        SqlLexer.Token at = lex.peek();
        String name = lex.name("a table name");
        CatalogEntry e = controller.catalog().stream().filter(x -> x.name().equals(name)).findFirst().orElseThrow(() -> {
            int[] lc = SqlLexer.lineColumn(sql, at.offset());
            return new SqlException(SqlException.UNDEFINED_TABLE, "relation \"" + name + "\" does not exist", lc[0], lc[1]);
        });
        if (!(e instanceof CatalogEntry.Table table)) {
            throw new SqlException(SqlState.WRONG_OBJECT_TYPE, "cannot copy to \"" + name + "\": it is not a table");
        }
        controller.writableTable(name);
        int[] targets;
        if (lex.acceptPunct("(")) {
            List<Integer> cols = new ArrayList<>();
            do {
                String c = lex.name("a column name");
                int i = table.schema().indexOf(c);
                if (i < 0) {
                    throw new SqlException(SqlException.UNDEFINED_COLUMN, "column \"" + c + "\" of relation \"" + name + "\" does not exist");
                }
                if (cols.contains(i)) {
                    throw new SqlException(SqlState.DUPLICATE_COLUMN, "column \"" + c + "\" specified more than once");
                }
                cols.add(i);
            } while (lex.acceptPunct(","));
            lex.expectPunct(")");
            targets = cols.stream().mapToInt(Integer::intValue).toArray();
        } else {
            targets = new int[table.schema().arity()];
            Arrays.setAll(targets, i -> i);
        }
        lex.expect("from");
        if (!lex.accept("stdin")) {
            throw SqlException.notSupported("COPY FROM a file or program (the server reads no files: use COPY ... FROM STDIN, psql's \\copy)");
        }
        Format format = Format.read(lex);
        boolean csv = format.csv();
        boolean header = format.header();
        if (session.block() == SqlSession.Block.FAILED) {
            throw SqlCursors.aborted();
        }
        return new CopyIn(controller, parsing, session, sequences, table, targets, csv, header);
    }

    @Override
    public int columns() {
        return targets.length;
    }

    @Override
    public void data(byte[] chunk) {
        if ((long) data.size() + chunk.length > MAX_BYTES) {
            throw new SqlException(SqlException.PROGRAM_LIMIT, "COPY data over " + MAX_BYTES + " bytes; copy the rows in several COPY statements");
        }
        data.write(chunk, 0, chunk.length);
    }

    @Override
    public Mono<SqlResult> done() {
        return sequences.ready(table).then(Mono.defer(() -> SqlTypes.inZone(session.zone().id(), () -> {
            List<RowDiff> rows = new ArrayList<>();
            List<List<String>> lines = csv ? csv(data.toString(StandardCharsets.UTF_8)) : text(data.toString(StandardCharsets.UTF_8));
            List<Column> cols = table.schema().columns();
            ColumnDefaults.Writing w = new ColumnDefaults.Writing(session.statementTime(), sequences);
            for (int n = header ? 1 : 0; n < lines.size(); n++) {
                List<String> fields = lines.get(n);
                String where = "COPY " + table.name() + ", line " + (n + 1);
                if (fields.size() != targets.length) {
                    throw new SqlException(SqlState.BAD_COPY_FILE_FORMAT, (fields.size() < targets.length ? "missing data for column \""
                            + cols.get(targets[fields.size()]).name() + "\"" : "extra data after last expected column") + " (" + where + ")");
                }
                Object[] row = ColumnDefaults.initial(table, w, targets);
                for (int i = 0; i < targets.length; i++) {
                    Column c = cols.get(targets[i]);
                    try {
                        row[targets[i]] = SqlTypes.convert(fields.get(i), c.type());
                    } catch (SqlException e) {
                        throw new SqlException(e.state(), e.getMessage() + " (" + where + ", column " + c.name() + ")");
                    }
                }
                for (int c = 0; c < row.length; c++) {
                    if (row[c] == null && !cols.get(c).nullable()) {
                        throw new SqlException(SqlException.NOT_NULL_VIOLATION, "null value in column \"" + cols.get(c).name()
                                + "\" of relation \"" + table.name() + "\" violates not-null constraint (" + where + ")");
                    }
                }
                rows.add(new RowDiff(Row.pack(table.schema().types(), Arrays.asList(row)), 1));
            }
            data.reset();
            long count = rows.size();
            if (rows.isEmpty()) {
                return Mono.just(new SqlResult("COPY", null, null, 0, null, null));
            }
            TransactionBlock block = session.writes();
            if (block != null) {
                block.add(table, rows, controller);
                session.wrote(true);
                return Mono.just(new SqlResult("COPY", null, null, count, null, null));
            }
            return controller.write(table, rows).map(ts -> {
                session.wrote(true);
                return new SqlResult("COPY", null, null, count, null, ts);
            });
        })).subscribeOn(parsing)).onErrorMap(SqlErrors::map);
    }

    /** Text format: lines of tab-separated fields, {@code \N} NULL, backslash escapes; a {@code \.} line ends the data. */
    static List<List<String>> text(String s) {
        List<List<String>> out = new ArrayList<>();
        int i = 0;
        while (i < s.length()) {
            int end = s.indexOf('\n', i);
            String line = s.substring(i, end < 0 ? s.length() : end);
            i = end < 0 ? s.length() : end + 1;
            if (line.endsWith("\r")) {
                line = line.substring(0, line.length() - 1);
            }
            if (line.equals("\\.")) {
                break;
            }
            List<String> fields = new ArrayList<>();
            for (String raw : line.split("\t", -1)) {
                fields.add(raw.equals("\\N") ? null : unescape(raw));
            }
            out.add(fields);
        }
        return out;
    }

    private static String unescape(String raw) {
        if (raw.indexOf('\\') < 0) {
            return raw;
        }
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c != '\\' || i + 1 == raw.length()) {
                b.append(c);
                continue;
            }
            char e = raw.charAt(++i);
            switch (e) {
                case 'b' -> b.append('\b');
                case 'f' -> b.append('\f');
                case 'n' -> b.append('\n');
                case 'r' -> b.append('\r');
                case 't' -> b.append('\t');
                case 'v' -> b.append('\u000b');
                case 'x' -> {
                    int j = i + 1;
                    while (j < raw.length() && j < i + 3 && Character.digit(raw.charAt(j), 16) >= 0) {
                        j++;
                    }
                    if (j == i + 1) {
                        b.append('x');
                    } else {
                        b.append((char) Integer.parseInt(raw.substring(i + 1, j), 16));
                        i = j - 1;
                    }
                }
                default -> {
                    if (e >= '0' && e <= '7') {
                        int j = i;
                        while (j < raw.length() && j < i + 3 && raw.charAt(j) >= '0' && raw.charAt(j) <= '7') {
                            j++;
                        }
                        b.append((char) Integer.parseInt(raw.substring(i, j), 8));
                        i = j - 1;
                    } else {
                        b.append(e);
                    }
                }
            }
        }
        return b.toString();
    }

    /** CSV: comma-separated fields, double-quoted where needed ({@code ""} a quote), an unquoted empty field NULL. */
    static List<List<String>> csv(String s) {
        List<List<String>> out = new ArrayList<>();
        List<String> fields = new ArrayList<>();
        StringBuilder field = new StringBuilder();
        boolean quoted = false;
        boolean wasQuoted = false;
        boolean lineStart = true;
        int i = 0;
        while (i < s.length()) {
            char c = s.charAt(i);
            if (quoted) {
                if (c == '"') {
                    if (i + 1 < s.length() && s.charAt(i + 1) == '"') {
                        field.append('"');
                        i += 2;
                        continue;
                    }
                    quoted = false;
                } else {
                    field.append(c);
                }
                i++;
                continue;
            }
            if (lineStart && s.startsWith("\\.", i) && (i + 2 == s.length() || s.charAt(i + 2) == '\n' || s.charAt(i + 2) == '\r')) {
                return out;
            }
            lineStart = false;
            if (c == '"') {
                quoted = true;
                wasQuoted = true;
            } else if (c == ',') {
                fields.add(wasQuoted || !field.isEmpty() ? field.toString() : null);
                field.setLength(0);
                wasQuoted = false;
            } else if (c == '\n' || c == '\r') {
                fields.add(wasQuoted || !field.isEmpty() ? field.toString() : null);
                out.add(fields);
                fields = new ArrayList<>();
                field.setLength(0);
                wasQuoted = false;
                lineStart = true;
                if (c == '\r' && i + 1 < s.length() && s.charAt(i + 1) == '\n') {
                    i++;
                }
            } else {
                field.append(c);
            }
            i++;
        }
        if (quoted) {
            throw new SqlException(SqlState.BAD_COPY_FILE_FORMAT, "unterminated CSV quoted field");
        }
        if (!lineStart) {
            fields.add(wasQuoted || !field.isEmpty() ? field.toString() : null);
            out.add(fields);
        }
        return out;
    }

    /**
     * A COPY's format: {@code csv} (else text) and whether a CSV has a header line, read from the rest of the
     * statement ({@code WITH (FORMAT f, HEADER [b])}, or PostgreSQL's older {@code CSV [HEADER]}), which must end there.
     */
    record Format(boolean csv, boolean header) {
        static Format read(SqlLexer lex) {
            boolean csv = false;
            boolean header = false;
            if (lex.accept("with")) {
                if (lex.acceptPunct("(")) {
                    do {
                        String option = lex.name("a COPY option");
                        switch (option) {
                            case "format" -> {
                                String f = lex.name("a format").toLowerCase(Locale.ROOT);
                                if (!f.equals("text") && !f.equals("csv")) {
                                    throw SqlException.notSupported("COPY format " + f + " (formats are text and csv)");
                                }
                                csv = f.equals("csv");
                            }
                            case "header" -> {
                                header = !(lex.accept("false") || lex.accept("off"));
                                if (header && !lex.accept("true")) {
                                    lex.accept("on");
                                }
                            }
                            default -> throw SqlException.notSupported("COPY option " + option + " (options are FORMAT and HEADER)");
                        }
                    } while (lex.acceptPunct(","));
                    lex.expectPunct(")");
                }
            }
            if (lex.accept("csv")) {
                csv = true;
                header = lex.accept("header");
            }
            lex.end();
            if (header && !csv) {
                throw SqlException.notSupported("COPY HEADER in text format (use FORMAT csv)");
            }
            return new Format(csv, header);
        }
    }
}
