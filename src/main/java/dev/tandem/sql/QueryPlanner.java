package dev.tandem.sql;

import dev.tandem.controller.CatalogEntry;
import dev.tandem.controller.CatalogSnapshot;
import dev.tandem.controller.Controller;
import dev.tandem.controller.ReadRequest;
import dev.tandem.expr.Expr;
import dev.tandem.plan.Plan;
import dev.tandem.protocol.Finishing;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
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
import reactor.core.publisher.Mono;

/**
 * Queries: a {@code SELECT} (or {@code EXPLAIN SELECT}) planned with Calcite into a {@link SqlEngine.Query},
 * and, when run with its parameters, the read that answers it: a {@link PointLookup} bound without
 * translating again; a read of one collection by name when the query is a filter and projection of it;
 * else a transient dataflow of the translated plan (with a transaction block's pending writes laid over
 * what it reads). Each read carries the access path the controller's chooser picks for it
 * ({@link Controller#accessPath}), which its {@code EXPLAIN} shows ({@link ExplainText}).
 */
final class QueryPlanner {

    private final SqlEngine engine;
    private final Controller controller;

    private final RecursiveReads recursion;

    QueryPlanner(SqlEngine engine, Controller controller) {
        this.engine = engine;
        this.controller = controller;
        this.recursion = new RecursiveReads(controller, engine::limits);
    }


    Prepared query(String sql, String fingerprint, boolean explain) {
        CatalogSnapshot planned = controller.catalogSnapshot();
        String text = sql;
        Long asOf = null;
        String asOfParam = null;
        SqlAsOf m = SqlAsOf.find(text);
        if (m != null) {
            if (m.parameter()) {
                asOfParam = m.value();
            } else {
                try {
                    asOf = Long.parseLong(m.value());
                } catch (NumberFormatException e) {
                    throw new SqlException(SqlException.OUT_OF_RANGE, "AS OF " + m.value() + " is out of range for a timestamp");
                }
            }
            text = SqlLexer.blank(text, m.start(), text.length());
        }
        SqlParams params = SqlParams.of(text);
        SqlNode parsed = CalcitePlanner.parse(params.text());
        if (!parsed.isA(SqlKind.QUERY) && parsed.getKind() != SqlKind.ORDER_BY) {
            throw SqlException.notSupported(parsed.getKind().sql + " here");
        }
        engine.checkDeadline();
        if (RecursiveWith.isRecursive(parsed) && !explain) {
            return recursive(sql, params, asOfParam, asOf, planned);
        }
        SqlEngine.Query q = planQuery(parsed, params, asOfParam, asOf);
        engine.checkDeadline();
        if (explain) {
            // the parameters of the query explained are the EXPLAIN's: its plan is that of a run with their values
            return new Prepared(sql, fingerprint, List.of(new SqlColumn("QUERY PLAN", DatumType.STRING)), q.paramTypes(), (values, session) -> {
                List<Object[]> lines = new ArrayList<>();
                for (String line : ExplainText.lines(read(q, values, session).request(), controller)) {
                    lines.add(new Object[] {line});
                }
                return Mono.just(SqlResult.rows("EXPLAIN", List.of(new SqlColumn("QUERY PLAN", DatumType.STRING)), lines));
            }, false);
        }
        // the objects the query depends on (those its plan reads), fingerprinted as of before it was planned
        Set<String> deps = scanned(q.body());
        PointLookup lookup = PointLookup.of(q, controller);
        Prepared prepared = new Prepared(sql, Prepared.fingerprint(planned.entries(), deps), deps, q.columns(), q.paramTypes(),
                (values, session) -> runQuery(q, lookup, values, session), true);
        prepared.parameterDeclared = q.paramDeclared();
        prepared.parameterComputed = q.paramComputed();
        return prepared;
    }

    /**
     * A query with recursive {@code WITH} items, answered by {@link RecursiveReads}; refused ({@code 0A000}) with
     * parameters. Explained, it is planned as a maintained one is ({@link RecursiveRels}).
     */
    private Prepared recursive(String sql, SqlParams params, String asOfParam, Long asOf, CatalogSnapshot planned) {
        if (params.count() > 0 || asOfParam != null) {
            throw SqlException.notSupported("parameters ($1) in a query with WITH RECURSIVE");
        }
        RecursiveWith.Planned p = RecursiveWith.plan(() -> CalcitePlanner.parse(params.text()), (node, tables) -> {
            engine.checkDeadline();
            return planQuery(node, params, null, asOf, tables);
        });
        return new Prepared(sql, Prepared.fingerprint(planned.entries(), p.reads()), p.reads(), p.main().columns(), List.of(),
                (values, session) -> recursion.run(p, session, asOf), true);
    }

    /**
     * Plans a query; one with recursive {@code WITH} items reads each through an {@link IterateRel}
     * ({@link RecursiveRels}), refused ({@code 0A000}) with parameters.
     */
    SqlEngine.Query planQuery(SqlNode parsed, SqlParams params, String asOfParam, Long asOf) {
        if (RecursiveWith.isRecursive(parsed)) {
            if (params.count() > 0 || asOfParam != null) {
                throw SqlException.notSupported("parameters ($1) in a query with WITH RECURSIVE");
            }
            return RecursiveRels.query(RecursiveWith.plan(() -> CalcitePlanner.parse(params.text()), (node, tables) -> {
                engine.checkDeadline();
                return planQuery(node, params, null, asOf, tables);
            }));
        }
        return planQuery(parsed, params, asOfParam, asOf, List.of());
    }

    private SqlEngine.Query planQuery(SqlNode parsed, SqlParams params, String asOfParam, Long asOf, List<CalcitePlanner.WorkTable> workTables) {
        RecursiveWith.plainItems(parsed);
        CalcitePlanner.Planned planned = CalcitePlanner.plan(parsed, controller.catalog(), workTables);
        RelRoot root = planned.root();
        RelNode top = root.rel;
        SqlNumerics.check(top);
        Sort sort = top instanceof Sort s ? s : null;
        RelNode body = sort != null ? sort.getInput() : top;
        List<Integer> fields = new ArrayList<>();
        for (java.util.Map.Entry<Integer, String> f : root.fields) {
            fields.add(f.getKey());
        }
        // parameter types: those Calcite inferred, by PostgreSQL number
        DatumType[] byNumber = new DatumType[params.count()];
        dev.tandem.controller.DeclaredType[] declaredByNumber = new dev.tandem.controller.DeclaredType[params.count()];
        boolean[] computed = new boolean[params.count()];
        collectParams(top, params, byNumber, declaredByNumber, computed);
        if (asOfParam != null) {
            int n = Integer.parseInt(asOfParam.substring(1));
            byNumber = java.util.Arrays.copyOf(byNumber, Math.max(byNumber.length, n));
            byNumber[n - 1] = DatumType.INT64;
        }
        List<DatumType> paramTypes = new ArrayList<>();
        for (DatumType t : byNumber) {
            paramTypes.add(t == null ? DatumType.STRING : t);
        }
        // the result's types, from a translation with placeholder values
        List<DatumType> bodyTypes = new RelTranslator(new RexTranslator(i -> placeholder(paramTypes.get(params.number(i) - 1)),
                i -> paramTypes.get(params.number(i) - 1)).statementTime(() -> SqlSession.Times.at(java.time.Instant.EPOCH))).translate(body).types();
        List<String> names = SqlNames.of(planned.validated(), root);
        List<SqlColumn> columns = new ArrayList<>();
        List<org.apache.calcite.rel.type.RelDataTypeField> calciteTypes = body.getRowType().getFieldList();
        for (int i = 0; i < fields.size(); i++) {
            DatumType t = bodyTypes.get(fields.get(i));
            int bpchar = t == DatumType.STRING ? BpcharSemantics.length(body, fields.get(i)) : BpcharSemantics.NONE;
            columns.add(new SqlColumn(names.get(i), t, t == DatumType.INT64 || t == DatumType.INT64_ARRAY ? SqlTypes.declared(calciteTypes.get(fields.get(i)).getType())
                    : bpchar > 0 ? dev.tandem.controller.DeclaredType.bpchar(bpchar)
                    : t == DatumType.STRING_ARRAY || t == DatumType.NUMERIC_ARRAY ? BpcharSemantics.declaredArray(body, fields.get(i)) : null));
        }
        List<dev.tandem.controller.DeclaredType> paramDeclared = java.util.Collections.unmodifiableList(java.util.Arrays.asList(
                java.util.Arrays.copyOf(declaredByNumber, paramTypes.size())));
        List<Boolean> paramComputed = new ArrayList<>();
        for (int i = 0; i < paramTypes.size(); i++) {
            paramComputed.add(i < computed.length && computed[i]);
        }
        return new SqlEngine.Query(body, sort, fields, columns, params, paramTypes, paramDeclared, paramComputed, asOfParam, asOf);
    }

    /**
     * Collects each parameter's datum type and, for an int64 Calcite types {@code integer} or {@code smallint}, that
     * type; {@code computed} marks those that are anything but an operand of a comparison ({@code s + $1}).
     */
    private static void collectParams(RelNode rel, SqlParams params, DatumType[] byNumber, dev.tandem.controller.DeclaredType[] declared,
            boolean[] computed) {
        rel.accept(new RexShuttle() {
            @Override
            public RexNode visitCall(org.apache.calcite.rex.RexCall call) {
                boolean compares = call.getKind().belongsTo(org.apache.calcite.sql.SqlKind.COMPARISON);
                for (RexNode o : call.getOperands()) {
                    if (o instanceof RexDynamicParam p) {
                        param(p, !compares);
                    } else {
                        o.accept(this);
                    }
                }
                return call;
            }

            @Override
            public RexNode visitDynamicParam(RexDynamicParam p) {
                param(p, true);
                return p;
            }

            private void param(RexDynamicParam p, boolean computes) {
                int n = params.number(p.getIndex());
                if (byNumber[n - 1] == null) {
                    DatumType t = SqlTypes.of(p.getType());
                    byNumber[n - 1] = t;
                    declared[n - 1] = t == DatumType.INT64 ? SqlTypes.declared(p.getType()) : null;
                }
                computed[n - 1] |= computes;
            }
        });
        if (rel instanceof Sort s) {
            for (RexNode n : new RexNode[] {s.fetch, s.offset}) {
                if (n instanceof RexDynamicParam p) {
                    byNumber[params.number(p.getIndex()) - 1] = DatumType.INT64;
                }
            }
        }
        for (RelNode in : rel.getInputs()) {
            collectParams(in, params, byNumber, declared, computed);
        }
    }

    private static Object placeholder(DatumType t) {
        return switch (t) {
            case BOOL -> false;
            case INT64 -> 0L;
            case FLOAT64 -> 0.0;
            case STRING -> "";
            case TIMESTAMP -> new dev.tandem.row.Timestamp(0);
            case NUMERIC -> java.math.BigDecimal.ZERO;
            case DATE -> java.time.LocalDate.EPOCH;
            case TIMESTAMPTZ -> new dev.tandem.row.TimestampTz(0);
            case UUID -> new java.util.UUID(0, 0);
            case INTERVAL -> new dev.tandem.row.Interval(0, 0, 0);
            case JSONB -> dev.tandem.row.Jsonb.of(dev.tandem.row.Jsonb.NULL);
            case BYTEA -> new dev.tandem.row.Bytea(new byte[0]);
            case TIME -> new dev.tandem.row.TimeOfDay(0);
            case BOOL_ARRAY, INT64_ARRAY, FLOAT64_ARRAY, STRING_ARRAY, TIMESTAMP_ARRAY, NUMERIC_ARRAY, DATE_ARRAY, TIMESTAMPTZ_ARRAY,
                    UUID_ARRAY -> new dev.tandem.row.DatumArray(t.element(), List.of());
        };
    }

    /** The read {@code q} is with {@code values} bound, once, at the statement's time ({@code now()}). */
    SqlEngine.Read read(SqlEngine.Query q, List<Object> values, SqlSession session) {
        return read(q, values, session, true);
    }

    /**
     * The read {@code q} is with {@code values} bound: {@code timed}, a one-shot read at the statement's time
     * ({@code now()}); else a read that is maintained (a subscription), which has no statement time.
     */
    SqlEngine.Read read(SqlEngine.Query q, List<Object> values, SqlSession session, boolean timed) {
        RexTranslator tr = new RexTranslator(i -> values.get(q.params().number(i) - 1), i -> q.paramTypes().get(q.params().number(i) - 1))
                .zone(session.zone().id())
                .statementTime(!timed ? null : new java.util.function.Supplier<>() {
                    private SqlSession.Times times;

                    @Override
                    public SqlSession.Times get() {
                        // one time for the whole statement, read when first needed
                        if (times == null) {
                            times = session.times();
                        }
                        return times;
                    }
                });
        if (!timed) {
            tr.temporal();
        }
        ReadRequest.Isolation isolation = session.strictReads() ? ReadRequest.Isolation.STRICT : null;
        Long asOf = q.asOf();
        if (q.asOfParam() != null) {
            Object v = values.get(Integer.parseInt(q.asOfParam().substring(1)) - 1);
            if (v == null) {
                throw new SqlException(SqlException.INVALID_PARAMETER, "AS OF needs a timestamp, got NULL");
            }
            asOf = (Long) v;
        }
        Finishing finishing = null;
        if (q.sort() != null) {
            Long limit = q.sort().fetch == null ? null : tr.count(q.sort().fetch, "LIMIT");
            Long offset = q.sort().offset == null ? null : tr.count(q.sort().offset, "OFFSET");
            finishing = new Finishing(RelTranslator.orderings(q.sort().getCollation()), limit, offset == null ? 0 : offset);
        }
        TransactionBlock block = session.writes();
        boolean pending = block != null && block.wrote();
        SqlEngine.Read simple = pending ? null : simpleRead(q.body(), tr, finishing, isolation, asOf);
        if (simple != null) {
            return simple;
        }
        Plan plan = new RelTranslator(tr).translate(q.body()).plan();
        if (pending) {
            plan = block.overlay(plan, controller, asOf);
        }
        ReadRequest request = new ReadRequest(null, plan, null, null, finishing, isolation, asOf, null);
        return new SqlEngine.Read(request.withPath(controller.accessPath(request)));
    }

    /**
     * A read of one collection by name with a filter and a projection of columns, when the query is
     * that, with the access path the controller's chooser picks for it (a key lookup when the filter pins
     * an index's key, else a scan of an index, else a transient dataflow). Null when the query is anything else.
     */
    private SqlEngine.Read simpleRead(RelNode body, RexTranslator tr, Finishing finishing, ReadRequest.Isolation isolation, Long asOf) {
        RelNode rel = body;
        // a projection with window functions reads its whole input, never a key or a row at a time
        Project project = rel instanceof Project p && !org.apache.calcite.rex.RexOver.containsOver(p.getProjects(), null) ? p : null;
        rel = project != null ? project.getInput() : rel;
        Filter filter = rel instanceof Filter f ? f : null;
        rel = filter != null ? filter.getInput() : rel;
        if (!(rel instanceof TableScan scan) || filter != null && tr.allowsTemporalFilters() && TemporalFilters.readsTime(filter.getCondition())) {
            return null;
        }
        tr.cluster(scan);
        List<String> qn = scan.getTable().getQualifiedName();
        String target = qn.get(qn.size() - 1);
        CatalogEntry entry = controller.catalog().stream().filter(e -> e.name().equals(target)).findFirst().orElse(null);
        if (entry == null) {
            return null;
        }
        List<DatumType> types = entry.schema().types();
        List<Expr> conjuncts = filter == null ? List.of() : RelTranslator.conjuncts(PgConstantFolding.condition(tr.rex(filter.getCondition(), types)));
        ReadRequest request = new ReadRequest(target, null, null, PointLookup.mfp(tr, project, types, conjuncts), finishing, isolation, asOf, null);
        return new SqlEngine.Read(request.withPath(controller.accessPath(request)));
    }

    /** Runs a planned query: a {@link PointLookup} binds its key and nothing else; any other query is translated with its values. */
    Mono<SqlResult> runQuery(SqlEngine.Query q, PointLookup lookup, List<Object> values, SqlSession session) {
        TransactionBlock block = session.writes();
        ReadRequest request = lookup == null || block != null && block.wrote() || lookup.zoneDependent() && !session.zone().utc() ? null
                : lookup.request(values, session.strictReads() ? ReadRequest.Isolation.STRICT : null, q.asOf());
        if (request == null) {
            request = read(q, values, session).request();
        }
        return controller.read(request).map(result -> {
            List<Object[]> rows = new ArrayList<>(result.rows().size());
            for (Row row : result.rows()) {
                Object[] all = row.unpack();
                Object[] out = new Object[q.fields().size()];
                for (int i = 0; i < out.length; i++) {
                    out[i] = all[q.fields().get(i)];
                }
                rows.add(out);
            }
            return new SqlResult("SELECT", q.columns(), rows, rows.size(), result, null);
        });
    }

    // ------------------------------------------------------------------ EXPLAIN

    Prepared explain(String sql, SqlLexer lex, String fingerprint) {
        SqlLexer.Token explain = lex.take();
        if (!lex.peek().is("select") && !lex.peek().is("with") && !lex.peek().isPunct("(")) {
            throw lex.error("EXPLAIN explains a SELECT", lex.peek());
        }
        return query(SqlLexer.blank(sql, explain.offset(), lex.offset()), fingerprint, true);
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
}
