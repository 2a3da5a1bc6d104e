package dev.tandem.sql.catalog;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.calcite.DataContext;
import org.apache.calcite.jdbc.CalciteConnection;
import org.apache.calcite.linq4j.Enumerable;
import org.apache.calcite.linq4j.Linq4j;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.schema.ScannableTable;
import org.apache.calcite.schema.SchemaPlus;
import org.apache.calcite.schema.impl.AbstractTable;
import org.apache.calcite.schema.impl.ScalarFunctionImpl;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * A catalog query compiled by Calcite (its connection, prepared statement and the slot its relations
 * read their rows from), kept idle between runs: planning and code generation cost far more than a
 * run, and a client sends the same few queries again and again. One run uses it at a time.
 */
record CompiledCatalogQuery(String sql, Connection connection, PreparedStatement statement, AtomicReference<PgCatalogData> data) {

    private static final Cache<String, CompiledCatalogQuery> IDLE = Caffeine.newBuilder()
            .maximumSize(128)
            .removalListener((String key, CompiledCatalogQuery c, RemovalCause cause) -> {
                if (c != null && cause != RemovalCause.EXPLICIT) {
                    close(c);
                }
            })
            .build();

    /** The idle compiled query for {@code sql}, taken for one run, or a new one. */
    static CompiledCatalogQuery take(String sql) throws SQLException {
        CompiledCatalogQuery idle = IDLE.asMap().remove(sql);
        if (idle != null) {
            return idle;
        }
        AtomicReference<PgCatalogData> data = new AtomicReference<>();
        Connection c = connect(data);
        try {
            return new CompiledCatalogQuery(sql, c, c.prepareStatement(sql), data);
        } catch (SQLException | RuntimeException | LinkageError e) {
            c.close();
            throw e;
        }
    }

    /** Returns this to the idle ones (or closes it when another is idle already); null, for the caller's variable. */
    CompiledCatalogQuery release() {
        data.set(null);
        if (IDLE.asMap().putIfAbsent(sql, this) != null) {
            close(this);
        }
        return null;
    }

    static void close(CompiledCatalogQuery c) {
        if (c != null) {
            try {
                c.connection().close();
            } catch (SQLException e) {
                // a Calcite connection in memory: nothing to release beyond it
            }
        }
    }

    /**
     * A Calcite connection whose schemas hold the catalog's relations, each reading its rows from what
     * {@code data} holds during a run, and whose functions are those {@link PgCatalogFunctions#FUNCTIONS} lists.
     */
    private static Connection connect(AtomicReference<PgCatalogData> data) throws SQLException {
        Properties info = new Properties();
        info.setProperty("quoting", "DOUBLE_QUOTE");
        info.setProperty("unquotedCasing", "TO_LOWER");
        info.setProperty("quotedCasing", "UNCHANGED");
        info.setProperty("caseSensitive", "true");
        info.setProperty("conformance", "BABEL");
        info.setProperty("fun", "standard,postgresql");
        info.setProperty("timeZone", "UTC");
        Connection c = new org.apache.calcite.jdbc.Driver().connect("jdbc:calcite:", info);
        CalciteConnection cc = c.unwrap(CalciteConnection.class);
        SchemaPlus root = cc.getRootSchema();
        SchemaPlus pgCatalog = root.add("pg_catalog", new org.apache.calcite.schema.impl.AbstractSchema());
        SchemaPlus informationSchema = root.add("information_schema", new org.apache.calcite.schema.impl.AbstractSchema());
        SchemaPlus tandemInternal = root.add(PgCatalogData.TANDEM_INTERNAL, new org.apache.calcite.schema.impl.AbstractSchema());
        for (CatalogRelations.Relation r : CatalogRelations.ALL.values()) {
            SchemaPlus schema = switch (r.schema()) {
                case "pg_catalog" -> pgCatalog;
                case PgCatalogData.TANDEM_INTERNAL -> tandemInternal;
                default -> informationSchema;
            };
            schema.add(r.name(), new RelationTable(r, data));
        }
        for (PgCatalogFunctions.CatalogFunction f : PgCatalogFunctions.FUNCTIONS) {
            for (java.lang.reflect.Method m : f.owner().getMethods()) {
                if (m.getName().equals(f.method())) {
                    pgCatalog.add(f.name(), ScalarFunctionImpl.create(m));
                }
            }
        }
        for (java.lang.reflect.Method m : PgArrayFunctions.class.getMethods()) {
            if (m.getName().equals("generateSeries")) {
                pgCatalog.add("generate_series", org.apache.calcite.schema.impl.TableFunctionImpl.create(m));
            }
        }
        cc.setSchema("pg_catalog");
        return c;
    }

    /** A catalog relation as Calcite scans it. */
    private static final class RelationTable extends AbstractTable implements ScannableTable {
        private final CatalogRelations.Relation relation;
        private final AtomicReference<PgCatalogData> data;

        RelationTable(CatalogRelations.Relation relation, AtomicReference<PgCatalogData> data) {
            this.relation = relation;
            this.data = data;
        }

        @Override
        public RelDataType getRowType(RelDataTypeFactory types) {
            RelDataTypeFactory.Builder b = types.builder();
            for (CatalogRelations.Col c : relation.columns()) {
                b.add(c.name(), types.createTypeWithNullability(sqlType(types, c.type()), true));
            }
            return b.build();
        }

        @Override
        public Enumerable<Object[]> scan(DataContext root) {
            PgCatalogData now = data.get();
            if (now == null) {
                throw new IllegalStateException("a catalog relation scanned outside a run");
            }
            List<Object[]> rows = now.rows(relation);
            for (Object[] r : rows) {
                if (r.length != relation.columns().size()) {
                    throw new IllegalStateException(relation.name() + " has " + relation.columns().size() + " columns, a row " + r.length);
                }
            }
            return Linq4j.asEnumerable(rows);
        }

        private static RelDataType sqlType(RelDataTypeFactory types, String pgType) {
            return switch (pgType) {
                case "oid", "int8", "int4", "int2", "information_schema.cardinal_number" -> types.createSqlType(SqlTypeName.BIGINT);
                case "bool" -> types.createSqlType(SqlTypeName.BOOLEAN);
                case "float4", "float8" -> types.createSqlType(SqlTypeName.DOUBLE);
                case "timestamptz" -> types.createSqlType(SqlTypeName.VARCHAR);
                case "int2vector", "oidvector", "int2[]", "oid[]" -> types.createArrayType(
                        types.createTypeWithNullability(types.createSqlType(SqlTypeName.BIGINT), true), -1);
                case "text[]", "aclitem[]" -> types.createArrayType(
                        types.createTypeWithNullability(types.createSqlType(SqlTypeName.VARCHAR), true), -1);
                default -> types.createSqlType(SqlTypeName.VARCHAR);
            };
        }
    }
}
