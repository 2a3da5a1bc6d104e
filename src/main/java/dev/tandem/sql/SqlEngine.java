package dev.tandem.sql;

import dev.tandem.controller.AccessPath;
import dev.tandem.controller.Controller;
import dev.tandem.controller.ReadRequest;
import dev.tandem.row.DatumType;
import dev.tandem.stream.ChangeStreams;
import dev.tandem.sql.catalog.CatalogQuery;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Sort;
import org.apache.calcite.sql.SqlNode;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * Tandem's SQL front end: statements in PostgreSQL's dialect, planned with Calcite into the controller's
 * own requests — tables, views and indexes are the same catalog objects the REST API shows, a read is a
 * {@link ReadRequest}, a write is a controller write.
 *
 * <p><b>Reads.</b> A {@code SELECT} that is a filter and a projection of columns over one table or view
 * becomes a read of that collection by name: when an index's key columns are all pinned to literals or
 * parameters by the filter it is a key lookup of that index, else the controller scans an index on the
 * collection if it has one (fast path) or runs a transient dataflow (slow path). Any other query is
 * translated into a plan and read through a transient dataflow. A top-level {@code ORDER BY / LIMIT /
 * OFFSET} becomes the read's finishing.
 *
 * <p><b>Parts.</b> This class is the facade: it classifies a statement by its first word and hands it to
 * the part that plans it — {@link QueryPlanner} (queries, EXPLAIN), {@link WritePlanner} (INSERT, UPDATE,
 * DELETE, TRUNCATE), {@link DdlPlanner} (CREATE, DROP), {@link SessionStatements} (SHOW, SET),
 * {@link SqlCursors} (transaction blocks and cursors), {@link SqlSubscribe}. The {@link StatementPreparer}
 * prepares each statement through the {@link StatementCache} and the {@link PlanningLanes}; {@link CatalogReads}
 * answers reads of the catalog's relations.
 *
 * <p><b>Plan cache.</b> Calcite's parsing and validation are kept off the read path: a statement's
 * planned form is cached by its text (and the part of the catalog it was planned against), and a prepared
 * statement is planned once; executing it only binds parameters into the translated plan. A literal
 * statement is bound to the plan of its shape (its literals lifted into parameters), so a literal query
 * costs what a prepared one does. The cache holds at most {@link SqlLimits#planCacheBytes} (an estimate
 * from each statement's text), whatever the number of statements.
 *
 * <p><b>Cost.</b> A statement over one of its {@link SqlLimits} (text, literals, planning time) is
 * refused with {@code 54000} before anything runs. {@link #prepareAsync} plans off the caller's thread:
 * a cached statement answers at once, a light one is planned on {@code planning}, a heavy one (long, or
 * with many literals) on {@code heavyPlanning}, so a burst of heavy statements never queues a light
 * one; each planning is admitted against its caller's {@link PlanningAdmission}. Running out of heap
 * while planning is {@code 53200}.
 *
 * <p><b>Sessions.</b> A connection's {@link SqlSession} carries its transaction block and cursors
 * ({@link SqlCursors}): {@code BEGIN ... COMMIT} groups reads, cursors and writes (committed as one),
 * and after an error only its end runs. Statements that depend on the session ({@code FETCH}) are
 * prepared with {@link #prepare(String, SqlSession)}.
 *
 * <p><b>Blocking.</b> Catalog changes block on durable storage, so they run on {@code blocking}; reads
 * and writes are asynchronous already.
 */
public final class SqlEngine {

    private final Controller controller;
    private final Scheduler blocking;
    private final SqlSubscribe subscribe;
    private final SqlCursors cursors;
    private final SqlLimits limits;
    private final Scheduler heavyPlanning;
    private final StatementCache statements;
    private final PlanningLanes lanes;
    private final WritePlanner writes;
    private final DdlPlanner ddl;
    /** What CREATE SOURCE and DROP SOURCE do; null: they are refused. */
    private volatile SqlSources sources;
    private final QueryPlanner queries;
    private final SessionStatements session;
    private final Sequences sequences = new Sequences(this);
    private final StatementPreparer preparer;
    private final CatalogReads catalogReads;

    public SqlEngine(Controller controller, Scheduler blocking) {
        this(controller, blocking, null);
    }

    /** An engine that also serves {@code SUBSCRIBE} from {@code streams} (null: SUBSCRIBE is refused); it plans on {@code blocking}. */
    public SqlEngine(Controller controller, Scheduler blocking, ChangeStreams streams) {
        this(controller, blocking, streams, SqlLimits.DEFAULTS, blocking, blocking, blocking);
    }

    /**
     * An engine bounded by {@code limits} that plans light statements on {@code planning} and heavy ones on
     * {@code heavyPlanning}, with {@code timer} as its clock and the timer of planning deadlines.
     */
    public SqlEngine(Controller controller, Scheduler blocking, ChangeStreams streams, SqlLimits limits, Scheduler planning,
            Scheduler heavyPlanning, Scheduler timer) {
        this.controller = controller;
        this.blocking = blocking;
        this.limits = limits;
        this.heavyPlanning = heavyPlanning;
        this.statements = new StatementCache(limits.planCacheBytes());
        this.lanes = new PlanningLanes(limits, planning, heavyPlanning, timer);
        this.subscribe = new SqlSubscribe(this, controller, streams);
        this.cursors = new SqlCursors(this, blocking);
        this.writes = new WritePlanner(this, controller);
        this.ddl = new DdlPlanner(this, controller);
        this.queries = new QueryPlanner(this, controller);
        this.session = new SessionStatements(controller);
        this.preparer = new StatementPreparer(controller, statements, lanes, cursors, this::compile);
        this.catalogReads = new CatalogReads(controller, heavyPlanning);
    }

    /** Lets {@code CREATE SOURCE ... FROM POSTGRES} and {@code DROP SOURCE} reach the sources' manager. */
    public void sources(SqlSources sources) {
        this.sources = sources;
    }

    SqlSources sources() {
        return sources;
    }

    /** The bytes the plan cache and the cache of named objects hold now, by their estimates (tests read it). */
    long cachedBytes() {
        return statements.bytes();
    }

    /** Whether {@code sql} is a {@code COPY ... FROM STDIN}, which {@link #copyIn} starts. */
    public static boolean copiesIn(String sql) {
        return CopyIn.is(sql);
    }

    /**
     * Starts a {@code COPY ... FROM STDIN} in {@code session} (the table and options checked; a failed
     * block refused with {@code 25P02}); its data then comes through the returned {@link SqlCopyIn}.
     */
    public SqlCopyIn copyIn(String sql, SqlSession session) {
        try {
            session.startStatement();
            return CopyIn.start(controller, heavyPlanning, sql, session, sequences);
        } catch (RuntimeException e) {
            session.fail();
            throw (RuntimeException) SqlErrors.map(e);
        }
    }

    /**
     * Whether {@code statement} is a {@code COPY ... TO STDOUT} (of a table or a query): its result's rows
     * are its lines of COPY data, one string each, for a CopyOutResponse of {@link #copyColumns} columns.
     */
    public static boolean copiesOut(SqlStatement statement) {
        return statement instanceof Prepared p && p.run instanceof CopyOut;
    }

    /** The columns of a {@code COPY ... TO STDOUT}'s lines (see {@link #copiesOut}). */
    public static int copyColumns(SqlStatement statement) {
        return ((CopyOut) ((Prepared) statement).run).columns();
    }

    /** The sequences of serial columns, which writes take their values from. */
    Sequences sequences() {
        return sequences;
    }

    /** The controller statements run against. */
    Controller controller() {
        return controller;
    }

    /** The limits statements are held to. */
    public SqlLimits limits() {
        return limits;
    }

    /**
     * Plans a query once in the background, so Calcite's one-time initialisation (class loading, code
     * generation: seconds) is paid at start-up rather than by the first user's query.
     */
    public void warmUp() {
        blocking.schedule(() -> {
            try {
                CalcitePlanner.plan(CalcitePlanner.parse("SELECT a, count(*) FROM (VALUES (1, 'x')) AS t(a, b) WHERE a = 1 GROUP BY a ORDER BY a"),
                        List.of());
            } catch (RuntimeException ignored) {
                // a failed warm-up only means the first query pays for the initialisation
            }
        });
    }

    /** Splits a string of several statements (a simple query) at semicolons outside quotes and comments. */
    public static List<String> split(String sql) {
        return SqlLexer.split(sql);
    }

    /** One statement of a string of several, and where it starts in that string. */
    public record Part(String text, int offset) {
    }

    /** Splits a string of several statements as {@link #split} does, each with its offset in the string. */
    public static List<Part> splitAt(String sql) {
        return SqlLexer.splitAt(sql);
    }

    /** What the statement {@code sql} does, by its first keyword; nothing is parsed beyond it (see {@link SqlStatement.Kind}). */
    public static SqlStatement.Kind kind(String sql) {
        return SqlClassifier.kind(sql);
    }

    /**
     * The tables, views and indexes the statement {@code sql} names: those a query reads (a view by its
     * own name, not what it reads), a write's table, what a DDL statement creates, drops or reads. A
     * statement that does not parse or plan fails as {@link #prepare} would.
     */
    public Set<String> objects(String sql) {
        return preparer.objects(sql);
    }

    /**
     * The objects the statement {@code sql} names, as {@link #objects}, found off the caller's thread when
     * the statement must be planned for it (as {@link #prepareAsync} plans).
     */
    public Mono<Set<String>> objectsAsync(String sql) {
        return preparer.objectsAsync(sql);
    }

    /** Prepares one statement: parsed, validated and planned (from the plan cache when it was seen before). */
    public SqlStatement prepare(String sql) {
        return preparer.prepare(sql);
    }

    /**
     * Prepares one statement for {@code session} as {@link #prepare(String, SqlSession)} does, off the
     * caller's thread when it must be planned: a statement in the plan cache answers at once; any other is
     * measured against the {@link SqlLimits} ({@code 54000} over one), admitted by the caller's
     * {@link PlanningAdmission} and planned on the light or the heavy lane, within the planning timeout.
     */
    public Mono<SqlStatement> prepareAsync(String sql, SqlSession session) {
        return preparer.prepareAsync(sql, session);
    }

    /**
     * Prepares a read of {@code pg_catalog} or {@code information_schema} ({@link CatalogQuery#reads})
     * against the catalog as it is now, on the heavy planning lane: Calcite's own engine answers it.
     */
    public Mono<CatalogQuery> prepareCatalog(String sql, String user, int pid, dev.tandem.sql.catalog.CatalogAccess access) {
        return catalogReads.prepareCatalog(sql, user, pid, access);
    }

    /** Runs a prepared catalog read against what {@code access} shows of the catalog as it is now, on the heavy planning lane. */
    public Mono<SqlResult> executeCatalog(CatalogQuery query, List<Object> params, dev.tandem.sql.catalog.CatalogAccess access) {
        return catalogReads.executeCatalog(query, params, access);
    }

    /** Stops ({@code 54000}) the planning on this thread once past its deadline; nothing planned is kept. */
    void checkDeadline() {
        lanes.checkDeadline();
    }

    /**
     * Prepares one statement for {@code session}: as {@link #prepare(String)}, but a {@code FETCH} takes
     * its columns from the session's cursor, and in a failed transaction block only its end is accepted
     * ({@code 25P02}). An error fails the session's block.
     */
    public SqlStatement prepare(String sql, SqlSession session) {
        return preparer.prepare(sql, session);
    }

    /** Prepares and executes one statement. */
    public Mono<SqlResult> execute(String sql, List<Object> params, SqlSession session) {
        return prepareAsync(sql, session).onErrorMap(SqlErrors::map).flatMap(s -> execute(s, params, session));
    }

    /**
     * Executes a prepared statement with parameter values (Java values or strings in PostgreSQL's text
     * format; converted to each parameter's type). A statement prepared before the catalog changed is
     * planned again; if its result columns changed it fails as PostgreSQL does.
     */
    public Mono<SqlResult> execute(SqlStatement statement, List<Object> params, SqlSession session) {
        return Mono.defer(() -> {
            Prepared p = (Prepared) statement;
            inBlock(p, session);
            if (p.cacheable() && !Prepared.fresh(p, controller.catalogSnapshot())) {
                return prepareAsync(p.text, new SqlSession()).flatMap(s -> {
                    Prepared again = (Prepared) s;
                    if (!java.util.Objects.equals(again.columns(), p.columns())) {
                        return Mono.error(new SqlException(SqlException.NOT_SUPPORTED, "cached plan must not change result type"));
                    }
                    return run(again, params, session);
                });
            }
            return run(p, params, session);
        }).onErrorMap(SqlErrors::map).doOnError(e -> session.fail());
    }

    /** How long a read waits for the PostgreSQL sources to reach the session's {@code tandem.after_lsn}. */
    static final java.time.Duration AFTER_LSN_TIMEOUT = java.time.Duration.ofSeconds(10);

    /**
     * Binds and runs a prepared statement; a heavy one's binding and translation run on the heavy lane, not the caller's thread.
     * A read in a session with {@code tandem.after_lsn} set first waits for the PostgreSQL sources to apply that position.
     */
    private Mono<SqlResult> run(Prepared p, List<Object> params, SqlSession session) {
        Mono<SqlResult> run = Mono.defer(() -> {
            session.startStatement();
            return SqlTypes.inZone(session.zone().id(), () -> p.run.run(Prepared.bind(p, params), session));
        });
        run = p.heavy ? run.subscribeOn(heavyPlanning) : run;
        String lsn = session.afterLsn();
        SqlSources s = sources;
        if (lsn != null && s != null && p.kind == SqlStatement.Kind.READ) {
            return s.awaitUpstream(lsn, AFTER_LSN_TIMEOUT).then(run);
        }
        return run;
    }

    /**
     * Refuses what may not run in the session's transaction block: anything but its end in a failed
     * block ({@code 25P02}), catalog changes in an open one (Tandem applies each on its own, so a
     * ROLLBACK could not undo them; writes are held by the block, see {@link TransactionBlock}).
     */
    private static void inBlock(Prepared p, SqlSession session) {
        SqlSession.Block block = session.block();
        if (block == SqlSession.Block.FAILED && !SqlCursors.endsBlock(p.text)) {
            throw SqlCursors.aborted();
        }
        if (block == SqlSession.Block.OPEN && p.kind == SqlStatement.Kind.DDL && !new SqlLexer(p.text).peek().is("truncate")) {
            throw new SqlException(SqlState.READ_ONLY_SQL_TRANSACTION, "not supported: " + new SqlLexer(p.text).peek().text().toUpperCase(Locale.ROOT)
                    + " in a transaction block; Tandem applies each catalog change on its own, run it outside BEGIN ... COMMIT");
        }
    }

    /**
     * Whether executing {@code statement} streams rows ({@code SUBSCRIBE}, {@code COPY (SUBSCRIBE ...) TO
     * STDOUT}) through {@link #subscribe} rather than answering once.
     */
    public static boolean streams(SqlStatement statement) {
        return statement instanceof Prepared p && p.run instanceof SqlSubscribe.Streaming;
    }

    /**
     * Runs a {@code SUBSCRIBE}: batches of rows {@code (mz_timestamp, [mz_progressed,] mz_diff, columns...)}
     * as the changes come (the snapshot first, at its {@code AS OF}); endless unless it has {@code UP TO},
     * ended by cancelling the flux. Fails with a {@link SqlException} when refused or when the stream ends
     * with an error (the subscription lagged, what it reads was dropped).
     */
    public Flux<List<Object[]>> subscribe(SqlStatement statement, List<Object> params, SqlSession session) {
        return Flux.defer(() -> {
            Prepared p = (Prepared) statement;
            if (!streams(p)) {
                return Flux.error(new SqlException(SqlException.SYNTAX, "not a SUBSCRIBE"));
            }
            inBlock(p, session);
            TransactionBlock writes = session.writes();
            if (writes != null && writes.wrote()) {
                return Flux.error(SqlException.notSupported("SUBSCRIBE in a transaction block that wrote (a change stream cannot show uncommitted writes);"
                        + " subscribe outside the block"));
            }
            Mono<Prepared> current = Prepared.fresh(p, controller.catalogSnapshot()) ? Mono.just(p)
                    : prepareAsync(p.text, new SqlSession()).map(s -> (Prepared) s);
            return current.flatMapMany(again -> {
                if (!java.util.Objects.equals(again.columns(), p.columns())) {
                    return Flux.error(new SqlException(SqlException.NOT_SUPPORTED, "cached plan must not change result type"));
                }
                List<Object> values = SqlTypes.inZone(session.zone().id(), () -> Prepared.bind(again, params));
                SqlSubscribe.Streaming streaming = (SqlSubscribe.Streaming) again.run;
                return Flux.using(session::takeStreamPermit, permit -> streaming.stream(values, session), Runnable::run);
            });
        }).onErrorMap(SqlErrors::map).doOnError(e -> session.fail());
    }

    /** Plans a statement the plan cache does not hold with the part its first word chooses. */
    private Prepared compile(String sql, String fingerprint) {
        SqlLexer lex = new SqlLexer(sql);
        SqlLexer.Token first = lex.peek();
        if (first.kind() == SqlLexer.Kind.END) {
            return Prepared.utility(sql, fingerprint, (params, session) -> Mono.just(SqlResult.command("EMPTY")));
        }
        return switch (first.kind() == SqlLexer.Kind.WORD ? first.text() : "") {
            case "create" -> ddl.create(sql, lex, fingerprint);
            case "drop" -> ddl.drop(sql, lex, fingerprint);
            case "show" -> session.show(sql, lex, fingerprint);
            case "set" -> session.set(sql, lex, fingerprint);
            case "reset" -> session.reset(sql, lex, fingerprint);
            case "explain" -> queries.explain(sql, lex, fingerprint);
            case "select", "with", "values", "table" -> queries.query(sql, fingerprint, false);
            case "insert" -> writes.insert(sql, fingerprint);
            case "delete" -> writes.delete(sql, fingerprint);
            case "update" -> writes.update(sql, fingerprint);
            case "truncate" -> writes.truncate(sql, fingerprint);
            case "subscribe" -> subscribe.prepare(sql, sql, lex, fingerprint);
            case "copy" -> CopyOut.is(sql) ? CopyOut.prepare(this, sql, fingerprint) : subscribe.prepareCopy(sql, lex, fingerprint);
            case "begin", "start", "commit", "rollback", "end", "abort" -> cursors.transaction(sql, lex, fingerprint);
            case "declare" -> cursors.declare(sql, lex, fingerprint);
            case "close" -> cursors.close(sql, lex, fingerprint);
            case "fetch" -> throw SqlException.notSupported("FETCH outside a session (over HTTP: cursors are for the PostgreSQL protocol)");
            case "savepoint", "release", "move" -> throw SqlException.notSupported(first.text().toUpperCase(Locale.ROOT));
            case "alter", "grant", "revoke", "prepare", "execute", "deallocate", "listen", "notify", "vacuum", "analyze" ->
                    throw SqlException.notSupported(first.text().toUpperCase(Locale.ROOT));
            default -> {
                if (first.isPunct("(")) {
                    yield queries.query(sql, fingerprint, false);
                }
                throw lex.error("not a statement Tandem knows", first);
            }
        };
    }

    // ------------------------------------------------------------------ queries (QueryPlanner)

    /** A planned query: the body below the top-level sort, the sort, and which body columns are output. */
    record Query(RelNode body, Sort sort, List<Integer> fields, List<SqlColumn> columns, SqlParams params,
            List<DatumType> paramTypes, List<dev.tandem.controller.DeclaredType> paramDeclared, List<Boolean> paramComputed, String asOfParam,
            Long asOf) {
    }

    /** A read request for a query with its parameters bound, carrying the access path it takes. */
    record Read(ReadRequest request) {
    }

    Query planQuery(SqlNode parsed, SqlParams params, String asOfParam, Long asOf) {
        return queries.planQuery(parsed, params, asOfParam, asOf);
    }

    /** The read of a change stream over {@code q} with {@code values} bound (maintained, so without a statement time: {@code now()} is refused). */
    Read streamed(Query q, List<Object> values, SqlSession session) {
        return queries.read(q, values, session, false);
    }

    Mono<SqlResult> runQuery(Query q, List<Object> values, SqlSession session) {
        return queries.runQuery(q, null, values, session);
    }

    /** The values without repeats, in their first order, as a lookup takes them ({@link AccessPath#distinctKeys}). */
    static List<Object> distinct(List<Object> values) {
        return AccessPath.distinctKeys(values);
    }

    /** {@code e} placed at {@code n}'s position in the statement, when it has one. */
    static SqlException at(SqlException e, SqlNode n) {
        return n == null || n.getParserPosition() == null ? e : e.at(n.getParserPosition().getLineNum(), n.getParserPosition().getColumnNum());
    }

    /** The PostgreSQL version Tandem reports to clients (the protocol and catalog queries it answers are those of 15). */
    public static final String SERVER_VERSION = "15.0";

    <T> Mono<T> blocking(java.util.concurrent.Callable<T> call) {
        return Mono.fromCallable(call).subscribeOn(blocking);
    }
}
