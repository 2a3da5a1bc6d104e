package dev.tandem.sql;

import dev.tandem.controller.CatalogEntry;
import dev.tandem.controller.Controller;
import dev.tandem.row.Column;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.storage.RowDiff;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlBasicTypeNameSpec;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlCharStringLiteral;
import org.apache.calcite.sql.SqlDataTypeSpec;
import org.apache.calcite.sql.SqlDelete;
import org.apache.calcite.sql.SqlDynamicParam;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlInsert;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.SqlUpdate;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.type.SqlTypeName;
import reactor.core.publisher.Mono;

/**
 * Plans {@code INSERT}, {@code UPDATE}, {@code DELETE} and {@code TRUNCATE} into controller writes. A write is one
 * {@link Controller#write} of row diffs, so it commits at one timestamp, atomically, and storage admits
 * it only if no row's count would go negative: {@code DELETE} and {@code UPDATE} read the rows they
 * change (strictly, as of the last acknowledged write) and retract them, {@code UPDATE} inserting each
 * row's new version in the same write; a row another write deleted since the read makes the whole write
 * refused, a row inserted since is not changed.
 *
 * <p>{@code INSERT ... VALUES} of literals and parameters converts them to the columns' types (a quoted
 * literal is parsed as the column's type, as PostgreSQL assigns an unknown literal); {@code VALUES} with
 * other expressions and {@code INSERT ... SELECT} run as a query whose rows are inserted. Columns the
 * statement does not name, and {@code DEFAULT}, take the column's default ({@link ColumnDefaults}; NULL without one).
 */
final class WritePlanner {

    private final SqlEngine engine;
    private final Controller controller;

    WritePlanner(SqlEngine engine, Controller controller) {
        this.engine = engine;
        this.controller = controller;
    }

    // ------------------------------------------------------------------ INSERT

    Prepared insert(String sql, String fingerprint) {
        Returning.Split split = Returning.split(sql);
        SqlParams params = SqlParams.of(split.statement());
        SqlInsert ins = (SqlInsert) CalcitePlanner.parse(params.text());
        CatalogEntry.Table table = table(ins.getTargetTable(), "insert into");
        Returning returning = Returning.plan(engine, table, null, split);
        List<Column> cols = table.schema().columns();
        SqlNode source = ins.getSource();
        SqlNodeList list = ins.getTargetColumnList();
        if (source.getKind() == SqlKind.VALUES && constants(source)) {
            List<SqlNode> tuples = ((SqlCall) source).getOperandList();
            return insertValues(sql, fingerprint, params, table, targets(table, list, ((SqlCall) tuples.get(0)).operandCount(), source), tuples,
                    returning);
        }
        typeUntyped(table, list, source);
        SqlEngine.Query q = engine.planQuery(source, params, null, null);
        int[] targets = targets(table, list, q.fields().size(), source);
        checkArity(q.fields().size(), targets.length, source);
        List<DatumType> from = q.columns().stream().map(SqlColumn::type).toList();
        for (int i = 0; i < targets.length; i++) {
            assignment(from.get(i), cols.get(targets[i]), source);
        }
        return new Prepared(sql, fingerprint, columns(returning), q.paramTypes(), (values, session) -> engine.sequences().ready(table)
                .then(engine.runQuery(q, values, session.strictReader())).flatMap(found -> SqlTypes.inZone(session.zone().id(), () -> {
                    if (found.rows().isEmpty()) {
                        return Mono.just(none("INSERT", returning));
                    }
                    List<RowDiff> rows = new ArrayList<>();
                    ColumnDefaults.Writing w = new ColumnDefaults.Writing(session.statementTime(), engine.sequences());
                    for (Object[] r : found.rows()) {
                        Object[] row = ColumnDefaults.initial(table, w, targets);
                        for (int i = 0; i < targets.length; i++) {
                            row[targets[i]] = assign(r[i], from.get(i), cols.get(targets[i]));
                        }
                        rows.add(new RowDiff(packed(table, row), 1));
                    }
                    return written(session, table, rows, "INSERT", rows.size(), returning);
                })), true);
    }

    private Prepared insertValues(String sql, String fingerprint, SqlParams params, CatalogEntry.Table table, int[] targets,
            List<SqlNode> tuples, Returning returning) {
        List<Column> cols = table.schema().columns();
        DatumType[] paramTypes = new DatumType[params.count()];
        for (SqlNode tuple : tuples) {
            List<SqlNode> vals = ((SqlCall) tuple).getOperandList();
            checkArity(vals.size(), targets.length, tuple);
            for (int i = 0; i < vals.size(); i++) {
                if (vals.get(i) instanceof SqlDynamicParam p) {
                    paramTypes[params.number(p.getIndex()) - 1] = cols.get(targets[i]).type();
                }
            }
        }
        List<DatumType> pTypes = new ArrayList<>();
        for (DatumType t : paramTypes) {
            pTypes.add(t == null ? DatumType.STRING : t);
        }
        return new Prepared(sql, fingerprint, columns(returning), pTypes, (values, session) -> engine.sequences().ready(table).then(Mono.defer(() -> SqlTypes.inZone(session.zone().id(), () -> {
            List<RowDiff> rows = new ArrayList<>();
            ColumnDefaults.Writing w = new ColumnDefaults.Writing(session.statementTime(), engine.sequences());
            for (SqlNode tuple : tuples) {
                List<SqlNode> vals = ((SqlCall) tuple).getOperandList();
                Object[] row = ColumnDefaults.initial(table, w, targets);
                for (int i = 0; i < vals.size(); i++) {
                    row[targets[i]] = isDefault(vals.get(i)) ? ColumnDefaults.of(table, targets[i], w)
                            : constant(vals.get(i), cols.get(targets[i]).type(), values, params);
                }
                rows.add(new RowDiff(packed(table, row), 1));
            }
            return written(session, table, rows, "INSERT", tuples.size(), returning);
        }))), true);
    }

    /**
     * Gives a quoted literal, NULL, DEFAULT or parameter of an INSERT's query (a VALUES of expressions, the
     * select list of a SELECT) the type of the column it goes to, as PostgreSQL types them; in place.
     */
    static void typeUntyped(CatalogEntry.Table table, SqlNodeList list, SqlNode source) {
        List<Column> cols = table.schema().columns();
        if (source.getKind() == SqlKind.VALUES) {
            List<SqlNode> tuples = ((SqlCall) source).getOperandList();
            int[] columns = targets(table, list, ((SqlCall) tuples.get(0)).operandCount(), source);
            for (SqlNode tuple : tuples) {
                SqlCall row = (SqlCall) tuple;
                checkArity(row.operandCount(), columns.length, tuple);
                for (int i = 0; i < row.operandCount(); i++) {
                    row.setOperand(i, assignable(defaulted(table, columns[i], row.operand(i)), cols.get(columns[i]).type()));
                }
            }
        } else if (source instanceof SqlSelect select && select.getSelectList().stream().noneMatch(WritePlanner::star)) {
            SqlNodeList items = select.getSelectList();
            int[] columns = targets(table, list, items.size(), source);
            for (int i = 0; i < items.size() && i < columns.length; i++) {
                items.set(i, assignable(defaulted(table, columns[i], items.get(i)), cols.get(columns[i]).type()));
            }
        }
    }

    /**
     * The columns an INSERT names, by position in the table; without a list, the first columns in order,
     * as many as the source has values ({@code width}; the others are NULL), as PostgreSQL takes them.
     */
    private static int[] targets(CatalogEntry.Table table, SqlNodeList list, int width, SqlNode source) {
        List<Column> cols = table.schema().columns();
        if (list == null) {
            if (width > cols.size()) {
                throw SqlEngine.at(new SqlException(SqlException.SYNTAX, "INSERT has more expressions than target columns"), source);
            }
            int[] first = new int[width];
            for (int i = 0; i < first.length; i++) {
                first[i] = i;
            }
            return first;
        }
        int[] targets = new int[list.size()];
        for (int i = 0; i < list.size(); i++) {
            SqlIdentifier id = (SqlIdentifier) list.get(i);
            int c = column(table, id);
            for (int j = 0; j < i; j++) {
                if (targets[j] == c) {
                    throw SqlEngine.at(new SqlException(SqlState.DUPLICATE_COLUMN, "column \"" + id.getSimple() + "\" specified more than once"), id);
                }
            }
            targets[i] = c;
        }
        return targets;
    }

    private static boolean isDefault(SqlNode n) {
        return n instanceof SqlBasicCall c && c.getKind() == SqlKind.DEFAULT;
    }

    /** {@code DEFAULT} for column {@code column} as its default (a literal or NULL); any other expression as it is. */
    private static SqlNode defaulted(CatalogEntry.Table table, int column, SqlNode e) {
        return isDefault(e) ? ColumnDefaults.expression(table, column, e.getParserPosition()) : e;
    }

    private static boolean star(SqlNode item) {
        return item instanceof SqlIdentifier id && id.isStar();
    }

    private static void checkArity(int values, int targets, SqlNode at) {
        if (values != targets) {
            throw SqlEngine.at(new SqlException(SqlException.SYNTAX, values > targets ? "INSERT has more expressions than target columns"
                    : "INSERT has more target columns than expressions"), at);
        }
    }

    /** Whether every entry of a VALUES is a literal, a parameter, DEFAULT or a signed number or cast of one ({@link #constant}). */
    private static boolean constants(SqlNode values) {
        for (SqlNode tuple : ((SqlCall) values).getOperandList()) {
            for (SqlNode v : ((SqlCall) tuple).getOperandList()) {
                if (!constant(v)) {
                    return false;
                }
            }
        }
        return true;
    }

    private static boolean constant(SqlNode n) {
        return switch (n) {
            case SqlDynamicParam p -> true;
            case SqlLiteral l -> true;
            case SqlBasicCall c when c.getKind() == SqlKind.DEFAULT -> true;
            case SqlBasicCall c when c.getKind() == SqlKind.MINUS_PREFIX && c.operand(0) instanceof SqlLiteral l
                    && l.getValue() instanceof java.math.BigDecimal -> true;
            case SqlBasicCall c when c.getKind() == SqlKind.CAST && c.operand(1) instanceof SqlDataTypeSpec -> constant(c.operand(0));
            case SqlBasicCall c when c.getOperator().getName().equalsIgnoreCase(PgFunctions.INTERVAL.getName()) -> constant(c.operand(0));
            default -> false;
        };
    }

    /** A VALUES entry: a literal, a parameter, DEFAULT, a negated number or a cast of one, as a value of the column's type. */
    private static Object constant(SqlNode n, DatumType type, List<Object> values, SqlParams params) {
        boolean arrayText = n instanceof SqlDynamicParam || n instanceof SqlLiteral l && (l.getTypeName() == SqlTypeName.NULL || l.getTypeName() == SqlTypeName.CHAR)
                || n instanceof SqlBasicCall c && c.getKind() == SqlKind.DEFAULT;
        if (type.isArray() && !arrayText) {
            // (PostgreSQL's 42804 names the constant's type, which Calcite's parse does not tell apart)
            throw SqlEngine.at(SqlException.notSupported("assigning " + n + " to a column of type " + SqlTypes.pgName(type)), n);
        }
        try {
            return switch (n) {
                case SqlDynamicParam p -> SqlTypes.convert(values.get(params.number(p.getIndex()) - 1), type);
                case SqlLiteral l when l.getTypeName() == SqlTypeName.NULL -> null;
                case SqlLiteral l when l.getValue() instanceof java.math.BigDecimal d -> SqlTypes.convert(
                        type == DatumType.STRING ? d.toPlainString() : (Object) d, type);
                case SqlLiteral l when l.getTypeName() == SqlTypeName.BOOLEAN -> SqlTypes.convert(l.booleanValue(), type);
                case SqlLiteral l when l.getTypeName() == SqlTypeName.CHAR -> SqlTypes.convert(l.getValueAs(String.class), type);
                case org.apache.calcite.sql.SqlUnknownLiteral u when SqlTypes.ofName(u.tag) != null -> SqlTypes.convert(
                        SqlTypes.convert(u.getValue(), SqlTypes.ofName(u.tag)), type);
                case SqlLiteral l when l.getTypeName() == SqlTypeName.DATE -> SqlTypes.convert(
                        java.time.LocalDate.parse(l.getValueAs(org.apache.calcite.util.DateString.class).toString()), type);
                case SqlLiteral l when l.getTypeName() == SqlTypeName.TIMESTAMP -> SqlTypes.convert(
                        SqlTypes.parseTimestamp(l.getValueAs(org.apache.calcite.util.TimestampString.class).toString()), type);
                case SqlLiteral l when l.getTypeName() == SqlTypes.TIMESTAMPTZ -> SqlTypes.convert(new dev.tandem.row.TimestampTz(
                        SqlTypes.parseTimestamp(l.getValueAs(org.apache.calcite.util.TimestampString.class).toString()).micros()), type);
                case SqlBasicCall c when c.getKind() == SqlKind.DEFAULT -> null;
                case SqlBasicCall c when c.getOperator().getName().equalsIgnoreCase(PgFunctions.INTERVAL.getName()) -> SqlTypes.convert(
                        SqlTypes.convert(constant(c.operand(0), DatumType.INTERVAL, values, params), DatumType.INTERVAL), type);
                case SqlBasicCall c when c.getOperator().getName().equalsIgnoreCase(PgFunctions.LOCAL_TIMESTAMPTZ.getName()) -> SqlTypes.convert(
                        constant(c.operand(0), DatumType.TIMESTAMPTZ, values, params), type);
                case SqlBasicCall c when c.getOperator().getName().equalsIgnoreCase(PgFunctions.TIME.getName()) -> SqlTypes.convert(
                        SqlTypes.convert(constant(c.operand(0), DatumType.TIME, values, params), DatumType.TIME), type);
                case SqlBasicCall c when c.getKind() == SqlKind.MINUS_PREFIX && c.operand(0) instanceof SqlLiteral l
                        && l.getValue() instanceof java.math.BigDecimal d -> SqlTypes.convert(d.negate(), type);
                case SqlBasicCall c when c.getKind() == SqlKind.CAST && c.operand(1) instanceof SqlDataTypeSpec spec
                        && spec.getTypeNameSpec() instanceof org.apache.calcite.sql.SqlBasicTypeNameSpec b && b.getTypeName().getSimple().equalsIgnoreCase("char") -> {
                    // an explicit cast to character(n) cuts the value to n characters, as PostgreSQL's does
                    Object v = SqlTypes.convert(constant(c.operand(0), DatumType.STRING, values, params), DatumType.STRING);
                    yield v == null ? null : SqlTypes.convert(BpcharSemantics.cast((String) v, Math.max(b.getPrecision(), 1)), type);
                }
                case SqlBasicCall c when c.getKind() == SqlKind.CAST && c.operand(1) instanceof SqlDataTypeSpec spec -> {
                    // Calcite's parser names double precision DOUBLE
                    String typeName = spec.getTypeName().getSimple();
                    DatumType to = typeName.equalsIgnoreCase("double") ? DatumType.FLOAT64 : SqlTypes.ofName(typeName);
                    if (to == null) {
                        throw SqlException.notSupported("type " + typeName.toLowerCase(Locale.ROOT));
                    }
                    yield SqlTypes.convert(SqlTypes.convert(constant(c.operand(0), to, values, params), to), type);
                }
                default -> throw SqlException.notSupported("an expression in VALUES (only literals and parameters): " + n);
            };
        } catch (SqlException e) {
            throw SqlEngine.at(e, n);
        }
    }

    // ------------------------------------------------------------------ UPDATE

    Prepared update(String sql, String fingerprint) {
        Returning.Split split = Returning.split(sql);
        SqlParams params = SqlParams.of(split.statement());
        List<int[]> defaults = new ArrayList<>();
        SqlUpdate upd = (SqlUpdate) CalcitePlanner.parse(ColumnDefaults.setDefaults(params.text(), defaults));
        CatalogEntry.Table table = table(upd.getTargetTable(), "update");
        Returning returning = Returning.plan(engine, table, upd.getAlias() == null ? null : upd.getAlias().getSimple(), split);
        List<Column> cols = table.schema().columns();
        SqlNodeList targetList = upd.getTargetColumnList();
        for (int i = 0; i < targetList.size(); i++) {
            SqlNode e = upd.getSourceExpressionList().get(i);
            SqlParserPos pos = e.getParserPosition();
            if (e instanceof SqlLiteral l && l.getTypeName() == SqlTypeName.NULL
                    && defaults.stream().anyMatch(lc -> lc[0] == pos.getLineNum() && lc[1] == pos.getColumnNum())) {
                upd.getSourceExpressionList().set(i, SqlStdOperatorTable.DEFAULT.createCall(pos));
            }
        }
        int[] targets = new int[targetList.size()];
        List<SqlNode> select = new ArrayList<>();
        select.add(SqlIdentifier.star(SqlParserPos.ZERO));
        for (int i = 0; i < targets.length; i++) {
            SqlIdentifier id = (SqlIdentifier) targetList.get(i);
            targets[i] = column(table, id);
            for (int j = 0; j < i; j++) {
                if (targets[j] == targets[i]) {
                    throw SqlEngine.at(new SqlException(SqlException.SYNTAX, "multiple assignments to same column \"" + id.getSimple() + "\""), id);
                }
            }
            select.add(assignable(defaulted(table, targets[i], upd.getSourceExpressionList().get(i)), cols.get(targets[i]).type()));
        }
        String alias = upd.getAlias() == null ? "" : " AS " + quoted(upd.getAlias().getSimple());
        SqlSelect query = (SqlSelect) CalcitePlanner.parse("SELECT * FROM " + quoted(table.name()) + alias);
        query.setSelectList(new SqlNodeList(select, SqlParserPos.ZERO));
        query.setWhere(upd.getCondition());
        SqlEngine.Query q = engine.planQuery(query, params, null, null);
        int n = cols.size();
        List<DatumType> from = q.columns().stream().map(SqlColumn::type).toList();
        for (int i = 0; i < targets.length; i++) {
            assignment(from.get(n + i), cols.get(targets[i]), upd.getSourceExpressionList().get(i));
        }
        return new Prepared(sql, fingerprint, columns(returning), q.paramTypes(), (values, session) -> engine.runQuery(q, values,
                session.strictReader()).flatMap(found -> SqlTypes.inZone(session.zone().id(), () -> {
                    if (found.rows().isEmpty()) {
                        return Mono.just(none("UPDATE", returning));
                    }
                    // one write: each old row retracted and its new version inserted, at one timestamp
                    List<RowDiff> rows = new ArrayList<>();
                    for (Object[] r : found.rows()) {
                        Object[] old = Arrays.copyOf(r, n);
                        Object[] updated = old.clone();
                        for (int i = 0; i < targets.length; i++) {
                            updated[targets[i]] = assign(r[n + i], from.get(n + i), cols.get(targets[i]));
                        }
                        rows.add(new RowDiff(Row.pack(table.schema().types(), Arrays.asList(old)), -1));
                        rows.add(new RowDiff(packed(table, updated), 1));
                    }
                    return written(session, table, rows, "UPDATE", found.rows().size(), returning);
                })), true);
    }

    // ------------------------------------------------------------------ DELETE

    Prepared delete(String sql, String fingerprint) {
        Returning.Split split = Returning.split(sql);
        SqlParams params = SqlParams.of(split.statement());
        SqlDelete del = (SqlDelete) CalcitePlanner.parse(params.text());
        if (del.getAlias() != null) {
            throw SqlEngine.at(SqlException.notSupported("an alias in DELETE"), del.getAlias());
        }
        CatalogEntry.Table table = table(del.getTargetTable(), "delete from");
        Returning returning = Returning.plan(engine, table, null, split);
        SqlSelect select = (SqlSelect) CalcitePlanner.parse("SELECT * FROM " + quoted(table.name()));
        select.setWhere(del.getCondition());
        SqlEngine.Query q = engine.planQuery(select, params, null, null);
        return new Prepared(sql, fingerprint, columns(returning), q.paramTypes(), (values, session) -> {
            // the rows to retract, read as of the last acknowledged write
            return engine.runQuery(q, values, session.strictReader()).flatMap(found -> {
                if (found.rows().isEmpty()) {
                    return Mono.just(none("DELETE", returning));
                }
                List<RowDiff> rows = new ArrayList<>();
                for (Object[] r : found.rows()) {
                    rows.add(new RowDiff(Row.pack(table.schema().types(), Arrays.asList(r)), -1));
                }
                return written(session, table, rows, "DELETE", found.rows().size(), returning);
            });
        }, true);
    }

    // ------------------------------------------------------------------ TRUNCATE

    /** {@code TRUNCATE [TABLE] t}: every row of the table retracted in one write, as a {@code DELETE} without a condition. */
    Prepared truncate(String sql, String fingerprint) {
        SqlLexer lex = new SqlLexer(sql);
        lex.expect("truncate");
        lex.accept("table");
        lex.accept("only");
        SqlLexer.Token at = lex.peek();
        String target = lex.name("a table name");
        if (lex.peek().isPunct(",")) {
            throw notSupported(sql, "TRUNCATE of several tables (truncate each on its own)", lex.peek());
        }
        if (lex.accept("restart") || lex.accept("continue")) {
            lex.expect("identity");
        }
        if (lex.peek().is("cascade")) {
            throw notSupported(sql, "TRUNCATE ... CASCADE (Tandem's tables have no foreign keys to cascade to)", lex.peek());
        }
        lex.accept("restrict");
        lex.end();
        int[] lc = SqlLexer.lineColumn(sql, at.offset());
        CatalogEntry e = controller.catalog().stream().filter(x -> x.name().equals(target)).findFirst()
                .orElseThrow(() -> new SqlException(SqlException.UNDEFINED_TABLE, "relation \"" + target + "\" does not exist", lc[0], lc[1]));
        if (!(e instanceof CatalogEntry.Table table)) {
            throw new SqlException(SqlState.WRONG_OBJECT_TYPE, "\"" + target + "\" is not a table", lc[0], lc[1]);
        }
        SqlEngine.Query q = engine.planQuery(CalcitePlanner.parse("SELECT * FROM " + quoted(table.name())), SqlParams.of(""), null, null);
        return new Prepared(sql, fingerprint, null, List.of(), (values, session) -> engine.runQuery(q, values, session.strictReader())
                .flatMap(found -> {
                    if (found.rows().isEmpty()) {
                        return Mono.just(new SqlResult("TRUNCATE TABLE", null, null, 0, null, null));
                    }
                    List<RowDiff> rows = new ArrayList<>();
                    for (Object[] r : found.rows()) {
                        rows.add(new RowDiff(Row.pack(table.schema().types(), Arrays.asList(r)), -1));
                    }
                    return written(session, table, rows, "TRUNCATE TABLE", 0, null);
                }), true);
    }

    private static SqlException notSupported(String sql, String what, SqlLexer.Token at) {
        int[] lc = SqlLexer.lineColumn(sql, at.offset());
        return new SqlException(SqlException.NOT_SUPPORTED, "not supported: " + what, lc[0], lc[1]);
    }

    // ------------------------------------------------------------------ assignment

    /**
     * Makes a statement's rows durable as one write, answering its command tag once they are; inside a
     * transaction block, adds them to the block's writes instead (made durable at COMMIT).
     */
    private Mono<SqlResult> written(SqlSession session, CatalogEntry.Table table, List<RowDiff> rows, String command, long count,
            Returning returning) {
        List<SqlColumn> columns = columns(returning);
        // RETURNING is evaluated before the write: an error in it writes nothing
        List<Object[]> back = returning == null ? null : returning.rows(rows, command.equals("DELETE"), session);
        TransactionBlock block = session.writes();
        if (block != null) {
            block.add(table, rows, controller);
            session.wrote(true);
            return Mono.just(new SqlResult(command, columns, back, count, null, null));
        }
        return controller.write(table.name(), rows).map(ts -> {
            session.wrote(true);
            return new SqlResult(command, columns, back, count, null, ts);
        });
    }

    private static List<SqlColumn> columns(Returning returning) {
        return returning == null ? null : returning.columns();
    }

    /** The answer of a write that changed no row: its tag, and no rows when it has a RETURNING list. */
    private static SqlResult none(String command, Returning returning) {
        return new SqlResult(command, columns(returning), returning == null ? null : List.of(), 0, null, null);
    }

    /**
     * An expression assigned to a column of type {@code to}, written so that it has that type where
     * PostgreSQL would give it the column's: a quoted literal, NULL, DEFAULT and a parameter are cast to
     * it ({@code SET k = '5'}); anything else is left as it is (its type is checked by {@link #assignment}).
     */
    private static SqlNode assignable(SqlNode e, DatumType to) {
        boolean untyped = e instanceof SqlCharStringLiteral || e instanceof SqlDynamicParam
                || e instanceof SqlLiteral l && l.getTypeName() == SqlTypeName.NULL
                || e instanceof SqlBasicCall c && c.getKind() == SqlKind.DEFAULT;
        if (!untyped || to == DatumType.STRING && e instanceof SqlCharStringLiteral) {
            return e;
        }
        SqlNode value = e instanceof SqlBasicCall c && c.getKind() == SqlKind.DEFAULT ? SqlLiteral.createNull(e.getParserPosition()) : e;
        if (to == DatumType.INTERVAL) {
            return PgFunctions.INTERVAL.createCall(e.getParserPosition(), value);
        }
        if (to == DatumType.JSONB) {
            return PgFunctions.JSONB.createCall(e.getParserPosition(), value);
        }
        if (to == DatumType.TIME) {
            return PgFunctions.TIME.createCall(e.getParserPosition(), value);
        }
        if (to == DatumType.BYTEA && e instanceof SqlCharStringLiteral l) {
            return SqlTypes.byteaLiteral(l, e.getParserPosition());
        }
        if (to.isArray()) {
            // PostgreSQL's array text ('{a,b}'), a parameter or NULL, read as the column's array type
            return ArrayFunctions.castCall(value, to.element());
        }
        SqlTypeName type = switch (to) {
            case INT64 -> SqlTypeName.BIGINT;
            case FLOAT64 -> SqlTypeName.DOUBLE;
            case STRING -> SqlTypeName.VARCHAR;
            case BOOL -> SqlTypeName.BOOLEAN;
            case TIMESTAMP -> SqlTypeName.TIMESTAMP;
            case NUMERIC -> SqlTypeName.DECIMAL;
            case DATE -> SqlTypeName.DATE;
            case TIMESTAMPTZ -> SqlTypes.TIMESTAMPTZ;
            case UUID -> SqlTypeName.UUID;
            case BYTEA -> SqlTypeName.VARBINARY;
            case INTERVAL -> throw new IllegalStateException("an interval is assigned by pg_interval");
            case JSONB -> throw new IllegalStateException("a jsonb is assigned by pg_jsonb");
            case TIME -> throw new IllegalStateException("a time is assigned by pg_time");
            case BOOL_ARRAY, INT64_ARRAY, FLOAT64_ARRAY, STRING_ARRAY, TIMESTAMP_ARRAY, NUMERIC_ARRAY, DATE_ARRAY, TIMESTAMPTZ_ARRAY,
                    UUID_ARRAY -> throw new IllegalStateException("an array is assigned by pg_array_cast");
        };
        return SqlStdOperatorTable.CAST.createCall(e.getParserPosition(), value,
                new SqlDataTypeSpec(new SqlBasicTypeNameSpec(type, e.getParserPosition()), e.getParserPosition()));
    }

    /** The types PostgreSQL assigns one to another (a date to a timestamp's column, a timestamp to a date's...). */
    private static final java.util.Set<DatumType> DATETIMES = java.util.EnumSet.of(DatumType.DATE, DatumType.TIMESTAMP, DatumType.TIMESTAMPTZ);

    /** Refuses a value of type {@code from} for {@code column} as PostgreSQL does where it has no assignment cast. */
    private static void assignment(DatumType from, Column column, SqlNode at) {
        DatumType to = column.type();
        if (from != to && from.isArray() && to.isArray()) {
            // PostgreSQL assigns an array element by element with its elements' assignment cast (bigint[] to text[]...)
            assignment(from.element(), to.element(), from, column, at);
            return;
        }
        if (from != to && from.isArray() && to == DatumType.STRING) {
            // PostgreSQL writes the array's text, which Tandem's cast does not
            throw SqlEngine.at(SqlException.notSupported("assigning " + SqlTypes.pgName(from) + " to the text column \"" + column.name() + "\""), at);
        }
        assignment(from, to, from, column, at);
    }

    /**
     * Refuses a value of type {@code from} for a value of type {@code to} (a column's, or its elements' when {@code whole} and
     * the column are arrays) as PostgreSQL does where it has no assignment cast.
     */
    private static void assignment(DatumType from, DatumType to, DatumType whole, Column column, SqlNode at) {
        boolean numeric = (from == DatumType.INT64 || from == DatumType.FLOAT64 || from == DatumType.NUMERIC)
                && (to == DatumType.INT64 || to == DatumType.FLOAT64 || to == DatumType.NUMERIC);
        if (to == DatumType.STRING && (from == DatumType.FLOAT64 || from == DatumType.TIMESTAMP)) {
            // PostgreSQL writes these as text in its own notation, which Tandem's cast does not
            throw SqlEngine.at(SqlException.notSupported("assigning " + SqlTypes.pgName(whole) + " to the " + SqlTypes.pgName(column.type())
                    + " column \"" + column.name() + "\""), at);
        }
        boolean text = to == DatumType.STRING && (from == DatumType.INT64 || from == DatumType.BOOL || from == DatumType.NUMERIC
                || from == DatumType.DATE || from == DatumType.TIMESTAMPTZ || from == DatumType.UUID || from == DatumType.TIME);
        if (to == DatumType.TIME && (from == DatumType.TIMESTAMP || from == DatumType.TIMESTAMPTZ)) {
            throw SqlEngine.at(SqlException.notSupported("assigning " + SqlTypes.pgName(from) + " to the time column \"" + column.name()
                    + "\" (cast it: x::time)"), at);
        }
        boolean datetime = DATETIMES.contains(from) && DATETIMES.contains(to);
        if (from != to && !numeric && !text && !datetime) {
            throw SqlEngine.at(new SqlException(SqlException.DATATYPE_MISMATCH, "column \"" + column.name() + "\" is of type "
                    + SqlTypes.pgName(column.type()) + " but expression is of type " + SqlTypes.pgName(whole)), at);
        }
    }

    /**
     * A value of type {@code from} as a value of {@code column}'s type, as PostgreSQL's assignment casts it:
     * a double rounds to an integer half to even, an integer or boolean is written as text; an array element by element.
     */
    private static Object assign(Object v, DatumType from, Column column) {
        return assign(v, from, column.type());
    }

    private static Object assign(Object v, DatumType from, DatumType to) {
        if (v == null || from == to) {
            return v;
        }
        if (to.isArray()) {
            List<Object> elements = new ArrayList<>();
            for (Object e : ((dev.tandem.row.DatumArray) v).elements()) {
                elements.add(assign(e, from.element(), to.element()));
            }
            return new dev.tandem.row.DatumArray(to.element(), elements);
        }
        if (to == DatumType.STRING || DATETIMES.contains(to)) {
            return SqlTypes.convert(v, to);
        }
        if (to == DatumType.FLOAT64) {
            return ((Number) v).doubleValue();
        }
        if (to == DatumType.NUMERIC) {
            return SqlTypes.convert(v, DatumType.NUMERIC);
        }
        if (v instanceof java.math.BigDecimal n) {
            return SqlTypes.numericToBigint(n);
        }
        double d = (Double) v;
        double r = Math.rint(d);
        if (Double.isNaN(r) || r >= 0x1p63 || r < -0x1p63) {
            throw new SqlException(SqlException.OUT_OF_RANGE, "bigint out of range");
        }
        return (long) r;
    }

    /** The row, packed, once no NOT NULL column of the table is NULL in it (23502). */
    private static Row packed(CatalogEntry.Table table, Object[] row) {
        List<Column> cols = table.schema().columns();
        for (int c = 0; c < row.length; c++) {
            if (row[c] == null && !cols.get(c).nullable()) {
                throw new SqlException(SqlException.NOT_NULL_VIOLATION, "null value in column \"" + cols.get(c).name()
                        + "\" of relation \"" + table.name() + "\" violates not-null constraint");
            }
        }
        return Row.pack(table.schema().types(), Arrays.asList(row));
    }

    private static int column(CatalogEntry.Table table, SqlIdentifier id) {
        String name = id.names.get(id.names.size() - 1);
        int c = table.schema().indexOf(name);
        if (c < 0) {
            throw SqlEngine.at(new SqlException(SqlException.UNDEFINED_COLUMN, "column \"" + name + "\" of relation \"" + table.name()
                    + "\" does not exist"), id);
        }
        return c;
    }

    /** The table a write names; {@code verb} says what the write does, as PostgreSQL's refusal words it. */
    private CatalogEntry.Table table(SqlNode target, String verb) {
        if (!(target instanceof SqlIdentifier id)) {
            throw SqlEngine.at(SqlException.notSupported("this target"), target);
        }
        String name = id.names.get(id.names.size() - 1);
        CatalogEntry e = controller.catalog().stream().filter(x -> x.name().equals(name)).findFirst()
                .orElseThrow(() -> SqlEngine.at(new SqlException(SqlException.UNDEFINED_TABLE, "relation \"" + name + "\" does not exist"), target));
        if (e instanceof CatalogEntry.View) {
            // as PostgreSQL refuses a write to a view without INSTEAD OF triggers
            throw SqlEngine.at(new SqlException(SqlState.OBJECT_NOT_IN_PREREQUISITE_STATE, "cannot " + verb + " view \"" + name + "\"; only tables accept writes"), target);
        }
        if (!(e instanceof CatalogEntry.Table t)) {
            throw SqlEngine.at(new SqlException(SqlState.WRONG_OBJECT_TYPE, "\"" + name + "\" is not a table; only tables accept writes"), target);
        }
        return t;
    }

    private static String quoted(String name) {
        return "\"" + name.replace("\"", "\"\"") + "\"";
    }
}
