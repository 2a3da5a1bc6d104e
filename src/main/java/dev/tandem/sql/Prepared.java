package dev.tandem.sql;

import dev.tandem.controller.CatalogEntry;
import dev.tandem.controller.CatalogSnapshot;
import dev.tandem.row.DatumType;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import reactor.core.publisher.Mono;

/**
 * A statement as planned: its result columns and parameter types, what running it with bound parameters
 * does, and the part of the catalog its plan depends on (a fingerprint of it), by which the plan cache
 * tells whether the plan still holds.
 */
final class Prepared implements SqlStatement {

    /** What an execution does with bound parameter values. */
    interface Run {
        Mono<SqlResult> run(List<Object> params, SqlSession session);
    }

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
    /**
     * The SQL type of each parameter where it says more than its datum type (an int64 typed {@code integer} or
     * {@code smallint}), else null; empty when not known.
     */
    List<dev.tandem.controller.DeclaredType> parameterDeclared = List.of();
    /** Whether each parameter is anything but an operand of a comparison (it computes a value); empty when not known. */
    List<Boolean> parameterComputed = List.of();
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

    static Prepared utility(String sql, String fingerprint, Run run) {
        return new Prepared(sql, fingerprint, null, List.of(), run, false);
    }

    static Prepared rows(String sql, String fingerprint, List<SqlColumn> columns, Run run) {
        return new Prepared(sql, fingerprint, columns, List.of(), run, false);
    }

    static List<Object> bind(Prepared p, List<Object> params) {
        List<Object> given = params == null ? List.of() : params;
        if (given.size() < p.parameterTypes.size()) {
            throw new SqlException(SqlState.PROTOCOL_VIOLATION, "the statement has " + p.parameterTypes.size() + " parameters, " + given.size() + " given");
        }
        List<Object> out = new ArrayList<>();
        for (int i = 0; i < p.parameterTypes.size(); i++) {
            try {
                out.add(SqlTypes.convert(given.get(i), p.parameterTypes.get(i)));
            } catch (SqlException e) {
                throw new SqlException(e.state(), "parameter $" + (i + 1) + ": " + e.getMessage());
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
    static boolean fresh(Prepared p, CatalogSnapshot now) {
        if (p.checkedVersion == now.version()) {
            return true;
        }
        if (!fingerprint(now.entries(), p.deps).equals(p.fingerprint)) {
            return false;
        }
        p.checkedVersion = now.version();
        return true;
    }
}
