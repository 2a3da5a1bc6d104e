package dev.tandem.pgwire;

import dev.tandem.sql.SqlCopyIn;
import dev.tandem.sql.SqlEngine;
import dev.tandem.sql.SqlException;
import dev.tandem.sql.SqlResult;
import dev.tandem.sql.SqlSession;
import dev.tandem.sql.SqlStatement;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.List;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * The simple query protocol of a {@link PgSession}: a Query's statements answered in turn (rows in text,
 * then ReadyForQuery), a {@code SUBSCRIBE} streamed as COPY out, {@code COPY ... TO STDOUT}, and
 * {@code COPY ... FROM STDIN} with the CopyData, CopyDone and CopyFail that follow it.
 */
final class PgSimpleProtocol {

    /** Where a {@code COPY ... FROM STDIN} is. */
    enum CopyState {
        /** No COPY FROM STDIN: every message is the protocols' own. */
        NONE,
        /** A COPY FROM STDIN takes the client's CopyData until its CopyDone or CopyFail. */
        COPYING_IN,
        /** A COPY FROM STDIN failed: the client's remaining CopyData, CopyDone or CopyFail are dropped. */
        DISCARDING
    }

    private final PgSession session;
    private final SqlEngine engine;
    private final SqlSession sql;
    private final PgSession.Peer peer;
    private final PgExtendedProtocol extended;
    private CopyState copy = CopyState.NONE;
    /** The {@code COPY ... FROM STDIN} taking CopyData while {@link CopyState#COPYING_IN}, else null. */
    private SqlCopyIn copyIn;

    PgSimpleProtocol(PgSession session, SqlEngine engine, PgSession.Peer peer, PgExtendedProtocol extended) {
        this.session = session;
        this.engine = engine;
        this.sql = session.sql;
        this.peer = peer;
        this.extended = extended;
    }

    /** The answer to a simple query. */
    org.reactivestreams.Publisher<ByteBuf> query(String text) {
        session.noteQuery(text);
        if (SqlEngine.copiesIn(text)) {
            return copyInStart(text);
        }
        // A simple query that leaves no transaction block open (COMMIT, ROLLBACK, or any statement outside
        // one) ends a transaction, and with it every portal, as in PostgreSQL.
        Runnable endOfTransaction = () -> {
            if (sql.block() == SqlSession.Block.IDLE) {
                extended.closePortals();
            }
        };
        return SUBSCRIBE.matcher(text).find() ? streamingQuery(text).doOnTerminate(endOfTransaction)
                : simpleQuery(text).doOnTerminate(endOfTransaction);
    }

    // ------------------------------------------------------------------ COPY FROM STDIN

    /** Whether a COPY FROM STDIN runs (or failed and its messages are dropped): {@link #copying(FrontendMessage)} sees messages first. */
    boolean copying() {
        return copy != CopyState.NONE;
    }

    /** Starts a {@code COPY ... FROM STDIN} of a simple query: CopyInResponse, or its refusal and ReadyForQuery. */
    private Mono<ByteBuf> copyInStart(String text) {
        return session.authorize(text).then(Mono.fromCallable(() -> {
            copyIn = engine.copyIn(text, sql);
            copy = CopyState.COPYING_IN;
            return new PgWriter().copyInResponse(copyIn.columns()).buffer();
        })).onErrorResume(e -> Mono.fromSupplier(() -> {
            sql.fail();
            SqlException error = PgSession.internal(e);
            return new PgWriter().error(error, PgSession.position(new SqlEngine.Part(text, 0), error)).readyForQuery(session.status(), session.zoneReport()).buffer();
        }));
    }

    /**
     * A message while a COPY FROM STDIN runs (or after it failed): CopyData taken, CopyDone ending it with
     * its write, CopyFail abandoning it; Sync and Flush ignored; null for any other message, which ends it.
     */
    Mono<ByteBuf> copying(FrontendMessage m) {
        return switch (m) {
            case FrontendMessage.CopyData d -> {
                if (copy == CopyState.DISCARDING) {
                    yield Mono.empty();
                }
                try {
                    copyIn.data(d.data());
                    yield Mono.empty();
                } catch (RuntimeException e) {
                    yield Mono.just(copyFailed(PgSession.internal(e)));
                }
            }
            case FrontendMessage.CopyDone d -> {
                if (copy == CopyState.DISCARDING) {
                    copy = CopyState.NONE;
                    yield Mono.empty();
                }
                SqlCopyIn done = copyIn;
                copyIn = null;
                copy = CopyState.NONE;
                yield done.done()
                        .map(r -> new PgWriter().commandComplete(r.tag()).readyForQuery(session.status(), session.zoneReport()).buffer())
                        .onErrorResume(e -> Mono.fromSupplier(() -> {
                            sql.fail();
                            return new PgWriter().error(PgSession.internal(e), 0).readyForQuery(session.status(), session.zoneReport()).buffer();
                        }));
            }
            case FrontendMessage.CopyFail f -> {
                if (copy == CopyState.DISCARDING) {
                    copy = CopyState.NONE;
                    yield Mono.empty();
                }
                if (f.malformed() != null) {
                    throw f.malformed();
                }
                yield Mono.just(copyFailed(new SqlException(SqlException.CANCELED, "COPY from stdin failed: " + f.reason())));
            }
            case FrontendMessage.Sync s -> Mono.empty();
            case FrontendMessage.Flush h -> Mono.empty();
            default -> {
                copyIn = null;
                copy = CopyState.NONE;
                yield null;
            }
        };
    }

    /** Ends a COPY FROM STDIN with an error (nothing of it written); the client's further copy messages are dropped. */
    private ByteBuf copyFailed(SqlException e) {
        copyIn = null;
        copy = CopyState.DISCARDING;
        sql.fail();
        return new PgWriter().error(e, 0).readyForQuery(session.status(), session.zoneReport()).buffer();
    }

    // ------------------------------------------------------------------ simple query

    private Mono<ByteBuf> simpleQuery(String text) {
        List<SqlEngine.Part> parts;
        try {
            parts = SqlEngine.splitAt(text);
        } catch (SqlException e) {
            sql.fail();
            return Mono.just(new PgWriter().error(e, PgSession.position(new SqlEngine.Part(text, 0), e)).readyForQuery(session.status(), session.zoneReport()).buffer());
        }
        if (parts.isEmpty()) {
            return Mono.just(new PgWriter().simple('I').readyForQuery(session.status(), session.zoneReport()).buffer());
        }
        PgWriter w = new PgWriter();
        return Flux.fromIterable(parts)
                .concatMap(part -> run(part.text(), List.of()).map(r -> {
                    if (r.isQuery()) {
                        w.rowDescription(r.columns(), i -> 0);
                        for (Object[] row : r.rows()) {
                            w.dataRow(row, r.columns(), i -> 0, sql.zone().id());
                        }
                    }
                    w.commandComplete(r.command().equals("EMPTY") ? "" : r.tag());
                    return r;
                }).onErrorMap(e -> !(e instanceof Located), e -> located(part, e)))
                .then(Mono.fromSupplier(() -> w.readyForQuery(session.status(), session.zoneReport()).buffer()))
                .onErrorResume(Located.class, e -> Mono.fromSupplier(() -> {
                    sql.fail();
                    return w.error(e.error, e.position).readyForQuery(session.status(), session.zoneReport()).buffer();
                }));
    }

    /** A simple query that may hold a {@code SUBSCRIBE} or {@code COPY (SUBSCRIBE ...)} (a guess: any statement so starting). */
    private static final java.util.regex.Pattern SUBSCRIBE = java.util.regex.Pattern.compile("(?i)(^|;)\\s*(subscribe|copy)\\b");

    /**
     * A simple query with a {@code SUBSCRIBE} in it: each statement answered in turn, a SUBSCRIBE as COPY
     * out ({@code CopyOutResponse}, a {@code CopyData} text row per change, then {@code CopyDone} and
     * {@code COPY n} when it ends by {@code UP TO}), flushed as its rows come. A CancelRequest ends it
     * with 57014; closing the connection ends it too (and drops what it owned).
     */
    private Flux<ByteBuf> streamingQuery(String text) {
        List<SqlEngine.Part> parts;
        try {
            parts = SqlEngine.splitAt(text);
        } catch (SqlException e) {
            sql.fail();
            return Flux.just(new PgWriter().error(e, PgSession.position(new SqlEngine.Part(text, 0), e)).readyForQuery(session.status(), session.zoneReport()).buffer());
        }
        return Flux.fromIterable(parts)
                .concatMap(part -> statement(part.text()).onErrorMap(e -> !(e instanceof Located), e -> located(part, e)))
                .concatWith(Mono.fromSupplier(() -> new PgWriter().readyForQuery(session.status(), session.zoneReport()).buffer()))
                .onErrorResume(Located.class, e -> Mono.fromSupplier(() -> {
                    sql.fail();
                    return new PgWriter().error(e.error, e.position).readyForQuery(session.status(), session.zoneReport()).buffer();
                }));
    }

    /** A statement's failure placed in the whole query string; a failure that is no SQL error becomes {@code XX000}. */
    private static Located located(SqlEngine.Part part, Throwable e) {
        SqlException error = PgSession.internal(e);
        return new Located(error, PgSession.position(part, error));
    }

    /** One statement of a simple query, answered on its own: rows and a tag, or a COPY-out stream. */
    private Flux<ByteBuf> statement(String part) {
        return Flux.defer(() -> {
            if (PgCatalogQueries.reads(part)) {
                return answer(catalogRead(part)).flux();
            }
            return session.authorize(part).then(engine.prepareAsync(part, sql))
                    .flatMapMany(s -> SqlEngine.streams(s) ? copyOut(s) : SqlEngine.copiesOut(s) ? copiedOut(s) : answer(run(s, List.of())).flux());
        });
    }

    /** A simple query's answer: its rows (in text) and its command tag. */
    private Mono<ByteBuf> answer(Mono<SqlResult> result) {
        return result.map(r -> {
            PgWriter w = new PgWriter();
            if (r.isQuery()) {
                w.rowDescription(r.columns(), i -> 0);
                for (Object[] row : r.rows()) {
                    w.dataRow(row, r.columns(), i -> 0, sql.zone().id());
                }
            }
            return w.commandComplete(r.command().equals("EMPTY") ? "" : r.tag()).buffer();
        });
    }

    /** A {@code COPY ... TO STDOUT} of a table or query: CopyOutResponse, a CopyData per line, CopyDone and {@code COPY n}. */
    private Flux<ByteBuf> copiedOut(SqlStatement s) {
        return run(s, List.of()).map(r -> {
            PgWriter w = new PgWriter().copyOutResponse(SqlEngine.copyColumns(s));
            for (Object[] line : r.rows()) {
                w.copyData(((String) line[0]).getBytes(StandardCharsets.UTF_8));
            }
            return w.simple('c').commandComplete(r.tag()).buffer();
        }).flux();
    }

    private Flux<ByteBuf> copyOut(SqlStatement s) {
        Sinks.One<Boolean> cancel = Sinks.one();
        session.running = cancel;
        java.util.concurrent.atomic.AtomicBoolean canceled = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicLong rows = new java.util.concurrent.atomic.AtomicLong();
        // A batch at a time, once the socket can take it: a client that stops reading leaves the changes in the
        // subscription's bounded buffer, which ends the stream as lagged past its bound (and the session goes on).
        Flux<ByteBuf> data = engine.subscribe(s, List.of(), sql)
                .concatMap(batch -> peer.writable().whenWritable().thenReturn(batch), 1)
                .map(batch -> {
                    PgWriter w = new PgWriter();
                    for (Object[] row : batch) {
                        w.copyData(row, sql.zone().id());
                    }
                    rows.addAndGet(batch.size());
                    return w.buffer();
                })
                .takeUntilOther(cancel.asMono().doOnNext(x -> canceled.set(true)));
        return Flux.concat(
                        Mono.fromSupplier(() -> new PgWriter().copyOutResponse(s.columns().size()).buffer()),
                        data,
                        Mono.defer(() -> canceled.get()
                                ? Mono.error(new SqlException(SqlException.CANCELED, "canceling statement due to user request"))
                                : Mono.just(new PgWriter().simple('c').commandComplete("COPY " + rows.get()).buffer())))
                .doFinally(x -> session.running = null);
    }

    /** A SQL error and its position in the whole query string. */
    private static final class Located extends RuntimeException {
        final SqlException error;
        final int position;

        Located(SqlException error, int position) {
            super(error.getMessage(), null, false, false);
            this.error = error;
            this.position = position;
        }
    }

    /** Prepares (or reads the catalog with) and executes one statement; cancellable when it is a query. */
    private Mono<SqlResult> run(String statement, List<Object> params) {
        if (PgCatalogQueries.reads(statement)) {
            return catalogRead(statement);
        }
        return Mono.defer(() -> session.authorize(statement)
                .then(engine.prepareAsync(statement, sql))
                .flatMap(s -> run(s, params)));
    }

    /** Executes a prepared statement: audited when it changes the catalog, cancellable when it is a query. */
    private Mono<SqlResult> run(SqlStatement s, List<Object> params) {
        return session.audited(s, session.cancellable(engine.execute(s, params, sql), s.columns() != null));
    }

    /** A read of the catalog, prepared and run at once; refused in a failed block as the engine refuses statements. */
    private Mono<SqlResult> catalogRead(String text) {
        return Mono.defer(() -> {
            session.failedBlock();
            session.authorizeCatalog();
            return engine.prepareCatalog(text, session.user(), session.pid(), session.catalogAccess()).flatMap(q -> engine.executeCatalog(q, List.of(), session.catalogAccess()));
        });
    }
}
