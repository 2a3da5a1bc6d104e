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
import org.apache.calcite.rel.type.RelDataTypeSystem;
import org.apache.calcite.rel.type.RelDataTypeSystemImpl;
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
 * catalog's tables and views; errors become {@link SqlException}s with SQLSTATE and line:column.
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
     * PostgreSQL's types where Calcite's defaults differ: unions of strings of different lengths are
     * VARCHAR (no blank padding); timestamps keep microseconds ({@code timestamp} is
     * {@code timestamp(6)}); a constant double cast to an integer rounds half to even, as PostgreSQL's
     * {@code rint} (Calcite truncates; a decimal literal's cast, which rounds half away from zero, is made an
     * integer literal before validation).
     */
    private static final RelDataTypeSystem TYPES = new RelDataTypeSystemImpl() {
        @Override
        public boolean shouldConvertRaggedUnionTypesToVarying() {
            return true;
        }

        @Override
        public int getDefaultPrecision(SqlTypeName typeName) {
            return typeName == SqlTypeName.TIMESTAMP || typeName == SqlTypes.TIMESTAMPTZ ? 6 : super.getDefaultPrecision(typeName);
        }

        @Override
        public int getMaxPrecision(SqlTypeName typeName) {
            return typeName == SqlTypeName.TIMESTAMP || typeName == SqlTypes.TIMESTAMPTZ ? 6 : typeName == SqlTypeName.DECIMAL ? SqlTypes.NUMERIC_PRECISION : super.getMaxPrecision(typeName);
        }

        @Override
        public int getMaxScale(SqlTypeName typeName) {
            return typeName == SqlTypeName.DECIMAL ? SqlTypes.NUMERIC_PRECISION : super.getMaxScale(typeName);
        }

        @Override
        public java.math.RoundingMode roundingMode() {
            return java.math.RoundingMode.HALF_EVEN;
        }

        /**
         * {@code avg} of integers is a fraction, a numeric ({@link RelAggregates}); Calcite's own
         * type (the argument's) would have it drop a cast back to an integer as a no-op.
         */
        @Override
        public org.apache.calcite.rel.type.RelDataType deriveAvgAggType(org.apache.calcite.rel.type.RelDataTypeFactory factory,
                org.apache.calcite.rel.type.RelDataType argumentType) {
            if (SqlTypeName.INT_TYPES.contains(argumentType.getSqlTypeName())) {
                return factory.createTypeWithNullability(factory.createSqlType(SqlTypeName.DECIMAL, SqlTypes.NUMERIC_PRECISION,
                        SqlTypes.NUMERIC_SCALE), argumentType.isNullable());
            }
            return super.deriveAvgAggType(factory, argumentType);
        }

        /** {@code sum} of an {@code integer} or {@code smallint} is a {@code bigint}, as in PostgreSQL (Calcite's: the argument's type). */
        @Override
        public org.apache.calcite.rel.type.RelDataType deriveSumType(org.apache.calcite.rel.type.RelDataTypeFactory factory,
                org.apache.calcite.rel.type.RelDataType argumentType) {
            SqlTypeName n = argumentType.getSqlTypeName();
            if (n == SqlTypeName.INTEGER || n == SqlTypeName.SMALLINT || n == SqlTypeName.TINYINT) {
                return factory.createTypeWithNullability(factory.createSqlType(SqlTypeName.BIGINT), argumentType.isNullable());
            }
            return super.deriveSumType(factory, argumentType);
        }
    };

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
            return SqlParser.create(PgRegexOperators.rewrite(PgJsonbOperators.rewrite(PgCasts.rewrite(DistinctOn.rewrite(SqlLexer.standardQuotes(sql))))), PARSER).parseStmt();
        } catch (SqlParseException e) {
            throw parseError(e);
        }
    }

    /** How many queries Calcite validated and converted (the plan cache's misses): tests count it. */
    static final java.util.concurrent.atomic.AtomicLong PLANS = new java.util.concurrent.atomic.AtomicLong();

    /** Validates and converts a parsed query against the catalog. */
    static Planned plan(SqlNode parsed, List<CatalogEntry> catalog) {
        PLANS.incrementAndGet();
        Planner planner = Frameworks.getPlanner(config(catalog));
        try {
            planner.parse("VALUES 1"); // the planner validates only after a parse; the statement is parsed already
            refuseLateral(parsed);
            refuseWindowAverages(parsed);
            PgRejections.check(parsed, catalog);
            ArrayFunctions.arrayParameters(parsed);
            timestampLiterals(parsed);
            PgDatetimeArithmetic.rewrite(parsed);
            PgUuidComparisons.rewrite(parsed);
            emptyEscapes(parsed);
            NumericLiterals.checkScales(parsed);
            SqlNode validated = planner.validate(parsed);
            RelRoot root = DistinctOn.apply(Decorrelation.apply(planner.rel(validated)));
            return new Planned(root, validated);
        } catch (SqlParseException e) {
            throw parseError(e);
        } catch (ValidationException e) {
            throw validationError(e);
        } catch (RelConversionException e) {
            throw new SqlException(SqlException.INTERNAL, "could not plan the query: " + e.getMessage());
        } catch (CalciteContextException e) {
            throw validationError(e);
        } catch (RuntimeException e) {
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t instanceof IllegalArgumentException && t.getMessage() != null && t.getMessage().startsWith("Cannot convert ")
                        && t.getMessage().contains("due to overflow")) {
                    // Calcite widens a decimal literal by a digit to compare it, past its 19 digits
                    throw SqlException.notSupported("a decimal literal of 19 or more digits compared with an integer (" + t.getMessage() + ")");
                }
            }
            throw e;
        } finally {
            planner.close();
        }
    }

    /**
     * Calcite's {@code *}, but never reading a constant operand that is not a literal as one: Calcite's
     * own asks a constant expression such as {@code 2 / CASE WHEN false THEN 1 END} (NULL once
     * simplified) for its literal value when it works out the monotonicity of a projection over sorted
     * rows, and fails. Such a product is not monotonic as far as planning is concerned.
     */
    static final org.apache.calcite.sql.SqlBinaryOperator MULTIPLY = new org.apache.calcite.sql.fun.SqlMonotonicBinaryOperator("*",
            org.apache.calcite.sql.SqlKind.TIMES, 60, true, org.apache.calcite.sql.type.ReturnTypes.PRODUCT_NULLABLE,
            org.apache.calcite.sql.type.InferTypes.FIRST_KNOWN, org.apache.calcite.sql.type.OperandTypes.MULTIPLY_OPERATOR) {
        @Override
        public org.apache.calcite.sql.validate.SqlMonotonicity getMonotonicity(org.apache.calcite.sql.SqlOperatorBinding call) {
            org.apache.calcite.sql.validate.SqlMonotonicity constant = org.apache.calcite.sql.validate.SqlMonotonicity.CONSTANT;
            boolean c0 = call.getOperandMonotonicity(0) == constant;
            boolean c1 = call.getOperandMonotonicity(1) == constant;
            if (c0 && c1) {
                return constant;
            }
            if (c0 && !call.isOperandLiteral(0, true) || c1 && !call.isOperandLiteral(1, true)) {
                return org.apache.calcite.sql.validate.SqlMonotonicity.NOT_MONOTONIC;
            }
            return super.getMonotonicity(call);
        }
    };

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
     * Refuses {@code LATERAL}: Calcite's planner decorrelates it into joins and grouped aggregates, which
     * drop the rows an aggregate over no rows would answer ({@code LATERAL (SELECT max(x) ... WHERE
     * correlated)} has a row for every outer row in PostgreSQL, NULL where nothing matched).
     */
    /** Averages and variances OVER a window, which Calcite would rewrite into a division it cannot convert. */
    private static final java.util.Set<String> WINDOW_AVERAGES = java.util.Set.of("avg", "stddev", "stddev_pop", "stddev_samp",
            "variance", "var_pop", "var_samp");

    private static void refuseWindowAverages(SqlNode node) {
        node.accept(new org.apache.calcite.sql.util.SqlBasicVisitor<Void>() {
            @Override
            public Void visit(org.apache.calcite.sql.SqlCall call) {
                if (call.getKind() == org.apache.calcite.sql.SqlKind.OVER && call.operand(0) instanceof org.apache.calcite.sql.SqlCall agg) {
                    String name = agg.getOperator().getName().toLowerCase(java.util.Locale.ROOT);
                    if (WINDOW_AVERAGES.contains(name)) {
                        SqlException e = SqlException.notSupported("the window function " + name
                                + " (supported: row_number, rank, dense_rank, lag, lead, count, sum, min, max)");
                        throw call.getParserPosition() == null ? e
                                : e.at(call.getParserPosition().getLineNum(), call.getParserPosition().getColumnNum());
                    }
                }
                return super.visit(call);
            }
        });
    }

    private static void refuseLateral(SqlNode node) {
        node.accept(new org.apache.calcite.sql.util.SqlBasicVisitor<Void>() {
            @Override
            public Void visit(org.apache.calcite.sql.SqlCall call) {
                if (call.getKind() == org.apache.calcite.sql.SqlKind.LATERAL) {
                    SqlException e = SqlException.notSupported("LATERAL (a subquery in FROM that reads the columns of the FROM items before it)");
                    throw call.getParserPosition() == null ? e
                            : e.at(call.getParserPosition().getLineNum(), call.getParserPosition().getColumnNum());
                }
                return super.visit(call);
            }
        });
    }

    /**
     * Replaces, in place, each {@code CAST('...' AS timestamp)} of a quoted literal by the timestamp
     * literal it spells, parsed as PostgreSQL parses it (to microseconds): Calcite would fold the cast to
     * milliseconds.
     */
    private static void timestampLiterals(SqlNode node) {
        switch (node) {
            case org.apache.calcite.sql.SqlNodeList list -> {
                for (int i = 0; i < list.size(); i++) {
                    SqlNode literal = timestampLiteral(list.get(i));
                    if (literal != null) {
                        list.set(i, literal);
                    } else if (list.get(i) != null) {
                        timestampLiterals(list.get(i));
                    }
                }
            }
            case org.apache.calcite.sql.SqlCall call -> {
                List<SqlNode> operands = call.getOperandList();
                for (int i = 0; i < operands.size(); i++) {
                    SqlNode o = operands.get(i);
                    if (o == null) {
                        continue;
                    }
                    SqlNode literal = timestampLiteral(o);
                    if (literal != null) {
                        try {
                            call.setOperand(i, literal);
                            continue;
                        } catch (UnsupportedOperationException e) {
                            // a call whose operands are fixed: the cast stays (and is folded to milliseconds)
                        }
                    }
                    timestampLiterals(o);
                }
            }
            default -> {
            }
        }
    }

    private static SqlNode timestampLiteral(SqlNode n) {
        if (n instanceof org.apache.calcite.sql.SqlUnknownLiteral u && SqlTypes.ofName(u.tag) != null
                && SqlTypes.ofName(u.tag) != dev.tandem.row.DatumType.STRING) {
            // DATE '...', TIMESTAMP '...': read as PostgreSQL reads the cast of the quoted literal
            org.apache.calcite.sql.parser.SqlParserPos pos = u.getParserPosition();
            SqlTypeName type = switch (SqlTypes.ofName(u.tag)) {
                case DATE -> SqlTypeName.DATE;
                case TIMESTAMP -> SqlTypeName.TIMESTAMP;
                case TIMESTAMPTZ -> SqlTypes.TIMESTAMPTZ;
                default -> null;
            };
            if (type != null) {
                org.apache.calcite.sql.SqlCall cast = org.apache.calcite.sql.fun.SqlStdOperatorTable.CAST.createCall(pos,
                        org.apache.calcite.sql.SqlLiteral.createCharString(u.getValue(), pos),
                        new org.apache.calcite.sql.SqlDataTypeSpec(new org.apache.calcite.sql.SqlBasicTypeNameSpec(type, pos), pos));
                SqlNode literal = timestampLiteral(cast);
                return literal != null ? literal : cast;
            }
        }
        if (n instanceof org.apache.calcite.sql.SqlCall c && c.getKind() == org.apache.calcite.sql.SqlKind.CAST
                && c.operand(0) instanceof org.apache.calcite.sql.SqlCharStringLiteral l
                && c.operand(1) instanceof org.apache.calcite.sql.SqlDataTypeSpec spec
                && (SqlTypes.ofName(spec.getTypeName().getSimple()) == dev.tandem.row.DatumType.FLOAT64
                        || spec.getTypeName().getSimple().equalsIgnoreCase("double"))
                && negativeZero(l.getValueAs(String.class))) {
            // -0 is 0 to Tandem (a row packs it as 0), but Calcite would fold CAST('-0' AS float8) = 0 to false
            c.setOperand(0, org.apache.calcite.sql.SqlLiteral.createCharString("0", l.getParserPosition()));
            return null;
        }
        if (n instanceof org.apache.calcite.sql.SqlCall c && c.getKind() == org.apache.calcite.sql.SqlKind.CAST
                && c.operand(1) instanceof org.apache.calcite.sql.SqlDataTypeSpec spec
                && SqlTypes.ofName(spec.getTypeName().getSimple()) == dev.tandem.row.DatumType.INT64) {
            // a decimal literal cast to an integer: PostgreSQL's numeric rounds half away from zero
            java.math.BigDecimal d = decimal(c.operand(0));
            if (d != null) {
                java.math.BigDecimal rounded = d.setScale(0, java.math.RoundingMode.HALF_UP);
                SqlNode literal = org.apache.calcite.sql.SqlLiteral.createExactNumeric(rounded.abs().toPlainString(), c.getParserPosition());
                if (rounded.signum() < 0) {
                    literal = org.apache.calcite.sql.fun.SqlStdOperatorTable.UNARY_MINUS.createCall(c.getParserPosition(), literal);
                }
                c.setOperand(0, literal);
            }
            return null;
        }
        if (n instanceof org.apache.calcite.sql.SqlCall c && c.getKind() == org.apache.calcite.sql.SqlKind.CAST
                && c.operand(1) instanceof org.apache.calcite.sql.SqlDataTypeSpec spec
                && SqlTypes.ofName(spec.getTypeName().getSimple()) == dev.tandem.row.DatumType.NUMERIC) {
            return numericCast(c, spec);
        }
        if (n instanceof org.apache.calcite.sql.SqlCall c && c.getKind() == org.apache.calcite.sql.SqlKind.CAST
                && c.operand(1) instanceof org.apache.calcite.sql.SqlDataTypeSpec spec
                && (SqlTypes.ofName(spec.getTypeName().getSimple()) == dev.tandem.row.DatumType.DATE
                        || SqlTypes.ofName(spec.getTypeName().getSimple()) == dev.tandem.row.DatumType.TIMESTAMPTZ)) {
            return datetimeCast(c, spec);
        }
        if (n instanceof org.apache.calcite.sql.SqlCall c && c.getKind() == org.apache.calcite.sql.SqlKind.CAST
                && c.operand(0) instanceof org.apache.calcite.sql.SqlCharStringLiteral l
                && c.operand(1) instanceof org.apache.calcite.sql.SqlDataTypeSpec spec
                && SqlTypes.ofName(spec.getTypeName().getSimple()) == dev.tandem.row.DatumType.BYTEA) {
            return SqlTypes.byteaLiteral(l, c.getParserPosition());
        }
        if (n instanceof org.apache.calcite.sql.SqlCall c && c.getKind() == org.apache.calcite.sql.SqlKind.CAST
                && c.operand(0) instanceof org.apache.calcite.sql.SqlCharStringLiteral l
                && c.operand(1) instanceof org.apache.calcite.sql.SqlDataTypeSpec spec
                && SqlTypes.ofName(spec.getTypeName().getSimple()) == dev.tandem.row.DatumType.UUID) {
            // read as PostgreSQL reads it (22P02 when it does not), written in the one form Calcite's reading agrees with
            try {
                c.setOperand(0, org.apache.calcite.sql.SqlLiteral.createCharString(
                        dev.tandem.expr.Uuids.parse(l.getValueAs(String.class)).toString(), l.getParserPosition()));
            } catch (dev.tandem.expr.EvalError e) {
                org.apache.calcite.sql.parser.SqlParserPos pos = c.getParserPosition();
                SqlException x = SqlErrors.evaluation(e.getMessage());
                throw pos == null || pos.getLineNum() == 0 ? x : x.at(pos.getLineNum(), pos.getColumnNum());
            }
            return null;
        }
        if (n instanceof org.apache.calcite.sql.SqlCall c && c.getKind() == org.apache.calcite.sql.SqlKind.CAST
                && c.operand(0) instanceof org.apache.calcite.sql.SqlCharStringLiteral l
                && c.operand(1) instanceof org.apache.calcite.sql.SqlDataTypeSpec spec
                && SqlTypes.ofName(spec.getTypeName().getSimple()) == dev.tandem.row.DatumType.TIMESTAMP) {
            dev.tandem.row.Timestamp ts = SqlTypes.parseTimestamp(l.getValueAs(String.class).trim());
            java.time.LocalDateTime t = java.time.LocalDateTime.ofInstant(ts.toInstant(), java.time.ZoneOffset.UTC);
            org.apache.calcite.util.TimestampString s = new org.apache.calcite.util.TimestampString(t.getYear(), t.getMonthValue(),
                    t.getDayOfMonth(), t.getHour(), t.getMinute(), t.getSecond()).withNanos(t.getNano());
            return org.apache.calcite.sql.SqlLiteral.createTimestamp(SqlTypeName.TIMESTAMP, s, 6, c.getParserPosition());
        }
        return null;
    }

    /**
     * A cast of a quoted literal to {@code date} or {@code timestamp with time zone} as the literal PostgreSQL reads
     * it as (22007/22008 when it does not read); a cast of anything else to {@code timestamp with time zone} made
     * one to Calcite's instant type, that of such a column (null: the cast stays).
     */
    private static SqlNode datetimeCast(org.apache.calcite.sql.SqlCall c, org.apache.calcite.sql.SqlDataTypeSpec spec) {
        boolean date = SqlTypes.ofName(spec.getTypeName().getSimple()) == dev.tandem.row.DatumType.DATE;
        org.apache.calcite.sql.parser.SqlParserPos pos = c.getParserPosition();
        if (c.operand(0) instanceof org.apache.calcite.sql.SqlCharStringLiteral l) {
            String text = l.getValueAs(String.class);
            try {
                if (date) {
                    return org.apache.calcite.sql.SqlLiteral.createDate(org.apache.calcite.util.DateString.fromDaysSinceEpoch(
                            Math.toIntExact(dev.tandem.expr.Datetimes.parseDate(text).toEpochDay())), pos);
                }
                long micros = dev.tandem.expr.Datetimes.parseTimestampTz(text).micros();
                java.time.LocalDateTime t = java.time.LocalDateTime.ofInstant(new dev.tandem.row.TimestampTz(micros).toInstant(),
                        java.time.ZoneOffset.UTC);
                org.apache.calcite.util.TimestampString s = new org.apache.calcite.util.TimestampString(t.getYear(), t.getMonthValue(),
                        t.getDayOfMonth(), t.getHour(), t.getMinute(), t.getSecond()).withNanos(t.getNano());
                return org.apache.calcite.sql.SqlLiteral.createTimestamp(SqlTypes.TIMESTAMPTZ, s, 6, pos);
            } catch (dev.tandem.expr.EvalError e) {
                SqlException x = SqlErrors.evaluation(e.getMessage());
                throw pos == null || pos.getLineNum() == 0 ? x : x.at(pos.getLineNum(), pos.getColumnNum());
            }
        }
        if (!date) {
            c.setOperand(1, new org.apache.calcite.sql.SqlDataTypeSpec(new org.apache.calcite.sql.SqlBasicTypeNameSpec(SqlTypes.TIMESTAMPTZ, 6,
                    pos), pos));
        }
        return null;
    }

    /**
     * A cast of a constant to {@code numeric} as the numeric literal PostgreSQL makes of it ({@code '1.2300'::numeric}
     * keeps its four places; Calcite would fold it to its decimal type's scale), rounded to {@code numeric(p, s)}'s
     * scale when one is declared; null to keep the cast. A cast of anything else to {@code numeric(p, s)} is refused.
     */
    private static SqlNode numericCast(org.apache.calcite.sql.SqlCall c, org.apache.calcite.sql.SqlDataTypeSpec spec) {
        int precision = -1;
        int scale = 0;
        if (spec.getTypeNameSpec() instanceof org.apache.calcite.sql.SqlBasicTypeNameSpec b) {
            precision = b.getPrecision();
            scale = Math.max(b.getScale(), 0);
        }
        SqlNode operand = c.operand(0);
        java.math.BigDecimal v = operand instanceof org.apache.calcite.sql.SqlCharStringLiteral l
                ? SqlTypes.numeric(l.getValueAs(String.class)) : exactDecimal(operand);
        if (v == null) {
            if (precision >= 0) {
                // cast to numeric, then fitted to the precision and scale (Calcite's own DECIMAL(p, s) is not PostgreSQL's)
                org.apache.calcite.sql.parser.SqlParserPos pos = c.getParserPosition();
                c.setOperand(1, new org.apache.calcite.sql.SqlDataTypeSpec(new org.apache.calcite.sql.SqlBasicTypeNameSpec(SqlTypeName.DECIMAL, pos), pos));
                return PgFunctions.NUMERIC_FIT.createCall(pos, c, org.apache.calcite.sql.SqlLiteral.createExactNumeric(String.valueOf(precision), pos),
                        org.apache.calcite.sql.SqlLiteral.createExactNumeric(String.valueOf(scale), pos));
            }
            return null;
        }
        if (precision >= 0) {
            v = SqlTypes.fitNumeric(v, precision, scale);
        }
        SqlNode literal = org.apache.calcite.sql.SqlLiteral.createExactNumeric(v.abs().toPlainString(), c.getParserPosition());
        if (v.signum() < 0) {
            literal = org.apache.calcite.sql.fun.SqlStdOperatorTable.UNARY_MINUS.createCall(c.getParserPosition(), literal);
        }
        if (v.scale() > 0) {
            return literal;
        }
        // an integer literal is an integer to Calcite: the cast (to plain numeric) keeps it a numeric
        c.setOperand(0, literal);
        c.setOperand(1, new org.apache.calcite.sql.SqlDataTypeSpec(new org.apache.calcite.sql.SqlBasicTypeNameSpec(SqlTypeName.DECIMAL,
                c.getParserPosition()), c.getParserPosition()));
        return null;
    }

    /** The value of a numeric literal as PostgreSQL's numeric reads it, or its negation, else null. */
    private static java.math.BigDecimal exactDecimal(SqlNode n) {
        if (n instanceof org.apache.calcite.sql.SqlNumericLiteral l) {
            // PostgreSQL reads 1.5e-3 as the numeric 0.0015
            java.math.BigDecimal d = l.getValueAs(java.math.BigDecimal.class);
            return d.scale() < 0 ? d.setScale(0) : d;
        }
        if (n instanceof org.apache.calcite.sql.SqlCall c && c.getKind() == org.apache.calcite.sql.SqlKind.MINUS_PREFIX) {
            java.math.BigDecimal d = exactDecimal(c.operand(0));
            return d == null ? null : d.negate();
        }
        return null;
    }

    private static boolean negativeZero(String text) {
        try {
            double d = Double.parseDouble(text.trim());
            return d == 0.0 && Double.doubleToRawLongBits(d) != 0;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    /** The value of a numeric literal (a numeric in PostgreSQL, with an exponent too) or its negation, else null. */
    private static java.math.BigDecimal decimal(SqlNode n) {
        if (n instanceof org.apache.calcite.sql.SqlNumericLiteral l) {
            return l.getValueAs(java.math.BigDecimal.class);
        }
        if (n instanceof org.apache.calcite.sql.SqlCall c && c.getKind() == org.apache.calcite.sql.SqlKind.MINUS_PREFIX) {
            java.math.BigDecimal d = decimal(c.operand(0));
            return d == null ? null : d.negate();
        }
        return null;
    }

    private static FrameworkConfig config(List<CatalogEntry> catalog) {
        SchemaPlus root = CalciteSchema.createRootSchema(false, false).plus();
        for (CatalogEntry e : catalog) {
            if (e instanceof CatalogEntry.Table || e instanceof CatalogEntry.View) {
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
                        org.apache.calcite.sql.util.SqlOperatorTables.of(PgDatetimeArithmetic.PLUS, PgDatetimeArithmetic.MINUS), PgFunctions.TABLE, org.apache.calcite.sql.fun.SqlStdOperatorTable.instance(),
                        org.apache.calcite.sql.util.SqlOperatorTables.of(org.apache.calcite.sql.fun.SqlLibraryOperators.ILIKE,
                                org.apache.calcite.sql.fun.SqlLibraryOperators.NOT_ILIKE)))
                .defaultSchema(root)
                .typeSystem(TYPES)
                .sqlValidatorConfig(SqlValidator.Config.DEFAULT
                        .withConformance(SqlConformanceEnum.LENIENT)
                        .withIdentifierExpansion(true)
                        // no implicit casts between strings and numbers: PostgreSQL refuses text + 1, and so do we
                        .withTypeCoercionEnabled(false)
                        .withCallRewrite(false))
                // IN lists stay comparisons however long (past the threshold Calcite makes them a join with VALUES)
                .sqlToRelConverterConfig(SqlToRelConverter.config().withExpand(false).withInSubQueryThreshold(Integer.MAX_VALUE))
                .convertletTable(CONVERTLETS)
                .build();
    }

    /**
     * Calcite's conversions, with {@link #MULTIPLY} for Calcite's {@code *}; and a cast to boolean from a number other than an {@code integer} is refused
     * as PostgreSQL refuses it ({@code 42846} "cannot cast type bigint to boolean"; PostgreSQL casts only
     * int4 to boolean): Calcite would make it {@code x <> 0}. A bigint column is refused; an integer column
     * and an integer literal that fits int4 are cast.
     */
    private static final org.apache.calcite.sql2rel.SqlRexConvertletTable CONVERTLETS = call -> {
        org.apache.calcite.sql2rel.SqlRexConvertlet datetime = PgDatetimeArithmetic.convertlet(call);
        if (datetime != null) {
            return datetime;
        }
        org.apache.calcite.sql2rel.SqlRexConvertlet uuid = PgUuidComparisons.convertlet(call);
        if (uuid != null) {
            return uuid;
        }
        org.apache.calcite.sql2rel.SqlRexConvertlet standard = org.apache.calcite.sql2rel.StandardConvertletTable.INSTANCE.get(call);
        if ((call.getKind() == org.apache.calcite.sql.SqlKind.SOME || call.getKind() == org.apache.calcite.sql.SqlKind.ALL) && standard != null
                && !call.operand(1).isA(org.apache.calcite.sql.SqlKind.QUERY)) {
            // x op ANY/ALL (v) of a v that is no array (Calcite reads it as x op v): PostgreSQL wants an array there
            return (cx, quantified) -> {
                SqlNode right = quantified.operand(1) instanceof org.apache.calcite.sql.SqlNodeList l && l.size() == 1 ? l.get(0) : quantified.operand(1);
                if (right instanceof org.apache.calcite.sql.SqlNodeList || cx.getValidator().getValidatedNodeType(right).getSqlTypeName() != SqlTypeName.ARRAY) {
                    SqlException e = new SqlException("42809", "op ANY/ALL (array) requires array on right side");
                    org.apache.calcite.sql.parser.SqlParserPos pos = quantified.getParserPosition();
                    throw pos == null || pos.getLineNum() == 0 ? e : e.at(pos.getLineNum(), pos.getColumnNum());
                }
                return standard.convertCall(cx, quantified);
            };
        }
        if (call.getKind() == org.apache.calcite.sql.SqlKind.TIMES && standard != null) {
            return (cx, times) -> {
                org.apache.calcite.rex.RexNode product = standard.convertCall(cx, times);
                return product instanceof org.apache.calcite.rex.RexCall r && r.getOperator() == org.apache.calcite.sql.fun.SqlStdOperatorTable.MULTIPLY
                        ? cx.getRexBuilder().makeCall(r.getParserPosition(), r.getType(), MULTIPLY, r.getOperands()) : product;
            };
        }
        if (call.getKind() != org.apache.calcite.sql.SqlKind.CAST || standard == null) {
            return standard;
        }
        return (cx, cast) -> {
            // (a cast the validator's coercion added, ARRAY[3::bigint, 4]'s of 4, has no validated type: it is no cast to boolean)
            org.apache.calcite.rel.type.RelDataType to = cx.getValidator().getValidatedNodeTypeIfKnown(cast);
            org.apache.calcite.rel.type.RelDataType from = cx.getValidator().getValidatedNodeTypeIfKnown(cast.operand(0));
            String name = to != null && from != null && to.getSqlTypeName() == SqlTypeName.BOOLEAN ? switch (from.getSqlTypeName()) {
                case BIGINT -> "bigint";
                case SMALLINT, TINYINT -> "smallint";
                case DECIMAL -> "numeric";
                case DOUBLE, FLOAT -> "double precision";
                case REAL -> "real";
                default -> null;
            } : null;
            if (name != null) {
                SqlException e = new SqlException("42846", "cannot cast type " + name + " to boolean");
                throw cast.getParserPosition() == null || cast.getParserPosition().getLineNum() == 0 ? e
                        : e.at(cast.getParserPosition().getLineNum(), cast.getParserPosition().getColumnNum());
            }
            return standard.convertCall(cx, cast);
        };
    };

    /** A catalog table or view as Calcite sees it: only its row type, its integer columns typed as declared. */
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

    /** A Calcite validation message, its SQLSTATE and, when PostgreSQL words it otherwise, PostgreSQL's words ($1... from the pattern). */
    private record Rewrite(java.util.regex.Pattern pattern, String state, String message) {
        Rewrite(String regex, String state, String message) {
            this(java.util.regex.Pattern.compile("(?s)" + regex), state, message);
        }
    }

    /** Calcite's message for a relation it does not know: the name, and the schema it was looked for in. */
    private static final java.util.regex.Pattern MISSING_RELATION =
            java.util.regex.Pattern.compile("(?s)(?:Object|Table) '([^']*)' not found(?: within '([^']*)')?.*");

    private static final List<Rewrite> REWRITES = List.of(
            new Rewrite("(?:Object|Table) '([^']*)' not found(?: within '[^']*')?(; did you mean '[^']*'\\?)?.*", SqlException.UNDEFINED_TABLE,
                    "relation \"$1\" does not exist$2"),
            new Rewrite("Column '([^']*)' not found in any table(; did you mean '[^']*'\\?)?.*", SqlException.UNDEFINED_COLUMN,
                    "column \"$1\" does not exist$2"),
            new Rewrite("Column '([^']*)' not found in table '([^']*)'(; did you mean '[^']*'\\?)?.*", SqlException.UNDEFINED_COLUMN,
                    "column $2.$1 does not exist$3"),
            new Rewrite("Unknown field '([^']*)'.*", SqlException.UNDEFINED_COLUMN, "column \"$1\" does not exist"),
            new Rewrite("Cannot apply '(SUM|AVG)' to arguments of type '[A-Z]*\\(<INTERVAL [^>]*>\\)'.*", SqlException.NOT_SUPPORTED,
                    "not supported: $1 of interval"),
            new Rewrite("Unknown identifier '([^']*)'.*", "42704", "type \"$1\" does not exist"),
            new Rewrite("Cast function cannot convert value of type \\S+ ARRAY.* to type (\\S+).*", SqlException.NOT_SUPPORTED,
                    "not supported: casting an array to $1 (array_to_string writes an array's elements as text)"),
            new Rewrite("Column '([^']*)' is ambiguous.*", "42702", "column reference \"$1\" is ambiguous"),
            new Rewrite("Expression '(.*)' is not being grouped.*", "42803",
                    "column \"$1\" must appear in the GROUP BY clause or be used in an aggregate function"),
            new Rewrite("Aggregate expression is illegal in (.*)", "42803", "aggregate functions are not allowed in $1"),
            new Rewrite("Column count mismatch in (UNION|EXCEPT|INTERSECT).*", SqlException.SYNTAX,
                    "each $1 query must have the same number of columns"),
            new Rewrite("Ordinal out of range.*", "42P10", "ORDER BY or GROUP BY position is not in select list"),
            new Rewrite("Cast function cannot convert value of type (\\S+).* to type (\\S+).*", "42846", "cannot cast type $1 to $2"),
            new Rewrite("Illegal use of 'NULL'.*", SqlException.NOT_SUPPORTED,
                    "not supported: a NULL whose type cannot be inferred here (write CAST(NULL AS type))"),
            new Rewrite("No match found for function signature (.*<(?:VAR)?BINARY>.*|(?i:decode|encode|sha224|sha256|sha384|sha512|get_byte|set_byte"
                    + "|get_bit|set_bit|convert_to|convert_from|bit_count)\\(.*)", SqlException.NOT_SUPPORTED, "not supported: function $1 (bytea)"),
            new Rewrite("No match found for function signature ((?i:array_agg|array_position|array_positions|array_remove|array_replace|array_upper"
                    + "|array_lower|array_dims|array_ndims|array_fill|string_to_array|unnest)\\(.*)", SqlException.NOT_SUPPORTED,
                    "not supported: function $1 (arrays)"),
            new Rewrite("No match found for function signature (.*)", SqlException.UNDEFINED_FUNCTION, "not supported: function $1"),
            new Rewrite("Cannot apply '(IS (NOT )?DISTINCT FROM)' to arguments of type '(<VARIANT> .* <CHAR\\(\\d+\\)>|<CHAR\\(\\d+\\)> .* <VARIANT>)'.*",
                    SqlException.NOT_SUPPORTED, "not supported: $1 of a jsonb and a quoted literal (cast the literal: '...'::jsonb)"),
            new Rewrite("(Cannot apply '.*' to arguments of type '.*')\\. Supported form.*", SqlException.UNDEFINED_FUNCTION, "$1"),
            new Rewrite("Cannot apply.*", SqlException.UNDEFINED_FUNCTION, null),
            new Rewrite("Illegal mixing of types.*|.*incompatible.*|Cannot infer.*|Type mismatch.*", SqlException.DATATYPE_MISMATCH, null));

    static SqlException parseError(SqlParseException e) {
        SqlException exhausted = SqlErrors.exhausted(e);
        if (exhausted != null) {
            return exhausted;
        }
        String msg = e.getMessage() == null ? "syntax error" : e.getMessage();
        int nl = msg.indexOf('\n');
        if (nl > 0) {
            msg = msg.substring(0, nl);
        }
        msg = msg.replaceAll("\\s+at line \\d+, column \\d+\\.?", "");
        int line = e.getPos() == null ? 0 : e.getPos().getLineNum();
        int col = e.getPos() == null ? 0 : e.getPos().getColumnNum();
        java.util.regex.Matcher near = java.util.regex.Pattern.compile("Encountered \"(.*?)\"\\s*").matcher(msg.trim());
        if (near.matches()) {
            String token = near.group(1).replaceAll("\\s+", " ");
            return new SqlException(SqlException.SYNTAX, token.equals("<EOF>") ? "syntax error at end of input"
                    : "syntax error at or near \"" + token + "\"", line, col);
        }
        return new SqlException(SqlException.SYNTAX, "syntax error: " + msg.trim(), line, col);
    }

    private static SqlException validationError(Throwable e) {
        CalciteContextException ctx = null;
        Throwable innermost = e;
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof CalciteContextException c) {
                ctx = c;
            }
            innermost = t;
        }
        String msg = innermost.getMessage() == null ? e.toString() : innermost.getMessage();
        java.util.regex.Matcher missing = MISSING_RELATION.matcher(msg);
        if (missing.matches() && dev.tandem.sql.catalog.CatalogQuery.isCatalogRelation(missing.group(2), missing.group(1))) {
            return new SqlException(SqlException.NOT_SUPPORTED, "not supported: " + (missing.group(2) == null ? "" : missing.group(2) + ".")
                    + missing.group(1) + " here: the catalog's relations (pg_catalog, information_schema, tandem_internal) are read by"
                    + " queries that read only them, not in views, SUBSCRIBE, writes or beside tables",
                    ctx == null ? 0 : ctx.getPosLine(), ctx == null ? 0 : ctx.getPosColumn());
        }
        String state = "42000";
        for (Rewrite r : REWRITES) {
            java.util.regex.Matcher m = r.pattern().matcher(msg);
            if (m.matches()) {
                state = r.state();
                msg = r.message() == null ? msg : m.replaceFirst(r.message());
                break;
            }
        }
        return new SqlException(state, msg, ctx == null ? 0 : ctx.getPosLine(), ctx == null ? 0 : ctx.getPosColumn());
    }
}
