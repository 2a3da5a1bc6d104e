package dev.tandem.sql.catalog;

import dev.tandem.sql.SqlException;
import java.util.List;
import java.util.StringJoiner;

/**
 * PostgreSQL's array functions a catalog query calls ({@code array_to_string}, {@code array_upper},
 * {@code array_lower}, {@code array_length}), the text form of an {@code int2vector}, and {@code generate_series}
 * as a table function, over the one-dimensional arrays the catalog's relations hold.
 */
@org.apache.calcite.linq4j.function.NonDeterministic
public final class PgArrayFunctions {

    private PgArrayFunctions() {
    }

    public static String arrayToString(List<?> array, String separator) {
        if (array == null || separator == null) {
            return null;
        }
        StringJoiner j = new StringJoiner(separator);
        for (Object o : array) {
            if (o != null) {
                j.add(PgCatalogFunctions.text(o));
            }
        }
        return j.toString();
    }

    public static Long arrayUpper(List<?> array, Long dimension) {
        return array == null || array.isEmpty() || dimension == null || dimension != 1 ? null : (long) array.size();
    }

    public static Long arrayLower(List<?> array, Long dimension) {
        return array == null || array.isEmpty() || dimension == null || dimension != 1 ? null : 1L;
    }

    /** An {@code int2vector} or {@code oidvector}'s text form: its elements separated by spaces. */
    public static String int2vectorOut(List<?> vector) {
        if (vector == null) {
            return null;
        }
        StringJoiner j = new StringJoiner(" ");
        vector.forEach(o -> j.add(String.valueOf(o)));
        return j.toString();
    }

    /** {@code generate_series(a, b)}: the integers from a to b, as a one-column table. */
    public static org.apache.calcite.schema.ScannableTable generateSeries(Long from, Long to) {
        return new org.apache.calcite.schema.ScannableTable() {
            @Override
            public org.apache.calcite.linq4j.Enumerable<Object[]> scan(org.apache.calcite.DataContext root) {
                java.util.List<Object[]> rows = new java.util.ArrayList<>();
                if (from != null && to != null) {
                    if (to - from > 1_000_000) {
                        throw SqlException.notSupported("generate_series of more than a million rows in a catalog query");
                    }
                    for (long v = from; v <= to; v++) {
                        rows.add(new Object[] {v});
                    }
                }
                return org.apache.calcite.linq4j.Linq4j.asEnumerable(rows);
            }

            @Override
            public org.apache.calcite.rel.type.RelDataType getRowType(org.apache.calcite.rel.type.RelDataTypeFactory types) {
                return types.builder().add("generate_series", org.apache.calcite.sql.type.SqlTypeName.BIGINT).build();
            }

            @Override
            public org.apache.calcite.schema.Statistic getStatistic() {
                return org.apache.calcite.schema.Statistics.UNKNOWN;
            }

            @Override
            public org.apache.calcite.schema.Schema.TableType getJdbcTableType() {
                return org.apache.calcite.schema.Schema.TableType.TABLE;
            }

            @Override
            public boolean isRolledUp(String column) {
                return false;
            }

            @Override
            public boolean rolledUpColumnValidInsideAgg(String column, org.apache.calcite.sql.SqlCall call, org.apache.calcite.sql.SqlNode parent,
                    org.apache.calcite.config.CalciteConnectionConfig config) {
                return false;
            }
        };
    }
}
