package dev.tandem.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A result column without an alias is named as PostgreSQL 15 names it (its FigureColname): by the function of an
 * aggregate with FILTER or of a window function, by the type of a cast, {@code ?column?} for an operator — also where
 * Tandem writes the construct as a function of its own ({@code interval '1 day'}, jsonb's operators, {@code extract},
 * {@code current_date}). Each expected name is PostgreSQL 15's for the same statement.
 */
class ResultColumnNamesTest {

    @TempDir
    Path dir;

    @Test
    void columnsAreNamedAsPostgresNamesThem() {
        Map<String, List<String>> expected = new java.util.LinkedHashMap<>();
        expected.put("SELECT g, count(*) FILTER (WHERE x > 2), row_number() OVER (PARTITION BY g ORDER BY x), sum(x) OVER (),"
                + " string_agg(s, ',' ORDER BY s) FROM f GROUP BY g, x, s", List.of("g", "count", "row_number", "sum", "string_agg"));
        expected.put("SELECT interval '1 day', '2 hours'::interval, extract(year FROM d), date_trunc('day', d), current_date, localtimestamp FROM f",
                List.of("interval", "interval", "extract", "date_trunc", "current_date", "localtimestamp"));
        expected.put("SELECT j -> 'a', j ->> 'a', j @> '{}', '{}'::jsonb, x + 1, -x FROM f", List.of("?column?", "?column?", "?column?", "jsonb",
                "?column?", "?column?"));
        try (SqlStack s = new SqlStack(dir)) {
            s.run("CREATE TABLE f (g bigint, s text, x double precision, d date, j jsonb)", new SqlSession());
            expected.forEach((sql, names) -> assertThat(s.run(sql, new SqlSession()).columns().stream().map(SqlColumn::name)).as(sql)
                    .containsExactlyElementsOf(names));
        }
    }
}
