package dev.tandem.pgwire;

import dev.tandem.row.DatumType;
import dev.tandem.sql.SqlColumn;
import dev.tandem.sql.SqlEngine;
import dev.tandem.sql.SqlException;
import dev.tandem.sql.SqlResult;
import dev.tandem.sql.SqlSession;
import dev.tandem.sql.SqlState;
import dev.tandem.sql.SqlStatement;
import dev.tandem.sql.catalog.CatalogQuery;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import reactor.core.publisher.Mono;

/**
 * The extended query protocol of a {@link PgSession}: its prepared statements and portals, and the steps
 * Parse, Bind, Describe, Execute, Close and Sync, an error in any of which skips the messages after it
 * until the next Sync, as in PostgreSQL.
 */
final class PgExtendedProtocol {

    /** Whether the steps are answered or skipped. */
    enum State {
        /** Each step is answered. */
        ANSWERING,
        /** A step failed: every message but Sync, Terminate and Query is dropped until the next Sync. */
        SKIPPING_TO_SYNC
    }

    /**
     * How many named prepared statements, and as many named portals, a session may hold: each pins its plan
     * (some kilobytes), so that one session's statements cannot fill the heap (pgjdbc keeps at most 256).
     */
    static final int MAX_NAMED = 1_000;

    /** A prepared statement: its plan (or its catalog query, or neither for an empty one), the parameter types the client gave, its text. */
    private record Prepared(SqlStatement statement, CatalogQuery canned, int[] paramOids, String text) {
        List<SqlColumn> columns() {
            return canned != null ? canned.columns() : statement == null ? null : statement.columns();
        }

        /**
         * The OIDs a Describe answers: a catalog query's parameters are text unless the client gave their types (pgjdbc
         * looks up an OID it does not know with an {@code int4} parameter, and refuses a description that differs).
         */
        int[] describedOids() {
            if (canned == null) {
                List<DatumType> types = parameterTypes();
                int[] oids = new int[types.size()];
                for (int i = 0; i < oids.length; i++) {
                    // a string or array type the client named is described as named where Tandem's type is it (varchar of a text, int4[])
                    int named = i < paramOids.length ? paramOids[i] : 0;
                    boolean same = named != 0 && (dev.tandem.sql.catalog.PgOids.arrayType(named) == types.get(i)
                            || (named == 1043 || named == 1042) && types.get(i) == DatumType.STRING);
                    oids[i] = same ? named : PgWriter.oid(types.get(i));
                }
                return oids;
            }
            int[] oids = new int[canned.parameterCount()];
            for (int i = 0; i < oids.length; i++) {
                oids[i] = i < paramOids.length && paramOids[i] != 0 ? paramOids[i] : PgWriter.oid(DatumType.STRING);
            }
            return oids;
        }

        List<DatumType> parameterTypes() {
            return canned != null ? java.util.Collections.nCopies(canned.parameterCount(), DatumType.STRING)
                    : statement == null ? List.of() : statement.parameterTypes();
        }
    }

    /** A portal: a bound statement, its parameters and result formats, and its result as far as Executes have sent it. */
    private static final class Portal {
        final Prepared prepared;
        final List<Object> params;
        final short[] resultFormats;
        List<Object[]> pending;
        SqlResult result;
        int sent;

        Portal(Prepared prepared, List<Object> params, short[] resultFormats) {
            this.prepared = prepared;
            this.params = params;
            this.resultFormats = resultFormats;
        }

        int format(int column) {
            return resultFormats.length == 0 ? 0 : resultFormats.length == 1 ? resultFormats[0] : resultFormats[column];
        }
    }

    private final PgSession session;
    private final SqlEngine engine;
    private final SqlSession sql;
    private final Map<String, Prepared> statements = new HashMap<>();
    private final Map<String, Portal> portals = new HashMap<>();
    private State state = State.ANSWERING;
    /** The statement being parsed, to place a Parse error's position. */
    private String errorText;

    PgExtendedProtocol(PgSession session, SqlEngine engine) {
        this.session = session;
        this.engine = engine;
        this.sql = session.sql;
    }

    /** Whether the session skips messages until the next Sync. */
    boolean skippingToSync() {
        return state == State.SKIPPING_TO_SYNC;
    }

    /** After an error answered by the session: skip to the next Sync (an extended-protocol step failed), or not. */
    void skipToSync(boolean skip) {
        state = skip ? State.SKIPPING_TO_SYNC : State.ANSWERING;
    }

    /** Ends every portal, as the end of a transaction does. */
    void closePortals() {
        portals.clear();
    }

    /** The answer to a step of the extended protocol: a Parse, Bind, Describe, Execute, Close or Sync. */
    Mono<ByteBuf> step(FrontendMessage m) {
        return switch (m) {
            case FrontendMessage.Parse p -> guardedLater(() -> parse(p));
            case FrontendMessage.Bind b -> guarded(() -> bind(b));
            case FrontendMessage.Describe d -> guarded(() -> describe(d));
            case FrontendMessage.Execute e -> execute(e);
            case FrontendMessage.Close c -> guarded(() -> close(c));
            case FrontendMessage.Sync s -> {
                state = State.ANSWERING;
                // a Sync outside a transaction block ends its implicit transaction, and with it the portals; inside
                // BEGIN ... COMMIT they live on until the block ends (a fetch size reads one in several Executes)
                if (sql.block() == SqlSession.Block.IDLE) {
                    portals.clear();
                }
                yield Mono.just(new PgWriter().readyForQuery(session.status(), session.zoneReport()).buffer());
            }
            default -> throw new IllegalArgumentException("not a step of the extended protocol: " + m);
        };
    }

    /** A COPY message outside a COPY FROM STDIN: refused as a failed step. */
    Mono<ByteBuf> refuseCopy() {
        return guarded(() -> {
            throw SqlException.notSupported("COPY");
        });
    }

    /** Runs a step of the extended protocol; an error is answered and the rest skipped until Sync. */
    private Mono<ByteBuf> guarded(java.util.function.Supplier<ByteBuf> step) {
        try {
            return Mono.just(step.get());
        } catch (SqlException e) {
            state = State.SKIPPING_TO_SYNC;
            int position = errorText != null ? PgSession.position(new SqlEngine.Part(errorText, 0), e) : 0;
            errorText = null;
            return Mono.just(errorAnswer(e, position));
        } catch (PgReader.Malformed e) {
            throw e;
        } catch (RuntimeException e) {
            state = State.SKIPPING_TO_SYNC;
            errorText = null;
            return Mono.just(errorAnswer(PgSession.internal(e), 0));
        }
    }

    /**
     * Runs a step of the extended protocol that answers later (a Parse, planned off the event loop); an
     * error is answered, placed in {@link #errorText} when it has a position, and the rest skipped until Sync.
     */
    private Mono<ByteBuf> guardedLater(java.util.function.Supplier<Mono<ByteBuf>> step) {
        Mono<ByteBuf> answer;
        try {
            answer = step.get();
        } catch (PgReader.Malformed e) {
            throw e;
        } catch (RuntimeException e) {
            answer = Mono.error(e);
        }
        return answer.doOnSuccess(b -> errorText = null).onErrorResume(e -> !(e instanceof PgReader.Malformed), e -> {
            state = State.SKIPPING_TO_SYNC;
            SqlException error = PgSession.internal(e);
            int position = errorText != null ? PgSession.position(new SqlEngine.Part(errorText, 0), error) : 0;
            errorText = null;
            return Mono.just(errorAnswer(error, position));
        });
    }

    private Mono<ByteBuf> parse(FrontendMessage.Parse m) {
        String name = m.name();
        String query = m.text();
        int[] oids = m.parameterOids();
        if (!name.isEmpty()) {
            if (statements.containsKey(name)) {
                throw new SqlException(SqlState.DUPLICATE_PREPARED_STATEMENT, "prepared statement \"" + name + "\" already exists");
            }
            if (statements.size() - (statements.containsKey("") ? 1 : 0) >= MAX_NAMED) {
                throw new SqlException(SqlException.PROGRAM_LIMIT, "a session may hold at most " + MAX_NAMED
                        + " named prepared statements; close (deallocate) some first");
            }
        }
        List<String> parts = SqlEngine.split(query);
        if (parts.size() > 1) {
            throw new SqlException(SqlException.SYNTAX, "cannot insert multiple commands into a prepared statement");
        }
        if (parts.isEmpty()) {
            return Mono.just(parsed(name, new Prepared(null, null, oids, "")));
        }
        String text = parts.get(0);
        if (PgCatalogQueries.reads(text)) {
            session.failedBlock();
            session.authorizeCatalog();
            return engine.prepareCatalog(text, session.user(), session.pid(), session.catalogAccess()).map(q -> parsed(name, new Prepared(null, q, oids, text)));
        }
        errorText = text;
        return session.authorize(text).then(engine.prepareAsync(text, sql)).map(s -> parsed(name, new Prepared(s, null, oids, text)));
    }

    /** Keeps a parsed statement under its name: ParseComplete. */
    private ByteBuf parsed(String name, Prepared p) {
        statements.put(name, p);
        return new PgWriter().simple('1').buffer();
    }

    /**
     * Binds a portal, checking the message's fields in PostgreSQL's order: a body that ends early is refused
     * only when its missing field is reached ({@link FrontendMessage.Bind}).
     */
    private ByteBuf bind(FrontendMessage.Bind m) {
        String portal = m.portal();
        String name = m.statement();
        Prepared p = statements.get(name);
        if (p == null) {
            throw new SqlException(SqlState.INVALID_SQL_STATEMENT_NAME, "prepared statement \"" + name + "\" does not exist");
        }
        short[] formats = m.parameterFormats();
        if (formats == null) {
            throw m.malformed();
        }
        int nf = formats.length;
        int np = m.parameterCount();
        if (nf > 1 && nf != np) {
            throw new SqlException(PgSession.PROTOCOL_VIOLATION, "bind message has " + nf + " parameter formats but " + np + " parameters");
        }
        List<Object> params = new ArrayList<>();
        List<DatumType> types = p.parameterTypes();
        if (np != types.size()) {
            throw new SqlException(PgSession.PROTOCOL_VIOLATION, "bind message supplies " + np + " parameters, but prepared statement \"" + name
                    + "\" requires " + types.size());
        }
        for (int i = 0; i < np; i++) {
            if (i >= m.valuesRead()) {
                throw m.malformed();
            }
            byte[] b = m.values()[i];
            int format = nf == 0 ? 0 : nf == 1 ? formats[0] : formats[i];
            if (format != 0 && format != 1) {
                throw new SqlException(PgSession.INVALID_PARAMETER_VALUE, "unsupported format code: " + format);
            }
            if (b == null) {
                params.add(null);
            } else if (format == 0) {
                params.add(PgReader.utf8(b));
            } else {
                int oid = i < p.paramOids().length && p.paramOids()[i] != 0 ? p.paramOids()[i]
                        : i < types.size() ? PgWriter.oid(types.get(i)) : 25;
                params.add(PgWriter.decodeBinary(b, oid));
            }
        }
        short[] results = m.resultFormats();
        if (results == null) {
            throw m.malformed();
        }
        int nr = results.length;
        for (int i = 0; i < nr; i++) {
            if (results[i] != 0 && results[i] != 1) {
                throw new SqlException(PgSession.INVALID_PARAMETER_VALUE, "unsupported format code: " + results[i]);
            }
        }
        if (m.malformed() != null) {
            throw m.malformed();
        }
        List<SqlColumn> columns = p.columns();
        if (nr > 1 && columns != null && nr != columns.size()) {
            throw new SqlException(PgSession.PROTOCOL_VIOLATION, "bind message has " + nr + " result formats but query has " + columns.size() + " columns");
        }
        if (!portal.isEmpty()) {
            if (portals.containsKey(portal)) {
                throw new SqlException(SqlState.DUPLICATE_CURSOR, "portal \"" + portal + "\" already exists");
            }
            if (portals.size() - (portals.containsKey("") ? 1 : 0) >= MAX_NAMED) {
                throw new SqlException(SqlException.PROGRAM_LIMIT, "a session may hold at most " + MAX_NAMED + " named portals; close some first");
            }
        }
        portals.put(portal, new Portal(p, params, results));
        return new PgWriter().simple('2').buffer();
    }

    private ByteBuf describe(FrontendMessage.Describe m) {
        char kind = m.kind();
        String name = m.name();
        if (kind != 'S' && kind != 'P') {
            throw new SqlException(PgSession.PROTOCOL_VIOLATION, "invalid DESCRIBE message subtype " + (int) kind);
        }
        PgWriter w = new PgWriter();
        if (kind == 'S') {
            Prepared p = statements.get(name);
            if (p == null) {
                throw new SqlException(SqlState.INVALID_SQL_STATEMENT_NAME, "prepared statement \"" + name + "\" does not exist");
            }
            w.parameterDescription(p.describedOids());
            return (p.columns() == null ? w.simple('n') : w.rowDescription(p.columns(), i -> 0)).buffer();
        }
        Portal portal = portals.get(name);
        if (portal == null) {
            throw new SqlException(SqlState.INVALID_CURSOR_NAME, "portal \"" + name + "\" does not exist");
        }
        List<SqlColumn> cols = portal.prepared.columns();
        return (cols == null ? w.simple('n') : w.rowDescription(cols, portal::format)).buffer();
    }

    private Mono<ByteBuf> execute(FrontendMessage.Execute m) {
        String name = m.portal();
        int maxRows = m.maxRows();
        Portal portal = portals.get(name);
        if (portal == null) {
            return guarded(() -> {
                throw new SqlException(SqlState.INVALID_CURSOR_NAME, "portal \"" + name + "\" does not exist");
            });
        }
        session.noteQuery(portal.prepared.text());
        Mono<SqlResult> result;
        if (portal.result != null) {
            result = Mono.just(portal.result);
        } else if (portal.prepared.canned() != null) {
            result = engine.executeCatalog(portal.prepared.canned(), portal.params, session.catalogAccess());
        } else if (portal.prepared.statement() == null) {
            return Mono.just(new PgWriter().simple('I').buffer());
        } else if (SqlEngine.copiesOut(portal.prepared.statement())) {
            return guarded(() -> {
                throw SqlException.notSupported("COPY ... TO STDOUT in the extended query protocol (send it as a simple query)");
            });
        } else {
            result = session.audited(portal.prepared.statement(),
                    session.cancellable(engine.execute(portal.prepared.statement(), portal.params, sql), portal.prepared.columns() != null));
        }
        return result.map(r -> {
            portal.result = r;
            PgWriter w = new PgWriter();
            if (!r.isQuery()) {
                return w.commandComplete(r.tag()).buffer();
            }
            Function<Integer, Integer> format = portal::format;
            int end = maxRows > 0 ? Math.min(r.rows().size(), portal.sent + maxRows) : r.rows().size();
            for (int i = portal.sent; i < end; i++) {
                w.dataRow(r.rows().get(i), r.columns(), format, sql.zone().id());
            }
            portal.sent = end;
            return (end < r.rows().size() ? w.simple('s') : w.commandComplete(r.tag())).buffer();
        }).onErrorResume(e -> {
            state = State.SKIPPING_TO_SYNC;
            return Mono.just(errorAnswer(PgSession.internal(e), 0));
        });
    }

    private ByteBuf close(FrontendMessage.Close m) {
        char kind = m.kind();
        String name = m.name();
        if (kind != 'S' && kind != 'P') {
            throw new SqlException(PgSession.PROTOCOL_VIOLATION, "invalid CLOSE message subtype " + (int) kind);
        }
        if (kind == 'S') {
            statements.remove(name);
        } else {
            portals.remove(name);
        }
        return new PgWriter().simple('3').buffer();
    }

    private ByteBuf errorAnswer(SqlException e, int position) {
        sql.fail();
        return new PgWriter().error(e, position).buffer();
    }
}
