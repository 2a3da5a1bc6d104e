package dev.tandem.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.controller.DeclaredType;
import dev.tandem.row.DatumType;
import dev.tandem.sql.SqlColumn;
import dev.tandem.sql.SqlResult;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The SQL API's JSON writes a {@code char(n)} column's values blank-padded to {@code n}, as the wire protocol does; other strings as they are. */
class SqlJsonCharTest {

    @Test
    void charColumnsAreBlankPadded() {
        List<SqlColumn> columns = List.of(new SqlColumn("c", DatumType.STRING, DeclaredType.bpchar(3)), new SqlColumn("t", DatumType.STRING));
        SqlResult r = new SqlResult("SELECT", columns, List.of(new Object[] {"a", "a"}, new Object[] {null, "b "}, new Object[] {"abc", ""}), 3, null, null);
        assertThat(SqlHandler.json(r).get("rows").toString()).isEqualTo("[[\"a  \",\"a\"],[null,\"b \"],[\"abc\",\"\"]]");
        assertThat(Arrays.stream(SqlColumn.output(new Object[] {"é", 1L}, List.of(columns.get(0), new SqlColumn("k", DatumType.INT64)))).toList())
                .containsExactly("é  ", 1L);
    }
}
