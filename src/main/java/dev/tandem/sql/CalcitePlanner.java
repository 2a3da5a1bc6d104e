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

    /** Unions of strings of different lengths are VARCHAR (no blank padding), as in PostgreSQL. */
    private static final RelDataTypeSystem TYPES = new RelDataTypeSystemImpl() {
        @Override
        public boolean shouldConvertRaggedUnionTypesToVarying() {
            return true;
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

    /** Parses one statement (any kind Calcite knows) without validating it. */
    static SqlNode parse(String sql) {
        try {
            return SqlParser.create(sql, PARSER).parseStmt();
        } catch (SqlParseException e) {
            throw parseError(e);
        }
    }

    /** Validates and converts a parsed query against the catalog. */
    static Planned plan(SqlNode parsed, List<CatalogEntry> catalog) {
        Planner planner = Frameworks.getPlanner(config(catalog));
        try {
            planner.parse("VALUES 1"); // the planner validates only after a parse; the statement is parsed already
            SqlNode validated = planner.validate(parsed);
            RelRoot root = planner.rel(validated);
            return new Planned(root, validated);
        } catch (SqlParseException e) {
            throw parseError(e);
        } catch (ValidationException e) {
            throw validationError(e);
        } catch (RelConversionException e) {
            throw new SqlException(SqlException.INTERNAL, "could not plan the query: " + e.getMessage());
        } catch (CalciteContextException e) {
            throw validationError(e);
        } finally {
            planner.close();
        }
    }

    private static FrameworkConfig config(List<CatalogEntry> catalog) {
        SchemaPlus root = CalciteSchema.createRootSchema(false, false).plus();
        for (CatalogEntry e : catalog) {
            if (e instanceof CatalogEntry.Table || e instanceof CatalogEntry.View) {
                root.add(e.name(), new CatalogTable(e.schema()));
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
        return Frameworks.newConfigBuilder()
                .parserConfig(PARSER)
                .defaultSchema(root)
                .typeSystem(TYPES)
                .sqlValidatorConfig(SqlValidator.Config.DEFAULT
                        .withConformance(SqlConformanceEnum.LENIENT)
                        .withIdentifierExpansion(true)
                        // no implicit casts between strings and numbers: PostgreSQL refuses text + 1, and so do we
                        .withTypeCoercionEnabled(false))
                .sqlToRelConverterConfig(SqlToRelConverter.config().withExpand(false))
                .build();
    }

    /** A catalog table or view as Calcite sees it: only its row type. */
    private static final class CatalogTable extends AbstractTable {
        private final Schema schema;

        CatalogTable(Schema schema) {
            this.schema = schema;
        }

        @Override
        public RelDataType getRowType(RelDataTypeFactory f) {
            RelDataTypeFactory.Builder b = f.builder();
            for (Column c : schema.columns()) {
                b.add(c.name(), SqlTypes.calcite(f, c.type(), c.nullable()));
            }
            return b.build();
        }
    }

    static SqlException parseError(SqlParseException e) {
        String msg = e.getMessage() == null ? "syntax error" : e.getMessage();
        int nl = msg.indexOf('\n');
        if (nl > 0) {
            msg = msg.substring(0, nl);
        }
        msg = msg.replaceAll("\\s+at line \\d+, column \\d+\\.?", "");
        int line = e.getPos() == null ? 0 : e.getPos().getLineNum();
        int col = e.getPos() == null ? 0 : e.getPos().getColumnNum();
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
        String state;
        if (msg.matches("(?s)(Object|Table) '.*' not found.*")) {
            state = SqlException.UNDEFINED_TABLE;
        } else if (msg.matches("(?s)Column '.*' not found.*") || msg.matches("(?s)Unknown field.*")) {
            state = SqlException.UNDEFINED_COLUMN;
        } else if (msg.startsWith("No match found for function signature") || msg.startsWith("Cannot apply")) {
            state = SqlException.UNDEFINED_FUNCTION;
        } else if (msg.contains("incompatible") || msg.startsWith("Cannot infer")) {
            state = SqlException.DATATYPE_MISMATCH;
        } else {
            state = "42000";
        }
        return new SqlException(state, msg, ctx == null ? 0 : ctx.getPosLine(), ctx == null ? 0 : ctx.getPosColumn());
    }
}
