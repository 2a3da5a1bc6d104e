package dev.tandem.sql;

import dev.tandem.controller.CatalogEntry;
import dev.tandem.row.Column;
import dev.tandem.row.Schema;
import java.util.List;
import org.apache.calcite.avatica.util.Casing;
import org.apache.calcite.avatica.util.Quoting;
import org.apache.calcite.jdbc.CalciteSchema;
import org.apache.calcite.rel.RelRoot;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.runtime.CalciteContextException;
import org.apache.calcite.schema.SchemaPlus;
import org.apache.calcite.schema.impl.AbstractTable;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.parser.SqlParseException;
import org.apache.calcite.sql.parser.SqlParser;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.validate.SqlConformanceEnum;
import org.apache.calcite.sql.validate.SqlValidator;
import org.apache.calcite.sql2rel.SqlToRelConverter;
import org.apache.calcite.tools.FrameworkConfig;
import org.apache.calcite.tools.Frameworks;
import org.apache.calcite.tools.Planner;
import org.apache.calcite.tools.RelConversionException;
import org.apache.calcite.tools.ValidationException;

/**
 * Calcite, configured for PostgreSQL's spelling: unquoted identifiers fold to lower case and are then
 * matched exactly, double quotes quote identifiers, lenient conformance ({@code !=}, {@code LIMIT},
 * {@code GROUP BY 1}). Parses, validates and converts one query against a schema made from the
 * catalog's tables and views, with PostgreSQL's types ({@link PgTypeSystem}) and conversions
 * ({@link PgConvertlets}), after the rewrites and refusals that must come before validation
 * ({@link PgLiteralCasts} among them); errors become {@link SqlException}s with SQLSTATE and line:column
 * ({@link CalciteErrors}).
 */
final class CalcitePlanner {

    static {
        // Calcite's literals are ISO-8859-1 unless told otherwise, and fail on 'Σ': make them Unicode, as
        // PostgreSQL's (UTF8) are. Set before any Calcite class reads its system properties.
        System.setProperty("calcite.default.charset", System.getProperty("calcite.default.charset", "UTF-8"));
        System.setProperty("calcite.default.nationalcharset", System.getProperty("calcite.default.nationalcharset", "UTF-8"));
        System.setProperty("calcite.default.collation.name", System.getProperty("calcite.default.collation.name", "UTF-8$en_US"));
    }

    /**
     * Calcite's lenient dialect but for {@code HAVING}, which reads the input's columns only, as PostgreSQL's does: in
     * {@code SELECT -a AS b, ... AS b FROM t GROUP BY a HAVING sum(b) > 0} the {@code b} summed is {@code t.b}.
     */
    private static final org.apache.calcite.sql.validate.SqlConformance CONFORMANCE =
            new org.apache.calcite.sql.validate.SqlDelegatingConformance(SqlConformanceEnum.LENIENT) {
                @Override
                public boolean isHavingAlias() {
                    return false;
                }
            };

    /** The connection settings Calcite's planner validates with: {@link #CONFORMANCE} (a property can only name one of Calcite's). */
    private static final class Connection extends org.apache.calcite.config.CalciteConnectionConfigImpl {
        Connection() {
            super(properties());
        }

        private static java.util.Properties properties() {
            java.util.Properties p = new java.util.Properties();
            p.setProperty(org.apache.calcite.config.CalciteConnectionProperty.CASE_SENSITIVE.camelName(), "true");
            p.setProperty(org.apache.calcite.config.CalciteConnectionProperty.CONFORMANCE.camelName(), SqlConformanceEnum.LENIENT.name());
            return p;
        }

        @Override
        public org.apache.calcite.sql.validate.SqlConformance conformance() {
            return CONFORMANCE;
        }
    }

    static final SqlParser.Config PARSER = SqlParser.config()
            .withQuoting(Quoting.DOUBLE_QUOTE)
            .withUnquotedCasing(Casing.TO_LOWER)
            .withQuotedCasing(Casing.UNCHANGED)
            .withCaseSensitive(true)
            .withConformance(SqlConformanceEnum.LENIENT);

    private CalcitePlanner() {
    }

    /** A validated query: its relational algebra and validated parse tree. */
    record Planned(RelRoot root, SqlNode validated) {
    }

    /** Parses one statement (any kind Calcite knows, with PostgreSQL's {@code x::type} casts) without validating it. */
    static SqlNode parse(String sql) {
        try {
            return SqlParser.create(SetReturningFunctions.lateralCalls(PgRegexOperators.rewrite(PgJsonbOperators.rewrite(PgCasts.rewrite(
                    DistinctOn.rewrite(SqlLexer.standardQuotes(sql)))))), PARSER).parseStmt();
        } catch (SqlParseException e) {
            throw CalciteErrors.parseError(e);
        }
    }

    /** How many queries Calcite validated and converted (the plan cache's misses): tests count it. */
    static final java.util.concurrent.atomic.AtomicLong PLANS = new java.util.concurrent.atomic.AtomicLong();

    /**
     * A table only a statement sees: a recursive {@code WITH} query's result, read by name from the queries that
     * use it (it hides a catalog table of the same name, as a {@code WITH} query does).
     */
    record WorkTable(String name, List<String> columns, List<dev.tandem.row.DatumType> types,
            List<dev.tandem.controller.DeclaredType> declared) {
        WorkTable {
            columns = List.copyOf(columns);
            types = List.copyOf(types);
            declared = java.util.Collections.unmodifiableList(new java.util.ArrayList<>(declared));
        }
    }

    /** Validates and converts a parsed query against the catalog. */
    static Planned plan(SqlNode parsed, List<CatalogEntry> catalog) {
        return plan(parsed, catalog, List.of());
    }

    /** Validates and converts a parsed query against the catalog and the statement's {@code workTables}. */
    static Planned plan(SqlNode parsed, List<CatalogEntry> catalog, List<WorkTable> workTables) {
        PLANS.incrementAndGet();
        Planner planner = Frameworks.getPlanner(config(catalog, workTables));
        try {
            planner.parse("VALUES 1"); // the planner validates only after a parse; the statement is parsed already
            CommaPrecedence.rewrite(parsed);
            LateralSubqueries.prepare(parsed);
            ValuesNulls.type(parsed);
            ValuesNulls.typeLogical(parsed);
            PgNullif.rewrite(parsed);
            SetReturningFunctions.rewrite(parsed);
            rewriteWindowCalls(parsed);
            PgRejections.check(parsed, catalog);
            ArrayFunctions.arrayParameters(parsed);
            PgLiteralCasts.rewrite(parsed);
            PgDatetimeArithmetic.rewrite(parsed);
            PgUuidComparisons.rewrite(parsed);
            emptyEscapes(parsed);
            NumericLiterals.checkScales(parsed);
            SqlNode validated = planner.validate(parsed);
            RelRoot root = BpcharSemantics.apply(DistinctOn.apply(Decorrelation.apply(converted(planner, validated, catalog, workTables))));
            return new Planned(root, validated);
        } catch (SqlParseException e) {
            throw CalciteErrors.parseError(e);
        } catch (ValidationException e) {
            throw CommaPrecedence.hidden(LateralSubqueries.outerGrouping(CalciteErrors.validationError(e), parsed), parsed);
        } catch (RelConversionException e) {
            throw new SqlException(SqlException.INTERNAL, "could not plan the query: " + e.getMessage());
        } catch (CalciteContextException e) {
            throw CommaPrecedence.hidden(LateralSubqueries.outerGrouping(CalciteErrors.validationError(e), parsed), parsed);
        } catch (RuntimeException e) {
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t instanceof IllegalArgumentException && t.getMessage() != null && t.getMessage().startsWith("Cannot convert ")
                        && t.getMessage().contains("due to overflow")) {
                    // Calcite widens a decimal literal by a digit to compare it, past its 19 digits
                    throw SqlException.notSupported("a decimal literal of 19 or more digits compared with an integer (" + t.getMessage() + ")");
                }
                if (t instanceof UnsupportedOperationException && t.getMessage() != null && t.getMessage().contains("SqlDynamicParam")) {
                    // Calcite converts the array of an unnest in FROM only of constants
                    throw SqlException.notSupported("a parameter inside the array of unnest in FROM (pass the whole array as the parameter)");
                }
            }
            throw e;
        } finally {
            planner.close();
        }
    }

    /**
     * Rewrites, in place, {@code LIKE p ESCAPE ''} (no escape character: every {@code \} is literal) of a
     * quoted pattern as the pattern with each {@code \} doubled and {@code \} as its escape, which means
     * the same: Calcite's simplification fails on an empty escape. Of another pattern it is refused.
     */
    private static void emptyEscapes(SqlNode node) {
        node.accept(new org.apache.calcite.sql.util.SqlBasicVisitor<Void>() {
            @Override
            public Void visit(org.apache.calcite.sql.SqlCall call) {
                if (call.getOperator() instanceof org.apache.calcite.sql.fun.SqlLikeOperator && call.operandCount() == 3
                        && call.operand(2) instanceof org.apache.calcite.sql.SqlCharStringLiteral e && e.getValueAs(String.class).isEmpty()) {
                    if (!(call.operand(1) instanceof org.apache.calcite.sql.SqlCharStringLiteral p)) {
                        SqlException x = SqlException.notSupported("LIKE ... ESCAPE '' with a pattern that is not a quoted literal");
                        throw call.getParserPosition() == null ? x : x.at(call.getParserPosition().getLineNum(), call.getParserPosition().getColumnNum());
                    }
                    call.setOperand(1, org.apache.calcite.sql.SqlLiteral.createCharString(p.getValueAs(String.class).replace("\\", "\\\\"),
                            p.getParserPosition()));
                    call.setOperand(2, org.apache.calcite.sql.SqlLiteral.createCharString("\\", e.getParserPosition()));
                }
                return super.visit(call);
            }
        });
    }

    /**
     * Writes {@code avg(x) OVER w} as {@code sum(x) OVER w / CAST(count(x) OVER w AS numeric)}: PostgreSQL's numeric
     * quotient of an integer or numeric sum, a double's of a double sum, and NULL over no values; a variance or
     * deviation over a window as a {@link WindowVariance}; and {@code rank}, {@code dense_rank}, {@code percent_rank}
     * and {@code cume_dist} over a window without {@code ORDER BY} (every row a peer of every other) as their constant.
     */
    private static void rewriteWindowCalls(SqlNode node) {
        node.accept(new org.apache.calcite.sql.util.SqlBasicVisitor<Void>() {
            @Override
            public Void visit(org.apache.calcite.sql.SqlCall call) {
                for (int i = 0; i < call.operandCount(); i++) {
                    if (call.operand(i) instanceof org.apache.calcite.sql.SqlCall over && windowRewrite(over) != null) {
                        call.setOperand(i, windowRewrite(over));
                    }
                }
                return super.visit(call);
            }

            @Override
            public Void visit(org.apache.calcite.sql.SqlNodeList list) {
                for (int i = 0; i < list.size(); i++) {
                    if (list.get(i) instanceof org.apache.calcite.sql.SqlCall over && windowRewrite(over) != null) {
                        list.set(i, windowRewrite(over));
                    }
                }
                return super.visit(list);
            }
        });
    }

    /** The rewrite of a window call {@link #rewriteWindowCalls} rewrites; null for other calls. */
    private static SqlNode windowRewrite(org.apache.calcite.sql.SqlCall call) {
        if (call.getKind() != org.apache.calcite.sql.SqlKind.OVER || !(call.operand(0) instanceof org.apache.calcite.sql.SqlCall agg)) {
            return null;
        }
        String name = agg.getOperator().getName().toLowerCase(java.util.Locale.ROOT);
        org.apache.calcite.sql.parser.SqlParserPos pos = call.getParserPosition();
        WindowVariance variance = WindowVariance.of(name);
        if (variance != null && agg.getFunctionQuantifier() != null) {
            SqlException e = SqlException.notSupported(name + "(DISTINCT ...) OVER ...");
            throw pos == null ? e : e.at(pos.getLineNum(), pos.getColumnNum());
        }
        if (variance != null) {
            return org.apache.calcite.sql.fun.SqlStdOperatorTable.OVER.createCall(pos, variance.createCall(agg.getParserPosition(),
                    agg.getOperandList()), call.operand(1));
        }
        // a partition key that is not a column could fail to evaluate, which the constant would hide
        if (agg.operandCount() == 0 && call.operand(1) instanceof org.apache.calcite.sql.SqlWindow w && w.getRefName() == null
                && w.getOrderList().isEmpty() && w.getPartitionList().stream().allMatch(k -> k instanceof org.apache.calcite.sql.SqlIdentifier)) {
            String constant = switch (name) {
                case "rank", "dense_rank" -> "BIGINT 1";
                case "percent_rank" -> "DOUBLE 0";
                case "cume_dist" -> "DOUBLE 1";
                default -> null;
            };
            if (constant != null) {
                String[] typed = constant.split(" ");
                return org.apache.calcite.sql.fun.SqlStdOperatorTable.CAST.createCall(pos,
                        org.apache.calcite.sql.SqlLiteral.createExactNumeric(typed[1], pos), new org.apache.calcite.sql.SqlDataTypeSpec(
                                new org.apache.calcite.sql.SqlBasicTypeNameSpec(SqlTypeName.valueOf(typed[0]), pos), pos));
            }
        }
        if (!name.equals("avg") || agg.operandCount() != 1 || agg.getFunctionQuantifier() != null) {
            return null;
        }
        SqlNode x = agg.operand(0);
        SqlNode w = call.operand(1);
        SqlNode sum = org.apache.calcite.sql.fun.SqlStdOperatorTable.OVER.createCall(pos,
                org.apache.calcite.sql.fun.SqlStdOperatorTable.SUM.createCall(agg.getParserPosition(), x), w);
        SqlNode count = org.apache.calcite.sql.fun.SqlStdOperatorTable.OVER.createCall(pos,
                org.apache.calcite.sql.fun.SqlStdOperatorTable.COUNT.createCall(agg.getParserPosition(), x), w);
        SqlNode numeric = new org.apache.calcite.sql.SqlDataTypeSpec(
                new org.apache.calcite.sql.SqlBasicTypeNameSpec(org.apache.calcite.sql.type.SqlTypeName.DECIMAL, pos), pos);
        return org.apache.calcite.sql.fun.SqlStdOperatorTable.DIVIDE.createCall(pos, sum,
                org.apache.calcite.sql.fun.SqlStdOperatorTable.CAST.createCall(pos, count, numeric));
    }

    /**
     * {@code validated} converted to relational algebra. Calcite's simplifier, run on each expression as it is converted,
     * fails on a comparison with NULL it derived itself (an AssertionError: "Comparison with NULL in pulledUpPredicates",
     * of {@code CASE -8 WHEN 86 * CAST(NULL AS REAL) + 97 THEN ...}): such a statement is converted again, validated
     * afresh, without that simplification (Tandem folds NULL constants itself: {@link PgConstantFolding}).
     */
    private static RelRoot converted(Planner planner, SqlNode validated, List<CatalogEntry> catalog, List<WorkTable> workTables)
            throws RelConversionException, ValidationException, SqlParseException {
        try {
            return planner.rel(validated);
        } catch (AssertionError e) {
            if (e.getMessage() == null || !e.getMessage().startsWith("Comparison with NULL in pulledUpPredicates")) {
                throw e;
            }
        }
        Planner plain = Frameworks.getPlanner(Frameworks.newConfigBuilder(config(catalog, workTables))
                .sqlToRelConverterConfig(CONVERTER.withRelBuilderConfigTransform(c -> c.withSimplify(false))).build());
        try {
            plain.parse("VALUES 1");
            return plain.rel(plain.validate(validated));
        } finally {
            plain.close();
        }
    }

    /** How Calcite converts validated statements: IN lists stay comparisons however long (past the threshold Calcite makes them a join with VALUES). */
    private static final SqlToRelConverter.Config CONVERTER = SqlToRelConverter.config().withExpand(false).withInSubQueryThreshold(Integer.MAX_VALUE);

    private static FrameworkConfig config(List<CatalogEntry> catalog, List<WorkTable> workTables) {
        SchemaPlus root = CalciteSchema.createRootSchema(false, false).plus();
        java.util.Set<String> hidden = new java.util.HashSet<>();
        for (WorkTable w : workTables) {
            hidden.add(w.name());
            root.add(w.name(), new WorkTableType(w));
        }
        for (CatalogEntry e : catalog) {
            if ((e instanceof CatalogEntry.Table || e instanceof CatalogEntry.View) && !hidden.contains(e.name())) {
                root.add(e.name(), new CatalogTable(e));
            }
        }
        // PostgreSQL's type names that Calcite does not know, for CAST
        root.add("text", f -> f.createSqlType(SqlTypeName.VARCHAR));
        root.add("int8", f -> f.createSqlType(SqlTypeName.BIGINT));
        root.add("int4", f -> f.createSqlType(SqlTypeName.INTEGER));
        root.add("int2", f -> f.createSqlType(SqlTypeName.SMALLINT));
        root.add("float8", f -> f.createSqlType(SqlTypeName.DOUBLE));
        root.add("float4", f -> f.createSqlType(SqlTypeName.REAL));
        root.add("bool", f -> f.createSqlType(SqlTypeName.BOOLEAN));
        root.add("bytea", f -> f.createSqlType(SqlTypeName.VARBINARY));
        root.add("timestamptz", f -> f.createSqlType(SqlTypes.TIMESTAMPTZ, 6));
        return Frameworks.newConfigBuilder()
                .parserConfig(PARSER)
                // PostgreSQL's functions (ahead of the standard operators of the same names), the standard operators, and ILIKE
                .operatorTable(org.apache.calcite.sql.util.SqlOperatorTables.chain(
                        org.apache.calcite.sql.util.SqlOperatorTables.of(PgDatetimeArithmetic.PLUS, PgDatetimeArithmetic.MINUS,
                                SetReturningFunctions.GENERATE_SERIES, PgNullif.NULLIF), PgFunctions.TABLE, org.apache.calcite.sql.fun.SqlStdOperatorTable.instance(),
                        org.apache.calcite.sql.util.SqlOperatorTables.of(org.apache.calcite.sql.fun.SqlLibraryOperators.ILIKE,
                                org.apache.calcite.sql.fun.SqlLibraryOperators.NOT_ILIKE)))
                .context(org.apache.calcite.plan.Contexts.of(new Connection()))
                .defaultSchema(root)
                .typeSystem(PgTypeSystem.INSTANCE)
                .sqlValidatorConfig(SqlValidator.Config.DEFAULT
                        .withConformance(SqlConformanceEnum.LENIENT)
                        .withIdentifierExpansion(true)
                        // no implicit casts between strings and numbers: PostgreSQL refuses text + 1, and so do we
                        .withTypeCoercionEnabled(false)
                        .withCallRewrite(false))
                .sqlToRelConverterConfig(CONVERTER)
                .convertletTable(PgConvertlets.INSTANCE)
                .build();
    }

    /** The declared type of column {@code c} of a catalog table or view Calcite read, or null. */
    static dev.tandem.controller.DeclaredType declared(org.apache.calcite.plan.RelOptTable table, int c) {
        CatalogTable t = table.unwrap(CatalogTable.class);
        return t == null ? null : switch (t.entry) {
            case CatalogEntry.Table x -> x.declaredType(c);
            case CatalogEntry.View v -> v.declaredType(c);
            default -> null;
        };
    }

    /** A catalog table or view as Calcite sees it: only its row type, its integer and character(n) columns typed as declared. */
    private static final class CatalogTable extends AbstractTable {
        private final CatalogEntry entry;

        CatalogTable(CatalogEntry entry) {
            this.entry = entry;
        }

        @Override
        public RelDataType getRowType(RelDataTypeFactory f) {
            RelDataTypeFactory.Builder b = f.builder();
            List<Column> columns = entry.schema().columns();
            for (int i = 0; i < columns.size(); i++) {
                Column c = columns.get(i);
                dev.tandem.controller.DeclaredType declared = switch (entry) {
                    case CatalogEntry.Table t -> t.declaredType(i);
                    case CatalogEntry.View v -> v.declaredType(i);
                    default -> null;
                };
                b.add(c.name(), SqlTypes.calcite(f, c.type(), declared, c.nullable()));
            }
            return b.build();
        }
    }

    /** A work table as Calcite sees it: its columns, all nullable, typed as the catalog's columns are. */
    private static final class WorkTableType extends AbstractTable {
        private final WorkTable table;

        WorkTableType(WorkTable table) {
            this.table = table;
        }

        @Override
        public RelDataType getRowType(RelDataTypeFactory f) {
            RelDataTypeFactory.Builder b = f.builder();
            for (int i = 0; i < table.columns().size(); i++) {
                b.add(table.columns().get(i), SqlTypes.calcite(f, table.types().get(i), table.declared().get(i), true));
            }
            return b.build();
        }
    }
}
