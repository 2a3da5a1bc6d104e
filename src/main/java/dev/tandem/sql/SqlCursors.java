package dev.tandem.sql;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * Transaction blocks and cursors, as PostgreSQL and Materialize spell them: {@code BEGIN}, {@code COMMIT},
 * {@code ROLLBACK}; {@code DECLARE c CURSOR FOR <SELECT ... | SUBSCRIBE ...>} (only inside a block),
 * {@code FETCH [n | ALL | NEXT | FORWARD [n | ALL]] [FROM | IN] c [WITH (timeout = '1s')]} and
 * {@code CLOSE c | ALL}. A FETCH from a SUBSCRIBE cursor is how a plain JDBC client consumes a change
 * stream: it answers up to {@code n} change rows (SUBSCRIBE's columns), waiting for the first one at
 * most the timeout (none: until one comes).
 */
final class SqlCursors {

    static final SqlState NO_TRANSACTION_BLOCK = SqlState.NO_ACTIVE_SQL_TRANSACTION;
    static final SqlState IN_FAILED_TRANSACTION = SqlState.IN_FAILED_SQL_TRANSACTION;
    static final SqlState INVALID_CURSOR = SqlState.INVALID_CURSOR_NAME;
    static final SqlState DUPLICATE_CURSOR = SqlState.DUPLICATE_CURSOR;

    private static final Pattern INTERVAL = Pattern.compile(
            "(?i)\\s*(\\d+(?:\\.\\d+)?)\\s*(ms|msec|milliseconds?|s|sec|secs|seconds?|m|min|mins|minutes?)?\\s*");

    private final SqlEngine engine;
    private final Scheduler timer;

    SqlCursors(SqlEngine engine, Scheduler timer) {
        this.engine = engine;
        this.timer = timer;
    }

    /** Whether a statement may run in a failed block: it ends the block. */
    static boolean endsBlock(String sql) {
        SqlLexer.Token first = new SqlLexer(sql).peek();
        return first.is("commit") || first.is("end") || first.is("rollback") || first.is("abort");
    }

    static SqlException aborted() {
        return new SqlException(IN_FAILED_TRANSACTION, "current transaction is aborted, commands ignored until end of transaction block");
    }

    /** {@code BEGIN [WORK | TRANSACTION] [modes]}, {@code START TRANSACTION}, {@code COMMIT}, {@code END}, {@code ROLLBACK}, {@code ABORT}. */
    Prepared transaction(String sql, SqlLexer lex, String fingerprint) {
        SqlLexer.Token first = lex.take();
        boolean begin = first.is("begin") || first.is("start");
        if (first.is("start")) {
            lex.expect("transaction");
        } else if (!lex.accept("work")) {
            lex.accept("transaction");
        }
        if (begin) {
            // isolation and access modes: every read is serializable (or strict); writes are checked at COMMIT
            while (lex.peek().kind() != SqlLexer.Kind.END && !lex.peek().isPunct(";")) {
                lex.take();
            }
        } else if (lex.accept("and")) {
            lex.accept("no");
            lex.expect("chain");
        }
        lex.end();
        if (begin) {
            return utility(sql, fingerprint, (values, session) -> Mono.fromSupplier(() -> {
                if (!session.blocksAllowed()) {
                    throw SqlException.notSupported("transactions here (BEGIN): over HTTP each statement is applied on its own;"
                            + " transaction blocks and cursors are for the PostgreSQL protocol");
                }
                session.begin();
                return SqlResult.command("BEGIN");
            }));
        }
        boolean commit = first.is("commit") || first.is("end");
        return utility(sql, fingerprint, (values, session) -> Mono.defer(() -> {
            boolean failed = session.block() == SqlSession.Block.FAILED;
            TransactionBlock writes = session.writes();
            if (!commit || failed || writes == null) {
                if (!commit || failed) {
                    session.rollBackSettings();
                }
                session.end();
                return Mono.just(SqlResult.command(commit && !failed ? "COMMIT" : "ROLLBACK"));
            }
            // the block ends whether its writes commit or are refused: either way nothing of it is pending after COMMIT
            return writes.commit(engine.controller())
                    .map(ts -> new SqlResult("COMMIT", null, null, 0, null, ts))
                    .defaultIfEmpty(SqlResult.command("COMMIT"))
                    .doOnSuccess(r -> session.end())
                    .doOnError(e -> session.end())
                    .doOnCancel(session::end);
        }));
    }

    /** {@code DECLARE name [NO SCROLL] CURSOR [WITHOUT HOLD] FOR <SELECT ... | SUBSCRIBE ...>}. */
    Prepared declare(String sql, SqlLexer lex, String fingerprint) {
        lex.expect("declare");
        String name = lex.name("a cursor name");
        for (String refused : List.of("binary", "insensitive", "scroll")) {
            if (lex.peek().is(refused)) {
                throw SqlException.notSupported(refused.toUpperCase(Locale.ROOT) + " cursors (cursors are forward-only and send text)");
            }
        }
        if (lex.accept("no")) {
            lex.expect("scroll");
        }
        lex.expect("cursor");
        if (lex.accept("with")) {
            throw SqlException.notSupported("WITH HOLD cursors (a cursor lives until its transaction ends)");
        }
        if (lex.accept("without")) {
            lex.expect("hold");
        }
        lex.expect("for");
        SqlLexer.Token body = lex.peek();
        if (!(body.is("select") || body.is("with") || body.is("values") || body.is("table") || body.is("subscribe") || body.isPunct("("))) {
            throw lex.error("a cursor is declared FOR a SELECT or a SUBSCRIBE", body);
        }
        Prepared inner = (Prepared) engine.prepare(SqlLexer.blank(sql, 0, body.offset()));
        boolean streams = SqlEngine.streams(inner);
        return new Prepared(sql, fingerprint, null, inner.parameterTypes(), (values, session) -> Mono.defer(() -> {
            if (session.block() == SqlSession.Block.IDLE) {
                return Mono.error(new SqlException(NO_TRANSACTION_BLOCK, "DECLARE CURSOR can only be used in transaction blocks"));
            }
            if (session.cursor(name) != null) {
                return Mono.error(duplicate(name));
            }
            Mono<SqlCursor> cursor = streams
                    ? Mono.fromSupplier(() -> SqlCursor.following(name, inner.columns(), engine.subscribe(inner, values, session)))
                    : engine.execute(inner, values, session).map(r -> SqlCursor.of(name, r.columns(), r.rows()));
            return cursor.map(c -> {
                if (!session.declare(c)) {
                    throw session.block() == SqlSession.Block.IDLE
                            ? new SqlException(NO_TRANSACTION_BLOCK, "DECLARE CURSOR can only be used in transaction blocks") : duplicate(name);
                }
                return SqlResult.command("DECLARE CURSOR");
            });
        }), false);
    }

    private static SqlException duplicate(String name) {
        return new SqlException(DUPLICATE_CURSOR, "cursor \"" + name + "\" already exists");
    }

    private static SqlException missing(String name) {
        return new SqlException(INVALID_CURSOR, "cursor \"" + name + "\" does not exist");
    }

    /** {@code CLOSE name | ALL}. */
    Prepared close(String sql, SqlLexer lex, String fingerprint) {
        lex.expect("close");
        boolean all = lex.accept("all");
        String name = all ? null : lex.name("a cursor name or ALL");
        lex.end();
        return utility(sql, fingerprint, (values, session) -> Mono.fromSupplier(() -> {
            if (all) {
                session.closeCursors();
            } else if (!session.closeCursor(name)) {
                throw missing(name);
            }
            return SqlResult.command(all ? "CLOSE CURSOR ALL" : "CLOSE CURSOR");
        }));
    }

    /**
     * {@code FETCH ...}: its columns are those of the session's cursor, so it is prepared against the
     * session (a cursor that does not exist is {@code 34000} already here).
     */
    Prepared fetch(String sql, String fingerprint, SqlSession session) {
        SqlLexer lex = new SqlLexer(sql);
        lex.expect("fetch");
        long count = 1;
        SqlLexer.Token t = lex.peek();
        if (lex.accept("next")) {
            count = 1;
        } else if (lex.accept("forward")) {
            count = lex.accept("all") ? Long.MAX_VALUE : lex.peek().kind() == SqlLexer.Kind.NUMBER ? count(lex) : 1;
        } else if (lex.accept("all")) {
            count = Long.MAX_VALUE;
        } else if (t.kind() == SqlLexer.Kind.NUMBER) {
            count = count(lex);
        } else if (t.is("prior") || t.is("first") || t.is("last") || t.is("absolute") || t.is("relative") || t.is("backward")) {
            throw SqlException.notSupported("FETCH " + t.text().toUpperCase(Locale.ROOT) + " (cursors are forward-only)");
        } else if (t.isPunct("-")) {
            throw SqlException.notSupported("FETCH of a negative count (cursors are forward-only)");
        }
        if (!lex.accept("from")) {
            lex.accept("in");
        }
        String name = lex.name("a cursor name");
        Duration timeout = null;
        if (lex.accept("with")) {
            lex.expectPunct("(");
            SqlLexer.Token option = lex.peek();
            if (!lex.name("a FETCH option").equals("timeout")) {
                throw lex.error("the FETCH option is TIMEOUT", option);
            }
            lex.acceptPunct("=");
            timeout = interval(lex);
            lex.expectPunct(")");
        }
        lex.end();
        SqlCursor declared = session.cursor(name);
        if (declared == null) {
            throw missing(name);
        }
        long n = count;
        Duration wait = timeout;
        return new Prepared(sql, fingerprint, declared.columns(), List.of(), (values, s) -> Mono.defer(() -> {
            SqlCursor c = s.cursor(name);
            if (c == null) {
                return Mono.error(missing(name));
            }
            return c.fetch(n, wait, timer).map(rows -> new SqlResult("FETCH", c.columns(), rows, rows.size(), null, null));
        }), false);
    }

    private static long count(SqlLexer lex) {
        SqlLexer.Token t = lex.take();
        try {
            return Long.parseLong(t.text());
        } catch (NumberFormatException e) {
            throw lex.error("a FETCH count is a whole number", t);
        }
    }

    /** A timeout: {@code '1s'}, {@code '250ms'}, {@code '2 minutes'}, a bare number of seconds. */
    private static Duration interval(SqlLexer lex) {
        SqlLexer.Token t = lex.take();
        if (t.kind() != SqlLexer.Kind.STRING && t.kind() != SqlLexer.Kind.NUMBER) {
            throw lex.error("TIMEOUT needs an interval such as '1s' or '500ms'", t);
        }
        Matcher m = INTERVAL.matcher(t.text());
        if (!m.matches()) {
            throw new SqlException(SqlException.INVALID_TEXT, "invalid input syntax for type interval: \"" + t.text() + "\"");
        }
        double amount = Double.parseDouble(m.group(1));
        String unit = m.group(2) == null ? "s" : m.group(2).toLowerCase(Locale.ROOT);
        double millis = unit.startsWith("ms") || unit.startsWith("mil") ? amount : unit.startsWith("m") ? amount * 60_000 : amount * 1000;
        if (millis > Duration.ofDays(1).toMillis()) {
            throw new SqlException(SqlException.INVALID_PARAMETER, "TIMEOUT " + t.text() + " is longer than a day");
        }
        return Duration.ofMillis((long) millis);
    }

    private static Prepared utility(String sql, String fingerprint, Prepared.Run run) {
        return new Prepared(sql, fingerprint, null, List.of(), run, false);
    }
}
