package dev.tandem.sql;

import dev.tandem.controller.Controller;
import dev.tandem.controller.ReadRequest;
import dev.tandem.controller.ReadResult;
import dev.tandem.expr.Expr;
import dev.tandem.plan.Plan;
import dev.tandem.protocol.Finishing;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import reactor.core.publisher.Mono;

/**
 * One-shot reads of queries with recursive {@code WITH} items ({@link RecursiveWith}), answered by iteration as
 * PostgreSQL answers them: an item's non-recursive term is read once; then its recursive term is read again and
 * again with the item's work table bound to the rows the previous read added, until a read adds none
 * ({@code UNION}: a row already produced is not added again; {@code UNION ALL}: every row is), within the
 * statement's bounds of iterations and rows ({@code 54000} past one); then the main query is read with each
 * work table bound to all its item's rows. Every read is a transient dataflow at the time of the first, so the
 * statement sees one snapshot of the tables; a cancellation or an error stops the iteration between reads.
 */
final class RecursiveReads {

    private final Controller controller;
    private final Supplier<SqlLimits> limits;

    RecursiveReads(Controller controller, Supplier<SqlLimits> limits) {
        this.controller = controller;
        this.limits = limits;
    }

    /** Runs {@code planned} for {@code session}, reading as of {@code asOf} (null: the session's read time). */
    Mono<SqlResult> run(RecursiveWith.Planned planned, SqlSession session, Long asOf) {
        return Mono.defer(() -> {
            Evaluation e = new Evaluation(session, asOf, limits.get());
            Mono<Void> items = Mono.empty();
            for (RecursiveWith.Item item : planned.items()) {
                items = items.then(Mono.defer(() -> e.item(item)));
            }
            return items.then(Mono.defer(() -> e.main(planned.main())));
        });
    }

    /** The rows of one recursive item so far: all of them, those the last read added, and (for UNION) the set of them. */
    private static final class Rows {
        final RecursiveWith.Item item;
        final Plan step;
        final List<Row> all = new ArrayList<>();
        final Set<Row> seen = new HashSet<>();
        List<Row> working = List.of();
        int iterations;

        Rows(RecursiveWith.Item item, Plan step) {
            this.item = item;
            this.step = step;
        }
    }

    /** The state of one statement's run: the work tables bound so far and the time every read is at. */
    private final class Evaluation {
        private final SqlSession session;
        private final SqlLimits bounds;
        private final Map<String, Plan> bound = new HashMap<>();
        private final ReadRequest.Isolation isolation;
        private final boolean pending;
        private Long asOf;
        private SqlSession.Times times;

        Evaluation(SqlSession session, Long asOf, SqlLimits bounds) {
            this.session = session;
            this.asOf = asOf;
            this.bounds = bounds;
            this.isolation = session.strictReads() ? ReadRequest.Isolation.STRICT : null;
            TransactionBlock block = session.writes();
            this.pending = block != null && block.wrote();
        }

        /** A translator of expressions for this statement: one statement time, read when first needed. */
        private RexTranslator rex() {
            return new RexTranslator(i -> null, i -> DatumType.STRING).statementTime(() -> {
                if (times == null) {
                    times = session.times();
                }
                return times;
            });
        }

        /** The plan of a term: its output columns, cast to the item's column types. */
        private Plan term(SqlEngine.Query q, List<DatumType> types) {
            RelTranslator.Translated t = new RelTranslator(rex()).translate(q.sort() != null ? q.sort() : q.body());
            List<Expr> exprs = new ArrayList<>();
            for (int i = 0; i < q.fields().size(); i++) {
                int f = q.fields().get(i);
                exprs.add(PgCoercion.coerce(Expr.col(f), t.types().get(f), types.get(i)));
            }
            return t.project(exprs).plan();
        }

        /**
         * Reads {@code plan} with the work tables bound, at the statement's time: the given one, else that of the first
         * read of a table (in a transaction block that wrote, each read at the block's own time, seeing its writes).
         */
        private Mono<ReadResult> read(Plan plan, Finishing finishing) {
            Plan p = plan.substitute((get, path) -> get.name() != null && bound.containsKey(get.name()) ? bound.get(get.name()) : get, "");
            if (pending) {
                p = session.writes().overlay(p, controller, asOf);
            }
            boolean readsTables = !p.namesRead().isEmpty();
            return controller.read(new ReadRequest(null, p, null, null, finishing, isolation, asOf, null)).doOnNext(r -> {
                if (asOf == null && !pending && readsTables) {
                    asOf = r.asOf();
                }
            });
        }

        /** Evaluates one recursive item and binds its work table to all its rows. */
        Mono<Void> item(RecursiveWith.Item item) {
            List<DatumType> types = item.table().types();
            Rows rows = new Rows(item, term(item.step(), types));
            return read(term(item.seed(), types), null)
                    .map(r -> add(rows, r.rows()))
                    .expand(this::next)
                    .then(Mono.fromRunnable(() -> bound.put(item.table().name(), new Plan.Constant(rows.all, types))));
        }

        /** The next iteration of {@code rows}' item; empty when the last added nothing. */
        private Mono<Rows> next(Rows rows) {
            if (rows.working.isEmpty()) {
                return Mono.empty();
            }
            if (rows.iterations >= bounds.maxRecursionIterations()) {
                return Mono.error(SqlException.tooComplex(SqlLimits.Bound.RECURSION_ITERATIONS, "more than " + bounds.maxRecursionIterations()));
            }
            rows.iterations++;
            bound.put(rows.item.table().name(), new Plan.Constant(rows.working, rows.item.table().types()));
            return read(rows.step, null).map(r -> add(rows, r.rows()));
        }

        /** Adds the rows a read of a term answered: under UNION those not produced before, under UNION ALL all of them. */
        private Rows add(Rows rows, List<Row> read) {
            List<Row> added = new ArrayList<>();
            for (Row r : read) {
                if (rows.item.all() || rows.seen.add(r)) {
                    added.add(r);
                }
            }
            if (rows.all.size() + (long) added.size() > bounds.maxRecursionRows()) {
                throw SqlException.tooComplex(SqlLimits.Bound.RECURSION_ROWS, "more than " + bounds.maxRecursionRows());
            }
            rows.all.addAll(added);
            rows.working = added;
            return rows;
        }

        /** Reads the main query over the work tables. */
        Mono<SqlResult> main(SqlEngine.Query q) {
            RexTranslator tr = rex();
            Plan plan = new RelTranslator(tr).translate(q.body()).plan();
            Finishing finishing = null;
            if (q.sort() != null) {
                Long limit = q.sort().fetch == null ? null : tr.count(q.sort().fetch, "LIMIT");
                Long offset = q.sort().offset == null ? null : tr.count(q.sort().offset, "OFFSET");
                finishing = new Finishing(RelTranslator.orderings(q.sort().getCollation()), limit, offset == null ? 0 : offset);
            }
            return read(plan, finishing).map(result -> {
                List<Object[]> out = new ArrayList<>(result.rows().size());
                for (Row row : result.rows()) {
                    Object[] all = row.unpack();
                    Object[] values = new Object[q.fields().size()];
                    for (int i = 0; i < values.length; i++) {
                        values[i] = all[q.fields().get(i)];
                    }
                    out.add(values);
                }
                return new SqlResult("SELECT", q.columns(), out, out.size(), result, null);
            });
        }
    }
}
