package dev.tandem.sql;

import dev.tandem.controller.CatalogEntry;
import dev.tandem.controller.CatalogSnapshot;
import dev.tandem.controller.Controller;
import dev.tandem.controller.ControllerException;
import dev.tandem.controller.ReadRequest;
import dev.tandem.plan.Plan;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.stream.ChangeStreams;
import dev.tandem.sql.catalog.CatalogQuery;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
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
 * {@link SqlCursors} (transaction blocks and cursors), {@link SqlSubscribe} — keeps what planning found in
 * the {@link StatementCache}, and plans on the {@link PlanningLanes}.
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

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(SqlEngine.class);
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
    public java.util.Set<String> objects(String sql) {
        CatalogSnapshot now = controller.catalogSnapshot();
        java.util.Set<String> cached = statements.objects(sql, now.version());
        if (cached != null) {
            return cached;
        }
        lanes.bounded(sql);
        java.util.Set<String> objects = Collections.unmodifiableSet(new java.util.LinkedHashSet<>(
                SqlErrors.guarded(() -> SqlClassifier.objects(sql, now.entries()))));
        if (!lanes.pastDeadline()) {
            statements.putObjects(sql, now.version(), objects);
        }
        return objects;
    }

    /**
     * The objects the statement {@code sql} names, as {@link #objects}, found off the caller's thread when
     * the statement must be planned for it (as {@link #prepareAsync} plans).
     */
    public Mono<java.util.Set<String>> objectsAsync(String sql) {
        return Mono.deferContextual(context -> {
            java.util.Set<String> cached = statements.objects(sql, controller.catalogSnapshot().version());
            if (cached != null) {
                return Mono.just(cached);
            }
            lanes.bounded(sql);
            if (!plans(sql)) {
                return Mono.fromSupplier(() -> objects(sql));
            }
            return lanes.planned(sql, context, () -> objects(sql));
        }).onErrorMap(SqlErrors::map);
    }

    /** Prepares one statement: parsed, validated and planned (from the plan cache when it was seen before). */
    public SqlStatement prepare(String sql) {
        CatalogSnapshot now = controller.catalogSnapshot();
        Prepared p = statements.plan(sql, now);
        if (p != null) {
            return p;
        }
        StatementCost cost = lanes.bounded(sql);
        Prepared shaped = shaped(sql, now, true);
        if (shaped != null) {
            return shaped;
        }
        String fingerprint = Prepared.fingerprint(now.entries(), null);
        StatementCache.Planning planning = statements.join(sql, now.version());
        if (!planning.mine()) {
            Prepared theirs = planning.await(lanes.remainingNanos());
            if (theirs != null) {
                return theirs;
            }
            lanes.checkDeadline();
        }
        Prepared shared = null;
        try {
            long began = System.nanoTime();
            p = SqlErrors.guarded(() -> compile(sql, fingerprint));
            if (LOG.isDebugEnabled()) {
                LOG.debug("planned in {} µs: {}", (System.nanoTime() - began) / 1000, sql.length() > 200 ? sql.substring(0, 200) + "…" : sql);
            }
            p.heavy = cost.heavy();
            lanes.checkDeadline();
            if (p.cacheable()) {
                statements.put(sql, p);
                shared = p;
            }
            return p;
        } finally {
            if (planning.mine()) {
                statements.finish(planning, shared);
            }
        }
    }

    /**
     * {@code sql} bound to the plan of its shape ({@link SqlLiterals}: its literals lifted into parameters),
     * so that queries differing only in their constants are planned once; null when its literals cannot
     * be lifted, when its shape was found not to keep their meaning (the shape failed to plan, or typed a
     * lifted parameter otherwise than its literal), or when the shape is not planned and {@code plan} is
     * false. A shape is planned, and cached, as a statement of its own.
     */
    private Prepared shaped(String sql, CatalogSnapshot now, boolean plan) {
        SqlLiterals.Lifted lifted = SqlLiterals.lift(sql);
        if (lifted == null) {
            return null;
        }
        if (statements.unshaped(lifted.shape(), now.version())) {
            return null;
        }
        Prepared shape = statements.plan(lifted.shape(), now);
        if (shape == null) {
            if (!plan) {
                return null;
            }
            try {
                shape = (Prepared) prepare(lifted.shape());
            } catch (SqlException e) {
                // planned as written, which answers with the statement's own error if it has one
                statements.unshape(lifted.shape(), now.version());
                return null;
            }
        }
        if (!shape.cacheable() || !shape.parameterTypes().equals(lifted.types()) || narrowed(shape, lifted) == Narrowed.ALWAYS) {
            statements.unshape(lifted.shape(), now.version());
            return null;
        }
        if (narrowed(shape, lifted) == Narrowed.THIS_VALUE) {
            return null;
        }
        return shape.bound(sql, lifted.values());
    }

    /** How a shape types a lifted integer literal narrower than the literal's own type. */
    private enum Narrowed {
        NO,
        /** As a {@code smallint} it computes with ({@code s + 1}: PostgreSQL computes in {@code integer}), whatever its value. */
        ALWAYS,
        /**
         * As an {@code integer} or a compared {@code smallint}, a literal beyond its range ({@code i = 3000000000}, a
         * {@code bigint} literal; {@code s = 40000}).
         */
        THIS_VALUE
    }

    private static Narrowed narrowed(Prepared shape, SqlLiterals.Lifted lifted) {
        Narrowed n = Narrowed.NO;
        for (int i = 0; i < lifted.values().size() && i < shape.parameterDeclared.size() && i < shape.parameterComputed.size(); i++) {
            dev.tandem.controller.DeclaredType d = shape.parameterDeclared.get(i);
            if (d == null || !(lifted.values().get(i) instanceof Long l)) {
                continue;
            }
            boolean smallint = d.kind() == dev.tandem.controller.DeclaredType.Kind.SMALLINT;
            if (smallint && shape.parameterComputed.get(i)) {
                return Narrowed.ALWAYS;
            }
            if (smallint ? l != l.shortValue() : l != l.intValue()) {
                n = Narrowed.THIS_VALUE;
            }
        }
        return n;
    }

    /**
     * Prepares one statement for {@code session} as {@link #prepare(String, SqlSession)} does, off the
     * caller's thread when it must be planned: a statement in the plan cache answers at once; any other is
     * measured against the {@link SqlLimits} ({@code 54000} over one), admitted by the caller's
     * {@link PlanningAdmission} and planned on the light or the heavy lane, within the planning timeout.
     */
    public Mono<SqlStatement> prepareAsync(String sql, SqlSession session) {
        return Mono.deferContextual(context -> {
            if (session.block() == SqlSession.Block.FAILED && !SqlCursors.endsBlock(sql)) {
                session.fail();
                return Mono.error(SqlCursors.aborted());
            }
            CatalogSnapshot now = controller.catalogSnapshot();
            Prepared hit = statements.plan(sql, now);
            if (hit != null) {
                return Mono.just(hit);
            }
            try {
                lanes.bounded(sql);
            } catch (SqlException e) {
                session.fail();
                throw e;
            }
            Prepared shaped = session.block() == SqlSession.Block.FAILED ? null : shaped(sql, now, false);
            if (shaped != null) {
                return Mono.just(shaped);
            }
            if (!plans(sql)) {
                return Mono.fromSupplier(() -> prepare(sql, session));
            }
            return plannedOnce(sql, session, now, context);
        }).onErrorMap(SqlErrors::map);
    }

    /**
     * Plans {@code sql} on a planning lane once for the sessions that prepare it, or another statement of its
     * shape, at the same time: the first plans, admitted as any planning; the others wait for it (within the
     * planning timeout) without an admission of their own, then take the plan from the cache. Eight pgbench
     * clients' first statements arrive together; each planning its own would make every one eight times as
     * slow on two cores, and take the principal past its concurrent plannings (refused, 53400). A session whose
     * wait ends without a cached plan (the first failed, or its plan is not cacheable) plans for itself.
     */
    private Mono<SqlStatement> plannedOnce(String sql, SqlSession session, CatalogSnapshot now, reactor.util.context.ContextView context) {
        SqlLiterals.Lifted lifted = SqlLiterals.lift(sql);
        StatementCache.Planning queued = statements.queue(lifted == null ? sql : lifted.shape(), now.version());
        Mono<SqlStatement> own = Mono.defer(() -> lanes.planned(sql, context, () -> prepare(sql, session))).doOnError(e -> session.fail());
        if (queued.mine()) {
            return own.doFinally(signal -> statements.dequeue(queued));
        }
        return lanes.awaitOther(queued.ended()).then(Mono.fromSupplier(() -> {
            CatalogSnapshot later = controller.catalogSnapshot();
            Prepared p = statements.plan(sql, later);
            return p != null || lifted == null || session.block() == SqlSession.Block.FAILED ? p : shaped(sql, later, false);
        })).cast(SqlStatement.class).switchIfEmpty(own);
    }

    /**
     * Prepares a read of {@code pg_catalog} or {@code information_schema} ({@link CatalogQuery#reads})
     * against the catalog as it is now, on the heavy planning lane: Calcite's own engine answers it.
     */
    public Mono<CatalogQuery> prepareCatalog(String sql, String user, int pid, dev.tandem.sql.catalog.CatalogAccess access) {
        return Mono.fromCallable(() -> CatalogQuery.prepare(sql, controller.catalogSnapshot(), user, pid, access)).subscribeOn(heavyPlanning);
    }

    /** Runs a prepared catalog read against what {@code access} shows of the catalog as it is now, on the heavy planning lane. */
    public Mono<SqlResult> executeCatalog(CatalogQuery query, List<Object> params, dev.tandem.sql.catalog.CatalogAccess access) {
        return introspected(query, access)
                .flatMap(a -> Mono.fromCallable(() -> query.execute(controller.catalogSnapshot(), params, a)).subscribeOn(heavyPlanning));
    }

    /** How long a catalog query waits for each introspection collection it reads to be readable. */
    private static final long INTROSPECTION_READ_TIMEOUT_MS = 5_000;

    /**
     * {@code access} with what the catalog query reads of Tandem's introspection ({@code tandem_internal},
     * the size functions): the statuses of the indexes, and the introspection collections it names, each read
     * as a plain serializable read (bounded by {@link #INTROSPECTION_READ_TIMEOUT_MS}).
     */
    private Mono<dev.tandem.sql.catalog.CatalogAccess> introspected(CatalogQuery query, dev.tandem.sql.catalog.CatalogAccess access) {
        java.util.Set<String> reads = query.introspectionReads();
        boolean statuses = query.readsIndexStatuses();
        if (reads.isEmpty() && !statuses) {
            return Mono.just(access);
        }
        return reactor.core.publisher.Flux.fromIterable(reads)
                .concatMap(name -> controller.readIntrospection(name,
                                new ReadRequest(name, null, null, null, null, null, null, INTROSPECTION_READ_TIMEOUT_MS))
                        .map(r -> java.util.Map.entry(name, r.rows().stream().map(dev.tandem.row.Row::unpack).toList())))
                .collectMap(java.util.Map.Entry::getKey, java.util.Map.Entry::getValue)
                // the statuses of every index are built on the planning lane, not on the thread that answered the last read
                .publishOn(heavyPlanning)
                .map(rows -> {
                    List<dev.tandem.controller.IndexStatus> indexes = new java.util.ArrayList<>();
                    if (statuses) {
                        for (CatalogEntry e : controller.catalogSnapshot().entries()) {
                            if (e instanceof CatalogEntry.Index && access.mayAccess().test(e.name())) {
                                try {
                                    indexes.add(controller.indexStatus(e.name()));
                                } catch (ControllerException gone) {
                                    // dropped since the snapshot: not listed, as a moment later
                                }
                            }
                        }
                    }
                    return access.withIntrospected(new dev.tandem.sql.catalog.CatalogAccess.Introspected(indexes, controller.introspection(),
                            java.util.Map.copyOf(rows)));
                });
    }

    /** Statements Tandem reads with its own lexer alone (one pass over the text, no Calcite), by their first word. */
    private static final java.util.Set<String> LEXED = java.util.Set.of("begin", "start", "commit", "rollback", "end", "abort", "set",
            "reset", "show", "fetch", "close", "drop", "savepoint", "release", "move", "alter", "truncate", "grant", "revoke", "prepare",
            "execute", "deallocate", "listen", "notify", "vacuum", "analyze");

    /**
     * Whether preparing {@code sql} may plan it with Calcite (a query, a write, a view, a SUBSCRIBE...): only
     * those go to a planning lane; transaction, session and cursor statements ({@code BEGIN}, {@code SET},
     * {@code FETCH}...) are prepared on the caller's thread, as a cached statement is.
     */
    static boolean plans(String sql) {
        SqlLexer.Token first = new SqlLexer(sql).peek();
        return first.kind() != SqlLexer.Kind.END && !(first.kind() == SqlLexer.Kind.WORD && LEXED.contains(first.text()));
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
        try {
            if (session.block() == SqlSession.Block.FAILED && !SqlCursors.endsBlock(sql)) {
                throw SqlCursors.aborted();
            }
            if (new SqlLexer(sql).peek().is("fetch")) {
                return cursors.fetch(sql, Prepared.fingerprint(controller.catalog(), null), session);
            }
            return prepare(sql);
        } catch (RuntimeException e) {
            session.fail();
            throw e;
        }
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
            return p.run.run(Prepared.bind(p, params), session);
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
                List<Object> values = Prepared.bind(again, params);
                SqlSubscribe.Streaming streaming = (SqlSubscribe.Streaming) again.run;
                return Flux.using(session::takeStreamPermit, permit -> streaming.stream(values, session), Runnable::run);
            });
        }).onErrorMap(SqlErrors::map).doOnError(e -> session.fail());
    }

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

    /** A read request for a query with its parameters bound, and how it will be answered. */
    record Read(ReadRequest request, String describe) {
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

    /** The values without repeats, in their first order ({@link QueryPlanner#distinct}). */
    static List<Object> distinct(List<Object> values) {
        return QueryPlanner.distinct(values);
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
