package dev.tandem.sql;

import dev.tandem.controller.CatalogEntry;
import dev.tandem.controller.ChangeStreamStart;
import dev.tandem.controller.Controller;
import dev.tandem.controller.ReadRequest;
import dev.tandem.row.Column;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.stream.ChangeMessage;
import dev.tandem.stream.ChangeStreamException;
import dev.tandem.stream.ChangeStreamRequest;
import dev.tandem.stream.ChangeStreams;
import dev.tandem.stream.ChangeSubscription;
import dev.tandem.stream.Envelope;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@code SUBSCRIBE [TO] <index | table | view | (SELECT ...)> [WITH (SNAPSHOT = bool, PROGRESS = bool)]
 * [AS OF t] [UP TO t]}, and the same as {@code COPY (SUBSCRIBE ...) TO STDOUT}, as Materialize spells
 * them: a change stream whose rows are {@code (mz_timestamp, [mz_progressed,] mz_diff, columns...)}.
 * The snapshot at {@code AS OF} comes first (unless {@code SNAPSHOT = false}), then every change in
 * timestamp order; with {@code PROGRESS} a row with {@code mz_progressed = true} (and NULL elsewhere)
 * says no change before its {@code mz_timestamp} will follow. {@code UP TO t} ends the stream once
 * every change before {@code t} was sent. The query is planned as a {@code SELECT} is: a collection with
 * an index (or a key lookup of one) is followed through the index, anything else through a transient
 * dataflow the subscription owns.
 */
final class SqlSubscribe {

    private final SqlEngine engine;
    private final Controller controller;
    private final ChangeStreams streams;

    SqlSubscribe(SqlEngine engine, Controller controller, ChangeStreams streams) {
        this.engine = engine;
        this.controller = controller;
        this.streams = streams;
    }

    /** A planned SUBSCRIBE: executed through {@link SqlEngine#subscribe}, refused by a one-shot execution. */
    final class Streaming implements Prepared.Run {
        private final String index;
        private final SqlEngine.Query query;
        private final boolean snapshot;
        private final boolean progress;
        private final Long asOf;
        private final Long upTo;

        Streaming(String index, SqlEngine.Query query, boolean snapshot, boolean progress, Long asOf, Long upTo) {
            this.index = index;
            this.query = query;
            this.snapshot = snapshot;
            this.progress = progress;
            this.asOf = asOf;
            this.upTo = upTo;
        }

        @Override
        public Mono<SqlResult> run(List<Object> params, SqlSession session) {
            return Mono.error(new SqlException(SqlException.NOT_SUPPORTED, "not supported: SUBSCRIBE here; it streams its rows:"
                    + " over the PostgreSQL protocol send it (or COPY (SUBSCRIBE ...) TO STDOUT) as a simple query and read the COPY rows,"
                    + " or DECLARE a cursor FOR it in a transaction (BEGIN) and FETCH its rows;"
                    + " over HTTP use GET /v1/views/{name}/changes (or /v1/tables/…, /v1/indexes/…) as Server-Sent Events,"
                    + " or the WebSocket /v1/ws {\"op\":\"subscribe_rows\"}"));
        }

        Flux<List<Object[]>> stream(List<Object> values, SqlSession session) {
            if (streams == null) {
                return Flux.error(new SqlException(SqlException.NOT_SUPPORTED, "not supported: SUBSCRIBE (no change-stream server)"));
            }
            ChangeStreamStart start;
            List<Integer> fields;
            if (index != null) {
                start = controller.startChangeStream(index, null, null, asOf);
                fields = null;
            } else {
                ReadRequest r = engine.streamed(query, values, session).request();
                start = controller.startChangeStream(new ReadRequest(r.from(), r.plan(), r.keys(), r.mfp(), null, null, asOf, null));
                fields = query.fields();
            }
            ChangeSubscription sub;
            try {
                sub = streams.subscribe(new ChangeStreamRequest(start, snapshot, Envelope.DIFFS, "sql"));
            } catch (ChangeStreamException e) {
                return Flux.error(error(e));
            }
            Flux<ChangeMessage> messages = sub.messages();
            if (upTo != null) {
                messages = messages.takeUntil(m -> m instanceof ChangeMessage.Progress p && p.frontier() >= upTo);
            }
            return messages.map(m -> rows(m, fields)).filter(rows -> !rows.isEmpty())
                    .onErrorMap(ChangeStreamException.class, SqlSubscribe::error);
        }

        private List<Object[]> rows(ChangeMessage m, List<Integer> fields) {
            List<Object[]> out = new ArrayList<>();
            int lead = progress ? 3 : 2;
            switch (m) {
                case ChangeMessage.Updates u -> {
                    if (upTo != null && u.timestamp() >= upTo) {
                        return out;
                    }
                    for (ChangeMessage.Change c : u.changes()) {
                        ChangeMessage.Diff d = (ChangeMessage.Diff) c;
                        Object[] all = d.row().unpack();
                        int n = fields == null ? all.length : fields.size();
                        Object[] row = new Object[lead + n];
                        row[0] = u.timestamp();
                        if (progress) {
                            row[1] = false;
                        }
                        row[lead - 1] = d.diff();
                        for (int i = 0; i < n; i++) {
                            row[lead + i] = all[fields == null ? i : fields.get(i)];
                        }
                        out.add(row);
                    }
                }
                case ChangeMessage.Progress p -> {
                    if (progress) {
                        Object[] row = new Object[lead + columnCount()];
                        row[0] = upTo == null ? p.frontier() : Math.min(p.frontier(), upTo);
                        row[1] = true;
                        out.add(row);
                    }
                }
            }
            return out;
        }

        private int columnCount() {
            return query == null ? indexColumns(index).size() : query.fields().size();
        }
    }

    private static SqlException error(ChangeStreamException e) {
        SqlState state = switch (e.kind()) {
            case LAGGED, LIMIT -> SqlException.TOO_MANY_READS;
            case DROPPED -> SqlException.UNDEFINED_TABLE;
            case BEFORE_SINCE -> SqlException.SNAPSHOT_TOO_OLD;
            case FAILED -> SqlException.DATA_EXCEPTION;
            case CLOSED -> SqlState.ADMIN_SHUTDOWN;
            case INVALID -> SqlException.NOT_SUPPORTED;
        };
        return new SqlException(state, e.getMessage() + (e.lastTimestamp() == null ? "" : " (last complete timestamp " + e.lastTimestamp() + ")"));
    }

    private List<Column> indexColumns(String name) {
        return controller.catalog().stream().filter(e -> e.name().equals(name)).findFirst().orElseThrow().schema().columns();
    }

    /** {@code COPY (SUBSCRIBE ...) TO STDOUT [WITH (FORMAT TEXT)]}; any other COPY is not supported. */
    Prepared prepareCopy(String sql, SqlLexer lex, String fingerprint) {
        lex.expect("copy");
        if (!lex.peek().isPunct("(") || !lex.peek(1).is("subscribe")) {
            throw SqlException.notSupported("COPY (only COPY (SUBSCRIBE ...) TO STDOUT)");
        }
        SqlLexer.Token open = lex.take();
        SqlLexer.Token close = matching(lex, open);
        String text = SqlLexer.blank(SqlLexer.blank(sql, 0, open.offset() + 1), close.offset(), sql.length());
        lex.expect("to");
        if (!lex.accept("stdout")) {
            throw lex.error("COPY (SUBSCRIBE ...) goes TO STDOUT", lex.peek());
        }
        if (lex.accept("with")) {
            lex.expectPunct("(");
            do {
                String option = lex.name("a COPY option");
                String value = lex.take().text().toLowerCase(Locale.ROOT);
                if (!option.equals("format") || !value.equals("text")) {
                    throw SqlException.notSupported("COPY option " + option + " " + value + " (the rows are sent in text format)");
                }
            } while (lex.acceptPunct(","));
            lex.expectPunct(")");
        }
        lex.end();
        return prepare(sql, text, new SqlLexer(text), fingerprint);
    }

    /** The token closing the parenthesis {@code open} (already taken). */
    private static SqlLexer.Token matching(SqlLexer lex, SqlLexer.Token open) {
        int depth = 1;
        while (true) {
            SqlLexer.Token t = lex.take();
            if (t.kind() == SqlLexer.Kind.END) {
                throw lex.error("unbalanced parentheses", open);
            }
            if (t.isPunct("(")) {
                depth++;
            } else if (t.isPunct(")") && --depth == 0) {
                return t;
            }
        }
    }

    /** {@code SUBSCRIBE ...} from the lexer positioned at {@code SUBSCRIBE}; {@code sql} is the statement as given. */
    Prepared prepare(String sql, String text, SqlLexer lex, String fingerprint) {
        lex.expect("subscribe");
        lex.accept("to");
        String index = null;
        SqlEngine.Query query;
        SqlParams params;
        SqlLexer.Token target = lex.peek();
        if (target.isPunct("(")) {
            SqlLexer.Token open = lex.take();
            SqlLexer.Token close = matching(lex, open);
            String body = SqlLexer.blank(SqlLexer.blank(text, 0, open.offset() + 1), close.offset(), text.length());
            params = SqlParams.of(body);
            SqlNode parsed = CalcitePlanner.parse(params.text());
            if (!parsed.isA(SqlKind.QUERY) && parsed.getKind() != SqlKind.ORDER_BY) {
                throw SqlException.notSupported(parsed.getKind().sql + " in SUBSCRIBE (subscribe to a SELECT)");
            }
            query = engine.planQuery(parsed, params, null, null);
        } else {
            String name = lex.name("a table, view or index to subscribe to");
            CatalogEntry e = controller.catalog().stream().filter(c -> c.name().equals(name)).findFirst()
                    .orElseThrow(() -> located(SqlException.UNDEFINED_TABLE, "relation \"" + name + "\" does not exist", text, target));
            if (e instanceof CatalogEntry.Index) {
                index = name;
                query = null;
                params = SqlParams.of("");
            } else {
                params = SqlParams.of("");
                query = engine.planQuery(CalcitePlanner.parse("SELECT * FROM \"" + name.replace("\"", "\"\"") + "\""), params, null, null);
            }
        }
        if (query != null && query.sort() != null) {
            throw SqlException.notSupported("ORDER BY, LIMIT or OFFSET at the top of SUBSCRIBE (a change stream has no order)");
        }
        boolean snapshot = true;
        boolean progress = false;
        if (lex.accept("with")) {
            lex.expectPunct("(");
            do {
                SqlLexer.Token at = lex.peek();
                String option = lex.name("a SUBSCRIBE option");
                boolean value = true;
                if (!lex.peek().isPunct(",") && !lex.peek().isPunct(")")) {
                    lex.acceptPunct("=");
                    value = bool(lex);
                }
                switch (option) {
                    case "snapshot" -> snapshot = value;
                    case "progress" -> progress = value;
                    default -> throw located(SqlException.NOT_SUPPORTED, "not supported: SUBSCRIBE option " + option
                            + " (options are SNAPSHOT and PROGRESS)", text, at);
                }
            } while (lex.acceptPunct(","));
            lex.expectPunct(")");
        }
        Long asOf = null;
        Long upTo = null;
        if (lex.accept("as")) {
            lex.expect("of");
            asOf = timestamp(lex, "AS OF");
        }
        if (lex.accept("up")) {
            lex.expect("to");
            upTo = timestamp(lex, "UP TO");
        }
        lex.end();
        if (asOf != null && upTo != null && upTo <= asOf) {
            throw new SqlException(SqlException.INVALID_PARAMETER, "UP TO " + upTo + " must be after AS OF " + asOf);
        }
        List<SqlColumn> columns = new ArrayList<>();
        columns.add(new SqlColumn("mz_timestamp", DatumType.INT64));
        if (progress) {
            columns.add(new SqlColumn("mz_progressed", DatumType.BOOL));
        }
        columns.add(new SqlColumn("mz_diff", DatumType.INT64));
        if (index != null) {
            for (Column c : indexColumns(index)) {
                columns.add(new SqlColumn(c.name(), c.type()));
            }
        } else {
            columns.addAll(query.columns());
        }
        return new Prepared(sql, fingerprint, columns, query == null ? List.of() : query.paramTypes(),
                new Streaming(index, query, snapshot, progress, asOf, upTo), false);
    }

    private static SqlException located(SqlState state, String message, String text, SqlLexer.Token at) {
        int[] lc = SqlLexer.lineColumn(text, at.offset());
        return new SqlException(state, message, lc[0], lc[1]);
    }

    private static boolean bool(SqlLexer lex) {
        SqlLexer.Token t = lex.take();
        return switch (t.text().toLowerCase(Locale.ROOT)) {
            case "true", "on", "1" -> true;
            case "false", "off", "0" -> false;
            default -> throw lex.error("expected true or false", t);
        };
    }

    private static long timestamp(SqlLexer lex, String clause) {
        SqlLexer.Token t = lex.take();
        if (t.kind() != SqlLexer.Kind.NUMBER) {
            throw lex.error(clause + " needs a timestamp (milliseconds since the epoch, as a read's as_of)", t);
        }
        try {
            return Long.parseLong(t.text());
        } catch (NumberFormatException e) {
            throw lex.error(clause + " needs a whole number of milliseconds", t);
        }
    }
}
