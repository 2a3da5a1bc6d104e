package dev.tandem.sql;

import dev.tandem.controller.CatalogSnapshot;
import dev.tandem.controller.Controller;
import java.util.Collections;
import java.util.function.BiFunction;
import reactor.core.publisher.Mono;

/**
 * How a statement becomes a {@link Prepared}: from the {@link StatementCache} when it was planned before
 * against the same part of the catalog, bound to the plan of its shape when its literals can be lifted
 * into parameters, else planned (by the part its first word chooses) once for all the sessions that ask
 * at the same time, on a {@link PlanningLanes} lane when it needs Calcite and on the caller's thread
 * when the lexer alone reads it.
 */
final class StatementPreparer {

    /** The front end's logger: plannings are logged under the engine's name. */
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(SqlEngine.class);
    /** Statements Tandem reads with its own lexer alone (one pass over the text, no Calcite), by their first word. */
    private static final java.util.Set<String> LEXED = java.util.Set.of("begin", "start", "commit", "rollback", "end", "abort", "set",
            "reset", "show", "fetch", "close", "drop", "savepoint", "release", "move", "alter", "truncate", "grant", "revoke", "prepare",
            "execute", "deallocate", "listen", "notify", "vacuum", "analyze");

    private final Controller controller;
    private final StatementCache statements;
    private final PlanningLanes lanes;
    private final SqlCursors cursors;
    /** Plans a statement that is not cached (its text and catalog fingerprint) with the part its first word chooses. */
    private final BiFunction<String, String, Prepared> compile;

    StatementPreparer(Controller controller, StatementCache statements, PlanningLanes lanes, SqlCursors cursors,
            BiFunction<String, String, Prepared> compile) {
        this.controller = controller;
        this.statements = statements;
        this.lanes = lanes;
        this.cursors = cursors;
        this.compile = compile;
    }

    /**
     * The tables, views and indexes the statement {@code sql} names: those a query reads (a view by its
     * own name, not what it reads), a write's table, what a DDL statement creates, drops or reads. A
     * statement that does not parse or plan fails as {@link #prepare} would.
     */
    java.util.Set<String> objects(String sql) {
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
    Mono<java.util.Set<String>> objectsAsync(String sql) {
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

    /**
     * Prepares one statement for {@code session}: as {@link #prepare(String)}, but a {@code FETCH} takes
     * its columns from the session's cursor, and in a failed transaction block only its end is accepted
     * ({@code 25P02}). An error fails the session's block.
     */
    SqlStatement prepare(String sql, SqlSession session) {
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

    /** Prepares one statement: parsed, validated and planned (from the plan cache when it was seen before). */
    SqlStatement prepare(String sql) {
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
        } else if ((p = statements.plan(sql, now)) != null) {
            // another session's planning ended between the look above and the join: its plan is cached
            statements.finish(planning, p);
            return p;
        }
        Prepared shared = null;
        try {
            long began = System.nanoTime();
            p = SqlErrors.guarded(() -> compile.apply(sql, fingerprint));
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
    Mono<SqlStatement> prepareAsync(String sql, SqlSession session) {
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
     * Whether preparing {@code sql} may plan it with Calcite (a query, a write, a view, a SUBSCRIBE...): only
     * those go to a planning lane; transaction, session and cursor statements ({@code BEGIN}, {@code SET},
     * {@code FETCH}...) are prepared on the caller's thread, as a cached statement is.
     */
    static boolean plans(String sql) {
        SqlLexer.Token first = new SqlLexer(sql).peek();
        return first.kind() != SqlLexer.Kind.END && !(first.kind() == SqlLexer.Kind.WORD && LEXED.contains(first.text()));
    }
}
