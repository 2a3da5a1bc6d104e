package dev.tandem.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code a % b} and {@code mod(a, b)} of integers are of the wider of the two types, as PostgreSQL types them (Calcite's
 * take the divisor's); {@code PostgresRemainderTest} compares them with PostgreSQL over the wire.
 */
class RemainderTypesTest {

    @TempDir
    Path dir;

    private static List<String> types(SqlResult r) {
        return r.columns().stream().map(c -> c.declared() == null ? SqlTypes.pgName(c.type()) : c.declared().sqlName()).toList();
    }

    @Test
    void remaindersTakeTheWiderType() {
        try (SqlStack s = new SqlStack(dir)) {
            s.run("CREATE TABLE r (b bigint, i integer, s smallint, n numeric)", new SqlSession());
            s.run("INSERT INTO r VALUES (9000000000, 2147483647, 32767, 7.5)", new SqlSession());
            SqlSession strict = new SqlSession();
            strict.strict(true);
            SqlResult r = s.run("SELECT b % 3, b % i, i % b, mod(b, s), i % s, mod(s, i), s % s, mod(3, b), i % 2::smallint, n % i FROM r", strict);
            assertThat(types(r)).containsExactly("bigint", "bigint", "bigint", "bigint", "integer", "integer", "smallint", "bigint", "integer",
                    "numeric");
            assertThat(r.rows().stream().map(row -> Arrays.stream(row).map(SqlValues::text).toList().toString()).toList())
                    .containsExactly("[0, 410065412, 2147483647, 19178, 1, 32767, 0, 3, 1, 7.5]");
            // a bigint remainder is not held to integer's range
            assertThat(s.run("SELECT (b % i) * 1000 FROM r", strict).rows().get(0)[0]).isEqualTo(410_065_412_000L);
        }
    }
}
