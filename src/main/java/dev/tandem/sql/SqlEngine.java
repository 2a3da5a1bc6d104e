package dev.tandem.sql;

import dev.tandem.controller.CatalogEntry;
import dev.tandem.controller.CatalogSnapshot;
import dev.tandem.controller.Controller;
import dev.tandem.controller.ControllerException;
import dev.tandem.controller.ReadRequest;
import dev.tandem.controller.ReadResult;
import dev.tandem.expr.Expr;
import dev.tandem.expr.ExprJson;
import dev.tandem.expr.Func;
import dev.tandem.expr.Mfp;
import dev.tandem.plan.Plan;
import dev.tandem.plan.PlanJson;
import dev.tandem.protocol.Finishing;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.row.RowJson;
import dev.tandem.stream.ChangeStreams;
import dev.tandem.sql.catalog.CatalogQuery;
import dev.tandem.sql.catalog.PgSettings;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelRoot;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.core.Sort;
import org.apache.calcite.rel.core.TableScan;
import org.apache.calcite.rex.RexDynamicParam;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

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
 * <p><b>Plan cache.</b> Calcite's parsing and validation are kept off the read path: a statement's
 * planned form is cached by its text (and the catalog it was planned against), and a prepared
 * statement is planned once; executing it only binds parameters into the translated plan. The cache
 * holds at most {@link SqlLimits#planCacheBytes} (an estimate from each statement's text), whatever
 * the number of statements.
 *
 * <p><b>Cost.</b> A statement over one of its {@link SqlLimits} (text, literals, planning time) is
 * refused with {@code 54000} before anything runs. {@link #prepareAsync} plans off the caller's thread:
 * a cached statement answers at once, a light one is planned on {@code planning}, a heavy one (long, or
 * with many literals) on {@code heavyPlanning}, so a burst of heavy statements never queues a light
 * one; each planning is admitted against its caller's {@link PlanningAdmission}. Running out of heap
 * while planning is {@code 53200}.
 *
 * <p><b>Sessions.</b> A connection's {@link SqlSession} carries its transaction block and cursors
 * ({@link SqlCursors}): {@code BEGIN ... COMMIT} groups reads and cursors, writes inside one are refused,
 * and after an error only its end runs. Statements that depend on the session ({@code FETCH}) are
 * prepared with {@link #prepare(String, SqlSession)}.
 *
 * <p><b>Blocking.</b> Catalog changes block on durable storage, so they run on {@code blocking}; reads
 * and writes are asynchronous already.
 */
public final class SqlEngine {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(SqlEngine.class);
    private final Controller controller;
    private final Scheduler blocking;
    private final SqlSubscribe subscribe;
    private final SqlCursors cursors;
    private final SqlLimits limits;
    private final Scheduler planning;
    private final Scheduler heavyPlanning;
    private final Scheduler timer;
    private final Cache<String, Prepared> cache;
    private final Cache<String, Named> named;
    /** Shapes that do not keep their statements' meaning, with the catalog version at which that was found. */
    private final Cache<String, Long> unshaped;
    /** The deadline (in {@code timer}'s nanoseconds) of the planning running on this thread, or null outside one. */
    private final ThreadLocal<Long> deadline = new ThreadLocal<>();
    /** The plannings running now, by text and catalog version: a second session preparing the same text waits for the first. */
    private final java.util.concurrent.ConcurrentHashMap<Planning, Planning> inFlight = new java.util.concurrent.ConcurrentHashMap<>();
    private final WritePlanner writes;
    private final DdlPlanner ddl;
    /** What CREATE SOURCE and DROP SOURCE do; null: they are refused. */
    private volatile SqlSources sources;
    private final QueryPlanner queries;

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
        this.planning = planning;
        this.heavyPlanning = heavyPlanning;
        this.timer = timer;
        this.cache = Caffeine.newBuilder().maximumWeight(limits.planCacheBytes())
                .weigher((String text, Prepared p) -> weight(text, 0)).executor(Runnable::run).build();
        this.unshaped = Caffeine.newBuilder().maximumWeight(limits.planCacheBytes() / 16)
                .weigher((String text, Long version) -> weight(text, 0)).executor(Runnable::run).build();
        this.named = Caffeine.newBuilder().maximumWeight(limits.planCacheBytes())
                .weigher((String text, Named n) -> weight(text, n.objects().size())).executor(Runnable::run).build();
        this.subscribe = new SqlSubscribe(this, controller, streams);
        this.cursors = new SqlCursors(this, blocking);
        this.writes = new WritePlanner(this, controller);
        this.ddl = new DdlPlanner(this, controller);
        this.queries = new QueryPlanner(this, controller);
    }

    /** Lets {@code CREATE SOURCE ... FROM POSTGRES} and {@code DROP SOURCE} reach the sources' manager. */
    public void sources(SqlSources sources) {
        this.sources = sources;
    }

    SqlSources sources() {
        return sources;
    }

    /**
     * The bytes a cached statement is taken to hold: its text (two bytes a character at most) and what
     * is planned from it (parse tree, relational and scalar plans: on the order of a dozen bytes a
     * character of text), plus a fixed part for the plan's skeleton and {@code objects} names.
     */
    static int weight(String text, int objects) {
        return (int) Math.min(Integer.MAX_VALUE, 16L * text.length() + 4096 + 64L * objects);
    }

    /** The bytes the plan cache and the cache of named objects hold now, by their estimates (tests read it). */
    long cachedBytes() {
        cache.cleanUp();
        named.cleanUp();
        return cache.policy().eviction().orElseThrow().weightedSize().orElse(0)
                + named.policy().eviction().orElseThrow().weightedSize().orElse(0);
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
            return CopyIn.start(controller, heavyPlanning, sql, session);
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
        Named cached = named.getIfPresent(sql);
        if (cached != null && cached.version() == now.version()) {
            return cached.objects();
        }
        bounded(sql);
        java.util.Set<String> objects = Collections.unmodifiableSet(new java.util.LinkedHashSet<>(
                SqlErrors.guarded(() -> SqlClassifier.objects(sql, now.entries()))));
        if (!pastDeadline()) {
            named.put(sql, new Named(now.version(), objects));
        }
        return objects;
    }

    /**
     * The objects the statement {@code sql} names, as {@link #objects}, found off the caller's thread when
     * the statement must be planned for it (as {@link #prepareAsync} plans).
     */
    public Mono<java.util.Set<String>> objectsAsync(String sql) {
        return Mono.deferContextual(context -> {
            Named cached = named.getIfPresent(sql);
            if (cached != null && cached.version() == controller.catalogSnapshot().version()) {
                return Mono.just(cached.objects());
            }
            bounded(sql);
            if (!plans(sql)) {
                return Mono.fromSupplier(() -> objects(sql));
            }
            return planned(sql, context, () -> objects(sql));
        }).onErrorMap(SqlErrors::map);
    }

    /** The objects a statement names, as of a catalog version: cached by the statement's text as plans are, so authorizing it plans nothing. */
    private record Named(long version, java.util.Set<String> objects) {
    }

    /** Prepares one statement: parsed, validated and planned (from the plan cache when it was seen before). */
    public SqlStatement prepare(String sql) {
        CatalogSnapshot now = controller.catalogSnapshot();
        Prepared p = cache.getIfPresent(sql);
        if (p != null && fresh(p, now)) {
            return p;
        }
        StatementCost cost = bounded(sql);
        Prepared shaped = shaped(sql, now, true);
        if (shaped != null) {
            return shaped;
        }
        String fingerprint = fingerprint(now.entries(), null);
        Planning mine = new Planning(sql, now.version());
        Planning first = inFlight.putIfAbsent(mine, mine);
        if (first != null) {
            Prepared theirs = first.await(remainingNanos());
            if (theirs != null) {
                return theirs;
            }
            checkDeadline();
            mine = null;
        }
        try {
            long began = System.nanoTime();
            p = SqlErrors.guarded(() -> compile(sql, fingerprint));
            if (LOG.isDebugEnabled()) {
                LOG.debug("planned in {} µs: {}", (System.nanoTime() - began) / 1000, sql.length() > 200 ? sql.substring(0, 200) + "…" : sql);
            }
            p.heavy = cost.heavy();
            checkDeadline();
            if (p.cacheable()) {
                cache.put(sql, p);
            }
            if (mine != null) {
                mine.done.complete(p.cacheable() ? p : null);
            }
            return p;
        } finally {
            if (mine != null) {
                mine.done.complete(null);
                inFlight.remove(mine, mine);
            }
        }
    }

    /**
     * A text being planned against a catalog version. Sessions that prepare the same new text at once
     * (eight pgbench clients' first Parse) wait for the first one's plan instead of each planning it:
     * planning is the costly part of a new statement, and done eight times over on two cores it makes
     * every one of them eight times as slow.
     */
    private static final class Planning {
        final String text;
        final long version;
        /** The plan, or null when it is not to be shared (it failed, or is not cacheable). */
        final java.util.concurrent.CompletableFuture<Prepared> done = new java.util.concurrent.CompletableFuture<>();

        Planning(String text, long version) {
            this.text = text;
            this.version = version;
        }

        /** The first planner's plan, or null when it has none to share or did not finish within {@code nanos}. */
        Prepared await(long nanos) {
            try {
                return done.get(Math.max(nanos, 0), TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                return null;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            } catch (java.util.concurrent.ExecutionException e) {
                return null;
            }
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Planning other && other.version == version && other.text.equals(text);
        }

        @Override
        public int hashCode() {
            return text.hashCode() * 31 + Long.hashCode(version);
        }
    }

    /** How long the planning on this thread may still run: until its deadline, or the planning timeout outside one. */
    private long remainingNanos() {
        Long until = deadline.get();
        return until == null ? limits.planningTimeout().toNanos() : until - timer.now(TimeUnit.NANOSECONDS);
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
        Long refused = unshaped.getIfPresent(lifted.shape());
        if (refused != null && refused == now.version()) {
            return null;
        }
        Prepared shape = cache.getIfPresent(lifted.shape());
        if (shape == null || !fresh(shape, now)) {
            if (!plan) {
                return null;
            }
            try {
                shape = (Prepared) prepare(lifted.shape());
            } catch (SqlException e) {
                // planned as written, which answers with the statement's own error if it has one
                unshaped.put(lifted.shape(), now.version());
                return null;
            }
        }
        if (!shape.cacheable() || !shape.parameterTypes().equals(lifted.types())) {
            unshaped.put(lifted.shape(), now.version());
            return null;
        }
        return shape.bound(sql, lifted.values());
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
            Prepared hit = cache.getIfPresent(sql);
            if (hit != null && fresh(hit, now)) {
                return Mono.just(hit);
            }
            try {
                bounded(sql);
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
            return planned(sql, context, () -> prepare(sql, session)).doOnError(e -> session.fail());
        }).onErrorMap(SqlErrors::map);
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

    /**
     * Runs {@code work}, the planning of {@code sql}, on its lane: refused first when the statement is over
     * a bound or its caller at its limit of planning; answered {@code 54000} when the planning timeout
     * passes (the work then finishes unused, and its caller's admission is given back only then).
     */
    private <T> Mono<T> planned(String sql, reactor.util.context.ContextView context, java.util.function.Supplier<T> work) {
        StatementCost cost;
        Runnable admitted;
        try {
            cost = bounded(sql);
            admitted = PlanningAdmission.of(context).plan();
        } catch (SqlException e) {
            return Mono.error(e);
        }
        AtomicBoolean released = new AtomicBoolean();
        Runnable release = () -> {
            if (released.compareAndSet(false, true)) {
                admitted.run();
            }
        };
        AtomicBoolean claimed = new AtomicBoolean();
        long until = timer.now(TimeUnit.NANOSECONDS) + limits.planningTimeout().toNanos();
        Mono<T> planning = Mono.fromCallable(() -> {
            if (!claimed.compareAndSet(false, true)) {
                return null;
            }
            deadline.set(until);
            try {
                return SqlErrors.guarded(() -> {
                    checkDeadline();
                    return work.get();
                });
            } finally {
                deadline.remove();
                release.run();
            }
        });
        return planning.subscribeOn(cost.heavy() ? heavyPlanning : this.planning)
                .timeout(limits.planningTimeout(), Mono.error(() -> planningTooLong()), timer)
                .doFinally(signal -> {
                    // not started yet (cancelled or timed out in the queue): it never will, and its admission is given back now
                    if (claimed.compareAndSet(false, true)) {
                        release.run();
                    }
                });
    }

    /** Refuses ({@code 54000}) a statement over its bounds of text and literals; else its cost. */
    private StatementCost bounded(String sql) {
        StatementCost cost = StatementCost.of(sql, limits);
        SqlException refusal = cost.refusal(limits);
        if (refusal != null) {
            throw refusal;
        }
        return cost;
    }

    /** Whether the planning on this thread is past its deadline. */
    private boolean pastDeadline() {
        Long until = deadline.get();
        return until != null && timer.now(TimeUnit.NANOSECONDS) > until;
    }

    /** Stops ({@code 54000}) the planning on this thread once past its deadline; nothing planned is kept. */
    void checkDeadline() {
        if (pastDeadline()) {
            throw planningTooLong();
        }
    }

    private SqlException planningTooLong() {
        return SqlException.tooComplex(SqlLimits.Bound.PLANNING_TIME, "more than " + limits.planningTimeout().toMillis() + " ms");
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
                return cursors.fetch(sql, fingerprint(controller.catalog(), null), session);
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
            if (p.cacheable() && !fresh(p, controller.catalogSnapshot())) {
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
        Mono<SqlResult> run = Mono.defer(() -> p.run.run(bind(p, params), session));
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
            throw new SqlException("25006", "not supported: " + new SqlLexer(p.text).peek().text().toUpperCase(Locale.ROOT)
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
            Mono<Prepared> current = fresh(p, controller.catalogSnapshot()) ? Mono.just(p)
                    : prepareAsync(p.text, new SqlSession()).map(s -> (Prepared) s);
            return current.flatMapMany(again -> {
                if (!java.util.Objects.equals(again.columns(), p.columns())) {
                    return Flux.error(new SqlException(SqlException.NOT_SUPPORTED, "cached plan must not change result type"));
                }
                List<Object> values = bind(again, params);
                SqlSubscribe.Streaming streaming = (SqlSubscribe.Streaming) again.run;
                return Flux.using(session::takeStreamPermit, permit -> streaming.stream(values, session), Runnable::run);
            });
        }).onErrorMap(SqlErrors::map).doOnError(e -> session.fail());
    }

    // ------------------------------------------------------------------ statements

    /** What an execution does with bound parameter values. */
    interface Run {
        Mono<SqlResult> run(List<Object> params, SqlSession session);
    }

    static final class Prepared implements SqlStatement {
        final String text;
        final String fingerprint;
        final List<SqlColumn> columns;
        final List<DatumType> parameterTypes;
        final Run run;
        final boolean cacheable;
        final SqlStatement.Kind kind;
        /** The objects the plan depends on, those {@link #fingerprint} covers (null: the whole catalog). */
        final Set<String> deps;
        /** A catalog version at which the plan was found to hold (-1: none yet); see {@link #fresh}. */
        volatile long checkedVersion = -1;
        /** Whether planning it was heavy work (see {@link StatementCost#heavy}): its executions bind on the heavy lane too. */
        boolean heavy;

        Prepared(String text, String fingerprint, List<SqlColumn> columns, List<DatumType> parameterTypes, Run run, boolean cacheable) {
            this(text, fingerprint, null, columns, parameterTypes, run, cacheable);
        }

        Prepared(String text, String fingerprint, Set<String> deps, List<SqlColumn> columns, List<DatumType> parameterTypes, Run run,
                boolean cacheable) {
            this.text = text;
            this.fingerprint = fingerprint;
            this.deps = deps;
            this.kind = SqlClassifier.kind(text);
            this.columns = columns;
            this.parameterTypes = List.copyOf(parameterTypes);
            this.run = run;
            this.cacheable = cacheable;
        }

        @Override
        public String text() {
            return text;
        }

        @Override
        public List<SqlColumn> columns() {
            return columns;
        }

        @Override
        public List<DatumType> parameterTypes() {
            return parameterTypes;
        }

        @Override
        public SqlStatement.Kind kind() {
            return kind;
        }

        boolean cacheable() {
            return cacheable;
        }

        /**
         * The statement {@code text} whose literals {@code values} this plan, its shape, takes as
         * parameters: it runs this plan with them, takes no parameters of its own, and holds while the
         * shape does.
         */
        Prepared bound(String text, List<Object> values) {
            Prepared b = new Prepared(text, fingerprint, deps, columns, List.of(), (params, session) -> run.run(values, session), cacheable,
                    kind);
            b.checkedVersion = checkedVersion;
            b.heavy = heavy;
            return b;
        }

        private Prepared(String text, String fingerprint, Set<String> deps, List<SqlColumn> columns, List<DatumType> parameterTypes, Run run,
                boolean cacheable, SqlStatement.Kind kind) {
            this.text = text;
            this.fingerprint = fingerprint;
            this.deps = deps;
            this.kind = kind;
            this.columns = columns;
            this.parameterTypes = List.copyOf(parameterTypes);
            this.run = run;
            this.cacheable = cacheable;
        }
    }

    private static List<Object> bind(Prepared p, List<Object> params) {
        List<Object> given = params == null ? List.of() : params;
        if (given.size() < p.parameterTypes.size()) {
            throw new SqlException("08P01", "the statement has " + p.parameterTypes.size() + " parameters, " + given.size() + " given");
        }
        List<Object> out = new ArrayList<>();
        for (int i = 0; i < p.parameterTypes.size(); i++) {
            try {
                out.add(SqlTypes.convert(given.get(i), p.parameterTypes.get(i)));
            } catch (SqlException e) {
                throw new SqlException(e.sqlState(), "parameter $" + (i + 1) + ": " + e.getMessage());
            }
        }
        return out;
    }

    /**
     * A fingerprint of the part of a catalog a plan depends on: names and ids (never reused) of the
     * entries named in {@code deps} and of the indexes on them, which the access path chooses among; of
     * every entry when {@code deps} is null.
     */
    static String fingerprint(List<CatalogEntry> entries, Set<String> deps) {
        StringBuilder b = new StringBuilder();
        for (CatalogEntry e : entries) {
            if (deps == null || deps.contains(e.name()) || e instanceof CatalogEntry.Index i && deps.contains(i.on())) {
                b.append(e.name()).append(':').append(e.id()).append(',');
            }
        }
        return b.toString();
    }

    /**
     * Whether {@code p}'s plan holds for the catalog {@code now}: what it depends on has the fingerprint it
     * was planned with. Checked once per catalog version, so a catalog change that touches none of a
     * statement's objects (another view defined or dropped) costs it one fingerprint, not a new plan.
     */
    private static boolean fresh(Prepared p, CatalogSnapshot now) {
        if (p.checkedVersion == now.version()) {
            return true;
        }
        if (!fingerprint(now.entries(), p.deps).equals(p.fingerprint)) {
            return false;
        }
        p.checkedVersion = now.version();
        return true;
    }

    /** The names of the collections {@code rel} reads, in subqueries of its expressions too. */
    static Set<String> scanned(RelNode rel) {
        Set<String> names = new java.util.HashSet<>();
        scan(rel, names);
        return Set.copyOf(names);
    }

    private static void scan(RelNode rel, Set<String> names) {
        if (rel instanceof TableScan scan) {
            List<String> qn = scan.getTable().getQualifiedName();
            names.add(qn.get(qn.size() - 1));
        }
        rel.accept(new RexShuttle() {
            @Override
            public RexNode visitSubQuery(org.apache.calcite.rex.RexSubQuery sub) {
                scan(sub.rel, names);
                return super.visitSubQuery(sub);
            }
        });
        for (RelNode in : rel.getInputs()) {
            scan(in, names);
        }
    }

    private Prepared compile(String sql, String fingerprint) {
        SqlLexer lex = new SqlLexer(sql);
        SqlLexer.Token first = lex.peek();
        if (first.kind() == SqlLexer.Kind.END) {
            return utility(sql, fingerprint, (params, session) -> Mono.just(SqlResult.command("EMPTY")));
        }
        return switch (first.kind() == SqlLexer.Kind.WORD ? first.text() : "") {
            case "create" -> ddl.create(sql, lex, fingerprint);
            case "drop" -> ddl.drop(sql, lex, fingerprint);
            case "show" -> show(sql, lex, fingerprint);
            case "set" -> set(sql, lex, fingerprint);
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

    static Prepared utility(String sql, String fingerprint, Run run) {
        return new Prepared(sql, fingerprint, null, List.of(), run, false);
    }

    private static Prepared rows(String sql, String fingerprint, List<SqlColumn> columns, Run run) {
        return new Prepared(sql, fingerprint, columns, List.of(), run, false);
    }

    // ------------------------------------------------------------------ parameters

    /** A statement text with {@code $n} rewritten to Calcite's {@code ?} (positions kept), and which {@code $n} each {@code ?} is. */
    record Params(String text, List<Integer> order, int count) {
        /** The PostgreSQL parameter number (1-based) of Calcite's dynamic parameter {@code i}. */
        int number(int i) {
            return order.get(i);
        }
    }

    static Params params(String sql) {
        StringBuilder b = new StringBuilder(sql);
        List<Integer> order = new ArrayList<>();
        int max = 0;
        for (SqlLexer.Token t : new SqlLexer(sql).tokens()) {
            if (t.kind() == SqlLexer.Kind.PARAM) {
                int n = Integer.parseInt(t.text());
                if (n < 1 || n > 65535) {
                    int[] lc = SqlLexer.lineColumn(sql, t.offset());
                    throw new SqlException(SqlException.UNDEFINED_PARAMETER, "there is no parameter $" + n, lc[0], lc[1]);
                }
                order.add(n);
                max = Math.max(max, n);
                b.setCharAt(t.offset(), '?');
                for (int i = 1; i <= t.text().length(); i++) {
                    b.setCharAt(t.offset() + i, ' ');
                }
            }
        }
        return new Params(b.toString(), order, max);
    }

    // ------------------------------------------------------------------ queries (QueryPlanner)

    /** A planned query: the body below the top-level sort, the sort, and which body columns are output. */
    record Query(RelNode body, Sort sort, List<Integer> fields, List<SqlColumn> columns, Params params,
            List<DatumType> paramTypes, String asOfParam, Long asOf) {
    }

    /** A read request for a query with its parameters bound, and how it will be answered. */
    record Read(ReadRequest request, String describe) {
    }

    Query planQuery(SqlNode parsed, Params params, String asOfParam, Long asOf) {
        return queries.planQuery(parsed, params, asOfParam, asOf);
    }

    Read read(Query q, List<Object> values, SqlSession session) {
        return queries.read(q, values, session);
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

    <T> Mono<T> blocking(java.util.concurrent.Callable<T> call) {
        return Mono.fromCallable(call).subscribeOn(blocking);
    }

    // ------------------------------------------------------------------ SHOW and SET

    private Prepared show(String sql, SqlLexer lex, String fingerprint) {
        lex.expect("show");
        SqlLexer.Token what = lex.take();
        List<SqlColumn> nameCol = List.of(new SqlColumn("name", DatumType.STRING));
        switch (what.text()) {
            case "tables", "views" -> {
                lex.end();
                Class<? extends CatalogEntry> kind = what.text().equals("tables") ? CatalogEntry.Table.class : CatalogEntry.View.class;
                return rows(sql, fingerprint, nameCol, (p, s) -> Mono.fromSupplier(() -> SqlResult.rows("SHOW", nameCol,
                        controller.catalog().stream().filter(e -> kind.isInstance(e) && s.sees(e.name())).map(e -> new Object[] {e.name()})
                                .sorted(java.util.Comparator.comparing(a -> (String) a[0])).toList())));
            }
            case "indexes", "indices" -> {
                String on = null;
                if (lex.accept("from") || lex.accept("on") || lex.accept("in")) {
                    on = lex.name("a table or view name");
                }
                lex.end();
                String target = on;
                List<SqlColumn> cols = List.of(new SqlColumn("name", DatumType.STRING), new SqlColumn("on", DatumType.STRING),
                        new SqlColumn("key", DatumType.STRING));
                return rows(sql, fingerprint, cols, (p, s) -> Mono.fromSupplier(() -> SqlResult.rows("SHOW", cols,
                        controller.catalog().stream().filter(e -> e instanceof CatalogEntry.Index i && (target == null || i.on().equals(target))
                                        && s.sees(i.name()))
                                .map(e -> (CatalogEntry.Index) e)
                                .sorted(java.util.Comparator.comparing(CatalogEntry.Index::name))
                                .map(i -> new Object[] {i.name(), i.on(), String.join(", ", i.key())}).toList())));
            }
            case "columns" -> {
                if (!lex.accept("from")) {
                    lex.expect("in");
                }
                String of = lex.name("a table or view name");
                lex.end();
                List<SqlColumn> cols = List.of(new SqlColumn("name", DatumType.STRING), new SqlColumn("nullable", DatumType.BOOL),
                        new SqlColumn("type", DatumType.STRING));
                return rows(sql, fingerprint, cols, (p, s) -> Mono.fromSupplier(() -> {
                    CatalogEntry e = controller.catalog().stream().filter(x -> x.name().equals(of) && s.sees(of)).findFirst()
                            .orElseThrow(() -> new SqlException(SqlException.UNDEFINED_TABLE, "relation \"" + of + "\" does not exist"));
                    return SqlResult.rows("SHOW", cols, e.schema().columns().stream()
                            .map(c -> new Object[] {c.name(), c.nullable(), SqlTypes.pgName(c.type())}).toList());
                }));
            }
            case "transaction_isolation", "transaction" -> {
                if (what.text().equals("transaction")) {
                    lex.expect("isolation");
                    lex.expect("level");
                }
                lex.end();
                List<SqlColumn> cols = List.of(new SqlColumn("transaction_isolation", DatumType.STRING));
                return rows(sql, fingerprint, cols, (p, s) -> Mono.just(SqlResult.rows("SHOW", cols, List.<Object[]>of(new Object[] {s.isolationName()}))));
            }
            case "all" -> {
                lex.end();
                List<SqlColumn> cols = List.of(new SqlColumn("name", DatumType.STRING), new SqlColumn("setting", DatumType.STRING),
                        new SqlColumn("description", DatumType.STRING));
                return rows(sql, fingerprint, cols, (p, s) -> {
                    List<Object[]> all = new java.util.ArrayList<>();
                    for (PgSettings.Setting setting : PgSettings.ALL) {
                        all.add(new Object[] {setting.name(), setting.value(), setting.description()});
                    }
                    all.add(new Object[] {"transaction_isolation", s.isolationName(), "Sets the current transaction's isolation level."});
                    all.sort(java.util.Comparator.comparing(a -> ((String) a[0]).toLowerCase(Locale.ROOT)));
                    return Mono.just(SqlResult.rows("SHOW", cols, all));
                });
            }
            default -> {
                // SHOW time zone is SHOW timezone
                String name = what.text().equals("time") && lex.accept("zone") ? "timezone" : what.text();
                lex.end();
                PgSettings.Setting setting = PgSettings.find(name);
                if (setting == null) {
                    throw PgSettings.unrecognized(name);
                }
                List<SqlColumn> cols = List.of(new SqlColumn(setting.name(), DatumType.STRING));
                return rows(sql, fingerprint, cols, (p, s) -> Mono.just(SqlResult.rows("SHOW", cols, List.<Object[]>of(new Object[] {setting.value()}))));
            }
        }
    }

    /** The PostgreSQL version Tandem reports to clients (the protocol and catalog queries it answers are those of 15). */
    public static final String SERVER_VERSION = "15.0";

    private Prepared set(String sql, SqlLexer lex, String fingerprint) {
        lex.expect("set");
        if (lex.accept("session")) {
            if (lex.peek().is("characteristics")) {
                throw SqlException.notSupported("SET SESSION CHARACTERISTICS (use SET transaction_isolation)");
            }
        }
        lex.accept("local");
        String name = lex.name("a setting");
        if (name.equals("tandem") && lex.acceptPunct(".")) {
            name = name + "." + lex.name("a setting");
        }
        if (name.equals("time") && lex.accept("zone")) {
            name = "timezone";
        } else if (!lex.acceptPunct("=")) {
            lex.expect("to");
        }
        SqlLexer.Token value = lex.take();
        StringBuilder v = new StringBuilder(value.text());
        while (lex.peek().kind() == SqlLexer.Kind.WORD) {
            v.append(' ').append(lex.take().text());
        }
        lex.end();
        String val = v.toString().toLowerCase(Locale.ROOT);
        switch (name) {
            case "transaction_isolation" -> {
                boolean strict = switch (val) {
                    case "strict serializable" -> true;
                    case "serializable" -> false;
                    default -> throw new SqlException(SqlException.INVALID_PARAMETER, "invalid value for parameter \"transaction_isolation\": \""
                            + val + "\" (Tandem offers 'serializable' and 'strict serializable')");
                };
                return utility(sql, fingerprint, (p, s) -> {
                    s.strict(strict);
                    return Mono.just(SqlResult.command("SET"));
                });
            }
            case "tandem.after_lsn" -> {
                String lsn = value.text().trim();
                if (!lsn.isEmpty() && !lsn.matches("[0-9A-Fa-f]{1,8}/[0-9A-Fa-f]{1,8}")) {
                    throw new SqlException(SqlException.INVALID_PARAMETER, "invalid value for parameter \"tandem.after_lsn\": \"" + lsn
                            + "\" (an upstream position as pg_current_wal_lsn() prints it, e.g. '0/16B3748'; '' to stop waiting)");
                }
                return utility(sql, fingerprint, (p, s) -> {
                    s.afterLsn(lsn.isEmpty() ? null : lsn);
                    return Mono.just(SqlResult.command("SET"));
                });
            }
            case "application_name" -> {
                String application = value.text();
                return utility(sql, fingerprint, (p, s) -> {
                    s.applicationName(application);
                    return Mono.just(SqlResult.command("SET"));
                });
            }
            case "extra_float_digits", "client_min_messages", "statement_timeout", "search_path" -> {
                return utility(sql, fingerprint, (p, s) -> Mono.just(SqlResult.command("SET")));
            }
            case "client_encoding", "names" -> {
                if (!val.equals("utf8") && !val.equals("utf-8") && !val.equals("unicode")) {
                    throw SqlException.notSupported("client encoding " + val + " (only UTF8)");
                }
                return utility(sql, fingerprint, (p, s) -> Mono.just(SqlResult.command("SET")));
            }
            case "timezone", "time" -> {
                if (!val.equals("utc") && !val.equals("zone utc") && !val.equals("gmt")) {
                    throw SqlException.notSupported("time zone " + val + " (timestamps are UTC)");
                }
                return utility(sql, fingerprint, (p, s) -> Mono.just(SqlResult.command("SET")));
            }
            default -> {
                PgSettings.Setting setting = PgSettings.find(name);
                if (setting == null) {
                    throw PgSettings.unrecognized(name);
                }
                if (!setting.settable()) {
                    throw new SqlException("55P02", "parameter \"" + name + "\" cannot be changed");
                }
                // Tandem has one value of each (DateStyle, IntervalStyle, bytea_output...): SET to it is accepted, another is refused
                String want = setting.value().toLowerCase(Locale.ROOT).replace(" ", "");
                if (!val.replace(" ", "").equals(want) && !(setting.type().equals("bool") && PgSettings.sameBool(val, setting.value()))) {
                    throw SqlException.notSupported(setting.name() + " " + val + " (Tandem's is " + setting.value() + ")");
                }
                return utility(sql, fingerprint, (p, s) -> Mono.just(SqlResult.command("SET")));
            }
        }
    }
}
